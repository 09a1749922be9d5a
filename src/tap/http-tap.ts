/**
 * `mcp-wire tap --listen PORT --upstream URL`: a reverse proxy on loopback for Streamable HTTP
 * (and the older HTTP+SSE). Method, path, headers (less the hop-by-hop ones) and body go to the
 * upstream as they come; status, headers and body come back the same way, an SSE stream chunk by
 * chunk as the upstream writes it. A copy of each body, capped, is judged on the side: every
 * message with the codec and its session's conversation, every request's headers against its body.
 */
import { createServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import type { AddressInfo } from "node:net";
import type { Writable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { createParser } from "eventsource-parser";
import type { Sender } from "../codec/conversation.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { Linter } from "../lint/lint.js";
import type { Revision } from "../rules/revisions.js";
import { H_SESSION_ID } from "../transport/http/headers.js";
import { checkRequestHeaders } from "./header-checks.js";
import type { TapReport } from "./report.js";

export interface HttpTapOptions {
  /** The server's endpoint; requests keep their own path and query, on its origin. */
  upstream: string;
  report: TapReport;
  /** Port on 127.0.0.1; 0 for any free one. */
  port: number;
  /** Judge by this revision; without it each conversation's revision is read from its messages. */
  revision?: Revision;
  /** Largest body (or SSE event) analysed; the pass-through itself has no limit. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Legacy sessions followed at once; past it the oldest is forgotten. Default 1,000. */
  maxSessions?: number;
}

export interface HttpTap {
  /** What the client should call instead of the upstream: the tap's origin, the upstream's path. */
  readonly url: string;
  /** The revision each conversation was judged by, for the summary. */
  revisions(): string;
  /** Stops listening and ends every open exchange. */
  close(): Promise<void>;
}

/** RFC 9110 §7.6.1: meaningful for one connection only, never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);

/** Raw headers (name, value, name, value…) without the hop-by-hop ones and those `Connection` names. */
function endToEnd(raw: readonly string[], drop: readonly string[] = []): string[] {
  const named = new Set(drop);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const t of raw[i + 1]!.split(",")) named.add(t.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host name of a `Host` header, lower case, without the port. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** A body copy for analysis: kept up to the cap, counted past it. */
class BodyCopy {
  private parts: Buffer[] = [];
  size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.cap) this.parts.push(chunk);
    else this.parts = [];
  }
  line(): Line {
    if (this.size > this.cap) return { bytes: Buffer.alloc(0), crlf: false, overflow: true, size: this.size };
    const bytes = Buffer.concat(this.parts, this.size);
    return { bytes, crlf: false, overflow: false, size: bytes.length };
  }
}

/** The decompressor a body's copy needs before analysis; null: none; undefined: one we cannot undo. */
function decompressor(encoding: string | undefined) {
  const e = (encoding ?? "identity").trim().toLowerCase();
  if (e === "identity" || e === "") return null;
  if (e === "gzip" || e === "x-gzip") return createGunzip();
  if (e === "deflate") return createInflate();
  if (e === "br") return createBrotliDecompress();
  return undefined;
}

/**
 * Feeds a body's copy to `sink` decompressed, chunk by chunk. Returns the function that takes
 * the raw chunks and the one that ends the body; a body we cannot decompress is not analysed.
 */
function analysisStream(encoding: string | undefined, sink: { chunk(b: Buffer): void; end(): void; skip(why: string): void }) {
  const z = decompressor(encoding);
  if (z === undefined) {
    sink.skip(`content-encoding ${JSON.stringify(encoding)} is not one the tap can undo`);
    return { push: () => undefined, end: () => undefined };
  }
  if (z === null) return { push: (b: Buffer) => sink.chunk(b), end: () => sink.end() };
  let failed = false;
  z.on("data", (b: Buffer) => sink.chunk(b));
  z.on("end", () => sink.end());
  z.on("error", (e) => {
    failed = true;
    sink.skip(`the ${encoding} body did not decompress: ${e.message}`);
  });
  return {
    push: (b: Buffer) => {
      if (!failed) z.write(b);
    },
    end: () => {
      if (!failed) z.end();
    },
  };
}

/** How one conversation was judged, for the summary. */
function describe(linter: Linter): string {
  const s = linter.summary;
  return `${s.revision} (${s.revisionSource === "given" ? "as given" : s.revisionSource === "assumed" ? "assumed: no initialize or _meta seen" : `from the ${s.revisionSource}`})`;
}

/**
 * Each legacy session is its own conversation (its ids, its revision); everything without a
 * session (2026-07-28 requests, HTTP+SSE) shares one. Conversations that end, or are forgotten
 * past the cap, leave only a line of the summary behind.
 */
class Conversations {
  private sessionless: Linter;
  private readonly sessions = new Map<string, Linter>();
  /** Conversations that may still see messages, oldest first. */
  private readonly live = new Set<Linter>();
  /** How conversations no longer followed were judged: description → how many. */
  private readonly retired = new Map<string, number>();

  constructor(
    private readonly options: { revision?: Revision; maxLineBytes: number },
    private readonly max: number,
  ) {
    this.sessionless = this.make();
  }

  private make(): Linter {
    const linter = new Linter(this.options.revision ? { revision: this.options.revision, maxLineBytes: this.options.maxLineBytes } : { maxLineBytes: this.options.maxLineBytes });
    this.live.add(linter);
    // initialize exchanges whose answer never came are forgotten with the oldest sessions
    if (this.live.size > 2 * this.max + 2) {
      for (const old of this.live) {
        if (this.live.size <= this.max + 2) break;
        if (old !== this.sessionless && old !== linter && ![...this.sessions.values()].includes(old)) this.retire(old);
      }
    }
    return linter;
  }

  private retire(linter: Linter): void {
    if (!this.live.delete(linter) || linter.summary.messages === 0) return;
    const key = describe(linter);
    this.retired.set(key, (this.retired.get(key) ?? 0) + 1);
  }

  /** The conversation a request belongs to; an `initialize` with no session yet starts a new one. */
  of(sessionId: string | undefined, initialize: boolean): Linter {
    if (sessionId !== undefined) {
      const known = this.sessions.get(sessionId);
      if (known) return known;
      const linter = this.make();
      this.bind(sessionId, linter);
      return linter;
    }
    return initialize ? this.make() : this.sessionless;
  }

  /** The answer to `initialize` named its session (or named none: the conversation goes on without). */
  bind(sessionId: string | undefined, linter: Linter): void {
    if (linter === this.sessionless || this.sessions.get(sessionId ?? "") === linter) return;
    if (sessionId === undefined) {
      this.retire(this.sessionless);
      this.sessionless = linter;
      return;
    }
    if (this.sessions.size >= this.max) {
      const [oldest, old] = this.sessions.entries().next().value as [string, Linter];
      this.sessions.delete(oldest);
      this.retire(old);
    }
    this.sessions.set(sessionId, linter);
  }

  end(sessionId: string): void {
    const linter = this.sessions.get(sessionId);
    if (!linter) return;
    this.sessions.delete(sessionId);
    this.retire(linter);
  }

  /** `revision 2025-11-25 (from the initialize request)`, or how many conversations each way. */
  summary(): string {
    const seen = new Map(this.retired);
    for (const l of this.live) {
      if (l.summary.messages === 0) continue;
      const key = describe(l);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    if (seen.size === 0) return "no conversation";
    const parts = [...seen].map(([k, n]) => (n === 1 ? k : `${k} × ${n}`));
    return `${seen.size === 1 && [...seen.values()][0] === 1 ? "revision" : "conversations judged by revision"} ${parts.join(", ")}`;
  }
}

const isJson = (type: string) => type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") throw new Error(`the upstream must be an http: or https: URL, not ${upstream.protocol}`);
  const secure = upstream.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const cap = options.maxBodyBytes ?? DEFAULT_MAX_BYTES;
  const report = options.report;
  const conversations = new Conversations({ ...(options.revision ? { revision: options.revision } : {}), maxLineBytes: cap }, options.maxSessions ?? 1000);
  const counted: Record<Sender, number> = { client: 0, server: 0 };

  function observe(linter: Linter, from: Sender, line: Line, http: { method: string; path: string; status?: number }, where: string, extra: Defect[] = []): void {
    const no = ++counted[from];
    const r = linter.line(line, from);
    const defects = extra.length > 0 ? r.defects.concat(extra) : r.defects;
    report.message({ from, no, where: `message ${no} (${where})`, line, kind: r.kind, defects, http });
  }

  function proxy(req: IncomingMessage, res: ServerResponse): void {
    // The upstream sees its own Host, not the one sent here, so its defence against DNS
    // rebinding cannot work through the tap: the tap refuses any Host but loopback itself.
    if (!LOOPBACK_HOSTS.has(hostName(req.headers.host ?? ""))) {
      report.note(`${req.method} ${req.url}: refused, Host ${JSON.stringify(req.headers.host ?? "")} is not loopback`);
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end("mcp-wire tap: only loopback Host names are served\n");
      return;
    }
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const sessionId = header(req, H_SESSION_ID);
    const headers = endToEnd(req.rawHeaders, ["host"]);
    headers.push("Host", upstream.host);
    const up = send({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method, path, headers, agent, setHost: false });

    // the request body: forwarded as it comes, judged once complete
    let linter: Linter | undefined;
    let initialize = false;
    const body = new BodyCopy(cap);
    const requestDone = new Promise<void>((resolve) => {
      const copy = analysisStream(header(req, "content-encoding"), {
        chunk: (b) => body.push(b),
        end: () => {
          linter = judgeRequest();
          resolve();
        },
        skip: (why) => {
          report.note(`${method} ${path}: the request body is not analysed: ${why}`);
          resolve();
        },
      });
      pipeThrough(req, up, (b) => copy.push(b), () => copy.end());
      // a body broken off is not judged, but the answers that still come belong somewhere
      req.once("close", () => {
        if (!req.complete) resolve();
      });
    });

    const judgeRequest = (): Linter => {
      const line = body.line();
      let parsed: unknown;
      if (!line.overflow && line.size > 0) {
        try {
          parsed = JSON.parse(line.bytes.toString("utf8"));
        } catch {
          // the codec says what is wrong with it
        }
      }
      initialize = typeof parsed === "object" && parsed !== null && (parsed as { method?: unknown }).method === "initialize";
      const conversation = conversations.of(sessionId, initialize && sessionId === undefined);
      if (line.size === 0 && !line.overflow) return conversation; // GET, DELETE: nothing was sent
      const s = conversation.summary;
      const negotiated = s.revisionSource === "initialize result" ? s.revision : undefined;
      const extra = checkRequestHeaders(parsed, { header: (name) => header(req, name), ...(negotiated ? { negotiated } : {}) });
      observe(conversation, "client", line, { method, path }, `${method} ${path}`, extra);
      return conversation;
    };

    up.on("response", (ures) => {
      const status = ures.statusCode ?? 502;
      res.writeHead(status, ures.statusMessage ?? "", endToEnd(ures.rawHeaders));
      // an SSE client learns at once that its stream is open, before the first event
      res.flushHeaders();
      const type = (ures.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      const exchange = { method, path, status };
      const label = `${method} ${path} → ${status}${type === "text/event-stream" ? " SSE" : ""}`;
      const answerSession = ures.headers[H_SESSION_ID] as string | undefined;
      const conversation = async (): Promise<Linter> => {
        await requestDone;
        const linter_ = linter ?? conversations.of(sessionId, false);
        if (initialize && sessionId === undefined) conversations.bind(answerSession, linter_);
        return linter_;
      };
      if (method === "DELETE" && sessionId !== undefined && status < 300) conversations.end(sessionId);

      let sink: { chunk(b: Buffer): void; end(): void; skip(why: string): void };
      if (type === "text/event-stream") sink = sseSink(conversation, exchange, label);
      else if (isJson(type)) sink = jsonSink(conversation, exchange, label);
      else sink = { chunk: () => undefined, end: () => undefined, skip: () => undefined };
      const copy = analysisStream(ures.headers["content-encoding"], sink);
      pipeThrough(ures, res, (b) => copy.push(b), () => copy.end());
    });

    up.on("error", (e) => {
      report.note(`${method} ${path}: the upstream failed: ${e.message}`);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain; charset=utf-8" }).end(`mcp-wire tap: the upstream ${upstream.origin} failed: ${e.message}\n`);
      else res.destroy();
    });
    // the client went away (a closed SSE stream, a cancelled request): so does the upstream exchange
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    req.on("error", () => up.destroy());
  }

  /** One JSON body from the server: one message (or batch). */
  function jsonSink(conversation: () => Promise<Linter>, exchange: { method: string; path: string; status: number }, label: string) {
    const body = new BodyCopy(cap);
    return {
      chunk: (b: Buffer) => body.push(b),
      end: () => {
        const line = body.line();
        if (line.size === 0 && !line.overflow) return;
        void conversation().then((linter) => observe(linter, "server", line, exchange, label));
      },
      skip: (why: string) => report.note(`${label}: the response body is not analysed: ${why}`),
    };
  }

  /** An SSE stream from the server: each `message` event's data is one message, judged as it arrives. */
  function sseSink(conversation: () => Promise<Linter>, exchange: { method: string; path: string; status: number }, label: string) {
    const text = new TextDecoder();
    // events wait for the request to be judged first, so the conversation sees the request before its answers
    let queue = conversation();
    const judge = (line: Line) => {
      queue = queue.then((linter) => {
        observe(linter, "server", line, exchange, label);
        return linter;
      });
    };
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== undefined && event.event !== "message") return;
        if (event.data.length === 0) return; // a priming event, for resumption
        const bytes = Buffer.from(event.data, "utf8");
        judge({ bytes, crlf: false, overflow: false, size: bytes.length });
      },
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") judge({ bytes: Buffer.alloc(0), crlf: false, overflow: true, size: cap + 1 });
      },
      maxBufferSize: cap,
    });
    return {
      chunk: (b: Buffer) => parser.feed(text.decode(b, { stream: true })),
      end: () => parser.feed(text.decode()),
      skip: (why: string) => report.note(`${label}: the event stream is not analysed: ${why}`),
    };
  }

  const server = createServer(proxy);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`,
    revisions: () => conversations.summary(),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // open SSE streams and idle keep-alive connections would hold close() open
        server.closeAllConnections();
      });
      agent.destroy();
    },
  };
}

/**
 * Copies a body chunk by chunk, pausing only when the destination pushes back, and shows each
 * chunk to `tee`. Ends the destination when the source ends; a source that breaks off breaks the
 * destination off too, so a truncated body is never passed on as a complete one.
 */
function pipeThrough(from: IncomingMessage, to: Writable, tee: (b: Buffer) => void, ended: () => void): void {
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
