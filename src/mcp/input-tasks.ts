/**
 * The client as the receiver of tasks (2025-11-25): a server may ask for sampling or elicitation
 * as a task (a `task` member in the request's params) where the client declared it runs that
 * request so. The client then answers at once with the task's handle, the handler's work goes on,
 * and the server follows it with `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
 * The 2026-07-28 tasks extension has no tasks a client runs (a server asks there through input
 * requests), and revisions before 2025-11-25 have no tasks: a `task` member is then ignored, as a
 * receiver that did not declare tasks for a request MUST do.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import type { Peer, RequestContext, RequestHandler } from "../peer/peer.js";
import { METHOD_NOT_FOUND } from "../rules/error-codes.js";
import { isObject } from "./meta.js";
import type { InputHandler, InputMethod } from "./mrtr.js";
import { TaskStore, type SessionLink, type TaskOptions, type TaskStoreOptions } from "./tasks.js";

/** Where each request that may run as a task is declared in the client's `tasks.requests`. */
const REQUEST_CAPABILITY: Readonly<Partial<Record<InputMethod, readonly [string, string]>>> = {
  "sampling/createMessage": ["sampling", "createMessage"],
  "elicitation/create": ["elicitation", "create"],
};

/** Only 2025-11-25 has tasks a client runs. */
const TASK_REVISION = "2025-11-25";

/** The member at `path` of a 2025-11-25 `tasks` capability is an object. */
function declares(tasks: unknown, path: readonly string[]): boolean {
  let at = tasks;
  for (const key of path) at = isObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
  return isObject(at);
}

export class InputTasks {
  private readonly store: TaskStore;
  private readonly maxTtlMs: number | null;
  /** The connection whose server sees the tasks; a task is seen only from the one that made it. */
  private session: SessionLink | undefined;
  /** The `tasks` capability the client sent, which decides what is served. */
  private declared: unknown;

  constructor(options: TaskStoreOptions) {
    // the status of a task changes: the server is told (a MAY), without the related-task key
    this.store = new TaskStore(options, (task) => task.session?.notify("notifications/tasks/status", task.legacy()));
    this.maxTtlMs = options.ttlMs === undefined ? 300_000 : options.ttlMs;
  }

  /**
   * The 2025-11-25 `tasks` capability for the handlers given: each request among sampling and
   * elicitation that has a handler, and `list` and `cancel`; undefined when none has.
   */
  static capability(handlers: Partial<Record<InputMethod, InputHandler | undefined>>): JsonObject | undefined {
    const requests: JsonObject = {};
    for (const [method, [group, name]] of Object.entries(REQUEST_CAPABILITY) as [InputMethod, [string, string]][]) {
      if (handlers[method] === undefined) continue;
      requests[group] = { ...(isObject(requests[group]) ? requests[group] : {}), [name]: {} };
    }
    return Object.keys(requests).length > 0 ? { list: {}, cancel: {}, requests } : undefined;
  }

  /**
   * Serves the tasks of a new connection on `peer`, as `tasks` (the capability sent) declares
   * them; tasks of an earlier connection end with it.
   */
  attach(peer: Peer, tasks: unknown): void {
    if (this.session) this.store.dropSession(this.session);
    const session: SessionLink = {
      request: (method, params) => peer.request(method, params),
      notify: (method, params) => void peer.notify(method, params).catch(() => undefined),
    };
    this.session = session;
    this.declared = tasks;
    const served =
      (path: readonly string[], serve: (params: JsonObject, context: RequestContext) => unknown): RequestHandler =>
      (params, context) => {
        if (peer.revision !== TASK_REVISION || !declares(this.declared, path))
          throw new ResponseError(METHOD_NOT_FOUND, `Method not found: ${context.method}`);
        return serve(params ?? {}, context);
      };
    peer.handle(
      "tasks/get",
      served([], (p) => this.store.get(p, session).legacy()),
    );
    peer.handle(
      "tasks/result",
      served([], (p, c) => this.store.get(p, session).legacyOutcome(c)),
    );
    peer.handle(
      "tasks/list",
      served(["list"], (p) => this.store.list(p, session, 100)),
    );
    peer.handle(
      "tasks/cancel",
      served(["cancel"], (p) => this.store.get(p, session).legacyCancel()),
    );
  }

  /**
   * The handler of `method` as the peer calls it: run as a task when the server asked for one
   * and the client declared it may, else answered inline.
   */
  serve(peer: Peer, method: InputMethod, handler: InputHandler): RequestHandler {
    const path = REQUEST_CAPABILITY[method];
    return (params, context) => {
      const given = params ?? {};
      const session = this.session;
      if (
        !isObject(given.task) ||
        path === undefined ||
        session === undefined ||
        peer.revision !== TASK_REVISION ||
        !declares(this.declared, ["requests", ...path])
      )
        return handler(given, { signal: context.signal });
      const task = this.store.create(
        (t) => handler(given, { signal: t.signal, ...(t.taskId === undefined ? {} : { taskId: t.taskId }) }),
        this.taskOptions(given.task),
        session,
      );
      return { task: task.legacy() };
    };
  }

  /** The lifetime the server asked for, where it is within the client's; else the client's own. */
  private taskOptions(task: JsonObject): TaskOptions {
    const ttl = task.ttl;
    const fits = typeof ttl === "number" && ttl >= 1 && (this.maxTtlMs === null || ttl <= this.maxTtlMs);
    return fits ? { ttlMs: ttl } : {};
  }
}
