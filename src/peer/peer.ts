/**
 * One end of a JSON-RPC conversation over any transport: sends requests and matches their
 * responses, serves incoming requests and notifications, and keeps every wait bounded.
 */
import { DEFAULT_MAX_BYTES, decode, type Decoded } from "../codec/decode.js";
import { BoundedSet } from "../codec/bounded.js";
import { defect, type Defect } from "../codec/defects.js";
import { encode } from "../codec/encode.js";
import type { Role } from "../codec/check.js";
import type { ErrorObject, JsonObject, Message, RequestId } from "../codec/message.js";
import { INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR } from "../rules/error-codes.js";
import { RULES, isRevision, type Revision } from "../rules/revisions.js";
import {
  AbortedError,
  ClosedError,
  InvalidResponseError,
  MessageTooLargeError,
  OverloadedError,
  ResponseError,
  SpawnError,
  TimeoutError,
} from "./errors.js";
import { settledOn } from "./settlers.js";
import { keepShape } from "./shapes.js";
import { OneMap } from "./one-map.js";
import { loadValidate, loadedValidate, type Validate } from "./lazy-validate.js";
import {
  isHttpTransport,
  type DroppedAnswer,
  type ReadMessage,
  type Transport,
  type TransportSink,
} from "./transport.js";

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Milliseconds to wait for the answer. Default: the peer's `timeout`. */
  timeout?: number;
  signal?: AbortSignal;
  /** Asks for progress notifications (adds a `progressToken`) and receives them. */
  onProgress?: (progress: Progress) => void;
  /** Each progress notification restarts the deadline… */
  resetTimeoutOnProgress?: boolean;
  /** …but never past this many milliseconds in all. Default: 10 × `timeout`. */
  maxTotalTimeout?: number;
  /** The incoming request this one is made on behalf of (see `Transport.send`). */
  relatedTo?: RequestId;
  /** Told the id the request goes out with, before it is sent (a `subscriptions/listen` stream is known by it). */
  onId?: (id: RequestId) => void;
}

export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted when the requester cancels, or the connection closes. */
  readonly signal: AbortSignal;
  /** Reports progress, if the requester asked for it (otherwise does nothing). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a notification on the connection, e.g. a log message tied to this request. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /**
   * Asks the other side something while serving this request (a legacy server's sampling or
   * elicitation during a tool call). Abandoned when this request is cancelled.
   */
  request<T = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Promise<T>;
}

export type RequestHandler = (params: JsonObject | undefined, context: RequestContext) => unknown;
export type NotificationHandler = (params: JsonObject | undefined) => void;

/** What the peer tells its `onDefect` listener about something wrong that arrived. */
export interface DefectReport {
  defect: Defect;
  /** The message it concerns, as it arrived (trimmed to 1 KiB). */
  excerpt?: string;
}

export interface PeerOptions {
  /** The revision whose rules judge and shape messages; can change later (negotiation). */
  revision: Revision;
  /** This side's role. */
  role: Role;
  /**
   * The ids of the extensions in force (negotiated by both sides), as `decode` takes them: with
   * `io.modelcontextprotocol/tasks` a 2026-07-28 answer may be `resultType: "task"`. Can change
   * later, like the revision. Default none.
   */
  extensions?: readonly string[];
  /** Default deadline for outgoing requests, in milliseconds. Default 60,000. */
  timeout?: number;
  /** How many outgoing requests may await an answer at once. Default 10,000. */
  maxInFlight?: number;
  /** Largest message accepted. Default: the transport's cap, else 4 MiB. */
  maxBytes?: number;
  /** Everything wrong that arrived: malformed messages, stray responses, codec warnings. */
  onDefect?: (report: DefectReport) => void;
  /**
   * Also judge each answer to one of this peer's requests against the official schema.json of
   * its revision, as a result of the method asked (`schema_invalid` through `onDefect`; see
   * docs/schema.md). Off by default: it costs a validation per answer.
   */
  schema?: boolean;
  /** Called once when the connection ends, for whatever reason. */
  onClose?: (error?: Error) => void;
  /**
   * Request handlers to start with, shared with other peers and never changed through this one
   * (`handle` then works on a copy): a server making a peer per request registers nothing per peer.
   */
  handlers?: ReadonlyMap<string, RequestHandler>;
}

