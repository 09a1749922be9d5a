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
import { BoundedMap } from "../codec/bounded.js";
import type { Sender } from "../codec/conversation.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { parseJson } from "../codec/parse.js";
import { Linter, type HttpContext } from "../lint/lint.js";
import type { Revision } from "../rules/revisions.js";
import { H_PROTOCOL_VERSION, H_SESSION_ID } from "../transport/http/headers.js";
import { hostName, isLoopbackHost } from "../transport/http/origin.js";
import { redact } from "../secrets/redact.js";
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
  /** Validate each message against its revision's official schema.json (`schema_invalid`). Default true. */
  schema?: boolean;
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

/**
 * One conversation as the protocol makes one over HTTP: a legacy session (`Mcp-Session-Id`), an
 * HTTP+SSE session (the `endpoint` event's), or else a single HTTP exchange. Its messages are
 * judged one after another through `queue`, so answers arriving on another stream (an HTTP+SSE
 * GET, a session's standalone stream) are judged after the requests POSTed before them.
 */
interface Thread {
  readonly id: string;
  queue: Promise<void>;
  /** Bound to a session: it outlives the exchange that opened it. */
  bound: boolean;
}

/** Where a body's copy goes for analysis; `gone`: the stream broke off before its end. */
interface Sink {
  chunk(b: Buffer): void;
  end(): void;
  skip(why: string): void;
  gone?(): void;
}
const IGNORED: Sink = { chunk: () => undefined, end: () => undefined, skip: () => undefined };

/** How long the answers of a conversation wait for a request body still arriving, before going on without it. */
const BODY_WAIT_MS = 10_000;

/** A URL or path for printing and logging: its secrets (a userinfo password, secret-looking query values) hidden. */
export function shown(text: string): string {
  return redact(text);
}

