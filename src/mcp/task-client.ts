/**
 * Tasks from the client's side, in their two wire forms: 2025-11-25's experimental tasks (the
 * client asks for one with the call's `task` parameter; `ttl`, `pollInterval`; the result through
 * `tasks/result`; `tasks/list`; `notifications/tasks/status`) and the 2026-07-28 extension
 * `io.modelcontextprotocol/tasks` (the server decides; `resultType: "task"`, `ttlMs`,
 * `pollIntervalMs`; the result inlined in `tasks/get`; input through `tasks/update`;
 * `notifications/tasks` on a listen stream). What is negotiated decides what may be sent, and a
 * `TaskWait` follows one task to its end.
 */
import type { JsonObject } from "../codec/message.js";
import { AbortedError, ConnectionError, ConnectionErrorCode, ResponseError, TimeoutError } from "../peer/errors.js";
import type { RequestOptions } from "../peer/peer.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { INTERNAL_ERROR } from "../rules/error-codes.js";
import { RULES, type Revision } from "../rules/revisions.js";
import { isObject, type CallToolResult, type InputRequest } from "./meta.js";
import { InputRequiredError, handlerOf, type InputHandlers } from "./mrtr.js";
import type { LegacyRevision, ModernRevision } from "./methods.js";
import type { TaskStatus } from "./tasks.js";

export type { TaskStatus };

/** A task as 2025-11-25 shapes it. */
export interface LegacyTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the server keeps it from its creation, in ms; null for ever. */
  ttl: number | null;
  /** The interval the server suggests between polls, in ms. */
  pollInterval?: number;
  [key: string]: unknown;
}

/** A task as the 2026-07-28 extension shapes it, with what `tasks/get` inlines for its status. */
export interface ModernTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** `completed`: what the call would have answered. */
  result?: JsonObject;
  /** `failed`: the JSON-RPC error of the call. */
  error?: JsonObject;
  /** `input_required`: what the server asks, keyed by names unique over the task's life. */
  inputRequests?: { [key: string]: InputRequest };
  [key: string]: unknown;
}

/** 2025-11-25's answer to a task-augmented call. */
export interface LegacyCreateTaskResult {
  task: LegacyTask;
  [key: string]: unknown;
}

/** The 2026-07-28 answer of a server that made the call a task. */
export type ModernCreateTaskResult = ModernTask & { resultType: "task" };

export type AnyTask = LegacyTask | ModernTask;

/** A page of 2025-11-25's `tasks/list`. */
export interface ListTasksResult {
  tasks: LegacyTask[];
  nextCursor?: string;
  [key: string]: unknown;
}

/** The task shape of revision `R`: 2026-07-28's, 2025-11-25's, or either while the revision is not known. */
export type TaskOf<R extends Revision> = [R] extends [ModernRevision]
  ? ModernTask
  : [R] extends [LegacyRevision]
    ? LegacyTask
    : AnyTask;
/** The answer to a call made a task, in revision `R`. */
export type CreateTaskResultOf<R extends Revision> = [R] extends [ModernRevision]
  ? ModernCreateTaskResult
  : [R] extends [LegacyRevision]
    ? LegacyCreateTaskResult
    : ModernCreateTaskResult | LegacyCreateTaskResult;
/** The answer to `tasks/cancel`: 2025-11-25 gives the task, 2026-07-28 an empty acknowledgement. */
export type CancelTaskResultOf<R extends Revision> = [R] extends [ModernRevision]
  ? JsonObject
  : [R] extends [LegacyRevision]
    ? LegacyTask
    : LegacyTask | JsonObject;

/** The methods whose use depends on tasks being negotiated; `tools/call` is a task-augmented call. */
export type TaskMethod =
  "tools/call" | "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" | "tasks/update" | "notifications/tasks";

/**
 * Why a task method cannot be used on this connection: `revision` (it has no tasks at all),
 * `client` (this client did not declare them: the `tasks` option), `server` (the server did not
 * declare them, or not this operation), `tool` (the tool's listing forbids running it as a task).
 */
export type TasksRefusal = "revision" | "client" | "server" | "tool";

