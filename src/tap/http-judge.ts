/**
 * What the HTTP tap judges, on its copies of the bodies: each message with the codec and its
 * conversation, in the conversation's order, and each request's headers against its body. A
 * JSON answer is one message (or batch); an SSE answer is one message per `message` event,
 * judged as it arrives.
 */
import { settlesWithin } from "../peer/within.js";
import type { Sender } from "../codec/conversation.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { bytesCannotBeJson, parseJson } from "../codec/parse.js";
import type { HttpContext, SseContext } from "../recording/recording.js";
import type { Revision } from "../rules/revisions.js";
import { SseReader } from "../transport/http/sse-events.js";
import { answerContentTypeDefect } from "../transport/http/content-type.js";
import { BodyCopy, IGNORED, type Sink } from "./body-copy.js";
import { Conversations, type Conversation } from "./conversations.js";
import { H_METHOD, H_NAME, H_PROTOCOL_VERSION } from "../transport/http/headers.js";
import type { MirroredHeaders } from "./judge-protocol.js";
import { JudgeThread } from "./judge-thread.js";
import type { TapReport } from "./report.js";

const isJson = (type: string) => type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);

/** A request as the judge needs it: its body's copy, where it went, and its headers. */
/** How many opening conversations a stateless exchange waits on, at most, and for how long. */
const MAX_INITIALIZING = 16;
const INITIALIZE_WAIT_MS = 2000;

/** Whether `line` is an `initialize` request (read here, not in the judging thread: its answer may bind a session). */
export function isInitialize(line: Line): boolean {
  if (line.overflow || line.size === 0 || line.size > INITIALIZE_MAX_BYTES) return false;
  let parsed: unknown;
  try {
    parsed = parseJson(line.bytes.toString("utf8"));
  } catch {
    return false; // the codec says what is wrong with it
  }
  return typeof parsed === "object" && parsed !== null && (parsed as { method?: unknown }).method === "initialize";
}

export interface JudgedRequest {
  line: Line;
  http: HttpContext;
  /** "POST /mcp", for the report. */
  where: string;
  header(name: string): string | undefined;
  /** Streamable HTTP, whose header rules apply (not a POST to an HTTP+SSE endpoint). */
  streamable: boolean;
  /** The session the request named (`Mcp-Session-Id`), for the log's alias. */
  session?: string;
}

/** An answer as the judge needs it. */
export interface JudgedAnswer {
  method: string;
  status: number;
  /** The media type, lower case, without parameters. */
  type: string;
  http: HttpContext;
  /** "POST /mcp → 200 SSE", for the report. */
  label: string;
  /** The request's path, against which an HTTP+SSE `endpoint` event is resolved. */
  path: string;
  /** The session the exchange belongs to, for the log's alias. */
  session?: string;
}

/** Request bodies larger than this are not read for `initialize` on the forwarding thread: no initialize is that large. */
const INITIALIZE_MAX_BYTES = 64 * 1024;

export class HttpJudge {
  readonly conversations: Conversations;
  private readonly judging: JudgeThread;
  private readonly counted: Record<Sender, number> = { client: 0, server: 0 };
  /** The latest conversations that opened with `initialize`, whose answers settle a stateless exchange's revision. */
  private readonly initializing: Conversation[] = [];

  /** `cap`: the largest body (or SSE event) analysed. */
  constructor(
    private readonly report: TapReport,
    readonly cap: number,
    options: { revision?: Revision; maxSessions: number; schema?: boolean; schemaBudgetMs?: number },
  ) {
    const failed = (e: unknown) => report.note(`the analysis failed: ${e instanceof Error ? e.message : String(e)}`);
    this.judging = new JudgeThread(
      {
        ...(options.revision ? { revision: options.revision } : {}),
        maxLineBytes: cap,
        schema: options.schema ?? true,
        ...(options.schemaBudgetMs !== undefined ? { schemaBudgetMs: options.schemaBudgetMs } : {}),
      },
      failed,
    );
    this.conversations = new Conversations(options.maxSessions, {
      ended: (id) => this.judging.end(id),
      failed,
    });
  }

