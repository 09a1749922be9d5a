/**
 * Who may call a Streamable HTTP server: the `Origin` check the transport requires against DNS
 * rebinding (a browser page on another site must not reach a local server), an optional `Host`
 * check, and the CORS headers an allowed cross-origin caller needs.
 */
import type { HttpRequestLike } from "./exchange.js";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
/** A comma-separated list of header names (RFC 9110 tokens). */
const HEADER_LIST = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(\s*,\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/;
const METHODS = "GET, POST, DELETE";
const DEFAULT_ALLOWED_HEADERS = "content-type, accept, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name";
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The host name of a `Host` header (RFC 9110 §7.2: `uri-host [ ":" port ]`), lower case, without
 * the port; undefined when it is not one. A bracketed IPv6 literal ends the name: `[::1].evil`
 * is no host at all, not `[::1]`.
 */
export function hostName(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  let name: string;
  let rest: string;
  if (h.startsWith("[")) {
    const close = h.indexOf("]");
    if (close === -1) return undefined;
    name = h.slice(0, close + 1);
    rest = h.slice(close + 1);
    if (!/^\[[0-9a-f:.]+\]$|^\[v[0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+\]$/.test(name)) return undefined;
  } else {
    const colon = h.indexOf(":");
    name = colon === -1 ? h : h.slice(0, colon);
    rest = colon === -1 ? "" : h.slice(colon);
    // reg-name or IPv4 (RFC 3986 §3.2.2): nothing that could end an authority or start a path
    if (!/^[a-z0-9\-._~!$&'()*+,;=%]+$/.test(name)) return undefined;
  }
  if (rest !== "" && !/^:[0-9]*$/.test(rest)) return undefined;
  return name;
}

/** A host name (as `hostName` gives it) that is this machine's loopback. */
export function isLoopbackHost(name: string): boolean {
  return LOOPBACK.has(name);
}

/** An origin as `URL.origin` spells it ("https://a.example:443/" is "https://a.example"). */
function canonicalOrigin(origin: string): string {
  const o = origin.trim().toLowerCase();
  try {
    return o === "*" ? o : new URL(o).origin;
  } catch {
    return o;
  }
}

export class OriginPolicy {
  private readonly origins: ReadonlySet<string>;
  private readonly hosts: ReadonlySet<string> | undefined;
  /** The last Host header read and its name: a server is called by the same Host again and again. */
  private lastHost: { header: string; name: string | undefined } = { header: "", name: undefined };

  /**
   * `origins`: allowed besides the server's own and loopback ones ("*" for any). `hosts`: the
   * `Host` names accepted (port ignored); undefined accepts any.
   */
  constructor(origins: readonly string[] = [], hosts?: readonly string[]) {
    this.origins = new Set(origins.map(canonicalOrigin));
    this.hosts = hosts ? new Set(hosts.map((h) => hostName(h) ?? h.trim().toLowerCase())) : undefined;
  }

  private hostNameOf(host: string): string | undefined {
    const last = this.lastHost;
    if (last.header === host && host !== "") return last.name;
    const name = hostName(host);
    this.lastHost = { header: host, name };
    return name;
  }

  /**
   * Headers for a request that may call (none, nearly always: the same empty object each time);
   * undefined when it may not. `host` is its Host header.
   */
  headersFor(
    req: HttpRequestLike,
    host: string | undefined = req.header("host"),
  ): Readonly<Record<string, string>> | undefined {
    if (this.hosts) {
      const name = host === undefined ? undefined : this.hostNameOf(host);
      if (name === undefined || !this.hosts.has(name)) return undefined;
    }
    const origin = req.header("origin");
    if (origin === undefined) return NO_HEADERS;
    const allowed = this.allowedOrigin(origin, host);
    if (allowed === undefined) return undefined;
    return {
      "access-control-allow-origin": allowed,
      "access-control-expose-headers": "mcp-session-id",
      vary: "origin",
    };
  }

  /**
   * Why a request's `Host` is malformed, for a 400 (RFC 9112 §3.2: a request with more than one
   * Host line, or an invalid one, gets 400); undefined when it is fine or absent.
   */
  hostProblem(req: HttpRequestLike, host: string | undefined = req.header("host")): string | undefined {
    if (host === undefined) return undefined;
    if (host.includes(",")) return "more than one Host header";
    return this.hostNameOf(host) === undefined
      ? `the Host ${JSON.stringify(host.slice(0, 100))} is not a host name`
      : undefined;
  }

  /** What a CORS preflight of an allowed origin is answered with. */
  preflightHeaders(req: HttpRequestLike): Record<string, string> {
    // the headers asked for are granted as listed (Mcp-Param-* names vary by tool), if they are names at all
    const asked = req.header("access-control-request-headers");
    return {
      "access-control-allow-methods": METHODS,
      "access-control-allow-headers": asked !== undefined && HEADER_LIST.test(asked) ? asked : DEFAULT_ALLOWED_HEADERS,
      "access-control-max-age": "600",
    };
  }

  /** The origin as CORS should name it when it may call, else undefined. */
  private allowedOrigin(origin: string, host: string | undefined): string | undefined {
    const o = origin.trim().toLowerCase();
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      return undefined; // "null" (sandboxed pages, file:) and anything unreadable
    }
    // echoed as the URL parser rebuilt it, never as the client wrote it
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return this.origins.has("*") || this.origins.has(o) ? url.origin : undefined;
    if (this.origins.has("*") || this.origins.has(url.origin)) return url.origin;
    if (host !== undefined && url.host === host.trim().toLowerCase()) return url.origin; // same origin
    return LOOPBACK.has(url.hostname) ? url.origin : undefined;
  }
}
