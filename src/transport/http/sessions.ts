/**
 * Legacy (2025-03-26 … 2025-11-25) Streamable HTTP sessions on the server side: one peer per
 * `Mcp-Session-Id`, its messages spread over many HTTP exchanges. Each answer goes back on the
 * exchange that carried its request; what a handler sends while serving a request (progress, log
 * lines, sampling and elicitation requests) goes on that request's SSE stream; anything else on
 * the session's GET stream, if the client opened one.
 */
import { randomUUID } from "node:crypto";
import type { Message, RequestId } from "../../codec/message.js";
import { ClosedError } from "../../peer/errors.js";
import type { Peer } from "../../peer/peer.js";
import type { Transport, TransportSink } from "../../peer/transport.js";
import { INVALID_REQUEST } from "../../rules/error-codes.js";
import { isRevision, type Revision } from "../../rules/revisions.js";
import { errorText, type Exchange } from "./exchange.js";

function isResponse(m: Message): m is Message & { id: RequestId } {
  return (m as { method?: unknown }).method === undefined && (m as { id?: unknown }).id != null;
}

/** One session's channel: messages in from POST bodies, out to the exchanges they belong to. */
export class SessionTransport implements Transport {
  readonly kind = "http";
  private sink: TransportSink | undefined;
  /** Exchanges awaiting answers, by request id (several ids share one for a 2025-03-26 batch). */
  private readonly waiting = new Map<RequestId, Exchange>();
  private stream: Exchange | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private isClosed = false;
  /** Sees each answer before it leaves, with the exchange it leaves on (to add headers). */
  beforeAnswer: ((message: Message, exchange: Exchange) => void) | undefined;

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** True while anything is under way: a request awaiting its answer, an open GET stream. */
  get busy(): boolean {
    return this.waiting.size > 0 || this.stream !== undefined;
  }

  /** Whether `id` names a request of this session still awaiting its answer. */
  awaits(id: RequestId): boolean {
    return this.waiting.has(id);
  }

  /**
   * Hands a POST body to the peer; `exchange` carries the answers to the requests `ids` in it.
   * A client that goes away does not cancel them (2025-11-25: disconnection is not
   * cancellation); their answers are dropped, since no other stream may carry them.
   */
  deliver(text: string, exchange?: Exchange, ids: readonly RequestId[] = []): void {
    if (exchange) {
      for (const id of ids) this.waiting.set(id, exchange);
      exchange.onAbort(() => {
        for (const id of ids) if (this.waiting.get(id) === exchange) this.waiting.delete(id);
      });
    }
    this.sink?.message(text);
  }

  /**
   * The client cancelled request `id` (`notifications/cancelled`): it will get no answer, so its
   * exchange ends now, empty, rather than hang until the client gives up on it. 202, as for a
   * POST that takes no answer: the SDK clients read that status as "nothing follows".
   */
  cancelled(id: RequestId): void {
    const exchange = this.waiting.get(id);
    if (!exchange) return;
    this.waiting.delete(id);
    for (const other of this.waiting.values()) if (other === exchange) return; // a batch still owes other answers
    if (exchange.streaming) exchange.end();
    else exchange.empty(202);
  }

  /** Takes a GET stream for messages unrelated to any request; false if one is already open. */
  openStream(exchange: Exchange, keepAliveMs: number): boolean {
    if (this.stream || this.isClosed) return false;
    this.stream = exchange;
    exchange.openStream();
    if (keepAliveMs > 0) {
      this.keepAlive = setInterval(() => exchange.comment("keepalive"), keepAliveMs);
      this.keepAlive.unref?.();
    }
    exchange.onAbort(() => this.dropStream(exchange));
    return true;
  }

