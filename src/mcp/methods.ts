/**
 * Which client-to-server methods each revision has, read from its schema.json: 2026-07-28 has no
 * `ping`, `logging/setLevel` or resource subscriptions (a `subscriptions/listen` stream replaces
 * them); 2025-11-25 has the experimental `tasks/*` methods in its core, and the 2026-07-28 tasks
 * extension `tasks/get`, `tasks/update` and `tasks/cancel` (no `tasks/result`, no `tasks/list`).
 * A method the negotiated revision lacks fails here, before anything is sent.
 */
import { ConnectionError, ConnectionErrorCode } from "../peer/errors.js";
import { RULES, type Revision } from "../rules/revisions.js";

export type ModernRevision = "2026-07-28";
export type LegacyRevision = Exclude<Revision, ModernRevision>;

/**
 * The client `C` where revision `R` may have a legacy-only method, and `never` where it surely
 * lacks it: a client whose revision is not known until it connects keeps every method, checked
 * when called; one opened with `revision: "2026-07-28"` has no `ping` to call.
 */
export type IfLegacy<R extends Revision, C> = [R] extends [ModernRevision] ? never : C;
/** The client `C` where revision `R` may have a 2026-07-28 method, `never` where it surely lacks it. */
export type IfModern<R extends Revision, C> = [R] extends [LegacyRevision] ? never : C;
/** The client `C` where revision `R` may have the 2025-11-25 `tasks/*` methods (`tasks/result`, `tasks/list`). */
export type IfTasks<R extends Revision, C> = [R] extends [Exclude<Revision, "2025-11-25">] ? never : C;
/** The revisions with tasks: 2025-11-25's experimental ones, 2026-07-28's extension. */
export type TaskRevision = "2025-11-25" | ModernRevision;
/** The client `C` where revision `R` may have tasks at all (`tasks/get`, `tasks/cancel`, calls as tasks). */
export type IfAnyTasks<R extends Revision, C> = [R] extends [Exclude<Revision, TaskRevision>] ? never : C;

/** The revisions that have a method, where not all do. */
const ONLY_IN: Readonly<Record<string, (revision: Revision) => boolean>> = {
  ping: (r) => RULES[r].era === "legacy",
  "logging/setLevel": (r) => RULES[r].era === "legacy",
  "resources/subscribe": (r) => RULES[r].era === "legacy",
  "resources/unsubscribe": (r) => RULES[r].era === "legacy",
  "subscriptions/listen": (r) => RULES[r].era === "modern",
  // 2025-11-25's experimental tasks, and the 2026-07-28 tasks extension (which has no
  // tasks/result or tasks/list, and adds tasks/update)
  "tasks/get": (r) => r === "2025-11-25" || RULES[r].era === "modern",
  "tasks/cancel": (r) => r === "2025-11-25" || RULES[r].era === "modern",
  "tasks/result": (r) => r === "2025-11-25",
  "tasks/list": (r) => r === "2025-11-25",
  "tasks/update": (r) => RULES[r].era === "modern",
};

/** What to use instead, for a person who called a method the revision lacks. */
const INSTEAD: Readonly<Record<string, string>> = {
  ping: "2026-07-28 has no ping: any request shows the server is there",
  "logging/setLevel":
    "on 2026-07-28 a request asks for log messages itself (the io.modelcontextprotocol/logLevel _meta)",
  "resources/subscribe": "on 2026-07-28 use listen({ resourceSubscriptions: [uri] })",
  "resources/unsubscribe": "on 2026-07-28 close the listen() subscription",
  "subscriptions/listen":
    "before 2026-07-28 use listen(), which subscribes resources and opens the GET stream of a Streamable HTTP session",
  "tasks/result": "on 2026-07-28 tasks/get carries a finished task's result (or awaitTask follows it to its end)",
  "tasks/list": "the 2026-07-28 tasks extension has no tasks/list: keep the ids of the tasks you start",
  "tasks/update":
    "before 2026-07-28 a task's server asks for input with requests of its own, answered by inputHandlers",
  "tasks/get": "only 2025-11-25 and the 2026-07-28 tasks extension have tasks",
  "tasks/cancel": "only 2025-11-25 and the 2026-07-28 tasks extension have tasks",
};

export function revisionHas(revision: Revision, method: string): boolean {
  const only = Object.hasOwn(ONLY_IN, method) ? ONLY_IN[method] : undefined;
  return only === undefined || only(revision);
}

/**
 * A method the connection's negotiated revision does not have was called: nothing was sent.
 * `method` is the JSON-RPC method, `revision` the connection's.
 */
export class MethodNotInRevisionError extends ConnectionError {
  override readonly name = "MethodNotInRevisionError";
  constructor(
    readonly method: string,
    readonly revision: Revision,
  ) {
    const instead = Object.hasOwn(INSTEAD, method) ? `; ${INSTEAD[method]}` : "";
    super(
      ConnectionErrorCode.MethodNotInRevision,
      `${method} is not a method of ${revision}, the revision this connection speaks: nothing was sent${instead}`,
    );
  }
}
