/**
 * The client side of Streamable HTTP (2025-03-26 … 2026-07-28): each message its own POST,
 * answers as one JSON body or an SSE stream, the 2026-07-28 request headers, and the legacy
 * `Mcp-Session-Id` session, whose interrupted streams are resumed with GET and `Last-Event-ID`.
 * Every body is read with a cap and every exchange has a deadline.
 */
import type { LookupFunction } from "node:net";
import type { Message, RequestId } from "../../codec/message.js";
import { ClosedError, TimeoutError } from "../../peer/errors.js";
import { keepShape } from "../../peer/shapes.js";
import type { HttpTransport, TransportSink } from "../../peer/transport.js";
import { decode, type Decoded } from "../../codec/decode.js";
import { defect } from "../../codec/defects.js";
import { bytesCannotBeJson, parseJson } from "../../codec/parse.js";
import { LATEST_REVISION, META_PROTOCOL_VERSION, RULES, type Revision } from "../../rules/revisions.js";
import { HttpError, type HttpErrorInit } from "./error.js";
import {
  Abort,
  asNetworkError,
  excerpt,
  fetchSameOrigin,
  followRedirects,
  httpRequest,
  isRedirect,
  readBody,
  readCapped,
  redirectDefect,
  type AbortLike,
  type CappedBody,
  type HttpRequestInit,
  type HttpResponse,
} from "./fetch.js";
import { H_METHOD, H_NAME, H_PROTOCOL_VERSION, H_SESSION_ID, NAME_SOURCE, encodeHeaderValue } from "./headers.js";
import { SseReader } from "./sse-events.js";
import { answerContentTypeDefect } from "./content-type.js";

export interface HttpClientOptions {
  /** Sent with every request (e.g. Authorization); never to another origin. */
  headers?: Record<string, string>;
  /** Largest body (or SSE event) read. Default 4 MiB. */
  maxBytes?: number;
  /** Deadline of one exchange, in milliseconds. Default 60 s. */
  timeout?: number;
  /** Called with each exchange as it completes, for traces. */
  onExchange?: (exchange: ExchangeRecord) => void;
  /** Ends every exchange at once (an overall deadline, a user's Ctrl-C): an AbortSignal, or an `Abort`. */
  signal?: AbortLike;
  /** Resolves host names instead of the system resolver (tests give many names one loopback address). */
  lookup?: LookupFunction | undefined;
  /**
   * Reconnections in a row that bring no message before a legacy request's interrupted SSE
   * stream counts as lost. Default 3; 0 never resumes.
   */
  resumeAttempts?: number;
}

/** What one HTTP exchange looked like, for a person reading a trace. */
export interface ExchangeRecord {
  method: string;
  httpMethod: "POST" | "GET" | "DELETE";
  url: string;
  /** The body sent (capped), for a repro line. */
  requestBody?: string;
  /** The headers sent, for a repro line; values of caller-supplied headers are not kept. */
  requestHeaders?: Record<string, string>;
  status?: number;
  contentType?: string;
  bodyExcerpt?: string;
  ms: number;
  error?: string;
}

const ACCEPT = "application/json, text/event-stream";

/** What a 401 means for the person reading it: the server wants sign-in, and how it asks. */
function signInWanted(challenge: string | null): string {
  const scheme = challenge?.trim().split(/\s+/)[0];
  return `: the server wants sign-in${scheme ? ` (WWW-Authenticate: ${scheme} …)` : ""}; pass credentials in the headers option (Authorization: Bearer <token>), or run mcp-wire probe on it to see the sign-in chain`;
}
/** The wait before resuming when the server named none with `retry` (the SSE standard leaves it to the client). */
const DEFAULT_RETRY_MS = 1000;
/** How long the DELETE that ends a legacy session may take: it is a courtesy, not worth a long wait. */
const DELETE_TIMEOUT_MS = 2000;

interface Outgoing {
  id: RequestId | undefined;
  method: string;
  isRequest: boolean;
  /** Carries the 2026-07-28 `_meta`: its streams are not resumable. */
  modern: boolean;
  headers: Record<string, string>;
}

/** Where a request's SSE stream stands, across the connections that carry it. */
interface StreamCursor {
  answered: boolean;
  /** The id of the last event that had one: where a resumption picks up. */
  lastEventId: string | undefined;
  /** The server's `retry`: how long to wait before reconnecting. */
  retry: number | undefined;
  /** JSON-RPC messages the last connection brought. */
  messages: number;
  /**
   * Bytes the answer has brought, across its connections. The stream is a body, and the body cap
   * holds for it as a whole: endless small events end as too_large at the cap, not at the deadline.
   */
  bytes: number;
}