  send(text: string, message?: Message | readonly Message[], related?: RequestId): void | Promise<void> {
    if (this.isClosed) throw new ClosedError("the session has ended");
    if (Array.isArray(message)) {
      // a 2025-03-26 batch answered in one piece, on the exchange of the batch it answers
      const answered = (message as readonly Message[]).filter(isResponse);
      const exchange = answered.map((m) => this.waiting.get(m.id)).find((e) => e !== undefined);
      for (const m of answered) this.waiting.delete(m.id);
      if (exchange) {
        for (const m of answered) this.beforeAnswer?.(m, exchange);
        exchange.answer(text);
      }
      return;
    }
    const m = message as Message | undefined;
    if (m && isResponse(m)) {
      const exchange = this.waiting.get(m.id);
      if (!exchange) return; // its client went away: nowhere left to send it
      this.waiting.delete(m.id);
      this.beforeAnswer?.(m, exchange);
      exchange.answer(text);
      return;
    }
    const target = related !== undefined ? this.waiting.get(related) : undefined;
    if (target?.canStream) return target.event(text);
    if (this.stream && !this.stream.done) return this.stream.event(text);
    if (m && (m as { id?: unknown }).id !== undefined) {
      // a request to the client with no stream to carry it fails now rather than time out
      throw new ClosedError("no stream to the client: the request it serves takes JSON only or has ended, and no GET stream is open");
    }
    // a notification with nowhere to go is dropped, as on any stream nobody listens to
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    const pending = new Set(this.waiting.values());
    this.waiting.clear();
    for (const exchange of pending) {
      if (exchange.streaming) exchange.end();
      else exchange.answer(errorText({ code: INVALID_REQUEST, message: "Session terminated before this request was answered" }, null), 404);
    }
    if (this.stream) {
      const stream = this.stream;
      this.dropStream(stream);
      stream.end();
    }
    this.sink?.closed(new ClosedError("the session has ended"));
  }

  private dropStream(exchange: Exchange): void {
    if (this.stream !== exchange) return;
    this.stream = undefined;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}

/** One legacy session: its id, its peer, and what `initialize` settled. */
export class Session {
  /** Random, so it cannot be guessed; visible ASCII, as the transport requires. */
  readonly id = randomUUID();
  readonly transport = new SessionTransport();
  readonly peer: Peer;
  /** The revision `initialize` negotiated; undefined until it is answered. */
  revision: Revision | undefined;
  lastActive = Date.now();

  constructor(connect: (transport: Transport) => Peer) {
    this.peer = connect(this.transport);
  }

  /** Records the revision an initialize result names. */
  negotiated(result: unknown): void {
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (isRevision(version)) this.revision = version;
  }

  touch(): void {
    this.lastActive = Date.now();
  }

  close(): Promise<void> {
    return this.peer.close("the session has ended");
  }
}

export interface SessionLimits {
  /** A session with nothing under way for this long is closed. */
  idleMs: number;
  /** At most this many at once; a new one then replaces the longest idle, or is refused. */
  max: number;
}

/** The live sessions, with idle expiry and a cap on their number. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    session?.touch();
    return session;
  }

  /** Adds a session; false when the table is full of sessions that are all busy. */
  add(session: Session): boolean {
    if (this.sessions.size >= this.limits.max && !this.evictIdlest()) return false;
    this.sessions.set(session.id, session);
    // a peer that ends by itself (its transport closed) takes its session with it
    void session.peer.ended.then(() => {
      if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
      if (this.sessions.size === 0) this.stopSweeping();
    });
    this.startSweeping();
    return true;
  }

  async delete(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    await session.close();
    return true;
  }

  async closeAll(): Promise<void> {
    this.stopSweeping();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close()));
  }

  private evictIdlest(): boolean {
    let idlest: Session | undefined;
    for (const s of this.sessions.values()) {
      if (!s.transport.busy && (!idlest || s.lastActive < idlest.lastActive)) idlest = s;
    }
    if (!idlest) return false;
    this.sessions.delete(idlest.id);
    void idlest.close();
    return true;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (!s.transport.busy && s.lastActive < cutoff) {
        this.sessions.delete(s.id);
        void s.close();
      }
    }
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.min(Math.max(this.limits.idleMs / 4, 250), 60_000));
    this.sweeper.unref?.();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