  /** The revision each conversation was judged by, for the summary. */
  revisions(): string {
    return this.judging.revisions();
  }

  /**
   * Lets what is being judged finish while judging goes on (`drain`: how long with no verdict,
   * and in all), then ends the judging thread: what is still waiting is said to be left out.
   */
  async close(drain: { quietMs: number; capMs: number }): Promise<void> {
    await this.conversations.idle(drain.quietMs, drain.capMs);
    await this.judging.close();
    await this.conversations.idle(drain.quietMs, drain.capMs);
  }

  /**
   * Judges a request of `c`'s now (its turn in `c`'s order has come); says whether it is
   * `initialize`, and, in `judged`, when its record is reported.
   */
  request(c: Conversation, r: JudgedRequest): { initialize: boolean; judged?: Promise<void> } {
    const { line } = r;
    const initialize = isInitialize(line);
    if (initialize) {
      this.initializing.push(c);
      if (this.initializing.length > MAX_INITIALIZING) this.initializing.shift();
    }
    if (line.size === 0 && !line.overflow) return { initialize }; // GET, DELETE: nothing was sent
    const headers: Record<string, string> = {};
    for (const name of [H_PROTOCOL_VERSION, H_METHOD, H_NAME]) {
      const value = r.header(name);
      if (value !== undefined) headers[name] = value;
    }
    const judged = this.observe(
      c,
      "client",
      line,
      r.http,
      r.where,
      [],
      r.session,
      undefined,
      r.streamable ? headers : undefined,
    );
    return { initialize, judged };
  }

  /**
   * Resolves once the answers to the `initialize` requests seen so far are judged (or after a
   * while): a stateless exchange speaks the revision the latest one settled on, and the client
   * sent it after that answer, but its judging, in another conversation, may lag behind on a busy
   * machine.
   */
  async initializesJudged(of: Conversation): Promise<void> {
    const before = this.initializing.filter((c) => c !== of);
    if (before.length === 0) return;
    await settlesWithin(Promise.all(before.map((c) => c.queue)), INITIALIZE_WAIT_MS);
  }

  /** Where the copy of an answer of `c`'s goes. */
  answer(c: Conversation, a: JudgedAnswer): Sink {
    // An error status answering a GET or DELETE is the transport's refusal, carried by HTTP, not a
    // message of the conversation: nothing to judge.
    if (a.method !== "POST" && a.status >= 400) return IGNORED;
    if (a.type === "text/event-stream") return this.events(c, a);
    if (isJson(a.type)) return this.json(c, a);
    // a POST answered with JSON-RPC under another type (text/plain): judged, and the type is a defect
    if (a.method === "POST" && a.status < 300) return this.json(c, a, answerContentTypeDefect(a.type));
    if (a.method === "POST") return { ...IGNORED, end: () => this.bodiless(c, a) };
    return IGNORED;
  }

  /** An answer that carried no message: a record of the exchange alone, for the log. */
  private bodiless(c: Conversation, a: JudgedAnswer): void {
    this.conversations.inOrder(c, () =>
      this.report.exchange({
        from: "server",
        http: a.http,
        conversation: c.id,
        ...(a.session !== undefined ? { session: a.session } : {}),
      }),
    );
  }

  /** A request that carried no message (a GET, a DELETE), with its answer's status: for the log. */
  bodilessRequest(c: Conversation, http: HttpContext, session: string | undefined): void {
    this.report.exchange({ from: "client", http, conversation: c.id, ...(session !== undefined ? { session } : {}) });
  }