const isJson = (type: string) => type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") throw new Error(`the upstream must be an http: or https: URL, not ${upstream.protocol}`);
  const secure = upstream.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  // userinfo in the upstream URL is sent as fetch and curl send it: Basic credentials on every request
  const basic = upstream.username || upstream.password ? `Basic ${Buffer.from(`${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`).toString("base64")}` : undefined;
  const cap = options.maxBodyBytes ?? DEFAULT_MAX_BYTES;
  const report = options.report;
  const linter = new Linter({ ...(options.revision ? { revision: options.revision } : {}), maxLineBytes: cap, schema: options.schema ?? true });
  const counted: Record<Sender, number> = { client: 0, server: 0 };
  const maxSessions = options.maxSessions ?? 1000;
  let threads = 0;
  let exchanges = 0;
  const end = (t: Thread) => void (t.queue = t.queue.then(() => linter.end(t.id)));
  /** Legacy sessions by `Mcp-Session-Id`; HTTP+SSE sessions by the endpoint's `sessionId` (or its path). */
  const sessions = new BoundedMap<string, Thread>(maxSessions, (_, t) => end(t));
  const sseSessions = new BoundedMap<string, Thread>(maxSessions, (_, t) => end(t));
  const thread = (): Thread => ({ id: `c${++threads}`, queue: Promise.resolve(), bound: false });

  function observe(t: Thread, from: Sender, line: Line, http: HttpContext, where: string, extra: Defect[] = []): void {
    const no = ++counted[from];
    const r = linter.line(line, { from, conversation: t.id, http });
    const defects = extra.length > 0 ? r.defects.concat(extra) : r.defects;
    report.message({ from, no, where: `message ${no} (${where})`, line, kind: r.kind, defects, http, conversation: t.id });
  }

  /** Runs `task` in the conversation's order. */
  function inOrder(t: Thread, task: () => void | Promise<void>): void {
    t.queue = t.queue.then(task).catch((e: unknown) => report.note(`the analysis failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** The HTTP+SSE session a POST belongs to, by its `sessionId` query or its whole path. */
  function sseThread(path: string): Thread | undefined {
    const url = new URL(path, "http://tap.invalid");
    const id = url.searchParams.get("sessionId");
    return (id !== null ? sseSessions.get(`id:${id}`) : undefined) ?? sseSessions.get(`path:${url.pathname}${url.search}`);
  }

  function proxy(req: IncomingMessage, res: ServerResponse): void {
    const refuse = (status: number, why: string) => {
      report.note(`${req.method} ${shown(req.url ?? "")}: refused, ${why}`);
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`mcp-wire tap: ${why}\n`);
    };
    // RFC 9112 §3.2: one Host, well formed, or 400
    const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "host").length;
    if (hosts > 1) return refuse(400, "more than one Host header");
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
      if (!target) return refuse(400, `the request target ${JSON.stringify(path.slice(0, 100))} is not a path`);
      path = `${target.pathname}${target.search}`;
      host = target.host;
    }
    const name = hostName(host);
    if (name === undefined) return refuse(400, `the Host ${JSON.stringify(host)} is not a host name`);
    // The upstream sees its own Host, not the one sent here, so its defence against DNS
    // rebinding cannot work through the tap: the tap refuses any Host but loopback itself.
    if (!isLoopbackHost(name)) {
      report.note(`${req.method} ${shown(path)}: refused, Host ${JSON.stringify(host)} is not loopback`);
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end("mcp-wire tap: only loopback Host names are served\n");
      return;
    }
    const method = req.method ?? "GET";
    const sessionId = header(req, H_SESSION_ID);
    const exchange = ++exchanges;
    const protocolVersion = header(req, H_PROTOCOL_VERSION);
    const http = (status?: number): HttpContext => ({ method, path: shown(path), ...(status !== undefined ? { status } : {}), exchange, ...(protocolVersion !== undefined ? { protocolVersion } : {}) });

    // the conversation: the session named, else the HTTP+SSE session this POST is for, else this exchange alone
    let conv: Thread | undefined;
    if (sessionId !== undefined) {
      conv = sessions.get(sessionId);
      if (!conv) {
        conv = thread();
        conv.bound = true;
        sessions.set(sessionId, conv);
      }
    } else {
      conv = sseThread(path);
    }
    // a POST to an HTTP+SSE session's endpoint is not Streamable HTTP: its header rules do not apply
    const streamable = conv === undefined || sessionId !== undefined;
    const t = conv ?? thread();

    const headers = endToEnd(req.rawHeaders, ["host"]);
    headers.push("Host", upstream.host);
    if (basic && req.headers.authorization === undefined) headers.push("Authorization", basic);
    const up = send({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method, path, headers, agent, setHost: false });

    // the request body: forwarded as it comes, judged once complete, in its conversation's order
    let initialize = false;
    const body = new BodyCopy(cap);
    let bodyDone!: (judged: boolean) => void;
    const bodyReady = new Promise<boolean>((resolve) => (bodyDone = resolve));
    const copy = analysisStream(header(req, "content-encoding"), {
      chunk: (b) => body.push(b),
      end: () => bodyDone(true),
      skip: (why) => {
        report.note(`${method} ${shown(path)}: the request body is not analysed: ${why}`);
        bodyDone(false);
      },
    });
    pipeThrough(req, up, (b) => copy.push(b), () => copy.end());
    // a body broken off is not judged, but the answers that still come belong somewhere
    req.once("close", () => {
      if (!req.complete) bodyDone(false);
    });
    const requestJudged = new Promise<void>((judged) => {
      inOrder(t, async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), BODY_WAIT_MS)));
        const ready = await Promise.race([bodyReady, late]);
        clearTimeout(timer);
        if (ready === true) judgeRequest();
        else if (ready === "late") void bodyReady.then((ok) => ok && judgeRequest());
        judged();
      });
    });

    const judgeRequest = (): void => {
      const line = body.line();
      let parsed: unknown;
      if (!line.overflow && line.size > 0) {
        try {
          parsed = parseJson(line.bytes.toString("utf8"));
        } catch {
          // the codec says what is wrong with it
        }
      }
      initialize = typeof parsed === "object" && parsed !== null && (parsed as { method?: unknown }).method === "initialize";
      if (line.size === 0 && !line.overflow) return; // GET, DELETE: nothing was sent
      const s = linter.revisionOf(t.id);
      const negotiated = s?.revisionSource === "initialize result" ? s.revision : undefined;
      const extra = streamable ? checkRequestHeaders(parsed, { header: (name) => header(req, name), ...(negotiated ? { negotiated } : {}) }) : [];
      observe(t, "client", line, http(), `${method} ${shown(path)}`, extra);
    };

    // the answer analysed to its end (or given up on): only then may the exchange's conversation end
    let analysed!: () => void;
    const answerAnalysed = new Promise<void>((resolve) => (analysed = resolve));
    // an exchange of its own ends with its answer: its requests are closed, its ids free again
    void Promise.all([requestJudged, answerAnalysed]).then(() => {
      if (!t.bound) end(t);
    });

    up.on("response", (ures) => {
      const status = ures.statusCode ?? 502;
      res.writeHead(status, ures.statusMessage ?? "", endToEnd(ures.rawHeaders));
      // an SSE client learns at once that its stream is open, before the first event
      res.flushHeaders();
      const type = (ures.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      const label = `${method} ${shown(path)} → ${status}${type === "text/event-stream" ? " SSE" : ""}`;
      const answerSession = ures.headers[H_SESSION_ID] as string | undefined;
      inOrder(t, async () => {
        await requestJudged;
        // the answer to initialize names the session the conversation goes on in
        if (initialize && sessionId === undefined && answerSession !== undefined && !t.bound) {
          t.bound = true;
          sessions.set(answerSession, t);
        }
      });
      if (method === "DELETE" && sessionId !== undefined && status < 300) {
        sessions.delete(sessionId);
        end(t);
      }

      let sink: Sink;
      // An error status answering a GET or DELETE is the transport's refusal, carried by HTTP, not a
      // message of the conversation: nothing to judge.
      if (method !== "POST" && status >= 400) sink = IGNORED;
      else if (type === "text/event-stream") sink = sseSink(t, http(status), label, path);
      else if (isJson(type)) sink = jsonSink(t, http(status), label);
      else sink = IGNORED;
      const copy = analysisStream(ures.headers["content-encoding"], {
        chunk: (b) => sink.chunk(b),
        end: () => {
          sink.end();
          analysed();
        },
        skip: (why) => {
          sink.skip(why);
          analysed();
        },
      });
      pipeThrough(ures, res, (b) => copy.push(b), () => copy.end());
      ures.once("close", () => {
        if (ures.complete) return;
        sink.gone?.();
        analysed();
      });
    });

    up.on("error", (e) => {
      analysed();
      report.note(`${method} ${shown(path)}: the upstream failed: ${e.message}`);
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
  function jsonSink(t: Thread, http: HttpContext, label: string): Sink {
    const body = new BodyCopy(cap);
    return {
      chunk: (b: Buffer) => body.push(b),
      end: () => {
        const line = body.line();
        if (line.size === 0 && !line.overflow) return;
        inOrder(t, () => observe(t, "server", line, http, label));
      },
      skip: (why: string) => report.note(`${label}: the response body is not analysed: ${why}`),
    };
  }

  /**
   * An SSE stream from the server: each `message` event's data is one message, judged as it
   * arrives. An `endpoint` event (HTTP+SSE) names the session this stream serves: the POSTs to
   * that endpoint join this stream's conversation, and it ends when the stream does.
   */
  function sseSink(t: Thread, http: HttpContext, label: string, path: string): Sink {
    const text = new TextDecoder();
    const keys: string[] = [];
    const judge = (line: Line) => inOrder(t, () => observe(t, "server", line, http, label));
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === "endpoint") {
          let endpoint: URL | undefined;
          try {
            endpoint = new URL(event.data.trim(), new URL(path, "http://tap.invalid"));
          } catch {
            return;
          }
          const id = endpoint.searchParams.get("sessionId");
          const key = id !== null ? `id:${id}` : `path:${endpoint.pathname}${endpoint.search}`;
          t.bound = true;
          sseSessions.set(key, t);
          keys.push(key);
          return;
        }
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
    const ended = () => {
      // an HTTP+SSE session lives as long as its stream
      if (keys.length === 0) return;
      for (const k of keys.splice(0)) if (sseSessions.get(k) === t) sseSessions.delete(k);
      end(t);
    };
    return {
      chunk: (b: Buffer) => parser.feed(text.decode(b, { stream: true })),
      end: () => {
        parser.feed(text.decode());
        ended();
      },
      gone: ended,
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
    revisions: () => linter.revisions(),
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
