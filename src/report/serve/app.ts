/**
 * `report --serve`: the census as a small read-only web application on node:http. Pages and the
 * JSON API are answered from the in-memory model, which reads what a running census stored since
 * the last request at most every REFRESH_MS. Nothing is ever written to the database.
 *
 * Routes: `/` (the index, `?q=&status=&sort=&dir=&page=`), `/server/<id>`, `/api/servers` (the same
 * query), `/api/servers/<id>`, `/badge/<id>.svg`, `/assets/style.css`. docs/report.md describes
 * the fields.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Store } from "../../census/store.js";
import { badge } from "./badge.js";
import { list, listQuery } from "./listing.js";
import { ServeModel, type ServerSummary } from "./model.js";
import { ICON, indexPage, notFoundPage, serverPage, STYLESHEET } from "./pages.js";

/** New attempts are looked for at most this often: a page view costs one indexed query at most. */
const REFRESH_MS = 2_000;

/** Nothing runs, nothing loads from elsewhere: the one stylesheet and the badges, from here. */
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface ServeOptions {
  host?: string;
  port?: number;
  /**
   * Where people reach the pages (a reverse proxy's `https://status.example.com/`): the badge
   * snippets name it instead of the address listened on, and a request that names its host is
   * answered even when listening on loopback. See `publicUrlProblem`.
   */
  publicUrl?: string;
  /** The clock, for tests that place attempts in time. */
  now?: () => number;
}

export interface ReportServer {
  readonly url: string;
  readonly servers: number;
  close(): Promise<void>;
}

/** The API's view of a server: flat, named for programs. */
function apiServer(s: ServerSummary) {
  return {
    id: s.id,
    target: s.target,
    status: s.status,
    detail: s.detail,
    up: s.up,
    uptime24hPct: s.windows["24h"].uptimePct,
    uptime7dPct: s.windows["7d"].uptimePct,
    uptime30dPct: s.windows["30d"].uptimePct,
    p95LatencyMs24h: s.windows["24h"].p95LatencyMs,
    p95LatencyMs7d: s.windows["7d"].p95LatencyMs,
    p95LatencyMs30d: s.windows["30d"].p95LatencyMs,
    attempts24h: s.windows["24h"].attempts,
    attempts30d: s.windows["30d"].attempts,
    lastChecked: s.lastChecked,
    changedInLast24h: s.changedInLast24h,
    serverName: s.serverName,
    serverVersion: s.serverVersion,
    revision: s.revision,
  };
}

const LOOPBACK_NAMES = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The Host a browser sent, without its port; "" when it is no `host[:port]` at all (an IPv6
 * literal with anything after its bracket but a port, such as `[::1]evil.example`).
 */
function hostName(req: IncomingMessage): string {
  const m = /^(\[[0-9a-f:.]*\]|[^:[\]]*)(?::\d*)?$/i.exec(req.headers.host ?? "");
  return m?.[1] ?? "";
}

/**
 * Whether `If-None-Match` names `etag`: `*`, or a list of entity tags compared weakly (a `W/`
 * prefix on either side does not matter), as RFC 9110 §13.1.2 says a GET's must be.
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, "") === opaque);
}

/**
 * Why `url` cannot be the address people reach the pages at, or undefined when it can: an
 * absolute http(s) URL, without credentials (a badge shows it to everyone), a query or a fragment.
 */
export function publicUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `--public-url takes the address people open the pages at, such as https://status.example.com/, not ${JSON.stringify(url)}`;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    return `--public-url takes an http:// or https:// address, not ${JSON.stringify(url)}`;
  if (u.username !== "" || u.password !== "")
    return "--public-url must not carry a user name or password: every badge snippet shows it";
  if (u.search !== "" || u.hash !== "") return "--public-url is where the pages start: no ?query or #fragment";
  return undefined;
}

/** Where a request reached the pages: the public address when one was given, else the Host it named. */
interface Addresses {
  /** Listening on loopback: only a loopback Host (or the public address's) is answered. */
  loopback: boolean;
  /** The public address without its trailing slash, when given. */
  publicBase: string | undefined;
}

class App {
  #refreshing: Promise<void> | undefined;
  #refreshedAt: number;
  readonly #publicHost: string | undefined;

  constructor(
    private readonly model: ServeModel,
    private readonly now: () => number,
    private readonly addresses: Addresses,
  ) {
    this.#refreshedAt = now();
    this.#publicHost = addresses.publicBase && new URL(addresses.publicBase).hostname.toLowerCase();
  }

  /** A Host this server answers: any unless on loopback, where a page on another site could rebind its name. */
  #answers(req: IncomingMessage): boolean {
    if (!this.addresses.loopback) return true;
    const name = hostName(req);
    return LOOPBACK_NAMES.test(name) || (this.#publicHost !== undefined && name.toLowerCase() === this.#publicHost);
  }

