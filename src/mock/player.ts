/**
 * A recording played as a server: one `MockPlayer` per mock (the script, the matching mode, the
 * count of what went unmatched), one `MockSession` per client connection or HTTP session. The
 * session finds each request's turn and plays it through an `Outlet` the transport gives it:
 * the server's messages before the answer (its own requests sent with fresh ids and waited on),
 * the answer with the client's id, and what came after.
 */
import type { RequestId } from "../codec/message.js";
import { redact } from "../secrets/redact.js";
import { canonical, closest, Matcher, opens, PENDING, type MatchMode } from "./match.js";
import { settled, type Played, type Script, type ScriptConversation, type Turn } from "./script.js";

/** A request no recording answered. */
export interface UnmatchedRequest {
  method: string;
  /** The params as the client sent them (canonical JSON, secrets redacted). */
  params: string;
  /** The nearest recorded request of the same method, canonical, when there is one. */
  closest?: string;
}

/** Where a session's messages go: the transport's way back to the client. */
export type Outlet = (text: string, played?: Played) => void | Promise<void>;

/** How long a request of the server's waits for the client's answer before the play goes on. */
const REPLY_WAIT_MS = 30_000;

/** JSON-RPC's "method not found": the answer to a request with no recording. */
const METHOD_NOT_FOUND = -32601;

export class MockPlayer {
  readonly unmatched: UnmatchedRequest[] = [];
  private readonly plays = new Map<ScriptConversation, number>();

  constructor(
    readonly script: Script,
    readonly mode: MatchMode,
  ) {}

  session(): MockSession {
    return new MockSession(this);
  }

  /** A session's view of how far the recording has been read. */
  readonly read = {
    complete: () => this.script.complete,
    settled: (turn: Turn) => settled(this.script, turn),
  };

  /**
   * The conversation a new session opening with this request plays: the least played of those it
   * opens; `PENDING` while one further on in a file still being read might be the one.
   */
  choose(method: string, key: string): ScriptConversation | undefined | typeof PENDING {
    let best: ScriptConversation | undefined;
    for (const c of this.script.conversations) {
      if (!opens(c, this.mode, method, key)) continue;
      if (!best || (this.plays.get(c) ?? 0) < (this.plays.get(best) ?? 0)) best = c;
    }
    // one never played is the first such in the file, wherever the reading is
    if (!this.script.complete && (!best || (this.plays.get(best) ?? 0) > 0)) return PENDING;
    if (best) this.plays.set(best, (this.plays.get(best) ?? 0) + 1);
    return best;
  }

  /** Counts an unmatched request and says what to answer it with. */
  miss(method: string, key: string): string {
    const near = closest(this.script.conversations, method, key);
    this.unmatched.push({ method, params: redact(key), ...(near ? { closest: redact(near.key) } : {}) });
    return near
      ? `no recorded answer for ${method} ${redact(key)}; the closest recorded request is ${method} ${redact(near.key)}`
      : `no recorded answer for ${method}: the recording holds no ${method} request`;
  }
}

export class MockSession {
  private primary: Matcher | undefined;
  private readonly others = new Map<ScriptConversation, Matcher>();
  private readonly waiting = new Map<string, () => void>();
  private ids = 0;

  constructor(private readonly player: MockPlayer) {}

  /** The conversation this session plays, once its first request chose one. */
  get conversation(): ScriptConversation | undefined {
    return this.primary?.conversation;
  }

  /**
   * The turn for a request or notification from the client; undefined when nothing recorded
   * matches. While the file is still being read it waits for as much of it as the answer needs;
   * rejects with the `RecordingError` the rest of the file holds.
   */
  async find(
    kind: Turn["kind"],
    method: string,
    params: unknown,
  ): Promise<{ turn?: Turn; key: string; repeated?: boolean }> {
    const key = canonical(params);
    for (;;) {
      const found = this.lookUp(kind, method, key);
      if (found !== PENDING) return found;
      await this.player.script.more();
    }
  }