interface Pending {
  readonly id: RequestId;
  readonly method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly onProgress: ((p: Progress) => void) | undefined;
  readonly progressToken: RequestId | undefined;
  readonly startedAt: number;
  readonly timeout: number;
  readonly maxTotal: number;
  readonly resetOnProgress: boolean;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** An answer's id that equals this request's in value but not in type ("3" for 3): the timeout names it. */
  mismatchedId: RequestId | undefined;
  readonly peer: Peer;
}

/** What a write that is done at once gives (a stream's, not an HTTP exchange). */
const RESOLVED: Promise<void> = Promise.resolve();

function ignoreSettle(): void {}

function settleAnswer(entry: Pending, m: { result?: JsonObject; error?: ErrorObject }): void {
  if (m.error) entry.reject(ResponseError.received(m.error.code, m.error.message, m.error.data));
  else entry.resolve(m.result);
}

/** A pending request's first deadline. */
function expirePending(entry: Pending): void {
  const limit = Math.min(entry.timeout, entry.maxTotal);
  entry.peer["abandon"](
    entry.id,
    new TimeoutError(entry.method, limit, entry.mismatchedId),
    `timed out after ${limit} ms`,
  );
}

/**
 * An incoming request being served. Its AbortSignal is made only if the handler asks for it:
 * an AbortController per request costs more than the rest of a round trip.
 */
class IncomingRequest implements RequestContext {
  private controller: AbortController | undefined;
  private reason: unknown;
  cancelled = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    private readonly progressToken: RequestId | undefined,
    private readonly peer: Peer,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.progressToken === undefined || this.cancelled) return Promise.resolve();
    const p: JsonObject = { progressToken: this.progressToken, progress };
    if (total !== undefined) p.total = total;
    if (message !== undefined) p.message = message;
    return this.peer.notify(PROGRESS, p, this.id).catch(() => undefined);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.peer.notify(method, params, this.id);
  }

  request<T = JsonObject>(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<T> {
    return this.peer.request<T>(method, params, {
      ...options,
      signal: options.signal ?? this.signal,
      relatedTo: this.id,
    });
  }
}

/** What serving an incoming message gives: an answer to send, now or later, or nothing. */
type Answer = Message | undefined | Promise<Message | undefined>;

function isThenable(v: unknown): v is Promise<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/** Never written to: what a peer's tables are until their first entry. */
const NO_ENTRIES: Map<never, never> = new Map<never, never>();

/**
 * What a peer gives its transport: one object and no closures, as a peer may be made per request.
 * It reaches the peer's private entry points by index, which TypeScript allows: nothing else should.
 */
class PeerSink implements TransportSink {
  constructor(private readonly peer: Peer) {}
  message(data: string | Uint8Array, read?: ReadMessage): void {
    this.peer["receive"](data, read);
  }
  decode(data: string | Uint8Array): ReadMessage {
    return this.peer["decodeIncoming"](data);
  }
  defect(d: Defect, answer?: DroppedAnswer): void {
    this.peer["dropped"](d, answer);
  }
  closed(error?: Error): void {
    this.peer["shutdown"](error ?? "the other side closed the connection");
  }
}

/** A request's deadline when neither it nor the peer names one. */
export const DEFAULT_TIMEOUT = 60_000;
const DEFAULT_MAX_IN_FLIGHT = 10_000;
const CANCELLED = "notifications/cancelled";
const PROGRESS = "notifications/progress";

