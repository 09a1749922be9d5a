/**
 * One HTTP exchange of a Streamable HTTP server: the response to one POST (or the stream a GET
 * opens). The handler's adapters (node:http, Fetch API) provide the request and response
 * primitives below; everything else is written once, against them.
 */
import type { ErrorObject, RequestId } from "../../codec/message.js";
import { keepShape } from "../../peer/shapes.js";

/** The request side, whatever server delivered it. */
export interface HttpRequestLike {
  readonly method: string;
  /** A header's value (`name` in lower case), repeated headers joined by ", "; undefined if absent. */
  header(name: string): string | undefined;
  /** The names of every header present, in lower case. */
  headerNames(): readonly string[];
  /** The body, chunk by chunk: undefined at its end. Rejects if the client goes away. */
  read(): Promise<Uint8Array | undefined>;
  /**
   * The next chunk if it has arrived already, undefined at the body's end, null when it has to
   * be waited for (then `read`). Optional: it spares a server the timer and promise of a wait
   * that is not needed (most small bodies arrive with their headers).
   */
  readNow?(): Uint8Array | undefined | null;
  /**
   * The whole body, if exactly `length` bytes have arrived and nothing else (then taken); null,
   * taking nothing, otherwise. Optional, as `readNow`: it spares a server any wait at all.
   */
  readWhole?(length: number): Uint8Array | null;
  /** The peer's network address, when the server knows it (a client's sessions are counted by it). */
  readonly remoteAddress?: string | undefined;
  /**
   * Stops reading a body that will not be read to its end (too large, too slow): the
   * connection is closed once the response has gone, so the rest is never waited for.
   */
  stopReading(): void;
}

/** The response side, whatever server will carry it. */
export interface HttpResponder {
  /**
   * Sends the status and headers; called once, before any body. `flush`: put them on the wire
   * now, not with the first write (a stream that may stay empty a long time).
   */
  start(status: number, headers: Record<string, string>, flush?: boolean): void;
  /** Writes part of the body; false when the client is not keeping up (then wait for `drained`). */
  write(chunk: string): boolean;
  drained(): Promise<void>;
  /** Ends the body. */
  end(chunk?: string): void;
  /**
   * Calls `listener` once if the client goes away before `end` (at most one listener); at once
   * if it has gone already.
   */
  onAbort(listener: () => void): void;
}

const JSON_TYPE = "application/json";
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The headers of every SSE stream: no caching, and no buffering by proxies (nginx honours this one). */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** One SSE event carrying one JSON-RPC message (the text is JSON: it holds no line break). */
function sseEvent(text: string): string {
  return `event: message\ndata: ${text}\n\n`;
}

/** A JSON-RPC error object as a response text; `id` undefined leaves it out (2025-11-25 on). */
export function errorText(error: ErrorObject, id: RequestId | null | undefined): string {
  return JSON.stringify(id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error });
}

/**
 * The response to one POSTed request, decided lazily: a single JSON object if the answer comes
 * first, an SSE stream as soon as anything else (progress, a log line, a request to the client)
 * has to go before it. Once the client has gone, nothing more is written.
 */
export class Exchange {
  private sse = false;
  private isStarted = false;
  private finished = false;
  private aborted = false;
  private abortListeners: (() => void)[] | undefined;
  /** The responder tells this exchange when the client goes (asked for with the first `onAbort`). */
  private watching = false;
  /** Headers added to the response; copied from the caller's only once one is set or removed. */
  private headers: Record<string, string>;
  private ownHeaders = false;

  constructor(
    private readonly responder: HttpResponder,
    /** What the client's Accept header allows. */
    readonly accepts: { readonly json: boolean; readonly sse: boolean },
    headers: Readonly<Record<string, string>> = NO_HEADERS,
  ) {
    this.headers = headers as Record<string, string>;
  }

  /**
   * True once the response has ended or the client has gone: nothing more can be sent. The
   * client's going is learned once something listens for it (`onAbort`): an answer written at
   * once, as most are, has no use for it.
   */
  get done(): boolean {
    return this.finished || this.aborted;
  }

  get streaming(): boolean {
    return this.sse;
  }