export class StreamableHttpTransport implements HttpTransport {
  readonly kind = "http";
  /** The legacy session the server assigned at `initialize`, if any. */
  sessionId: string | undefined;
  /** Set after a legacy negotiation that uses the header (2025-06-18 on). */
  protocolVersion: string | undefined;
  /** Extra headers for a message (the `Mcp-Param-*` mirror of `x-mcp-header` tool parameters). */
  paramHeaders: ((message: Message) => Record<string, string> | undefined) | undefined;
  private sink: TransportSink | undefined;
  /** The exchange of each request under way, by id (to cancel it). */
  private readonly inFlight = new Map<RequestId, Abort>();
  /** Every other exchange under way (notifications, the GET stream, the DELETE): these and `inFlight` end at close. */
  private readonly others = new Set<Abort | AbortController>();
  /** The notifications being sent: close() lets them arrive (within a bound) before it ends the rest. */
  private readonly notifying = new Set<Promise<void>>();
  private isClosed = false;
  /** A legacy `initialize` settled the session (see `cancel`). */
  private legacy = false;
  /** The GET stream for the server's own messages, and the session it belongs to (see `openServerStream`). */
  private serverStream:
    { session: string | undefined; open: Promise<boolean>; controller: AbortController } | undefined;
  /** `onOuterAbort` listens to the caller's signal (see `follow`). */
  private following = false;
  /** The one timer that ends overdue exchanges (see `sweep`), while any exchange is under way. */
  private sweeper: ReturnType<typeof setTimeout> | undefined;
  private readonly maxBytes: number;
  private readonly timeout: number;
  private readonly resumeAttempts: number;

  constructor(
    readonly url: string,
    private readonly options: HttpClientOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    this.timeout = options.timeout ?? 60_000;
    this.resumeAttempts = options.resumeAttempts ?? 3;
  }

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  send(text: string, message?: Message | readonly Message[]): Promise<void> {
    if (this.isClosed) throw new ClosedError("the HTTP transport is closed");
    const out = this.describe(message ?? (JSON.parse(text) as Message));
    const sent = this.exchange(text, out);
    if (!out.isRequest) {
      this.notifying.add(sent);
      const done = () => void this.notifying.delete(sent);
      sent.then(done, done);
    }
    return sent;
  }

  /**
   * The caller's signal ends every exchange under way: one listener for the transport's life, not
   * one added and removed per exchange (an AbortSignal's listeners cost more than a small call's
   * own work). `abort` is aborted at once if the signal has fired already.
   */
  private follow(abort: Abort | AbortController): void {
    const outer = this.options.signal;
    if (!outer) return;
    if (outer.aborted) abort.abort(outer.reason);
    else if (!this.following) {
      this.following = true;
      outer.addEventListener("abort", this.onOuterAbort, { once: true });
    }
  }

  private unfollow(): void {
    if (!this.following) return;
    this.following = false;
    this.options.signal!.removeEventListener("abort", this.onOuterAbort);
  }

  private readonly onOuterAbort = (): void => {
    this.following = false;
    this.abortAll(this.options.signal!.reason);
  };

  private abortAll(reason: unknown): void {
    for (const c of this.inFlight.values()) c.abort(reason);
    for (const c of this.others) c.abort(reason);
  }

  /**
   * Ends the exchanges past their deadline, and waits for the next deadline if any exchange is
   * left. One timer for the transport instead of one per exchange: a timer set and cleared per
   * exchange cost more than the rest of the exchange's bookkeeping. Each exchange still ends at
   * its own deadline (the soonest is waited for; a stream that brings messages moves its own on). Unref'd: an
   * exchange under way holds its connection, which keeps the process alive meanwhile.
   */
  private readonly sweep = (): void => {
    this.sweeper = undefined;
    // monotonic, as timers are: a wall clock set back would otherwise postpone every deadline
    const now = performance.now();
    let next = Infinity;
    const check = (c: Abort | AbortController): void => {
      if (!(c instanceof Deadlined) || c.aborted) return;
      if (c.deadline <= now)
        c.abort(
          new HttpError(
            { failure: "timeout", step: c.step, url: this.url },
            `no complete answer within ${this.timeout} ms`,
          ),
        );
      else if (c.deadline < next) next = c.deadline;
    };
    for (const c of this.inFlight.values()) check(c);
    for (const c of this.others) check(c);
    if (next !== Infinity) this.sweeper = setTimeout(this.sweep, next - now).unref();
  };

