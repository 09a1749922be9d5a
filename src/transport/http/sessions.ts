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
import { OneMap } from "../../peer/one-map.js";
import type { Peer } from "../../peer/peer.js";
import type { HttpTransport, ReadMessage, Transport, TransportSink } from "../../peer/transport.js";
import { INVALID_REQUEST } from "../../rules/error-codes.js";
import { isRevision, type Revision } from "../../rules/revisions.js";
import { errorText, type Exchange } from "./exchange.js";

function isResponse(m: Message): m is Message & { id: RequestId } {
  return (m as { method?: unknown }).method === undefined && (m as { id?: unknown }).id != null;
}

/** One session's channel: messages in from POST bodies, out to the exchanges they belong to. */
class SessionTransport implements HttpTransport {
  readonly kind = "http";
  private sink: TransportSink | undefined;
  /** Exchanges awaiting answers, by request id (several ids share one for a 2025-03-26 batch). */
  private readonly waiting = new OneMap<RequestId, Exchange>();
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
  deliver(data: string | Uint8Array, read?: ReadMessage, exchange?: Exchange, ids: readonly RequestId[] = []): void {
    if (exchange) for (const id of ids) this.waiting.set(id, exchange);
    this.sink?.message(data, read);
    // answered at once (synchronous handlers): no answer is left to drop if the client goes
    if (exchange && !exchange.done) {
      exchange.onAbort(() => {
        for (const id of ids) if (this.waiting.get(id) === exchange) this.waiting.delete(id);
      });
    }
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
      throw new ClosedError(
        "no stream to the client: the request it serves takes JSON only or has ended, and no GET stream is open",
      );
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
      else
        exchange.answer(
          errorText({ code: INVALID_REQUEST, message: "Session terminated before this request was answered" }, null),
          404,
        );
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
  /** `initialize` was answered with a result. */
  private answered = false;
  /**
   * The client came back after `initialize` was answered: the session is in use, and a flood of
   * new sessions must never end it (only its own idleness, DELETE, or the server closing do).
   */
  established = false;

  constructor(
    connect: (transport: Transport) => Peer,
    /** Who opened it (the remote address), to cap the sessions one client holds. */
    readonly client = "",
  ) {
    this.peer = connect(this.transport);
  }

  /** Records the revision an initialize result names. */
  negotiated(result: unknown): void {
    this.answered = true;
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (isRevision(version)) this.revision = version;
  }

  /** A request of the client's in this session has arrived. */
  used(): void {
    this.lastActive = Date.now();
    if (this.answered) this.established = true;
  }

  close(): Promise<void> {
    return this.peer.close("the session has ended");
  }
}

export interface SessionLimits {
  /** A session with nothing under way for this long is closed. */
  idleMs: number;
  /** At most this many at once. */
  max: number;
  /** At most this many opened by one client (remote address). Default: a quarter of `max`. */
  perClient?: number;
}

/** A session opened but never used after `initialize` is closed after this long at most. */
const HANDSHAKE_MS = 30_000;

/** Why `add` refused a session. */
export type Refusal = "full" | "client-full";

/**
 * The live sessions, with idle expiry and caps on their number, in all and per client. When
 * full, a new session may replace only one that never got past `initialize` (an abandoned or
 * flooded handshake); sessions in use are never ended to make room: the new one is refused.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly perClient = new Map<string, number>();
  private readonly clientMax: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly limits: SessionLimits) {
    this.clientMax = Math.max(1, limits.perClient ?? Math.floor(limits.max / 4));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The session `id` names, marked as used by its client. */
  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    session?.used();
    return session;
  }

  /** Adds a session, or says why it cannot: the table, or the client's share of it, is full of sessions in use. */
  add(session: Session): Refusal | undefined {
    if ((this.perClient.get(session.client) ?? 0) >= this.clientMax && !this.evictHandshake(session.client))
      return "client-full";
    if (this.sessions.size >= this.limits.max && !this.evictHandshake(undefined)) return "full";
    this.sessions.set(session.id, session);
    this.perClient.set(session.client, (this.perClient.get(session.client) ?? 0) + 1);
    // a peer that ends by itself (its transport closed) takes its session with it
    void session.peer.ended.then(() => this.remove(session));
    this.startSweeping();
    return undefined;
  }

  async delete(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.remove(session);
    await session.close();
    return true;
  }

  async closeAll(): Promise<void> {
    this.stopSweeping();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.perClient.clear();
    await Promise.all(all.map((s) => s.close()));
  }

  private remove(session: Session): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    const n = (this.perClient.get(session.client) ?? 1) - 1;
    if (n > 0) this.perClient.set(session.client, n);
    else this.perClient.delete(session.client);
    if (this.sessions.size === 0) this.stopSweeping();
  }

  /** Ends the idlest session (of `client`, if given) that never got past initialize; false if there is none. */
  private evictHandshake(client: string | undefined): boolean {
    let idlest: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.established || s.transport.busy || (client !== undefined && s.client !== client)) continue;
      if (!idlest || s.lastActive < idlest.lastActive) idlest = s;
    }
    if (!idlest) return false;
    this.remove(idlest);
    void idlest.close();
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    const idle = now - this.limits.idleMs;
    const handshake = now - Math.min(this.limits.idleMs, HANDSHAKE_MS);
    for (const s of [...this.sessions.values()]) {
      if (!s.transport.busy && s.lastActive < (s.established ? idle : handshake)) {
        this.remove(s);
        void s.close();
      }
    }
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => this.sweep(),
      Math.min(Math.max(Math.min(this.limits.idleMs, HANDSHAKE_MS) / 4, 250), 60_000),
    );
    this.sweeper.unref?.();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