  /** Whether messages can go before the answer: the stream is open, or the client takes SSE. */
  get canStream(): boolean {
    return !this.done && (this.sse || this.accepts.sse);
  }

  /** True once the status line has gone: a failure can no longer change it. */
  get started(): boolean {
    return this.isStarted;
  }

  /** Adds a header to the response, if it has not started yet. */
  setHeader(name: string, value: string): void {
    this.own()[name] = value;
  }

  removeHeader(name: string): void {
    delete this.own()[name];
  }

  private own(): Record<string, string> {
    if (!this.ownHeaders) {
      this.headers = { ...this.headers };
      this.ownHeaders = true;
    }
    return this.headers;
  }

  /** Calls `listener` if the client goes away before the response has ended (at once if it has gone). */
  onAbort(listener: () => void): void {
    if (this.aborted) {
      listener();
      return;
    }
    if (this.finished) return;
    const first = this.abortListeners === undefined && !this.watching;
    (this.abortListeners ??= []).push(listener);
    if (first) {
      this.watching = true;
      this.responder.onAbort(() => this.clientGone());
    }
  }

  private clientGone(): void {
    if (this.finished || this.aborted) return;
    this.aborted = true;
    const listeners = this.abortListeners;
    this.abortListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /**
   * Sends a message that precedes the answer, switching to SSE if it has not yet. A client that
   * takes only JSON cannot receive it: it is dropped. Resolves when the client has caught up.
   */
  event(text: string): void | Promise<void> {
    if (this.done) return;
    if (!this.sse) {
      if (!this.accepts.sse) return;
      // the headers leave with this first event, in one write
      this.startStream(false);
    }
    if (!this.responder.write(sseEvent(text))) return this.responder.drained();
  }

  /** Opens the SSE stream now, with nothing in it yet (a GET stream). */
  openStream(): void {
    this.startStream(true);
  }

  private startStream(flush: boolean): void {
    if (this.isStarted) return;
    this.responder.start(200, { ...this.headers, ...SSE_HEADERS }, flush);
    this.isStarted = true;
    this.sse = true;
  }

  /** Writes an SSE comment: keeps an idle stream alive through proxies, and finds dead clients. */
  comment(text: string): void {
    if (this.done || !this.sse) return;
    this.responder.write(`: ${text}\n\n`);
  }

  /**
   * Sends the answer and ends the response: an SSE event on a stream already open (or, for a
   * 200, when the client takes nothing else), otherwise JSON with `status`. An error status
   * always goes as JSON: it is what the client's HTTP layer reads first.
   */
  answer(text: string, status = 200): void {
    if (this.done) return;
    // a stream of this one event: its headers leave with it, in one write
    if (!this.sse && status === 200 && !this.accepts.json && this.accepts.sse) this.startStream(false);
    if (this.sse) {
      this.finish(sseEvent(text));
      return;
    }
    const headers = this.own();
    headers["content-type"] = JSON_TYPE;
    headers["content-length"] = String(Buffer.byteLength(text, "utf8"));
    this.responder.start(status, headers);
    this.isStarted = true;
    this.finish(text);
  }

  /** Ends the response with `status` and no body (202 Accepted, 204 No Content, …). */
  empty(status: number, headers: Record<string, string> = {}): void {
    if (this.done) return;
    if (this.isStarted) {
      this.finish();
      return;
    }
    this.responder.start(status, { ...this.headers, ...headers });
    this.isStarted = true;
    this.finish();
  }

  /** Ends the response however far it got (an SSE stream simply ends). */
  end(): void {
    if (this.done) return;
    if (!this.isStarted) {
      this.empty(204);
      return;
    }
    this.finish();
  }

  private finish(chunk?: string): void {
    this.finished = true;
    this.abortListeners = undefined;
    this.responder.end(chunk);
  }
}

/** Answers nothing and goes nowhere: for the exchange below. */
const NOWHERE: HttpResponder = {
  start() {},
  write: () => true,
  drained: () => Promise.resolve(),
  end() {},
  onAbort() {},
};

/** An exchange is made per request (see shapes.ts). */
export const KEPT_EXCHANGE = keepShape(new Exchange(NOWHERE, { json: true, sse: true }), "http");
