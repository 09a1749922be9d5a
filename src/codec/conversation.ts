/**
 * Rules that need more than one message: which ids may repeat, which responses answer what.
 * Fed the messages of one exchange in order, each with its sender.
 */
import { INVALID_REQUEST, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION } from "../rules/error-codes.js";
import { extensionRules } from "../rules/extensions.js";
import { META_CLIENT_CAPABILITIES, RULES, isRevision, type Revision, type RevisionRules } from "../rules/revisions.js";
import { BoundedMap, BoundedSet } from "./bounded.js";
import type { Checked } from "./check.js";
import { defect, quote, type Defect } from "./defects.js";
import type { Message, MessageKind, RequestId, RequestMessage } from "./message.js";

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

/**
 * A request awaiting its answer: its method, when it was sent (to tell nested calls apart), and
 * the extensions a 2026-07-28 request declared in its own `_meta`, which bind its answer alone.
 */
interface Awaiting {
  method: string;
  turn: number;
  extensions?: readonly string[];
}

class Side {
  /** Requests this side sent that await an answer: id (compared by value and type) → method. */
  readonly pending: BoundedMap<RequestId, Awaiting>;
  /** Every id this side used, for the session-scoped rule. */
  readonly used: BoundedSet<RequestId>;
  /** Ids of this side's requests already answered, to tell a duplicate from a stranger. */
  readonly answered: BoundedSet<RequestId>;
  /** Ids of this side's requests it cancelled (`notifications/cancelled`) before an answer came. */
  readonly cancelled: BoundedSet<RequestId>;
  lastWasNotification = false;
  /** The extensions this side declared for the session (`initialize`, `server/discover`); undefined until seen. */
  extensions: readonly string[] | undefined;
  constructor(remember: number) {
    this.pending = new BoundedMap(remember);
    this.used = new BoundedSet(remember);
    this.answered = new BoundedSet(Math.min(remember, 100_000));
    this.cancelled = new BoundedSet(Math.min(remember, 100_000));
  }
}

/**
 * Requests only a server sends, by revision (the `ServerRequest` union of each schema, less the
 * methods a client sends too: `ping`, and the `tasks/*` requests of 2025-11-25 go both ways).
 * 2026-07-28 has none: a server asks for input inside its result.
 */
const SERVER_ONLY_REQUESTS: Readonly<Record<Revision, ReadonlySet<string>>> = {
  "2024-11-05": new Set(["sampling/createMessage", "roots/list"]),
  "2025-03-26": new Set(["sampling/createMessage", "roots/list"]),
  "2025-06-18": new Set(["sampling/createMessage", "roots/list", "elicitation/create"]),
  "2025-11-25": new Set(["sampling/createMessage", "roots/list", "elicitation/create"]),
  "2026-07-28": new Set(),
};
/** Requests that may come from either side. */
const EITHER_SIDE_REQUESTS = new Set(["ping", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]);
/** Notifications only a server sends (the same in every revision that has them). */
const SERVER_ONLY_NOTIFICATIONS = new Set([
  "notifications/message",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/elicitation/complete",
]);

const CANCELLED = "notifications/cancelled";
const NONE: readonly string[] = Object.freeze([]);

export interface ObserveOptions {
  /**
   * The requests an answer without an id settles: over HTTP a POST's error status carries "a
   * JSON-RPC error response that has no id" (transports), which answers what that POST sent.
   */
  answers?: readonly RequestId[];
}

export class Conversation {
  private rules: RevisionRules;
  private readonly sides: Record<Sender, Side>;
  private turn = 0;
  /** The protocol versions the server said it supports (`server/discover`, a -32022 error). */
  private readonly serverVersions = new Set<string>();
  /** The version the last `initialize` asked for. */
  private requestedVersion: string | undefined;

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
   * Who sent a message of a capture that does not say: requests and notifications only a server
   * sends (`roots/list`, `sampling/createMessage`…) are the server's, other calls the client's;
   * an answer is from the side whose request awaits it (the later one when both do: a call
   * nested in another). A request either side may send (`ping`) is the client's unless that
   * would reuse an id the client holds and the server does not.
   */
  senderOf(value: unknown): Sender {
    if (Array.isArray(value)) return value.length > 0 && value.every(isResponseShape) ? "server" : "client";
    if (typeof value !== "object" || value === null) return "client";
    const o = value as Record<string, unknown>;
    const method = o.method;
    if (typeof method === "string") {
      if (o.id === undefined) return SERVER_ONLY_NOTIFICATIONS.has(method) ? "server" : "client";
      if (SERVER_ONLY_REQUESTS[this.rules.revision].has(method)) return "server";
      if (EITHER_SIDE_REQUESTS.has(method) && (typeof o.id === "string" || typeof o.id === "number")) {
        const { client, server } = this.sides;
        const clash = (s: Side) =>
          s.pending.has(o.id as RequestId) || (this.rules.idReuse === "session" && s.used.has(o.id as RequestId));
        if (clash(client) && !clash(server)) return "server";
      }
      return "client";
    }
    if (!isResponseShape(value)) return "client";
    const id = o.id;
    if (typeof id !== "string" && typeof id !== "number") return "server";
    const byClient = this.sides.client.pending.get(id);
    const byServer = this.sides.server.pending.get(id);
    if (byClient && byServer) return byServer.turn > byClient.turn ? "client" : "server";
    if (byServer) return "client";
    if (byClient) return "server";
    if (!this.sides.client.answered.has(id) && this.sides.server.answered.has(id)) return "client";
    return "server";
  }

