/**
 * Rules that need more than one message: which ids may repeat, which responses answer what.
 * Fed the messages of one exchange in order, each with its sender.
 */
import { INVALID_REQUEST, PARSE_ERROR } from "../rules/error-codes.js";
import { RULES, type Revision, type RevisionRules } from "../rules/revisions.js";
import type { Checked } from "./check.js";
import { defect, quote, type Defect } from "./defects.js";
import type { Message, MessageKind, RequestId } from "./message.js";

export type Sender = "client" | "server";

export interface ConversationOptions {
  revision: Revision;
  /**
   * How many ids each side's memory keeps (ids used in the session, requests awaiting an
   * answer). Past it the oldest are forgotten, so a capture of any length checks in bounded
   * memory. Default 1,000,000.
   */
  remember?: number;
}

/** A set that forgets its oldest entries past a limit. */
class BoundedSet<T> {
  private readonly items = new Set<T>();
  constructor(private readonly limit: number) {}
  has(v: T): boolean {
    return this.items.has(v);
  }
  add(v: T): void {
    if (this.items.has(v)) return;
    if (this.items.size >= this.limit) this.items.delete(this.items.values().next().value as T);
    this.items.add(v);
  }
  delete(v: T): void {
    this.items.delete(v);
  }
}

class BoundedMap<K, V> {
  private readonly items = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get(k: K): V | undefined {
    return this.items.get(k);
  }
  has(k: K): boolean {
    return this.items.has(k);
  }
  set(k: K, v: V): void {
    if (!this.items.has(k) && this.items.size >= this.limit) this.items.delete(this.items.keys().next().value as K);
    this.items.set(k, v);
  }
  delete(k: K): boolean {
    return this.items.delete(k);
  }
}

class Side {
  /** Requests this side sent that await an answer: id (compared by value and type) → method. */
  readonly pending: BoundedMap<RequestId, string>;
  /** Every id this side used, for the session-scoped rule. */
  readonly used: BoundedSet<RequestId>;
  /** Ids of this side's requests already answered, to tell a duplicate from a stranger. */
  readonly answered: BoundedSet<RequestId>;
  lastWasNotification = false;
  constructor(remember: number) {
    this.pending = new BoundedMap(remember);
    this.used = new BoundedSet(remember);
    this.answered = new BoundedSet(Math.min(remember, 100_000));
  }
}

export class Conversation {
  private rules: RevisionRules;
  private readonly sides: Record<Sender, Side>;

  constructor(options: ConversationOptions) {
    this.rules = RULES[options.revision];
    const remember = options.remember ?? 1_000_000;
    this.sides = { client: new Side(remember), server: new Side(remember) };
  }

  get revision(): Revision {
    return this.rules.revision;
  }

  /** The revision can be learned part-way (from `initialize` or `_meta`); later messages use it. */
  set revision(revision: Revision) {
    this.rules = RULES[revision];
  }

  /**
   * Takes the next message of the exchange and returns the conversation defects it raises.
   * A message whose envelope is broken still counts when its id and shape can be read: a
   * request with array params gets an answer like any other.
   */
  observe(checked: Checked & { value?: unknown }, from: Sender): Defect[] {
    const found: Defect[] = [];
    if (checked.items) {
      // a batch, even one the revision forbids: its members still ask and answer
      const list = (checked.message ?? checked.value) as unknown[];
      checked.items.forEach((item, i) => this.observeValue(list[i], item.kind, from, `/${i}`, found));
    } else {
      this.observeValue(checked.message ?? checked.value, checked.kind, from, "", found);
    }
    return found;
  }

  private observeValue(value: unknown, kind: MessageKind, from: Sender, path: string, found: Defect[]): void {
    if (kind === "invalid") kind = readableShape(value);
    if (kind === "invalid" || kind === "batch") return;
    this.observeOne(value as Message, kind, from, path, found);
  }

  private observeOne(m: Message, kind: MessageKind, from: Sender, path: string, found: Defect[]): void {
    const me = this.sides[from];
    const peer = this.sides[from === "client" ? "server" : "client"];
    const rev = this.rules.revision;
    if (kind === "notification") {
      me.lastWasNotification = true;
      return;
    }
    if (kind === "request") {
      me.lastWasNotification = false;
      const { id, method } = m as { id: RequestId; method: string };
      if (me.pending.has(id)) {
        found.push(defect("id_reused_in_flight", `${path}/id`, `id ${quote(id)} repeats the id of this ${from}'s ${quote(me.pending.get(id))} request, still awaiting its answer (${rev} basic/index)`));
      } else if (this.rules.idReuse === "session" && me.used.has(id)) {
        found.push(defect("id_reused_in_session", `${path}/id`, `id ${quote(id)} was already used by this ${from} in the session; ${rev} forbids reusing an id within a session (${rev === "2024-11-05" ? "2024-11-05 schema" : `${rev} basic/index`})`));
      }
      me.pending.set(id, method);
      if (this.rules.idReuse === "session") me.used.add(id);
      return;
    }
    // a response: it answers one of the peer's requests
    const wasAfterNotification = peer.lastWasNotification;
    me.lastWasNotification = false;
    const id = (m as { id?: RequestId | null }).id;
    if (id === undefined || id === null) {
      const error: unknown = kind === "error" ? (m as { error?: unknown }).error : undefined;
      // a broken message can get here too (see readableShape), its error need not be an object
      const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
      if (code === PARSE_ERROR || code === INVALID_REQUEST) return; // the request's id could not be read
      if (wasAfterNotification) {
        found.push(defect("response_to_notification", path || "", `${article(kind)} with ${id === null ? "a null" : "no"} id right after a notification: notifications must never be answered (${rev} basic/index)`));
      } else {
        found.push(defect("unknown_response_id", `${path}/id`, `${article(kind)} with ${id === null ? "a null" : "no"} id answers no request`));
      }
      return;
    }
    if (peer.pending.delete(id)) {
      peer.answered.add(id);
      return;
    }
    if (peer.answered.has(id)) {
      found.push(defect("duplicate_response", `${path}/id`, `a second response to request ${quote(id)}, which was already answered: each request gets exactly one response (JSON-RPC 2.0 §5)`));
      return;
    }
    const other = typeof id === "string" ? Number(id) : String(id);
    const hint = peer.pending.has(other) ? ` (request ${quote(other)} is pending: ids must match in type too)` : "";
    found.push(defect("unknown_response_id", `${path}/id`, `${article(kind)} for id ${quote(id)}, which matches no request awaiting an answer${hint}`));
  }
}

function article(kind: MessageKind): string {
  return kind === "error" ? "an error" : `a ${kind}`;
}

/** The kind a broken message would have, when its id is usable: enough to follow the exchange. */
function readableShape(v: unknown): MessageKind {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "invalid";
  const o = v as Record<string, unknown>;
  const id = o.id;
  const usableId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if (typeof o.method === "string" && o.result === undefined && o.error === undefined) {
    if (id === undefined) return "notification";
    return usableId ? "request" : "invalid";
  }
  // A response with a null or absent id is followed too: the id is already a defect of its own,
  // but right after a notification it is how a peer answers one, which only the exchange shows.
  const answerId = usableId || id === undefined || id === null;
  if (o.method === undefined && answerId && (o.result === undefined) !== (o.error === undefined)) {
    return o.error !== undefined ? "error" : "result";
  }
  return "invalid";
}
