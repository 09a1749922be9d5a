/**
 * The tap's conversations over HTTP, as the protocol makes them: a legacy session
 * (`Mcp-Session-Id`), an HTTP+SSE session (named by its stream's `endpoint` event), or else a
 * single HTTP exchange, so independent clients, whose ids may well collide, are never merged.
 * A conversation judges its messages one after another, in the order they were queued, so
 * answers arriving on another stream (an HTTP+SSE GET, a session's standalone stream) are judged
 * after the requests POSTed before them.
 */
import { settlesWhileProgressing } from "../peer/within.js";
import { BoundedMap } from "../codec/bounded.js";

export interface Conversation {
  readonly id: string;
  /** Its analysis so far: each task queued runs after the one before it. */
  queue: Promise<void>;
  /** Bound to a session: it outlives the exchange that opened it. */
  bound: boolean;
}

export interface ConversationEvents {
  /** The conversation is over: its requests are closed, its ids free again. */
  ended(id: string): void;
  /** A task of its analysis threw. */
  failed(error: unknown): void;
}

export class Conversations {
  private opened = 0;
  /** Tasks queued and not yet run, over every conversation. */
  private running = 0;
  private readonly idlers: (() => void)[] = [];
  /** Tasks run to their end, over every conversation: the progress a drain watches. */
  private done = 0;
  /** Legacy sessions by `Mcp-Session-Id`. */
  private readonly sessions: BoundedMap<string, Conversation>;
  /** HTTP+SSE sessions by the endpoint's `sessionId` query, or else its path. */
  private readonly endpoints: BoundedMap<string, Conversation>;

  /** Past `maxSessions` of either kind, the oldest is forgotten, and ended. */
  constructor(
    maxSessions: number,
    private readonly events: ConversationEvents,
  ) {
    this.sessions = new BoundedMap(maxSessions, (_, c) => this.end(c));
    this.endpoints = new BoundedMap(maxSessions, (_, c) => this.end(c));
  }

  /** A conversation of one exchange, until an answer binds it to a session. */
  open(): Conversation {
    return { id: `c${++this.opened}`, queue: Promise.resolve(), bound: false };
  }

  /** The legacy session `sessionId`, opened at first sight. */
  session(sessionId: string): Conversation {
    let c = this.sessions.get(sessionId);
    if (!c) {
      c = this.open();
      c.bound = true;
      this.sessions.set(sessionId, c);
    }
    return c;
  }

  /** The answer to `initialize` named the session `c` goes on in. */
  bindSession(sessionId: string, c: Conversation): void {
    c.bound = true;
    this.sessions.set(sessionId, c);
  }

  /** The client ended the session (DELETE). */
  endSession(sessionId: string, c: Conversation): void {
    this.sessions.delete(sessionId);
    this.end(c);
  }

  /** The HTTP+SSE session a POST to `path` belongs to, by its `sessionId` query or its whole path. */
  endpointOf(path: string): Conversation | undefined {
    const url = new URL(path, "http://tap.invalid");
    const id = url.searchParams.get("sessionId");
    return (
      (id !== null ? this.endpoints.get(`id:${id}`) : undefined) ??
      this.endpoints.get(`path:${url.pathname}${url.search}`)
    );
  }

  /** `c`'s stream named `endpoint` for its POSTs: they join `c`. Returns what `releaseEndpoints` takes. */
  bindEndpoint(endpoint: URL, c: Conversation): string {
    const id = endpoint.searchParams.get("sessionId");
    const key = id !== null ? `id:${id}` : `path:${endpoint.pathname}${endpoint.search}`;
    c.bound = true;
    this.endpoints.set(key, c);
    return key;
  }

  /** `c`'s stream ended: an HTTP+SSE session lives as long as its stream. */
  releaseEndpoints(keys: readonly string[], c: Conversation): void {
    for (const k of keys) if (this.endpoints.get(k) === c) this.endpoints.delete(k);
    this.end(c);
  }

  /** Runs `task` in `c`'s order. */
  inOrder(c: Conversation, task: () => void | Promise<void>): void {
    this.running++;
    c.queue = c.queue
      .then(task)
      .catch((e: unknown) => this.events.failed(e))
      .finally(() => {
        this.done++;
        if (--this.running === 0) for (const idle of this.idlers.splice(0)) idle();
      });
  }

  /**
   * Resolves once no task of any conversation is queued: true then; false once `quietMs` passed
   * with no task finishing, or `capMs` in all.
   */
  idle(quietMs: number, capMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    const idle = new Promise<void>((resolve) => this.idlers.push(resolve));
    return settlesWhileProgressing(idle, () => this.done, quietMs, capMs);
  }

  /** Ends `c` once what is queued before has run. */
  end(c: Conversation): void {
    this.inOrder(c, () => this.events.ended(c.id));
  }

  /** Ends `c` once what is queued before has run, unless that bound it to a session. */
  endUnbound(c: Conversation): void {
    this.inOrder(c, () => {
      if (!c.bound) this.events.ended(c.id);
    });
  }
}