  /** Judges one message in `c`'s order; resolves once it is reported. `headers`: a Streamable HTTP request's, checked against it. */
  private async observe(
    c: Conversation,
    from: Sender,
    line: Line,
    http: HttpContext,
    where: string,
    extra: Defect[] = [],
    session?: string,
    sse?: SseContext,
    headers?: MirroredHeaders,
    at = Date.now(),
  ): Promise<void> {
    const no = ++this.counted[from];
    // the conversation's next message waits for this one's verdict: records keep their order
    const r = await this.judging.judge(line, { from, conversation: c.id, http }, headers);
    if (r === undefined) return;
    this.report.message({
      from,
      no,
      where: `message ${no} (${where})`,
      line,
      kind: r.kind,
      defects: extra.length > 0 ? r.defects.concat(extra) : r.defects,
      http,
      conversation: c.id,
      ...(session !== undefined ? { session } : {}),
      ...(sse !== undefined ? { sse } : {}),
      at,
    });
  }

  /** Judges a message from the server in `c`'s order. */
  private fromServer(c: Conversation, line: Line, a: JudgedAnswer, sse?: SseContext): void {
    const at = Date.now();
    this.conversations.inOrder(c, () =>
      this.observe(c, "server", line, a.http, a.label, [], a.session, sse, undefined, at),
    );
  }

  /**
   * One JSON body from the server: one message (or batch). `wrongType`, for a body sent under
   * another content type: it is judged only when it reads as JSON (a page or plain text is not a
   * message to judge), and then carries that defect.
   */
  private json(c: Conversation, a: JudgedAnswer, wrongType?: Defect): Sink {
    const body = new BodyCopy(this.cap);
    return {
      chunk: (b: Buffer) => body.push(b),
      end: () => {
        const line = body.line();
        if (line.size === 0 && !line.overflow) return this.bodiless(c, a);
        if (!wrongType) return this.fromServer(c, line, a);
        if (line.overflow || bytesCannotBeJson(line.bytes)) return;
        const at = Date.now();
        this.conversations.inOrder(c, () =>
          this.observe(c, "server", line, a.http, a.label, [wrongType], a.session, undefined, undefined, at),
        );
      },
      skip: (why: string) => this.report.note(`${a.label}: the response body is not analysed: ${why}`),
    };
  }

  /**
   * An SSE stream from the server: each `message` event's data is one message, judged as it
   * arrives. An `endpoint` event (HTTP+SSE) names the session this stream serves: the POSTs to
   * that endpoint join this stream's conversation, and it ends when the stream does. An event
   * over the cap passes through untouched, is judged too_large, and the events after it are
   * judged as usual.
   */
  private events(c: Conversation, a: JudgedAnswer): Sink {
    const keys: string[] = [];
    let retry: number | undefined;
    const reader = new SseReader(this.cap, {
      retry: (ms) => (retry = ms),
      event: (event) => {
        if (event.event === "endpoint") {
          let endpoint: URL | undefined;
          try {
            endpoint = new URL(event.data.trim(), new URL(a.path, "http://tap.invalid"));
          } catch {
            return;
          }
          keys.push(this.conversations.bindEndpoint(endpoint, c));
          return;
        }
        if (event.event !== undefined && event.event !== "message") return;
        if (event.data.length === 0) return; // a priming event, for resumption
        const bytes = Buffer.from(event.data, "utf8");
        const sse: SseContext = {};
        if (event.id !== undefined) sse.id = event.id;
        if (retry !== undefined) sse.retry = retry;
        retry = undefined;
        this.fromServer(c, { bytes, crlf: false, overflow: false, size: bytes.length }, a, sse);
      },
      tooLarge: (size) => this.fromServer(c, { bytes: Buffer.alloc(0), crlf: false, overflow: true, size }, a),
    });
    const ended = () => {
      reader.end();
      if (keys.length > 0) this.conversations.releaseEndpoints(keys.splice(0), c);
    };
    return {
      chunk: (b: Buffer) => reader.push(b),
      end: ended,
      gone: ended,
      skip: (why: string) => this.report.note(`${a.label}: the event stream is not analysed: ${why}`),
    };
  }
}
