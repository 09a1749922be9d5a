/**
 * Which requests the tap serves: one well-formed Host naming loopback, and a target that is a
 * path (or the absolute form, taken as its path). The upstream sees its own Host, not the one
 * sent here, so its defence against DNS rebinding cannot work through the tap: the tap refuses
 * any Host but loopback itself, before anything reaches the upstream.
 */
import type { IncomingMessage } from "node:http";
import { redact } from "../secrets/redact.js";
import { hostName, isLoopbackHost } from "../transport/http/origin.js";

export interface Refusal {
  status: 400 | 403;
  /** For the tap's report. */
  note: string;
  /** For the client. */
  body: string;
}

/** The path to forward `req` to, or why it is refused. */
export function requestTarget(req: IncomingMessage): { path: string } | { refused: Refusal } {
  const refuse = (why: string) => ({
    refused: {
      status: 400 as const,
      note: `${req.method} ${redact(req.url ?? "")}: refused, ${why}`,
      body: `mcp-wire tap: ${why}\n`,
    },
  });
  // RFC 9112 §3.2: one Host, well formed, or 400
  const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "host").length;
  if (hosts > 1) return refuse("more than one Host header");
  let path = req.url ?? "/";
  let host = req.headers.host ?? "";
  if (!path.startsWith("/")) {
    // The absolute form ("POST http://elsewhere/x") is what a client sends a forward proxy; an
    // origin must accept it and take the host from it (RFC 9112 §3.2.2). The tap forwards only
    // to its upstream, so it keeps the path alone, and the host named is checked as Host is.
    let target: URL | undefined;
    try {
      target = /^https?:\/\//i.test(path) ? new URL(path) : undefined;
    } catch {
      // refused below
    }
    if (!target) return refuse(`the request target ${JSON.stringify(path.slice(0, 100))} is not a path`);
    path = `${target.pathname}${target.search}`;
    host = target.host;
  }
  const name = hostName(host);
  if (name === undefined) return refuse(`the Host ${JSON.stringify(host)} is not a host name`);
  if (!isLoopbackHost(name)) {
    return {
      refused: {
        status: 403,
        note: `${req.method} ${redact(path)}: refused, Host ${JSON.stringify(host)} is not loopback`,
        body: "mcp-wire tap: only loopback Host names are served\n",
      },
    };
  }
  return { path };
}