/** A task method was called where tasks are not negotiated (both sides declaring them): nothing was sent. */
export class TasksNotNegotiatedError extends ConnectionError {
  override readonly name = "TasksNotNegotiatedError";
  constructor(
    readonly method: string,
    readonly reason: TasksRefusal,
    message: string,
  ) {
    super(ConnectionErrorCode.TasksNotNegotiated, `${method}: ${message}: nothing was sent`);
  }
}

/** The task the client waited on ended `cancelled` (by the server, or by a `tasks/cancel` sent elsewhere). */
export class TaskCancelledError extends ConnectionError {
  override readonly name = "TaskCancelledError";
  constructor(
    readonly taskId: string,
    readonly statusMessage: string | undefined,
  ) {
    super(
      ConnectionErrorCode.TaskCancelled,
      `task ${taskId} was cancelled${statusMessage ? `: ${statusMessage}` : ""}`,
    );
  }
}

/** What each side declared, which decides what may be sent. */
export interface TaskTerms {
  revision: Revision;
  /** The capabilities this client sent (for 2026-07-28, those in each request's `_meta`). */
  client: JsonObject;
  /** The server's capabilities. */
  server: JsonObject;
}

function declaresExtension(capabilities: JsonObject): boolean {
  const extensions = capabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The member at `path` of the server's 2025-11-25 `tasks` capability is an object. */
function legacyDeclares(capabilities: JsonObject, path: readonly string[]): boolean {
  let at: unknown = capabilities.tasks;
  for (const key of path) at = isObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
  return isObject(at);
}

/** What the server's 2025-11-25 `tasks` capability must hold for each operation. */
const LEGACY_OPERATION: Readonly<Record<string, readonly string[]>> = {
  "tools/call": ["requests", "tools", "call"],
  "tasks/list": ["list"],
  "tasks/cancel": ["cancel"],
  "tasks/get": [],
  "tasks/result": [],
};

/** Whether both sides declared tasks in the connection's revision. */
export function tasksNegotiated(terms: TaskTerms): boolean {
  if (RULES[terms.revision].era === "modern") return declaresExtension(terms.client) && declaresExtension(terms.server);
  return terms.revision === "2025-11-25" && isObject(terms.client.tasks) && isObject(terms.server.tasks);
}

/** Why `method` may not be sent on these terms, or undefined when it may. */
export function taskRefusal(method: TaskMethod, terms: TaskTerms): TasksNotNegotiatedError | undefined {
  const { revision } = terms;
  const refuse = (reason: TasksRefusal, why: string) => new TasksNotNegotiatedError(method, reason, why);
  if (RULES[revision].era === "modern") {
    if (!declaresExtension(terms.client))
      return refuse(
        "client",
        `tasks are not negotiated: this client did not declare ${TASKS_EXTENSION} (the tasks option)`,
      );
    if (!declaresExtension(terms.server))
      return refuse("server", `tasks are not negotiated: the server did not declare ${TASKS_EXTENSION}`);
    return undefined;
  }
  if (revision !== "2025-11-25") return refuse("revision", `${revision} has no tasks (2025-11-25 and 2026-07-28 have)`);
  if (!isObject(terms.client.tasks))
    return refuse(
      "client",
      "tasks are not negotiated: this client did not declare the tasks capability (the tasks option)",
    );
  if (!isObject(terms.server.tasks))
    return refuse("server", "tasks are not negotiated: the server did not declare the tasks capability");
  const path = LEGACY_OPERATION[method] ?? [];
  if (path.length > 0 && !legacyDeclares(terms.server, path))
    return refuse("server", `the server's tasks capability has no ${path.join(".")}`);
  return undefined;
}

/**
 * Refuses running `tool` as a task where its listing says no: 2025-11-25 clients MUST NOT when its
 * `execution.taskSupport` is absent or `forbidden`. A tool never listed is not judged.
 */
export function toolRefusal(tool: string, taskSupport: string | null | undefined): TasksNotNegotiatedError | undefined {
  if (taskSupport === undefined || taskSupport === "optional" || taskSupport === "required") return undefined;
  return new TasksNotNegotiatedError(
    "tools/call",
    "tool",
    `the server lists the tool ${JSON.stringify(tool)} with execution.taskSupport ${taskSupport === null ? "absent" : JSON.stringify(taskSupport)}: it may not run as a task`,
  );
}

const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** Longest a whole task may be waited for by default: 30 minutes. */
export const DEFAULT_TASK_TIMEOUT = 30 * 60_000;
/** The interval between polls when the server suggests none. */
export const DEFAULT_POLL_INTERVAL = 1000;
/** How long a `tasks/cancel` sent on abort or deadline may take before the wait gives up on it. */
const CANCEL_WAIT_MS = 5000;
/** The longest a timer can wait (setTimeout fires at once past it). */
const MAX_TIMER = 2_147_483_647;

export interface TaskWaitOptions {
  /** Aborting it sends `tasks/cancel` and fails the wait with an `AbortedError`. */
  signal?: AbortSignal;
  /**
   * The longest the whole task may take, in ms: past it `tasks/cancel` is sent and the wait
   * fails with a `TimeoutError`. Default `DEFAULT_TASK_TIMEOUT` (30 minutes).
   */
  taskTimeout?: number;
  /** Between polls when the server suggests no interval, in ms. Default 1000. */
  pollInterval?: number;
  /** Each state of the task the client sees: its creation, each poll, each status notification. */
  onStatus?: (task: AnyTask) => void;
  /** Deadline of each request the wait sends (`tasks/get`, …). Default: the client's. */
  timeout?: number;
}

/** What a wait sends, through the client. */
export interface TaskChannel {
  era: "legacy" | "modern";
  request<T extends JsonObject>(method: string, params: JsonObject, options?: RequestOptions): Promise<T>;
  /** Listens for the revision's status notification; returns the way to stop. */
  onStatus(listener: (params: JsonObject) => void): () => void;
  handlers: InputHandlers | undefined;
  /** The client's deadline of one request. */
  timeout: number;
}

/**
 * One task followed to its end: polls `tasks/get` at the server's interval (a status
 * notification for it ends a wait early), answers a 2026-07-28 task's input requests through the
 * client's handlers and `tasks/update`, calls 2025-11-25's `tasks/result` once the task ends or
 * needs input (the server then asks in the session), and gives the call's own result or error.
 */
export class TaskWait {
  private readonly deadlineAt: number;
  private readonly taskTimeout: number;
  /** Aborted by the caller's signal or the task's deadline: ends the pause and the request in flight. */
  private readonly stop = new AbortController();
  private deadlinePassed = false;
  /** Input keys already answered: a server repeats them until it has taken the answers. */
  private readonly answered = new Set<string>();
  /** Wakes the current pause early: a notification about this task came. */
  private wake: (() => void) | undefined;
  private latest: AnyTask | undefined;

  constructor(
    private readonly channel: TaskChannel,
    private readonly taskId: string,
    private readonly options: TaskWaitOptions,
  ) {
    this.taskTimeout = options.taskTimeout ?? DEFAULT_TASK_TIMEOUT;
    this.deadlineAt = Date.now() + this.taskTimeout;
  }

  async run(first: AnyTask): Promise<CallToolResult> {
    const outer = this.options.signal;
    const onAbort = () => this.stop.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () => {
        this.deadlinePassed = true;
        this.stop.abort(new TimeoutError(`task ${this.taskId}`, this.taskTimeout));
      },
      Math.min(this.taskTimeout, MAX_TIMER),
    );
    const unlisten = this.channel.onStatus((params) => {
      if (params.taskId !== this.taskId || typeof params.status !== "string") return;
      this.latest = params as AnyTask;
      this.wake?.();
    });
    try {
      return await this.follow(first);
    } catch (e) {
      if (!this.stop.signal.aborted) throw e;
      // the task is no longer wanted: the server is told, then the caller
      await this.cancel();
      const method = `tools/call (task ${this.taskId})`;
      if (this.deadlinePassed) throw new TimeoutError(method, this.taskTimeout);
      throw new AbortedError(method, outer?.reason);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
      unlisten();
    }
  }

  private async follow(first: AnyTask): Promise<CallToolResult> {
    let task = first;
    for (;;) {
      this.options.onStatus?.(task);
      if (TERMINAL.has(task.status)) return this.end(task);
      if (task.status === "input_required") {
        // 2025-11-25: the server asks in the session while tasks/result waits for the end
        if (this.channel.era === "legacy") return this.legacyResult();
        await this.answer(task as ModernTask);
      }
      await this.pause(this.intervalOf(task));
      const pushed = this.latest;
      this.latest = undefined;
      task =
        pushed ??
        ((await this.channel.request<JsonObject>(
          "tasks/get",
          { taskId: this.taskId },
          this.requestOptions(),
        )) as AnyTask);
    }
  }

  /** The call's own answer from a task that ended. */
  private end(task: AnyTask): Promise<CallToolResult> | CallToolResult {
    if (task.status === "cancelled") throw new TaskCancelledError(this.taskId, task.statusMessage);
    // 2025-11-25: "exactly what the underlying request would have returned", result or error
    if (this.channel.era === "legacy") return this.legacyResult();
    const modern = task as ModernTask;
    if (task.status === "completed") return (isObject(modern.result) ? modern.result : {}) as CallToolResult;
    const error = isObject(modern.error) ? modern.error : {};
    throw ResponseError.received(
      typeof error.code === "number" ? error.code : INTERNAL_ERROR,
      typeof error.message === "string" ? error.message : (task.statusMessage ?? `task ${this.taskId} failed`),
      error.data,
    );
  }

  private legacyResult(): Promise<CallToolResult> {
    return this.channel.request<CallToolResult>("tasks/result", { taskId: this.taskId }, this.requestOptions(true));
  }

  /** Answers the input requests not answered yet, through the handlers, and sends them with `tasks/update`. */
  private async answer(task: ModernTask): Promise<void> {
    const requests = isObject(task.inputRequests) ? task.inputRequests : {};
    const fresh = Object.entries(requests).filter(([key]) => !this.answered.has(key));
    if (fresh.length === 0) return;
    const answers: [string, JsonObject][] = [];
    for (const [key, request] of fresh) {
      const handler = isObject(request) ? handlerOf(this.channel.handlers, String(request.method)) : undefined;
      if (!handler)
        throw new InputRequiredError(
          "unhandled",
          "tasks/get",
          task as unknown as JsonObject,
          `task ${this.taskId} asks for ${isObject(request) ? String(request.method) : "something malformed"} (${JSON.stringify(key)}), which the client has no handler for`,
        );
      const params = isObject(request.params) ? request.params : {};
      answers.push([key, await handler(params, { key, signal: this.stop.signal })]);
    }
    // keys are the server's: each becomes an own property, even "__proto__"
    const inputResponses = Object.fromEntries(answers) as JsonObject;
    await this.channel.request("tasks/update", { taskId: this.taskId, inputResponses }, this.requestOptions());
    for (const [key] of answers) this.answered.add(key);
  }

  private intervalOf(task: AnyTask): number {
    const suggested =
      this.channel.era === "modern" ? (task as ModernTask).pollIntervalMs : (task as LegacyTask).pollInterval;
    const ms = typeof suggested === "number" && Number.isFinite(suggested) && suggested >= 0 ? suggested : undefined;
    return ms ?? this.options.pollInterval ?? DEFAULT_POLL_INTERVAL;
  }

  /** Waits `ms`, or less if a notification about the task comes; rejects once the wait is stopped. */
  private pause(ms: number): Promise<void> {
    const stop = this.stop.signal;
    if (stop.aborted) return Promise.reject(stop.reason);
    if (this.latest !== undefined) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: unknown) => {
        clearTimeout(timer);
        stop.removeEventListener("abort", onStop);
        this.wake = undefined;
        if (error !== undefined) reject(error);
        else resolve();
      };
      const onStop = () => finish(stop.reason ?? new Error("stopped"));
      const timer = setTimeout(() => finish(), Math.min(ms, MAX_TIMER));
      stop.addEventListener("abort", onStop, { once: true });
      this.wake = () => finish();
    });
  }

  /**
   * A request's options: stopped with the wait, and its own deadline. `tasks/result` waits for
   * the task's end, so it may take as long as the task has left (the wait's deadline comes first).
   */
  private requestOptions(wholeWait = false): RequestOptions {
    const timeout = wholeWait
      ? Math.min(MAX_TIMER, Math.max(1, this.deadlineAt - Date.now()) + 1000)
      : (this.options.timeout ?? this.channel.timeout);
    return { signal: this.stop.signal, timeout };
  }

  /** Best effort: the server is told the task is no longer wanted, within a short bound. */
  private async cancel(): Promise<void> {
    await this.channel
      .request("tasks/cancel", { taskId: this.taskId }, { timeout: CANCEL_WAIT_MS })
      .catch(() => undefined);
  }
}