  /** Closing a request's stream is how Streamable HTTP cancels it. */
  cancel(id: RequestId): boolean {
    const controller = this.inFlight.get(id);
    // on 2026-07-28 a stream already closed (its deadline passed) has cancelled the request too
    if (controller) {
      controller.abort(new ClosedError("cancelled"));
      this.inFlight.delete(id);
    }
    // Before 2026-07-28 a disconnect is not a cancellation ("To cancel, the client SHOULD
    // explicitly send an MCP CancelledNotification", 2025-03-26 … 2025-11-25 transports):
    // false makes the peer send one too.
    return !this.legacy;
  }

  negotiated(revision: Revision): void {
    this.legacy = RULES[revision].era === "legacy";
    this.protocolVersion = RULES[revision].http.requestHeaders.includes("MCP-Protocol-Version") ? revision : undefined;
  }

  /**
   * Opens the GET stream of a legacy session, on which the server sends what is not tied to one
   * of our requests: the requests it makes of the client (`roots/list`, `sampling/createMessage`,
   * `elicitation/create`) and the notifications it sends unasked (a list changed, a resource
   * updated). Resolves true once the stream is open, false when the server offers none (405 is
   * fine) or it could not be opened. The stream lives until the transport closes (it is a
   * channel, not a wait for an answer); it is not reopened if the server ends it, but a new
   * session (after a 404) gets a new one.
   */
  openServerStream(): Promise<boolean> {
    if (this.isClosed) return Promise.resolve(false);
    const current = this.serverStream;
    if (current && current.session === this.sessionId) return current.open;
    current?.controller.abort(new ClosedError("the session it belonged to ended"));
    const controller = new AbortController();
    this.follow(controller);
    this.others.add(controller);
    let opened!: (open: boolean) => void;
    const open = new Promise<boolean>((resolve) => (opened = resolve));
    this.serverStream = { session: this.sessionId, open, controller };
    void this.readServerStream(controller.signal, opened).finally(() => {
      this.others.delete(controller);
      opened(false);
    });
    return open;
  }

  private async readServerStream(signal: AbortSignal, opened: (open: boolean) => void): Promise<void> {
    const headers: Record<string, string> = { accept: "text/event-stream", ...this.options.headers };
    if (this.sessionId) headers[H_SESSION_ID] = this.sessionId;
    if (this.protocolVersion) headers[H_PROTOCOL_VERSION] = this.protocolVersion;
    const t0 = Date.now();
    const record: ExchangeRecord = {
      method: "GET stream",
      httpMethod: "GET",
      url: this.url,
      ms: 0,
      requestHeaders: redacted(headers, this.options.headers),
    };
    try {
      const { response, url } = await fetchSameOrigin(
        this.url,
        { method: "GET", headers, signal, lookup: this.options.lookup },
        "GET stream",
      );
      const contentType = response.headers.get("content-type") ?? "";
      Object.assign(record, { url, status: response.status, contentType, ms: Date.now() - t0 });
      this.options.onExchange?.(record);
      if (response.status !== 200 || !contentType.includes("text/event-stream")) {
        response.body.cancel();
        return;
      }
      opened(true);
      const reader = new SseReader(this.maxBytes, {
        event: (event) => {
          if ((event.event === undefined || event.event === "message") && event.data.length > 0)
            this.sink?.message(event.data);
        },
      });
      try {
        for (let chunk = await response.body.read(); chunk !== undefined; chunk = await response.body.read()) {
          reader.push(chunk);
          if (reader.passedCap) {
            this.sink?.defect(
              defect(
                "too_large",
                "",
                `an event on the GET stream passed the ${this.maxBytes}-byte cap: the stream is closed`,
              ),
            );
            break;
          }
        }
      } finally {
        response.body.cancel();
      }
    } catch {
      // the channel is optional: a server that cannot be reached this way still answers POSTs
    }
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    const closed = new ClosedError("the HTTP transport is closed");
    for (const c of this.inFlight.values()) c.abort(closed);
    // what was said before closing reaches the server: a notifications/cancelled sent as a call
    // gave up, just before the app closed, is the one way a legacy server learns of it
    if (this.notifying.size > 0) await settledWithin([...this.notifying], DELETE_TIMEOUT_MS);
    for (const c of this.others) c.abort(closed);
    if (this.sessionId) {
      // a legacy session is ended explicitly; a server that does not allow it answers 405
      const headers: Record<string, string> = { ...this.options.headers, [H_SESSION_ID]: this.sessionId };
      if (this.protocolVersion) headers[H_PROTOCOL_VERSION] = this.protocolVersion;
      // the caller's signal (an overall deadline, Ctrl-C) ends this exchange too
      const signal = new Abort();
      this.follow(signal);
      this.others.add(signal);
      const timer = setTimeout(
        () =>
          signal.abort(
            new HttpError(
              { failure: "timeout", step: "DELETE", url: this.url },
              `no answer to DELETE within ${DELETE_TIMEOUT_MS} ms`,
            ),
          ),
        DELETE_TIMEOUT_MS,
      );
      await httpRequest(this.url, { method: "DELETE", headers, signal, lookup: this.options.lookup }).then(
        (r) => r.body.cancel(),
        () => undefined,
      );
      clearTimeout(timer);
      this.others.delete(signal);
    }
    if (this.sweeper) {
      clearTimeout(this.sweeper);
      this.sweeper = undefined;
    }
    this.unfollow();
    this.sink?.closed();
  }