export class Peer {
  private revisionRules;
  private extensionIds: readonly string[] | undefined;
  // the tables below start as one shared empty table, replaced by a table of their own before
  // their first entry: a peer that serves one HTTP request never sends, nor listens to, anything
  private pending: Map<RequestId, Pending> = NO_ENTRIES;
  private byProgressToken: Map<RequestId, Pending> = NO_ENTRIES;
  private readonly serving = new OneMap<RequestId, IncomingRequest>();
  // made on first use: a peer that serves one HTTP request never sends one of its own
  private answeredIds: BoundedSet<RequestId> | undefined;
  /** Requests we gave up on (timeout, abort): their late answers are expected and ignored. */
  private abandonedIds: BoundedSet<RequestId> | undefined;
  private requestHandlers: Map<string, RequestHandler>;
  /** `requestHandlers` is `options.handlers`, someone else's: copied before the first `handle`. */
  private sharedHandlers: boolean;
  private notificationHandlers: Map<string, NotificationHandler> = NO_ENTRIES;
  private nextId = 1;
  /** Why the connection ended: text until someone asks (making an error captures a stack). */
  private closedWith: Error | string | undefined;
  private isClosed = false;
  private readonly timeout: number;
  private readonly maxInFlight: number;
  private readonly maxBytes: number | undefined;
  private readonly peerRole: Role;
  private markEnded: ((error: Error) => void) | undefined;
  private endedPromise: Promise<Error> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: PeerOptions,
  ) {
    this.revisionRules = RULES[options.revision];
    this.extensionIds =
      options.extensions !== undefined && options.extensions.length > 0 ? options.extensions : undefined;
    this.sharedHandlers = options.handlers !== undefined;
    this.requestHandlers = (options.handlers as Map<string, RequestHandler> | undefined) ?? new Map();
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxBytes = options.maxBytes ?? transport.maxMessageBytes;
    this.peerRole = options.role === "client" ? "server" : "client";
    // started now so the schema layer is usually ready before the first answer arrives
    if (options.schema === true) void loadValidate().catch(() => undefined);
    transport.start(new PeerSink(this));
  }

  /** A transport's `defect`: reported, and an answer it had to drop fails its request now. */
  private dropped(d: Defect, answer: DroppedAnswer | undefined): void {
    this.report(d);
    if (answer === undefined) return;
    const entry = this.settle(answer.id);
    if (!entry) return;
    this.answered.add(answer.id);
    entry.reject(new MessageTooLargeError(entry.method, answer.size, answer.limit));
  }

  /** Settles (never rejects) with the reason once the connection has ended. */
  get ended(): Promise<Error> {
    // made when asked for: most peers that serve one HTTP request are never asked
    if (!this.endedPromise) {
      if (this.isClosed) this.endedPromise = Promise.resolve(this.closeError());
      else this.endedPromise = new Promise((resolve) => (this.markEnded = resolve));
    }
    return this.endedPromise;
  }

  private get answered(): BoundedSet<RequestId> {
    return (this.answeredIds ??= new BoundedSet<RequestId>(1024));
  }

  private get abandoned(): BoundedSet<RequestId> {
    return (this.abandonedIds ??= new BoundedSet<RequestId>(1024));
  }

  get revision(): Revision {
    return this.revisionRules.revision;
  }
  set revision(revision: Revision) {
    this.revisionRules = RULES[revision];
  }

  /** The extensions incoming messages are judged with (see `PeerOptions.extensions`). */
  get extensions(): readonly string[] {
    return this.extensionIds ?? [];
  }
  set extensions(ids: readonly string[]) {
    this.extensionIds = ids.length > 0 ? [...ids] : undefined;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** How many outgoing requests await an answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Serves `method`. The handler's return value is the result; a thrown `ResponseError` is sent as is. */
  handle(method: string, handler: RequestHandler): void {
    if (this.sharedHandlers) {
      this.requestHandlers = new Map(this.requestHandlers);
      this.sharedHandlers = false;
    }
    this.requestHandlers.set(method, handler);
  }

  onNotification(method: string, handler: NotificationHandler): void {
    if (this.notificationHandlers === NO_ENTRIES) this.notificationHandlers = new Map();
    this.notificationHandlers.set(method, handler);
  }

  request<T = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Promise<T> {
    if (this.isClosed) return Promise.reject(new ClosedError(undefined, { cause: this.closeError() }));
    if (this.pending.size >= this.maxInFlight) return Promise.reject(new OverloadedError(this.maxInFlight));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(new AbortedError(method, signal.reason));

    const id = this.nextId++;
    options?.onId?.(id);
    const onProgress = options?.onProgress;
    const progressToken = onProgress ? id : undefined;
    if (progressToken !== undefined) {
      const meta = (params?._meta ?? {}) as JsonObject;
      params = { ...params, _meta: { ...meta, progressToken } };
    }
    const message: Message =
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    let text: string;
    try {
      text = encode(message, { revision: this.revision, role: this.options.role, extensions: this.extensionIds });
    } catch (e) {
      return Promise.reject(e);
    }

    const timeout = options?.timeout ?? this.timeout;
    const maxTotal = options?.maxTotalTimeout ?? timeout * 10;
    // one object per request, the promise's settlers and the deadline's callback set on it with
    // no closure (a loopback round trip is a few tens of microseconds: each allocation shows)
    const entry: Pending = {
      id,
      method,
      resolve: ignoreSettle,
      reject: ignoreSettle,
      timer: undefined,
      onProgress,
      progressToken,
      startedAt: Date.now(),
      timeout,
      maxTotal,
      resetOnProgress: options?.resetTimeoutOnProgress === true,
      signal,
      onAbort: undefined,
      mismatchedId: undefined,
      peer: this,
    };
    const answer = settledOn<T>(entry);
    // the overall limit binds the first deadline too, not only those that progress restarts
    entry.timer = setTimeout(expirePending, Math.min(timeout, maxTotal), entry);
    if (this.pending === NO_ENTRIES) this.pending = new Map();
    this.pending.set(id, entry);
    if (progressToken !== undefined) {
      if (this.byProgressToken === NO_ENTRIES) this.byProgressToken = new Map();
      this.byProgressToken.set(progressToken, entry);
    }
    if (signal) {
      const onAbort = () => this.abandon(id, new AbortedError(method, signal.reason), "aborted by the requester");
      entry.onAbort = onAbort;
      signal.addEventListener("abort", onAbort, { once: true });
    }
    const written = this.write(text, message, options?.relatedTo);
    // a write that fails fails the request; most are done at once, and over HTTP the write is the whole exchange
    if (written !== RESOLVED)
      written.then(undefined, (e: unknown) => {
        const error = e instanceof Error ? e : new ClosedError(String(e));
        // the channel's deadline for the exchange (HTTP's) is the request's own: the other side
        // is told it was given up on, as when the peer's timer fires first
        if (error instanceof TimeoutError) this.abandon(id, error, `timed out after ${error.timeoutMs} ms`);
        else this.settle(id)?.reject(error);
      });
    return answer;
  }

  /** Sends a notification; `related` ties it to an incoming request (see `Transport.send`). */
  async notify(method: string, params?: JsonObject, related?: RequestId): Promise<void> {
    if (this.isClosed) throw new ClosedError(undefined, { cause: this.closeError() });
    const message: Message = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    await this.write(
      encode(message, { revision: this.revision, role: this.options.role, extensions: this.extensionIds }),
      message,
      related,
    );
  }

  /** Ends the connection: every pending request rejects at once with `ClosedError`. */
  async close(reason?: string): Promise<void> {
    this.shutdown(reason ?? "closed by this side");
    await this.transport.close();
  }

  private write(text: string, message: Message | readonly Message[], related?: RequestId): Promise<void> {
    try {
      const wait = this.transport.send(text, message, related);
      return wait ?? RESOLVED;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Removes a pending request and its timer and listeners; returns it if it was pending. */
  private settle(id: RequestId): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.progressToken !== undefined) this.byProgressToken.delete(entry.progressToken);
    if (entry.signal && entry.onAbort) entry.signal.removeEventListener("abort", entry.onAbort);
    return entry;
  }

  /** Gives up on a request: rejects it, tells the other side, ignores its late answer. */
  private abandon(id: RequestId, error: Error, reason: string): void {
    const entry = this.settle(id);
    if (!entry) return;
    this.abandoned.add(id);
    entry.reject(error);
    if (this.isClosed) return;
    if (isHttpTransport(this.transport) && this.transport.cancel?.(id)) return;
    // 2025-11-25 basic/utilities/cancellation: "The initialize request MUST NOT be cancelled by clients"
    if (entry.method === "initialize") return;
    this.notify(CANCELLED, { requestId: id, reason }).catch(() => {
      /* the connection is going away: nothing left to cancel */
    });
  }

  private closeError(): Error {
    const why = this.closedWith;
    if (typeof why !== "string") return why!;
    const error = new ClosedError(why);
    this.closedWith = error;
    return error;
  }

  private shutdown(why: Error | string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closedWith = why;
    // nothing waits and nobody listens: most closes end here, with no error made
    if (this.pending.size === 0 && this.serving.size === 0 && !this.markEnded && !this.options.onClose) return;
    const error = this.closeError();
    if (this.pending.size > 0) {
      const entries = [...this.pending.keys()];
      // a server that could not be started is what failed them, and says why
      for (const id of entries)
        this.settle(id)?.reject(
          error instanceof ClosedError || error instanceof SpawnError
            ? error
            : new ClosedError(error.message, { cause: error }),
        );
    }
    if (this.serving.size > 0) {
      for (const s of this.serving.values()) s.abort(error);
      this.serving.clear();
    }
    this.markEnded?.(error);
    this.options.onClose?.(error);
  }

  private report(d: Defect, text?: string | Uint8Array): void {
    const listener = this.options.onDefect;
    if (!listener) return;
    const report: DefectReport = { defect: d };
    if (text !== undefined) {
      const s =
        typeof text === "string"
          ? text
          : Buffer.from(text.buffer, text.byteOffset, Math.min(text.byteLength, 1024)).toString("utf8");
      report.excerpt = s.length > 1024 ? s.slice(0, 1024) : s;
    }
    try {
      listener(report);
    } catch {
      // a listener's failure must not disturb the connection
    }
  }

  private decodeIncoming(data: string | Uint8Array): ReadMessage {
    const revision = this.revision;
    const maxBytes = this.maxBytes ?? DEFAULT_MAX_BYTES;
    const extensions = this.extensionIds;
    if (extensions === undefined)
      return {
        decoded: decode(data, { revision, role: this.peerRole, maxBytes }),
        revision,
        role: this.peerRole,
        maxBytes,
      };
    return {
      decoded: decode(data, { revision, role: this.peerRole, maxBytes, extensions }),
      revision,
      role: this.peerRole,
      maxBytes,
      extensions,
    };
  }

  private receive(data: string | Uint8Array, read?: ReadMessage): void {
    if (this.isClosed) return;
    // what the transport decoded is taken only if it was decoded exactly as it would be here
    const decoded =
      read !== undefined &&
      read.revision === this.revision &&
      read.role === this.peerRole &&
      read.maxBytes === (this.maxBytes ?? DEFAULT_MAX_BYTES) &&
      read.extensions === this.extensionIds
        ? read.decoded
        : this.decodeIncoming(data).decoded;
    for (const d of decoded.defects) this.report(d, data);
    switch (decoded.kind) {
      case "request":
      case "notification":
      case "result":
      case "error":
        this.answer(this.dispatch(decoded.message as Message, decoded.kind));
        return;
      case "batch":
        this.receiveBatch(decoded);
        return;
      case "invalid":
        this.answer(this.receiveInvalid(decoded));
        return;
    }
  }

  private receiveBatch(decoded: Decoded): void {
    const list = decoded.message as Message[];
    const answers: Answer[] = [];
    decoded.items!.forEach((item, i) => {
      const answer =
        item.kind === "invalid" || item.kind === "batch"
          ? this.receiveInvalid({ ...item, value: list[i] }, true)
          : this.dispatch(list[i]!, item.kind);
      if (answer) answers.push(answer);
    });
    if (answers.length === 0) return;
    void Promise.all(answers).then((all) => {
      const out = all.filter((m): m is Message => m !== undefined);
      const texts = out.map((m) => this.encodeAnswer(m));
      if (texts.length > 0 && !this.isClosed) this.write(`[${texts.join(",")}]`, out).catch(() => undefined);
    });
  }

  private answer(answer: Answer): void {
    if (answer === undefined) return;
    if (isThenable(answer)) {
      answer.then(
        (m) => this.sendAnswer(m),
        () => undefined,
      );
      return;
    }
    this.sendAnswer(answer);
  }

  private sendAnswer(m: Message | undefined): void {
    if (!m || this.isClosed) return;
    this.write(this.encodeAnswer(m), m).catch(() => undefined);
  }

  /**
   * A broken message still tells something: a request with a readable id gets -32600, an
   * unreadable text gets -32700 (only a server answers these: a client does not answer a
   * server's garbage), and an answer to a pending request fails that request. A batch member
   * that is no message at all (`1` in `[1,2,3]`) gets its own -32600, as JSON-RPC 2.0 §6 shows.
   */
  private receiveInvalid(
    decoded: { readonly value?: unknown; readonly defects: readonly Defect[] },
    member = false,
  ): Message | undefined {
    const v = decoded.value;
    const o = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    const id = o?.id;
    const usableId =
      typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? (id as RequestId) : undefined;
    if (o && usableId !== undefined && o.method === undefined && (o.result !== undefined || o.error !== undefined)) {
      const entry = this.settle(usableId);
      if (entry) entry.reject(new InvalidResponseError(entry.method, decoded.defects));
      return undefined;
    }
    if (this.options.role !== "server") return undefined;
    if (o && typeof o.method === "string" && o.result === undefined && o.error === undefined) {
      if (id === undefined) return undefined; // a broken notification is never answered
      const why = decoded.defects.find((d) => d.severity === "error")?.message ?? "malformed";
      return this.errorAnswer(usableId ?? null, { code: INVALID_REQUEST, message: `Invalid Request: ${why}` });
    }
    const unparseable = decoded.defects.some((d) => d.code === "parse_error" || d.code === "invalid_utf8");
    if (unparseable) return this.errorAnswer(null, { code: PARSE_ERROR, message: "Parse error" });
    if (o || Array.isArray(v) || member)
      return this.errorAnswer(usableId ?? null, { code: INVALID_REQUEST, message: "Invalid Request" });
    return undefined;
  }

  /** Routes a sound message; returns the answer to send when it is a request. */
  private dispatch(m: Message, kind: "request" | "notification" | "result" | "error"): Answer {
    if (kind === "result" || kind === "error") {
      this.receiveResponse(m as { id?: RequestId | null; result?: JsonObject; error?: ErrorObject });
    } else if (kind === "notification") {
      this.receiveNotification(m as { method: string; params?: JsonObject });
    } else {
      return this.serve(m as { id: RequestId; method: string; params?: JsonObject });
    }
    return undefined;
  }

  private receiveResponse(m: { id?: RequestId | null; result?: JsonObject; error?: ErrorObject }): void {
    const id = m.id;
    if (id === undefined || id === null) {
      // an error without an id is JSON-RPC's answer to a request whose id could not be read (or
      // a server refusing before it reads ids): worth a note, not a broken conversation
      this.report(
        defect(
          "unknown_response_id",
          "/id",
          m.error
            ? `an error (${m.error.code} ${JSON.stringify(m.error.message)}) with ${id === null ? "a null" : "no"} id answers no request: a refusal of something whose id was not read`
            : `a result with ${id === null ? "a null" : "no"} id answers no request`,
          m.error ? "no_id_error" : undefined,
        ),
      );
      return;
    }
    const entry = this.settle(id);
    if (!entry) {
      if (this.abandonedIds?.delete(id)) return; // a late answer to a request we gave up on
      if (this.answeredIds?.has(id)) {
        this.report(
          defect(
            "duplicate_response",
            "/id",
            `a second response to request ${JSON.stringify(id)}, which was already answered`,
          ),
        );
        return;
      }
      const twin = this.pending.get(typeof id === "string" ? Number(id) : String(id));
      // "3" for 3: no answer by JSON-RPC's rules, but the request's timeout must say it came
      if (twin !== undefined && String(twin.id) === String(id)) {
        twin.mismatchedId ??= id;
        this.report(
          defect(
            "unknown_response_id",
            "/id",
            `a response for id ${JSON.stringify(id)}, which matches no request awaiting an answer: request ${JSON.stringify(twin.id)} awaits one, but ids match by type as well as value`,
          ),
        );
        return;
      }
      this.report(
        defect(
          "unknown_response_id",
          "/id",
          `a response for id ${JSON.stringify(id)}, which matches no request awaiting an answer`,
        ),
      );
      return;
    }
    this.answered.add(id);
    if (this.options.schema !== true) return settleAnswer(entry, m);
    const validate = loadedValidate();
    if (validate !== undefined) {
      this.validateAnswer(validate, m, entry.method);
      return settleAnswer(entry, m);
    }
    // the schema layer is still loading: the answer is judged before its request settles
    loadValidate().then(
      (loaded) => {
        this.validateAnswer(loaded, m, entry.method);
        settleAnswer(entry, m);
      },
      (error: unknown) => entry.reject(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * An `initialize` answer is judged by the revision it settles on (the peer may still be on the
   * one it offered, or on the modern era it probed first); one naming no revision mcp-wire knows
   * is left to the negotiation, which reports it.
   */
  private validateAnswer(validate: Validate, m: { result?: JsonObject; error?: ErrorObject }, method: string): void {
    let revision: Revision | undefined = this.revision;
    if (method === "initialize" && m.result !== undefined) {
      const chosen = m.result.protocolVersion;
      revision = typeof chosen === "string" && isRevision(chosen) ? chosen : undefined;
    }
    if (revision === undefined) return;
    for (const d of validate(m, { revision, method })) this.report(d);
  }

  private receiveNotification(m: { method: string; params?: JsonObject }): void {
    const params = m.params;
    if (m.method === PROGRESS && params) {
      const entry = this.byProgressToken.get(params.progressToken as RequestId);
      if (entry) this.progressArrived(entry, params);
    } else if (m.method === CANCELLED && params) {
      const serving = this.serving.get(params.requestId as RequestId);
      if (serving) serving.abort(typeof params.reason === "string" ? params.reason : "cancelled by the requester");
    }
    const handler = this.notificationHandlers.get(m.method);
    if (!handler) return;
    try {
      handler(params);
    } catch {
      // a notification has no one to answer to; a throwing handler must not disturb the rest
    }
  }

  private progressArrived(entry: Pending, params: JsonObject): void {
    if (entry.resetOnProgress && entry.timer) {
      clearTimeout(entry.timer);
      const left = entry.maxTotal - (Date.now() - entry.startedAt);
      const capped = left <= entry.timeout;
      const limit = capped ? entry.maxTotal : entry.timeout;
      entry.timer = setTimeout(
        () =>
          this.abandon(
            entry.id,
            new TimeoutError(entry.method, limit, entry.mismatchedId),
            `timed out after ${limit} ms`,
          ),
        Math.max(0, capped ? left : entry.timeout),
      );
    }
    if (!entry.onProgress || typeof params.progress !== "number") return;
    const p: Progress = { progress: params.progress };
    if (typeof params.total === "number") p.total = params.total;
    if (typeof params.message === "string") p.message = params.message;
    try {
      entry.onProgress(p);
    } catch {
      // the caller's listener failing must not lose the response
    }
  }

  /**
   * Runs the handler for an incoming request and gives the answer, or nothing if the request
   * was cancelled. Synchronous when the handler is: a promise per request is measurable.
   */
  private serve(m: { id: RequestId; method: string; params?: JsonObject }): Answer {
    const { id, method, params } = m;
    const handler = this.requestHandlers.get(method);
    if (!handler) return this.errorAnswer(id, { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` });
    const meta = params?._meta as JsonObject | undefined;
    const token = meta?.progressToken;
    const serving = new IncomingRequest(
      id,
      method,
      typeof token === "string" || typeof token === "number" ? token : undefined,
      this,
    );
    this.serving.set(id, serving);
    let result: unknown;
    try {
      result = handler(params, serving);
    } catch (e) {
      return this.finish(serving, undefined, e, true);
    }
    if (isThenable(result)) {
      return result.then(
        (r) => this.finish(serving, r, undefined, false),
        (e: unknown) => this.finish(serving, undefined, e, true),
      );
    }
    return this.finish(serving, result, undefined, false);
  }

  private finish(serving: IncomingRequest, result: unknown, error: unknown, failed: boolean): Message | undefined {
    this.serving.delete(serving.id);
    // cancelled or closed: the requester no longer waits, and must get nothing more
    if (serving.cancelled || this.isClosed) return undefined;
    if (failed) {
      // never internals or stack traces on the wire
      return {
        jsonrpc: "2.0",
        id: serving.id,
        error: error instanceof ResponseError ? error.toJSON() : { code: INTERNAL_ERROR, message: "Internal error" },
      };
    }
    return { jsonrpc: "2.0", id: serving.id, result: (result ?? {}) as JsonObject };
  }

  private errorAnswer(id: RequestId | null, error: ErrorObject): Message {
    return id === null && this.revisionRules.errorIdOptional
      ? { jsonrpc: "2.0", error }
      : { jsonrpc: "2.0", id, error };
  }

  /** A handler that returns something unsendable gets -32603 instead of a broken message. */
  private encodeAnswer(answer: Message): string {
    try {
      return encode(answer, { revision: this.revision, role: this.options.role, extensions: this.extensionIds });
    } catch (e) {
      this.report(
        defect(
          "result_not_object",
          "/result",
          `this side's handler produced an answer that cannot be sent: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
      return JSON.stringify({
        jsonrpc: "2.0",
        id: (answer as { id?: RequestId }).id ?? null,
        error: { code: INTERNAL_ERROR, message: "Internal error" },
      });
    }
  }
}

// an HTTP server makes a peer and an incoming request per 2026-07-28 request (see shapes.ts)
const keptPeer = keepShape(
  new Peer(
    { start: (sink) => keepShape(sink, "roundtrip"), send() {}, close: () => Promise.resolve() },
    { revision: "2025-11-25", role: "server" },
  ),
  "roundtrip",
);
keepShape(new IncomingRequest(0, "", undefined, keptPeer), "roundtrip");