  private lookUp(
    kind: Turn["kind"],
    method: string,
    key: string,
  ): { turn?: Turn; key: string; repeated?: boolean } | typeof PENDING {
    if (!this.primary) {
      const c = this.player.choose(method, key);
      if (c === PENDING) return PENDING;
      if (c) this.primary = new Matcher(c, this.player.mode, this.player.read);
    }
    const turn = this.primary?.take(kind, method, key);
    if (turn === PENDING) return PENDING;
    if (turn) return { turn, key, repeated: this.primary!.repeated };
    if (this.player.mode === "sequence") return { key };
    // what its own conversation lacks, another may hold (a sessionless client's requests are each
    // one): looked for once the whole file is read
    if (!this.player.script.complete) return PENDING;
    for (const c of this.player.script.conversations) {
      if (c === this.primary?.conversation || !c.turns.some((t) => t.method === method)) continue;
      let m = this.others.get(c);
      if (!m) this.others.set(c, (m = new Matcher(c, this.player.mode)));
      const t = m.take(kind, method, key);
      if (t !== PENDING && t) return { turn: t, key, repeated: m.repeated };
    }
    return { key };
  }

  /**
   * One message from the client over a channel with one way back (stdio, memory): a request
   * played in full, a notification's messages played, an answer to one of the mock's requests
   * taken. Resolves once everything it causes has been sent.
   */
  async receive(message: unknown, out: Outlet): Promise<void> {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return;
    const m = message as { id?: RequestId; method?: unknown; params?: unknown };
    if (typeof m.method !== "string") return void this.reply(m.id);
    const kind = m.id === undefined ? "notification" : "request";
    const { turn, key, repeated } = await this.find(kind, m.method, m.params);
    const token = progressTokenOf(m.params);
    if (kind === "notification") {
      if (turn) await this.play([...turn.before, ...turn.after], out, token);
      return;
    }
    if (!turn) return void (await out(this.unmatched(m.id!, m.method, key)));
    // an answer given again past its recorded times comes alone: its notifications happened once
    if (!repeated) await this.play(turn.before, out, token);
    const answer = this.answer(turn, m.id!);
    if (answer !== undefined) await out(answer, turn.answer);
    if (!repeated) await this.play(turn.after, out, token);
  }

  /** The error answer to an unmatched request, counted. */
  unmatched(id: RequestId, method: string, key: string): string {
    const message = this.player.miss(method, key);
    return JSON.stringify({ jsonrpc: "2.0", id, error: { code: METHOD_NOT_FOUND, message } });
  }

  /** The recorded answer with the client's id. */
  answer(turn: Turn, id: RequestId): string | undefined {
    if (!turn.answer) return undefined;
    const value = JSON.parse(turn.answer.text) as Record<string, unknown>;
    value.id = id;
    return JSON.stringify(value);
  }

  /**
   * Sends the server's own messages of a turn in their order: progress with the client's token
   * (left out when it gave none), requests with fresh ids, each waited on until the client answers.
   */
  async play(items: readonly Played[], out: Outlet, progressToken: unknown): Promise<void> {
    for (const p of items) {
      const text = this.rewrite(p, progressToken);
      if (text === undefined) continue;
      // at the server's pace: a client that reads several messages in one chunk may settle the
      // answer before it has run the progress handlers of the messages before it
      await new Promise<void>((resolve) => setTimeout(resolve, Math.max(p.gap ?? 0, 1)));
      if (!p.request) {
        await out(text, p);
        continue;
      }
      const id = `mock-${++this.ids}`;
      const replied = new Promise<void>((resolve) => {
        const timer = setTimeout(() => finish(), REPLY_WAIT_MS);
        const finish = () => {
          clearTimeout(timer);
          this.waiting.delete(id);
          resolve();
        };
        this.waiting.set(id, finish);
      });
      const value = JSON.parse(text) as Record<string, unknown>;
      value.id = id;
      await out(JSON.stringify(value), p);
      await replied;
    }
  }

  /** A response from the client: to one of the mock's own requests, whose play then goes on. Returns whether it was one. */
  reply(id: unknown): boolean {
    const done = typeof id === "string" ? this.waiting.get(id) : undefined;
    done?.();
    return done !== undefined;
  }

  /** Ends the waits of this session (its client left). */
  close(): void {
    for (const done of [...this.waiting.values()]) done();
  }

  private rewrite(p: Played, progressToken: unknown): string | undefined {
    if (!p.text.includes('"progressToken"')) return p.text;
    const value = JSON.parse(p.text) as { params?: Record<string, unknown> };
    if (!value.params || !("progressToken" in value.params)) return p.text;
    if (progressToken === undefined) return undefined;
    value.params.progressToken = progressToken;
    return JSON.stringify(value);
  }
}

/** The progress token a request carries in its `_meta`. */
export function progressTokenOf(params: unknown): unknown {
  const meta = (params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken;
}