  private describe(message: Message | readonly Message[]): Outgoing {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: ACCEPT,
      ...this.options.headers,
    };
    if (this.sessionId) headers[H_SESSION_ID] = this.sessionId;
    if (Array.isArray(message)) {
      if (this.protocolVersion) headers[H_PROTOCOL_VERSION] = this.protocolVersion;
      return { id: undefined, method: "batch", isRequest: false, modern: false, headers };
    }
    const m = message as Message & { id?: RequestId; method?: string; params?: Record<string, unknown> };
    const method = typeof m.method === "string" ? m.method : "response";
    const meta = m.params?._meta as Record<string, unknown> | undefined;
    const modernVersion = meta?.[META_PROTOCOL_VERSION];
    if (typeof modernVersion === "string") {
      headers[H_PROTOCOL_VERSION] = modernVersion;
      headers[H_METHOD] = method;
      const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method]! : undefined;
      const name = source === undefined ? undefined : m.params?.[source];
      if (typeof name === "string") headers[H_NAME] = encodeHeaderValue(name);
      const extra = this.paramHeaders?.(m);
      if (extra) Object.assign(headers, extra);
    } else if (this.protocolVersion) {
      headers[H_PROTOCOL_VERSION] = this.protocolVersion;
    }
    return {
      id: m.id,
      method,
      isRequest: m.id !== undefined && typeof m.method === "string",
      modern: typeof modernVersion === "string",
      headers,
    };
  }

  /**
   * One message's exchange, under its deadline and the caller's signal, cancellable by its id.
   * One async function from the request to the judged answer: each frame and promise more is
   * measurable in a loopback round trip.
   */
  private async exchange(text: string, out: Outgoing): Promise<void> {
    const signal = new Deadlined(performance.now() + this.timeout, out.method);
    const byId = this.track(signal, out);
    // a trace record only for a listener: building one costs as much as a small call
    const listener = this.options.onExchange;
    const t0 = listener ? Date.now() : 0;
    const record = listener ? this.traceOf(text, out) : undefined;
    let status: number | undefined;
    try {
      const init: HttpRequestInit = {
        method: "POST",
        headers: out.headers,
        body: text,
        signal,
        lookup: this.options.lookup,
      };
      let response: HttpResponse;
      try {
        response = await httpRequest(this.url, init);
      } catch (e) {
        throw asNetworkError(e, out.method, this.url, signal);
      }
      let url = this.url;
      // redirects are followed on the same origin only (fetchSameOrigin), each reported
      if (isRedirect(response)) {
        const fetched = await followRedirects(this.url, init, out.method, response);
        response = fetched.response;
        url = fetched.url;
        for (const r of fetched.redirects) this.sink?.defect(redirectDefect(r));
      }
      status = response.status;
      const contentType = response.headers.get("content-type") ?? "";
      if (record) {
        record.url = url;
        record.status = status;
        record.contentType = contentType;
      }
      if (out.method === "initialize") {
        const session = response.headers.get(H_SESSION_ID);
        if (session) this.sessionId = session;
      }
      // a JSON answer that came whole is judged at once, with no promise of its own
      const consumed = this.consume(response, url, contentType, out, record, signal);
      if (consumed) await consumed;
    } catch (e) {
      throw this.failure(e, out, signal, status, record);
    } finally {
      this.untrack(signal, out, byId);
      if (record) {
        record.ms = Date.now() - t0;
        listener!(record);
      }
    }
  }

  /**
   * Puts an exchange under the sweeper's deadline and the caller's signal, and where `cancel`
   * finds it: by its request's id, unless that id is under way already. Returns whether it is by id.
   */
  private track(signal: Deadlined, out: Outgoing): boolean {
    this.follow(signal);
    const byId = out.isRequest && out.id !== undefined && !this.inFlight.has(out.id);
    if (byId) this.inFlight.set(out.id!, signal);
    else this.others.add(signal);
    this.sweeper ??= setTimeout(this.sweep, this.timeout).unref();
    return byId;
  }

  private untrack(signal: Deadlined, out: Outgoing, byId: boolean): void {
    if (!byId) this.others.delete(signal);
    else if (this.inFlight.get(out.id!) === signal) this.inFlight.delete(out.id!);
  }

  /** The trace record of an exchange as it starts: what was sent, its credentials redacted. */
  private traceOf(text: string, out: Outgoing): ExchangeRecord {
    return {
      method: out.method,
      httpMethod: "POST",
      url: this.url,
      ms: 0,
      requestBody: text.length > 64 * 1024 ? `${text.slice(0, 64 * 1024)}…` : text,
      requestHeaders: redacted(out.headers, this.options.headers),
    };
  }

  /** What a failed exchange throws, told to its trace record too. */
  private failure(
    e: unknown,
    out: Outgoing,
    signal: Deadlined,
    status: number | undefined,
    record: ExchangeRecord | undefined,
  ): unknown {
    // an abort (deadline, caller's signal) mid-body surfaces as a stream error: say what it was
    const error =
      signal.aborted && !(e instanceof HttpError)
        ? signal.reason instanceof HttpError
          ? signal.reason
          : new HttpError(
              { failure: "timeout", step: out.method, url: this.url, ...(status !== undefined ? { status } : {}) },
              signal.reason instanceof Error ? signal.reason.message : "aborted",
            )
        : e;
    if (record) record.error = error instanceof Error ? error.message : String(error);
    // the exchange's deadline is the request's: whichever timer fires first, the caller gets
    // one TimeoutError (this one with the exchange's evidence as its cause), never an HttpError
    if (
      out.isRequest &&
      error instanceof HttpError &&
      error.failure === "timeout" &&
      signal.reason === error &&
      signal.deadline <= performance.now()
    ) {
      return new TimeoutError(out.method, this.timeout, undefined, { cause: error });
    }
    return error;
  }

  /** Reads and judges an answer; a promise only when it has to wait (an SSE stream, a body still coming). */
  private consume(
    response: HttpResponse,
    url: string,
    contentType: string,
    out: Outgoing,
    record: ExchangeRecord | undefined,
    signal: AbortLike,
  ): Promise<void> | undefined {
    const status = response.status;
    if (contentType.includes("text/event-stream") && status >= 200 && status < 300)
      return this.consumeStream(response, url, contentType, out, signal);
    const base: HttpErrorInit = { failure: "status", step: out.method, url, status, contentType };
    let got: CappedBody | Promise<CappedBody>;
    try {
      got = readBody(response, this.maxBytes);
    } catch (e) {
      throw this.bodyFailed(e, base, signal);
    }
    if (got instanceof Promise) {
      return got.then(
        (body) => this.judge(response, body, base, out, record),
        (e: unknown) => {
          throw this.bodyFailed(e, base, signal);
        },
      );
    }
    this.judge(response, got, base, out, record);
    return undefined;
  }

  /** What a body that could not be read to its end is reported as. */
  private bodyFailed(e: unknown, base: HttpErrorInit, signal: AbortLike): unknown {
    if (signal.aborted && signal.reason instanceof Error) return signal.reason;
    // a body that cannot be decoded is no JSON-RPC answer, whatever the bytes meant
    if ((e as { code?: unknown }).code === "ERR_CONTENT_DECODING")
      return new HttpError(
        { ...base, failure: "not_jsonrpc", defects: [defect("parse_error", "", (e as Error).message)] },
        (e as Error).message,
      );
    return e;
  }

  /** Reads an SSE answer, resuming a legacy stream cut short before its response. */
  private async consumeStream(
    response: HttpResponse,
    url: string,
    contentType: string,
    out: Outgoing,
    signal: AbortLike,
  ): Promise<void> {
    const status = response.status;
    const cursor: StreamCursor = { answered: false, lastEventId: undefined, retry: undefined, messages: 0, bytes: 0 };
    let broken = await this.readEvents(response, out, signal, cursor);
    // Before 2026-07-28 a server may end the connection before the response, and the client
    // "SHOULD then poll" with GET and Last-Event-ID after the `retry` it was given (2025-11-25
    // transports); 2026-07-28 streams are not resumable. Only reconnections that bring no
    // message count against the limit: a server that polls is making progress.
    let fruitless = 0;
    while (out.isRequest && !cursor.answered && !out.modern && cursor.lastEventId && fruitless < this.resumeAttempts) {
      await pause(cursor.retry ?? DEFAULT_RETRY_MS, signal);
      cursor.messages = 0;
      broken = await this.resume(out, cursor, signal);
      fruitless = cursor.messages > 0 ? 0 : fruitless + 1;
    }
    if (broken) throw broken;
    if (out.isRequest && !cursor.answered) {
      const resumed = fruitless > 0 ? ` (resumed with GET ${fruitless} time(s) in a row without a message)` : "";
      throw new HttpError(
        { failure: "no_response", step: out.method, url, status, contentType },
        `the SSE stream (HTTP ${status}) ended without a response to request ${JSON.stringify(out.id)}${resumed}`,
      );
    }
  }

  /** Judges a JSON (or empty, or foreign) answer read whole: the peer gets it, or an HttpError says what it is. */
  private judge(
    response: HttpResponse,
    body: CappedBody,
    base: HttpErrorInit,
    out: Outgoing,
    record: ExchangeRecord | undefined,
  ): void {
    const status = response.status;
    const contentType = base.contentType;
    const bytes = body.bytes;
    if (record) record.bodyExcerpt = excerpt(bytes, 256);
    const evidence = (): HttpErrorInit => evidenceOf(base, bytes);
    if (body.truncated)
      throw new HttpError(
        { ...evidence(), failure: "too_large" },
        `the body passed the ${this.maxBytes}-byte cap (HTTP ${status}, ${contentType || "no content type"})`,
      );
    if (status === 401 || status === 403 || status >= 500) {
      // never era evidence, whatever the body says: the exchange itself failed
      const rpcError = parseJsonRpc(bytes)?.error;
      const challenge = response.headers.get("www-authenticate");
      throw new HttpError(
        {
          ...evidence(),
          ...(rpcError ? { rpcError } : {}),
          ...(challenge ? { wwwAuthenticate: challenge.slice(0, 512) } : {}),
        },
        `HTTP ${status}${rpcError ? ` with JSON-RPC error ${rpcError.code} ${JSON.stringify(rpcError.message)}` : ""}${status === 401 ? signInWanted(challenge) : status === 403 ? ": the server refuses these credentials (or this scope)" : ""}`,
      );
    }
    if (status === 202 || status === 204 || (bytes.length === 0 && status < 300)) {
      if (out.isRequest)
        throw new HttpError(
          { ...evidence(), failure: "no_response" },
          `HTTP ${status} with no body: a request needs a response`,
        );
      return;
    }
    // the peer's own reading of the body, made once: it routes the body here and serves it there
    // (a body that cannot be JSON routes nowhere, and its reading, a SyntaxError, would be thrown away)
    const read = bytesCannotBeJson(bytes) ? undefined : this.sink?.decode?.(bytes);
    const parsed = routing(read?.decoded) ?? parseJsonRpc(bytes);
    if (parsed) {
      // judged before the message is handed on, so the defect belongs to this exchange
      const wrongType = out.isRequest && status < 300 ? answerContentTypeDefect(contentType ?? "") : undefined;
      if (wrongType) this.sink?.defect(wrongType);
      this.sink?.message(bytes, read);
      if (out.isRequest && !parsed.answers(out.id)) {
        // an error that answers no id (a server that rejects on the headers alone) is still evidence
        const rpcError = parsed.error;
        throw new HttpError(
          { ...evidence(), failure: "no_response", ...(rpcError ? { rpcError } : {}) },
          `HTTP ${status}: the body holds no response to request ${JSON.stringify(out.id)}`,
        );
      }
      return;
    }
    if (status >= 300)
      throw new HttpError(evidence(), `HTTP ${status} (${contentType || "no content type"}) with no JSON-RPC body`);
    if (!out.isRequest) return;
    // say exactly what the body is instead: a web page, a bare array, a result with no envelope
    const { defects } = decode(bytes, { revision: LATEST_REVISION, maxBytes: this.maxBytes });
    throw new HttpError(
      { ...evidence(), failure: "not_jsonrpc", defects },
      `HTTP ${status}: the body (${contentType || "no content type"}) is not a JSON-RPC message`,
    );
  }

  /**
   * Feeds each SSE event to the peer and keeps `cursor` up to date. Returns the error if the
   * connection broke (resumable, like an early end, when events carried ids).
   */
  private async readEvents(
    response: HttpResponse,
    out: Outgoing,
    signal: AbortLike,
    cursor: StreamCursor,
  ): Promise<HttpError | undefined> {
    let tooLarge: string | undefined;
    const reader = new SseReader(this.maxBytes, {
      event: (event) => {
        if (event.id !== undefined) cursor.lastEventId = event.id;
        if (event.event !== undefined && event.event !== "message") return;
        // an empty event (a priming event, 2025-11-25) only moves the cursor
        if (event.data.length === 0) return;
        cursor.messages++;
        // a stream that brings messages is alive: the exchange's deadline starts again (the
        // request's own timeout, which only progress restarts, and its maximum still bound it)
        if (signal instanceof Deadlined) signal.deadline = performance.now() + this.timeout;
        const read = this.sink?.decode?.(event.data);
        this.sink?.message(event.data, read);
        if (
          out.isRequest &&
          !cursor.answered &&
          (routing(read?.decoded) ?? parseJsonRpc(Buffer.from(event.data)))?.answers(out.id)
        )
          cursor.answered = true;
      },
      retry: (ms) => {
        cursor.retry = ms;
      },
    });
    const body = response.body;
    try {
      while (!cursor.answered) {
        const value = await body.read();
        if (value === undefined) break;
        cursor.bytes += value.byteLength;
        if (cursor.bytes > this.maxBytes) {
          tooLarge = `the SSE answer passed the ${this.maxBytes}-byte cap${out.isRequest ? ` without a response to request ${JSON.stringify(out.id)}` : ""}`;
          break;
        }
        reader.push(value);
        if (reader.passedCap) {
          tooLarge = `an SSE event passed the ${this.maxBytes}-byte cap`;
          break;
        }
      }
    } catch (e) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : e;
      return new HttpError(
        { failure: "network", step: out.method, url: this.url, status: response.status },
        `the SSE stream broke: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    } finally {
      // the final response ends our interest; a server that keeps the stream open is cut off
      body.cancel();
    }
    if (tooLarge)
      throw new HttpError({ failure: "too_large", step: out.method, url: this.url, status: response.status }, tooLarge);
    return undefined;
  }

  /**
   * One reconnection to a request's stream: GET with `Last-Event-ID`, "regardless of how the
   * original stream was initiated" (2025-11-25 transports, resumability). A failure to connect
   * is returned, to be tried again like a broken stream; a refusal (405: no streams to resume,
   * 404: the session is gone) is thrown.
   */
  private async resume(out: Outgoing, cursor: StreamCursor, signal: AbortLike): Promise<HttpError | undefined> {
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      ...this.options.headers,
      "last-event-id": cursor.lastEventId!,
    };
    if (this.sessionId) headers[H_SESSION_ID] = this.sessionId;
    if (this.protocolVersion) headers[H_PROTOCOL_VERSION] = this.protocolVersion;
    const t0 = Date.now();
    const record: ExchangeRecord = {
      method: out.method,
      httpMethod: "GET",
      url: this.url,
      ms: 0,
      requestHeaders: redacted(headers, this.options.headers),
    };
    try {
      let fetched;
      try {
        fetched = await fetchSameOrigin(
          this.url,
          { method: "GET", headers, signal, lookup: this.options.lookup },
          out.method,
        );
      } catch (e) {
        if (e instanceof HttpError && e.failure === "network" && !signal.aborted) return e;
        throw e;
      }
      const { response, url } = fetched;
      const contentType = response.headers.get("content-type") ?? "";
      Object.assign(record, { url, status: response.status, contentType });
      if (response.status >= 200 && response.status < 300 && contentType.includes("text/event-stream")) {
        return await this.readEvents(response, out, signal, cursor);
      }
      const body = await readCapped(response, 64 * 1024).catch(() => ({ bytes: new Uint8Array(), truncated: false }));
      record.bodyExcerpt = excerpt(body.bytes, 256);
      throw new HttpError(
        {
          failure: "status",
          step: out.method,
          url,
          status: response.status,
          contentType,
          bodyExcerpt: excerpt(body.bytes),
        },
        `resuming the SSE stream of request ${JSON.stringify(out.id)} (GET, Last-Event-ID ${JSON.stringify(cursor.lastEventId)}): HTTP ${response.status} (${contentType || "no content type"})`,
      );
    } catch (e) {
      record.error = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      record.ms = Date.now() - t0;
      this.options.onExchange?.(record);
    }
  }
}

/** An exchange's switch, with when it is due to end and the step it is (for the timeout's error). */
class Deadlined extends Abort {
  constructor(
    /** Moved on while the answer's stream brings messages (see `readEvents`). */
    public deadline: number,
    readonly step: string,
  ) {
    super();
  }
}

/** What an HttpError about a body carries: the exchange and the body's first bytes. */
function evidenceOf(base: HttpErrorInit, bytes: Uint8Array): HttpErrorInit {
  return { ...base, bodyExcerpt: excerpt(bytes) };
}

/** Resolves once every promise has settled, or after `ms`, whichever comes first. */
function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.allSettled(promises).then(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it fires. */
function pause(ms: number, signal: AbortLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The headers as sent, with the values the caller supplied (credentials) replaced. */
function redacted(headers: Record<string, string>, secret: Record<string, string> | undefined): Record<string, string> {
  if (!secret) return { ...headers };
  const hidden = new Set(Object.keys(secret).map((k) => k.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = hidden.has(k.toLowerCase()) ? "<redacted>" : v;
  return out;
}

interface ParsedBody {
  error?: { code: number; message: string; data?: unknown } | undefined;
  answers(id: RequestId | undefined): boolean;
}

/** Just enough of a body to route it: is it JSON-RPC, does it answer a given id, a JSON-RPC error in it. */
function parseJsonRpc(bytes: Uint8Array): ParsedBody | undefined {
  // a body that is not JSON (a page, "Not Found") is told without a SyntaxError's cost
  if (bytesCannotBeJson(bytes)) return undefined;
  let v: unknown;
  try {
    v = parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  } catch {
    return undefined;
  }
  return jsonRpcOf(v);
}

/**
 * The same from the peer's decoding, when it parsed the very value `parseJsonRpc` would (a
 * leading byte-order mark is skipped by the decoder, not by JSON.parse); undefined otherwise.
 */
function routing(decoded: Decoded | undefined): ParsedBody | undefined {
  if (decoded === undefined || decoded.defects[0]?.code === "byte_order_mark") return undefined;
  const v = decoded.message ?? decoded.value;
  return v === undefined ? undefined : jsonRpcOf(v);
}

function jsonRpcOf(v: unknown): ParsedBody | undefined {
  // one message (nearly every body): judged in place, with no list made
  if (!Array.isArray(v)) return isRpcObject(v) ? new OneMessage(v) : undefined;
  const messages = v.filter(isRpcObject);
  if (messages.length === 0) return undefined;
  const err = messages.find((m) => typeof m.error === "object" && m.error !== null)?.error;
  const parsed: ParsedBody = {
    answers: (id) => messages.some((m) => answersId(m, id)),
  };
  const error = rpcErrorOf(err);
  if (error) parsed.error = error;
  return parsed;
}

function isRpcObject(m: unknown): m is Record<string, unknown> {
  return (
    typeof m === "object" && m !== null && !Array.isArray(m) && (m as Record<string, unknown>).jsonrpc !== undefined
  );
}

function answersId(m: Record<string, unknown>, id: RequestId | undefined): boolean {
  return m.id === id && (m.result !== undefined || m.error !== undefined);
}

/** A JSON-RPC error member as evidence: its code (a number, or it is none), message and data. */
function rpcErrorOf(err: unknown): ParsedBody["error"] {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e.code !== "number") return undefined;
  return {
    code: e.code,
    message: typeof e.message === "string" ? e.message : "",
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

class OneMessage implements ParsedBody {
  readonly error: ParsedBody["error"];
  constructor(private readonly m: Record<string, unknown>) {
    this.error = m.error === undefined ? undefined : rpcErrorOf(m.error);
  }
  answers(id: RequestId | undefined): boolean {
    return answersId(this.m, id);
  }
}

// an answer's routing and an exchange's switch are made per exchange (see shapes.ts)
keepShape(new OneMessage({ jsonrpc: "2.0" }), "http");
keepShape(new Deadlined(0, ""), "http");