  /** The base the badge snippet names, and whether it is this machine's own (loopback) address. */
  #badgeBase(req: IncomingMessage): { base: string; local: boolean } {
    if (this.addresses.publicBase) return { base: this.addresses.publicBase, local: false };
    return { base: `http://${req.headers.host ?? "localhost"}`, local: LOOPBACK_NAMES.test(hostName(req)) };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    // a page on another site that rebinds its name to 127.0.0.1 must not read the census
    if (!this.#answers(req))
      return this.#send(res, 421, "text/plain; charset=utf-8", "This server answers only at a loopback address.\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return this.#send(res, 405, "text/plain; charset=utf-8", "Read only: GET or HEAD.\n");
    }
    await this.#fresh();
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const now = this.now();
    if (path === "/assets/style.css")
      return this.#cached(req, res, "text/css; charset=utf-8", STYLESHEET, "public, max-age=3600");
    if (path === "/assets/icon.svg") return this.#cached(req, res, "image/svg+xml", ICON, "public, max-age=3600");
    if (path === "/" || path === "/api/servers") {
      const all = this.model.servers(now);
      const q = listQuery(url.searchParams);
      const listed = list(all, q);
      if (path === "/") {
        const statuses = [...new Set(all.map((s) => s.status))].sort();
        return this.#send(res, 200, "text/html; charset=utf-8", indexPage(listed, q, all, statuses));
      }
      const body = JSON.stringify({
        servers: listed.servers.map(apiServer),
        total: listed.total,
        page: listed.page,
        pages: listed.pages,
      });
      return this.#cached(req, res, "application/json", body, "no-cache");
    }
    const server = /^\/server\/([0-9a-f]{16})$/.exec(path);
    if (server) {
      const detail = await this.model.server(server[1]!, now);
      if (!detail) return this.#send(res, 404, "text/html; charset=utf-8", notFoundPage());
      return this.#send(res, 200, "text/html; charset=utf-8", serverPage(detail, now, this.#badgeBase(req)));
    }
    const api = /^\/api\/servers\/([0-9a-f]{16})$/.exec(path);
    if (api) {
      const detail = await this.model.server(api[1]!, now);
      if (!detail) return this.#send(res, 404, "application/json", JSON.stringify({ error: "no server with that id" }));
      const body = JSON.stringify({
        ...apiServer(detail.summary),
        latest: {
          class: detail.latest.class,
          detail: detail.latest.detail,
          at: detail.latest.at,
          advice: detail.latest.advice,
          defects: detail.latest.defects,
          auth: detail.latest.auth,
        },
        attempts: detail.samples.map((s) => ({
          at: new Date(s.at).toISOString(),
          class: s.cls,
          elapsedMs: Math.round(s.elapsedMs),
        })),
        changes: detail.changes,
      });
      return this.#cached(req, res, "application/json", body, "no-cache");
    }
    const badgeOf = /^\/badge\/([^/]+)\.svg$/.exec(path);
    if (badgeOf) {
      const s = /^[0-9a-f]{16}$/.test(badgeOf[1]!) ? this.model.summary(badgeOf[1]!, now) : undefined;
      return this.#cached(req, res, "image/svg+xml", badge(s), "public, max-age=60");
    }
    return this.#send(res, 404, "text/html; charset=utf-8", notFoundPage());
  }

  /** Reads new attempts when the last read is older than REFRESH_MS; concurrent requests share one read. */
  async #fresh(): Promise<void> {
    if (this.now() - this.#refreshedAt < REFRESH_MS) return;
    this.#refreshing ??= this.model.refresh().finally(() => {
      this.#refreshedAt = this.now();
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  /** With an ETag of the body: a client that has it gets 304 and no body. */
  #cached(req: IncomingMessage, res: ServerResponse, type: string, body: string, cacheControl: string): void {
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    res.setHeader("ETag", etag);
    res.setHeader("Cache-Control", cacheControl);
    if (noneMatch(req.headers["if-none-match"], etag)) {
      res.writeHead(304).end();
      return;
    }
    this.#send(res, 200, type, body, req.method === "HEAD");
  }

  #send(res: ServerResponse, status: number, type: string, body: string, head = false): void {
    res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
    res.end(head ? undefined : body);
  }
}

/** Loads the last 30 days of `store` and serves them; the store stays open until `close`. */
export async function serveReport(store: Store, options: ServeOptions = {}): Promise<ReportServer> {
  const problem = options.publicUrl === undefined ? undefined : publicUrlProblem(options.publicUrl);
  if (problem) throw new TypeError(problem);
  const now = options.now ?? Date.now;
  const model = await ServeModel.load(store, now());
  const host = options.host ?? "127.0.0.1";
  const loopback = LOOPBACK_NAMES.test(host.includes(":") ? `[${host}]` : host);
  const publicBase = options.publicUrl === undefined ? undefined : new URL(options.publicUrl).href.replace(/\/+$/, "");
  const app = new App(model, now, { loopback, publicBase });
  const server: Server = createServer((req, res) => {
    app.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("The census could not be read.\n");
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    servers: model.servers(now()).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
