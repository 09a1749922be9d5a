/**
 * `mcp-wire tap --listen PORT --upstream URL`: a reverse proxy on loopback for Streamable HTTP
 * (and the older HTTP+SSE). Method, path, headers (less the hop-by-hop ones) and body go to the
 * upstream as they come; status, headers and body come back the same way, an SSE stream chunk by
 * chunk as the upstream writes it. A copy of each body, capped, is judged on the side: every
 * message with the codec and its session's conversation, every request's headers against its body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Sender } from "../codec/conversation.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { parseJson } from "../codec/parse.js";
import { Linter, type HttpContext } from "../lint/lint.js";
import type { Revision } from "../rules/revisions.js";
import { H_PROTOCOL_VERSION, H_SESSION_ID } from "../transport/http/headers.js";
import { SseReader } from "../transport/http/sse-events.js";
import { redact } from "../secrets/redact.js";
import { analysisStream, BodyCopy, IGNORED, type Sink } from "./body-copy.js";
import { Conversations, type Conversation } from "./conversations.js";
import { checkRequestHeaders } from "./header-checks.js";
import { endToEnd, header, pipeThrough, Upstream } from "./http-forward.js";
import { requestTarget } from "./http-target.js";
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

/** How long the answers of a conversation wait for a request body still arriving, before going on without it. */
const BODY_WAIT_MS = 10_000;

/** A URL or path for printing and logging: its secrets (a userinfo password, secret-looking query values) hidden. */
export function shown(text: string): string {
  return redact(text);
}

const isJson = (type: string) => type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  const target = new Upstream(options.upstream);
  const upstream = target.url;
  const cap = options.maxBodyBytes ?? DEFAULT_MAX_BYTES;
  const report = options.report;
  const linter = new Linter(options.revision ? { revision: options.revision, maxLineBytes: cap } : { maxLineBytes: cap });
  const counted: Record<Sender, number> = { client: 0, server: 0 };
  let exchanges = 0;
  const conversations = new Conversations(options.maxSessions ?? 1000, {
    ended: (id) => linter.end(id),
    failed: (e) => report.note(`the analysis failed: ${e instanceof Error ? e.message : String(e)}`),
  });
  const inOrder = (t: Conversation, task: () => void | Promise<void>) => conversations.inOrder(t, task);

  function observe(t: Conversation, from: Sender, line: Line, http: HttpContext, where: string, extra: Defect[] = []): void {
    const no = ++counted[from];
    const r = linter.line(line, { from, conversation: t.id, http });
    const defects = extra.length > 0 ? r.defects.concat(extra) : r.defects;
    report.message({ from, no, where: `message ${no} (${where})`, line, kind: r.kind, defects, http, conversation: t.id });
  }

  function proxy(req: IncomingMessage, res: ServerResponse): void {
    const checked = requestTarget(req);
    if ("refused" in checked) {
      const { status, note, body } = checked.refused;
      report.note(note);
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
      return;
    }
    const path = checked.path;
    const method = req.method ?? "GET";
    const sessionId = header(req, H_SESSION_ID);
    const exchange = ++exchanges;
    const protocolVersion = header(req, H_PROTOCOL_VERSION);
    const http = (status?: number): HttpContext => ({ method, path: shown(path), ...(status !== undefined ? { status } : {}), exchange, ...(protocolVersion !== undefined ? { protocolVersion } : {}) });

    // the conversation: the session named, else the HTTP+SSE session this POST is for, else this exchange alone
    const conv = sessionId !== undefined ? conversations.session(sessionId) : conversations.endpointOf(path);
    // a POST to an HTTP+SSE session's endpoint is not Streamable HTTP: its header rules do not apply
    const streamable = conv === undefined || sessionId !== undefined;
    const t = conv ?? conversations.open();

    const up = target.request(req, method, path);

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
      if (!t.bound) conversations.end(t);
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
        if (initialize && sessionId === undefined && answerSession !== undefined && !t.bound) conversations.bindSession(answerSession, t);
      });
      if (method === "DELETE" && sessionId !== undefined && status < 300) conversations.endSession(sessionId, t);

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
  function jsonSink(t: Conversation, http: HttpContext, label: string): Sink {
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
  function sseSink(t: Conversation, http: HttpContext, label: string, path: string): Sink {
    const keys: string[] = [];
    const judge = (line: Line) => inOrder(t, () => observe(t, "server", line, http, label));
    // an event over the cap passes through untouched, is judged too_large, and the stream's next events are judged as usual
    const reader = new SseReader(cap, {
      event: (event) => {
        if (event.event === "endpoint") {
          let endpoint: URL | undefined;
          try {
            endpoint = new URL(event.data.trim(), new URL(path, "http://tap.invalid"));
          } catch {
            return;
          }
          keys.push(conversations.bindEndpoint(endpoint, t));
          return;
        }
        if (event.event !== undefined && event.event !== "message") return;
        if (event.data.length === 0) return; // a priming event, for resumption
        const bytes = Buffer.from(event.data, "utf8");
        judge({ bytes, crlf: false, overflow: false, size: bytes.length });
      },
      tooLarge: (size) => judge({ bytes: Buffer.alloc(0), crlf: false, overflow: true, size }),
    });
    const ended = () => {
      reader.end();
      // an HTTP+SSE session lives as long as its stream
      if (keys.length > 0) conversations.releaseEndpoints(keys.splice(0), t);
    };
    return {
      chunk: (b: Buffer) => reader.push(b),
      end: ended,
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
      target.close();
    },
  };
}