  /**
   * The method of the request `value` answers, when `value` is a response from `from` whose id
   * awaits an answer (ask before `observe`, which settles it); undefined otherwise.
   */
  answeredMethod(value: unknown, from: Sender): string | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const id = (value as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    return this.sides[from === "client" ? "server" : "client"].pending.get(id)?.method;
  }

  /**
   * The extensions in force for `value` from `from` (ask before `observe`): for an answer, those
   * both sides declared — the asker on that very request (a 2026-07-28 request's `_meta` client
   * capabilities) or for the session (`initialize`), the answerer for the session (`initialize`
   * or `server/discover` capabilities) — and whose additions the answered method may carry. A
   * 2026-07-28 server whose `server/discover` this conversation did not see (an HTTP exchange
   * of its own) is taken at its word: the client's declaration is what binds it.
   */
  extensionsFor(value: unknown, from: Sender): readonly string[] {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return NONE;
    const id = (value as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return NONE;
    const asker = this.sides[from === "client" ? "server" : "client"];
    const awaited = asker.pending.get(id);
    if (awaited === undefined) return NONE;
    // "regardless of prior declarations": a modern request speaks for itself alone
    const modern = this.rules.opening === "per-request-meta";
    const asked = (modern ? awaited.extensions : asker.extensions) ?? NONE;
    if (asked.length === 0) return NONE;
    const answerer = this.sides[from].extensions;
    return asked.filter((ext) => {
      const known = extensionRules(ext);
      if (known !== undefined && !known.augments.includes(awaited.method)) return false;
      return answerer === undefined ? modern : answerer.includes(ext);
    });
  }

  /** The extensions both sides declared for the session so far (`initialize`, `server/discover`, requests' `_meta`). */
  get extensions(): readonly string[] {
    const server = this.sides.server.extensions;
    const client = this.sides.client.extensions;
    if (server === undefined || client === undefined) return NONE;
    return client.filter((ext) => server.includes(ext));
  }

  /**
   * Takes the next message of the exchange and returns the conversation defects it raises.
   * A message whose envelope is broken still counts when its id and shape can be read: a
   * request with array params gets an answer like any other.
   */
  observe(checked: Checked, from: Sender, options: ObserveOptions = {}): Defect[] {
    const found: Defect[] = [];
    if (checked.items) {
      // a batch, even one the revision forbids: its members still ask and answer
      const list = (checked.message ?? checked.value) as unknown[];
      checked.items.forEach((item, i) => this.observeValue(list[i], item.kind, from, `/${i}`, found, options));
    } else {
      this.observeValue(checked.message ?? checked.value, checked.kind, from, "", found, options);
    }
    return found;
  }

  private observeValue(
    value: unknown,
    kind: MessageKind,
    from: Sender,
    path: string,
    found: Defect[],
    options: ObserveOptions,
  ): void {
    if (kind === "invalid") kind = readableShape(value);
    if (kind === "invalid" || kind === "batch") return;
    this.observeOne(value as Message, kind, from, path, found, options);
  }

  private observeOne(
    m: Message,
    kind: MessageKind,
    from: Sender,
    path: string,
    found: Defect[],
    options: ObserveOptions,
  ): void {
    const me = this.sides[from];
    if (kind === "notification") {
      me.lastWasNotification = true;
      if ((m as { method: string }).method === CANCELLED) this.cancelled(me, (m as { params?: unknown }).params);
    } else if (kind === "request") {
      me.lastWasNotification = false;
      this.request(m as RequestMessage, from, path, found);
    } else {
      this.response(m, kind, from, path, found, options);
    }
  }

  /** A request: its id must be free, and it awaits an answer from now on. */
  private request(m: RequestMessage, from: Sender, path: string, found: Defect[]): void {
    const me = this.sides[from];
    const { id, method } = m;
    this.idReused(me, id, from, path, found);
    const declared = requestExtensions(m, this.rules);
    me.pending.set(
      id,
      declared === undefined ? { method, turn: this.turn++ } : { method, turn: this.turn++, extensions: declared },
    );
    if (declared !== undefined) me.extensions = union(me.extensions, declared);
    me.cancelled.delete(id);
    if (this.rules.idReuse === "session") me.used.add(id);
    if (method === "initialize" && from === "client") {
      const v = (m as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
      this.requestedVersion = typeof v === "string" ? v : undefined;
      me.extensions = declaredExtensions((m as { params?: { capabilities?: unknown } }).params?.capabilities);
    }
  }

  /** An id still awaiting its answer, or (where the revision says so) used before in the session. */
  private idReused(me: Side, id: RequestId, from: Sender, path: string, found: Defect[]): void {
    const rev = this.rules.revision;
    if (me.pending.has(id)) {
      found.push(
        defect(
          "id_reused_in_flight",
          `${path}/id`,
          `id ${quote(id)} repeats the id of this ${from}'s ${quote(me.pending.get(id)!.method)} request, still awaiting its answer (${rev} basic/index)`,
        ),
      );
    } else if (this.rules.idReuse === "session" && me.used.has(id)) {
      found.push(
        defect(
          "id_reused_in_session",
          `${path}/id`,
          `id ${quote(id)} was already used by this ${from} in the session; ${rev} forbids reusing an id within a session (${rev === "2024-11-05" ? "2024-11-05 schema" : `${rev} basic/index`})`,
        ),
      );
    }
  }

  /** A response: it answers one of the peer's requests. */
  private response(
    m: Message,
    kind: MessageKind,
    from: Sender,
    path: string,
    found: Defect[],
    options: ObserveOptions,
  ): void {
    const peer = this.sides[from === "client" ? "server" : "client"];
    this.sides[from].lastWasNotification = false;
    const id = (m as { id?: RequestId | null }).id;
    if (id === undefined || id === null) {
      this.responseWithoutId(m, kind, id, peer, path, found, options);
      return;
    }
    const awaited = peer.pending.get(id);
    if (awaited) this.answered(m, kind, from, awaited.method, id, path, found);
    else this.unawaitedResponse(kind, from, id, path, found);
  }

  /**
   * A response with no id (or a null one): it settles what an HTTP error status answers, is
   * JSON-RPC's answer to what could not be read, or answers nothing.
   */
  private responseWithoutId(
    m: Message,
    kind: MessageKind,
    id: undefined | null,
    peer: Side,
    path: string,
    found: Defect[],
    options: ObserveOptions,
  ): void {
    const error: unknown = kind === "error" ? (m as { error?: unknown }).error : undefined;
    // a broken message can get here too (see readableShape), its error need not be an object
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
    if (kind === "error" && options.answers) {
      for (const answered of options.answers) this.settle(peer, answered);
      return;
    }
    if (code === PARSE_ERROR || code === INVALID_REQUEST) return; // the request's id could not be read
    const rev = this.rules.revision;
    if (peer.lastWasNotification) {
      // an error without an id is a warning at most, wherever it comes
      found.push(
        defect(
          "response_to_notification",
          path || "",
          `${article(kind)} with ${id === null ? "a null" : "no"} id right after a notification: notifications must never be answered (${rev} basic/index)`,
          kind === "error" ? "no_id_error" : undefined,
        ),
      );
    } else if (kind === "error") {
      // JSON-RPC's answer to a request it could not read, or a refusal before ids were read:
      // worth a note, never a broken conversation (the same in the peer)
      found.push(
        defect(
          "unknown_response_id",
          `${path}/id`,
          `an error with ${id === null ? "a null" : "no"} id answers no request: a refusal of something whose id was not read`,
          "no_id_error",
        ),
      );
    } else {
      found.push(
        defect(
          "unknown_response_id",
          `${path}/id`,
          `a result with ${id === null ? "a null" : "no"} id answers no request`,
        ),
      );
    }
  }

  /** The answer to a request awaiting it: settles it, and learns what an opening exchange tells. */
  private answered(
    m: Message,
    kind: MessageKind,
    from: Sender,
    method: string,
    id: RequestId,
    path: string,
    found: Defect[],
  ): void {
    this.settle(this.sides[from === "client" ? "server" : "client"], id);
    if (kind === "result" && method === "initialize" && from === "server") this.initializeAnswered(m, path, found);
    if (kind === "error" && method !== "initialize") this.learnVersions(m);
    if (kind === "result" && method === "server/discover") this.learnVersions(m);
    if (kind === "result" && (method === "server/discover" || method === "initialize"))
      this.sides[from].extensions = declaredExtensions(
        (m as { result?: { capabilities?: unknown } }).result?.capabilities,
      );
  }

  /** A response to nothing awaiting one: to a cancelled request, a second answer, or a stranger. */
  private unawaitedResponse(kind: MessageKind, from: Sender, id: RequestId, path: string, found: Defect[]): void {
    const peer = this.sides[from === "client" ? "server" : "client"];
    const rev = this.rules.revision;
    if (peer.cancelled.delete(id)) {
      peer.answered.add(id);
      found.push(
        defect(
          "response_after_cancel",
          `${path}/id`,
          `${article(kind)} to request ${quote(id)}, which the ${from === "server" ? "client" : "server"} had cancelled: the receiver of notifications/cancelled should not answer it (${rev} utilities/cancellation), unless the answer crossed the cancellation in flight`,
        ),
      );
      return;
    }
    if (peer.answered.has(id)) {
      found.push(
        defect(
          "duplicate_response",
          `${path}/id`,
          `a second response to request ${quote(id)}, which was already answered: each request gets exactly one response (JSON-RPC 2.0 §5)`,
        ),
      );
      return;
    }
    const other = typeof id === "string" ? Number(id) : String(id);
    const hint = peer.pending.has(other) ? ` (request ${quote(other)} is pending: ids must match in type too)` : "";
    found.push(
      defect(
        "unknown_response_id",
        `${path}/id`,
        `${article(kind)} for id ${quote(id)}, which matches no request awaiting an answer${hint}`,
      ),
    );
  }

  private settle(side: Side, id: RequestId): void {
    if (side.pending.delete(id)) side.answered.add(id);
  }

  /** A side cancelled one of its own requests: no answer is due any more, and its id is free. */
  private cancelled(side: Side, params: unknown): void {
    const id =
      typeof params === "object" && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
    if (typeof id !== "string" && typeof id !== "number") return;
    if (side.pending.delete(id)) side.cancelled.add(id);
  }

  /** What the server said it supports: a `server/discover` result, or -32022's `data.supported`. */
  private learnVersions(m: Message): void {
    const r = m as {
      result?: { supportedVersions?: unknown };
      error?: { code?: unknown; data?: { supported?: unknown } };
    };
    const list = r.result
      ? r.result.supportedVersions
      : r.error?.code === UNSUPPORTED_PROTOCOL_VERSION
        ? r.error.data?.supported
        : undefined;
    if (!Array.isArray(list)) return;
    for (const v of list) if (typeof v === "string") this.serverVersions.add(v);
  }

  /**
   * A server that does not speak the version asked for answers with another it supports, which
   * "SHOULD be the latest version supported by the server" (lifecycle, version negotiation).
   */
  private initializeAnswered(m: Message, path: string, found: Defect[]): void {
    const chosen = (m as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof chosen !== "string" || chosen === this.requestedVersion || !isRevision(chosen)) return;
    // only versions opened with initialize can be answered to it
    const newer = [...this.serverVersions]
      .filter((v): v is Revision => isRevision(v) && RULES[v].opening === "initialize" && v > chosen)
      .sort();
    const latest = newer.at(-1);
    if (!latest) return;
    found.push(
      defect(
        "initialize_version_not_latest",
        `${path}/result/protocolVersion`,
        `initialize asked for ${quote(this.requestedVersion ?? null)} and the server chose ${quote(chosen)}, though it lists ${quote(latest)} as supported: a server that does not speak the requested version should answer with the latest it supports (${chosen} basic/lifecycle)`,
      ),
    );
  }
}

/** The ids under `capabilities.extensions` (an object keyed by extension id); [] when there are none. */
function declaredExtensions(capabilities: unknown): readonly string[] {
  if (typeof capabilities !== "object" || capabilities === null) return NONE;
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  if (typeof extensions !== "object" || extensions === null || Array.isArray(extensions)) return NONE;
  return Object.keys(extensions);
}

/** What a 2026-07-28 request declares in its `_meta` client capabilities; undefined where requests carry none. */
function requestExtensions(m: Message, rules: RevisionRules): readonly string[] | undefined {
  if (rules.opening !== "per-request-meta") return undefined;
  const meta = (m as { params?: { _meta?: unknown } }).params?._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const declared = declaredExtensions((meta as Record<string, unknown>)[META_CLIENT_CAPABILITIES]);
  return declared.length > 0 ? declared : undefined;
}

function union(a: readonly string[] | undefined, b: readonly string[]): readonly string[] {
  if (a === undefined) return b;
  return b.every((x) => a.includes(x)) ? a : [...new Set([...a, ...b])];
}

function isResponseShape(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return o.method === undefined && (o.result !== undefined || o.error !== undefined);
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
