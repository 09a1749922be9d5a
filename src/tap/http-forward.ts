/**
 * The tap's pass-through over HTTP: the upstream it forwards to, the headers that go on (less
 * the hop-by-hop ones), and the copy of a body chunk by chunk as it comes, with back-pressure.
 */
import { request as httpRequest, Agent as HttpAgent, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import type { Writable } from "node:stream";

/** RFC 9110 §7.6.1: meaningful for one connection only, never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Raw headers (name, value, name, value…) without the hop-by-hop ones and those `Connection` names. */
export function endToEnd(raw: readonly string[], drop: readonly string[] = []): string[] {
  const named = new Set(drop);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection")
      for (const t of raw[i + 1]!.split(",")) named.add(t.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** One request header's value, several lines of it joined as RFC 9110 §5.3 allows. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The server the tap stands in front of: one origin, over kept-alive connections. */
export class Upstream {
  readonly url: URL;
  private readonly send: typeof httpRequest;
  private readonly agent: HttpAgent;
  /** userinfo in the upstream URL is sent as fetch and curl send it: Basic credentials on every request */
  private readonly basic: string | undefined;

  constructor(url: string) {
    this.url = new URL(url);
    const { protocol, username, password } = this.url;
    if (protocol !== "http:" && protocol !== "https:")
      throw new Error(`the upstream must be an http: or https: URL, not ${protocol}`);
    const secure = protocol === "https:";
    this.send = secure ? httpsRequest : httpRequest;
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.basic =
      username || password
        ? `Basic ${Buffer.from(`${decodeURIComponent(username)}:${decodeURIComponent(password)}`).toString("base64")}`
        : undefined;
  }

  /** `req` as the upstream should get it: on `path` of its origin, with its own Host. */
  request(req: IncomingMessage, method: string, path: string): ClientRequest {
    const headers = endToEnd(req.rawHeaders, ["host"]);
    headers.push("Host", this.url.host);
    if (this.basic && req.headers.authorization === undefined) headers.push("Authorization", this.basic);
    const { protocol, hostname, port } = this.url;
    return this.send({ protocol, hostname, port, method, path, headers, agent: this.agent, setHost: false });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Copies a body chunk by chunk, pausing only when the destination pushes back, and shows each
 * chunk to `tee`. Ends the destination when the source ends; a source that breaks off breaks the
 * destination off too, so a truncated body is never passed on as a complete one.
 */
export function pipeThrough(from: IncomingMessage, to: Writable, tee: (b: Buffer) => void, ended: () => void): void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    from.resume();
  };
  from.on("data", (chunk: Buffer) => {
    if (!to.destroyed && !to.write(chunk) && !waiting) {
      waiting = true;
      from.pause();
      to.once("drain", resume);
    }
    tee(chunk);
  });
  from.once("end", () => {
    if (!to.destroyed) to.end();
    ended();
  });
  from.once("close", () => {
    if (!from.complete) to.destroy();
  });
  from.once("error", () => to.destroy());
  to.once("close", () => {
    if (waiting) resume();
  });
}
