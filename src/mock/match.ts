/**
 * How an incoming request finds its recorded turn. `initialize` and `server/discover` match by
 * method alone; other requests by method and params in canonical JSON (keys sorted, `_meta`
 * left out, absent params the same as `{}`), where a recorded string holding `<redacted>`
 * matches any string in its place. Three modes say which of the matching turns answers:
 * `exact` (the same request's recorded answers in order, then the last again), `sequence` (the
 * conversation's requests in their recorded order) and `method` (the method alone, results
 * before errors).
 */
import type { ScriptConversation, Turn } from "./script.js";

export type MatchMode = "exact" | "sequence" | "method";

const BY_METHOD_ALONE = new Set(["initialize", "server/discover"]);

/** JSON with object keys sorted, and the params' own `_meta` left out. */
export function canonical(params: unknown): string {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return sorted(params ?? {});
  const { _meta: _, ...rest } = params as Record<string, unknown>;
  return sorted(rest);
}

function sorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sorted).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${sorted(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Whether the recorded value matches the incoming one, a redacted string matching any string. */
function like(recorded: unknown, incoming: unknown): boolean {
  if (typeof recorded === "string") {
    if (typeof incoming !== "string") return false;
    if (!recorded.includes("<redacted>")) return recorded === incoming;
    const pattern = recorded
      .split("<redacted>")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*");
    return new RegExp(`^${pattern}$`).test(incoming);
  }
  if (Array.isArray(recorded))
    return (
      Array.isArray(incoming) && recorded.length === incoming.length && recorded.every((r, i) => like(r, incoming[i]))
    );
  if (typeof recorded === "object" && recorded !== null) {
    if (typeof incoming !== "object" || incoming === null || Array.isArray(incoming)) return false;
    const a = recorded as Record<string, unknown>;
    const b = incoming as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!like(a[k], b[k])) return false;
    return true;
  }
  return recorded === incoming;
}

/** How many leaf values differ between two JSON values: the distance `closest` minimises. */
function distance(a: unknown, b: unknown): number {
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    let n = 0;
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) n += distance(x[k], y[k]);
    return n;
  }
  return like(a, b) ? 0 : 1;
}

/** Whether `turn` answers a request of `method` with canonical params `key`. */
function turnMatches(turn: Turn, method: string, key: string): boolean {
  if (turn.method !== method) return false;
  if (BY_METHOD_ALONE.has(method) || turn.key === key) return true;
  return turn.wild && like(JSON.parse(turn.key), JSON.parse(key));
}

/** The recorded request nearest to an unmatched one: same method, fewest differing values. */
export function closest(conversations: readonly ScriptConversation[], method: string, key: string): Turn | undefined {
  let best: Turn | undefined;
  let bestDistance = Infinity;
  const incoming = JSON.parse(key) as unknown;
  for (const c of conversations)
    for (const t of c.turns) {
      if (t.method !== method || t.kind !== "request") continue;
      const d = distance(JSON.parse(t.key), incoming);
      if (d < bestDistance) [best, bestDistance] = [t, d];
    }
  return best;
}

/** Whether a request could open `c`: its first request matches it. */
export function opens(c: ScriptConversation, mode: MatchMode, method: string, key: string): boolean {
  const first = c.turns.find((t) => t.kind === "request");
  return first !== undefined && (mode === "method" ? first.method === method : turnMatches(first, method, key));
}

/** What `take` says while the recording is still being read and the answer may lie further on. */
export const PENDING = Symbol("pending");

/**
 * One session's place in its conversation: what it has been answered so far. The conversation
 * may still be growing (its file is being read): turns are taken in as they come, and `take`
 * says `PENDING` where what is read so far cannot yet give the answer the whole file would.
 */
export class Matcher {
  private readonly served = new Map<string, number>();
  private position = 0;
  private readonly groups = new Map<string, Turn[]>();
  private readonly requests: Turn[] = [];
  private absorbed = 0;
  private ordered = false;

  constructor(
    readonly conversation: ScriptConversation,
    private readonly mode: MatchMode,
    /** Whether the whole recording has been read, and whether a turn of it is all read. */
    private readonly read: { complete(): boolean; settled(turn: Turn): boolean } = {
      complete: () => true,
      settled: () => true,
    },
  ) {}

  /** Whether the last `take` gave a turn again, past the times it was recorded: its answer alone is played. */
  repeated = false;

  /** The turn that answers this request (or notification), and moves the session on; undefined when none does. */
  take(kind: Turn["kind"], method: string, key: string): Turn | undefined | typeof PENDING {
    this.absorb();
    this.repeated = false;
    const complete = this.read.complete();
    if (this.mode === "sequence" && kind === "request") {
      const next = this.requests[this.position];
      if (!next) return complete ? undefined : PENDING;
      if (!this.read.settled(next)) return PENDING;
      if (!turnMatches(next, method, key)) return undefined;
      this.position++;
      return next;
    }
    // `method` prefers a result to an error among all the recorded answers: it needs them all
    if (this.mode === "method" && !complete) return PENDING;
    const g = this.groupOf(kind, method, key);
    if (!g) return complete ? undefined : PENDING;
    const [name, list] = g;
    const n = this.served.get(name) ?? 0;
    if (n >= list.length && !complete) return PENDING;
    const turn = list[Math.min(n, list.length - 1)]!;
    if (!this.read.settled(turn)) return PENDING;
    this.served.set(name, n + 1);
    // a notification's messages are played once; a request's last answer again and again
    if (kind === "notification" && n >= list.length) return undefined;
    this.repeated = n >= list.length;
    return turn;
  }

  /** Takes in the turns read since the last look. */
  private absorb(): void {
    const turns = this.conversation.turns;
    for (; this.absorbed < turns.length; this.absorbed++) {
      const t = turns[this.absorbed]!;
      if (t.kind === "request") this.requests.push(t);
      const bare = this.mode === "method" || BY_METHOD_ALONE.has(t.method) || t.kind === "notification";
      const g = `${t.kind} ${t.method} ${bare ? "" : t.key}`;
      let list = this.groups.get(g);
      if (!list) this.groups.set(g, (list = []));
      list.push(t);
    }
    // `method`: a recorded result before a recorded error
    if (this.mode === "method" && !this.ordered && this.read.complete()) {
      for (const list of this.groups.values()) list.sort((a, b) => Number(a.error) - Number(b.error));
      this.ordered = true;
    }
  }

  private groupOf(kind: Turn["kind"], method: string, key: string): [string, Turn[]] | undefined {
    const bare = this.mode === "method" || BY_METHOD_ALONE.has(method) || kind === "notification";
    const name = `${kind} ${method} ${bare ? "" : key}`;
    const direct = this.groups.get(name);
    if (direct) return [name, direct];
    if (bare) return undefined;
    for (const [n, list] of this.groups)
      if (list[0]!.kind === kind && turnMatches(list[0]!, method, key)) return [n, list];
    return undefined;
  }
}
