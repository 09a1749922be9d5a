/**
 * Tasks on the server: a tool call answered with a handle at once, its work going on after, its
 * state polled with `tasks/get`. Two wire forms of one store: the 2026-07-28 extension
 * (`io.modelcontextprotocol/tasks`: flat `resultType: "task"`, `ttlMs`, the result inlined in
 * `tasks/get`, input through `tasks/update`) and 2025-11-25's experimental tasks (`task` nested,
 * `ttl`, `tasks/result`, `tasks/list`, input by requests the task sends in its session).
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INTERNAL_ERROR, INVALID_PARAMS } from "../rules/error-codes.js";
import { META_RELATED_TASK, isObject, type CallToolResult, type InputRequest } from "./meta.js";
import { page } from "./list-page.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** What the work of a task can do besides returning its result. */
export interface TaskContext {
  /** The task's id; undefined when the work runs inline, for a client that did not negotiate tasks. */
  readonly taskId: string | undefined;
  /** Aborted when the task is cancelled (or, inline, when the request is). */
  readonly signal: AbortSignal;
  /**
   * Asks the client for input (elicitation, sampling, roots), keyed by names unique over the
   * task's life; resolves with every answer. The task is `input_required` meanwhile.
   */
  input(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>>;
  /** Sets the task's status message (shown by `tasks/get`). */
  status(message: string): void;
}

export type TaskWork = (task: TaskContext) => CallToolResult | Promise<CallToolResult>;
/** The work of a task a client runs for its server: a sampling or elicitation handler's answer. */
export type RequestWork = (task: TaskContext) => JsonObject | Promise<JsonObject>;

export interface TaskOptions {
  /** How long a task is kept from its creation, in ms; null for ever. Default: the server's. */
  ttlMs?: number | null;
  /** The poll interval suggested to the client, in ms; 0 suggests none. Default: the server's. */
  pollIntervalMs?: number;
}

export interface TaskStoreOptions {
  /** Default 300,000 (5 minutes). */
  ttlMs?: number | null;
  /** Default 500. */
  pollIntervalMs?: number;
  /** Tasks kept at once; a call beyond it gets -32603. Default 10,000. */
  maxTasks?: number;
}

/** How a 2025-11-25 task reaches the session that created it. */
export interface SessionLink {
  request(method: string, params: JsonObject): Promise<JsonObject>;
  notify(method: string, params: JsonObject): void;
}

interface Pending {
  request: InputRequest;
  resolve: (answer: JsonObject) => void;
  reject: (error: unknown) => void;
}

/** The last time written out: tasks made and ended within one millisecond share its text. */
let lastIso = { at: Number.NaN, text: "" };

/** `ms` as an ISO 8601 time. */
function isoTime(ms: number): string {
  if (lastIso.at !== ms) lastIso = { at: ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

/** One task: its state, and the context its work runs with. */
class Task implements TaskContext {
  state: TaskStatus = "working";
  statusMessage: string | undefined;
  readonly createdAt = Date.now();
  lastUpdatedAt = this.createdAt;
  // a task is listed at every poll: its times are written out once, not at each listing
  private readonly createdIso = isoTime(this.createdAt);
  private updatedIso = { at: this.createdAt, text: this.createdIso };
  result: JsonObject | undefined;
  error: JsonObject | undefined;
  readonly pending = new Map<string, Pending>();
  // made when first asked for: most tasks end without anyone watching their signal or end
  private controller: AbortController | undefined;
  private settled: Promise<void> | undefined;
  private settle: (() => void) | undefined;

  constructor(
    readonly taskId: string,
    readonly ttlMs: number | null,
    readonly pollIntervalMs: number,
    /** The session of a 2025-11-25 task (which it asks and notifies, and which alone sees it). */
    readonly session: SessionLink | undefined,
    private readonly changed: (task: Task) => void,
  ) {}

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.state);
  }

  /** Resolves when the task reaches a terminal status. */
  get done(): Promise<void> {
    if (this.terminal) return Promise.resolve();
    return (this.settled ??= new Promise((resolve) => (this.settle = resolve)));
  }

  expired(now: number): boolean {
    return this.ttlMs !== null && now - this.createdAt > this.ttlMs;
  }

  moveTo(status: TaskStatus, fields: { result?: JsonObject; error?: JsonObject; message?: string } = {}): void {
    if (this.terminal) return;
    this.state = status;
    if (fields.result) this.result = fields.result;
    if (fields.error) this.error = fields.error;
    if (fields.message !== undefined) this.statusMessage = fields.message;
    this.lastUpdatedAt = Date.now();
    if (this.terminal) {
      for (const p of this.pending.values()) p.reject(new ResponseError(INVALID_PARAMS, `Task ${status}`));
      this.pending.clear();
      this.settle?.();
    }
    this.changed(this);
  }

  status(message: string): void {
    if (this.terminal) return;
    this.statusMessage = message;
    this.lastUpdatedAt = Date.now();
    this.changed(this);
  }

  input(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>> {
    if (this.terminal) return Promise.reject(new ResponseError(INVALID_PARAMS, `Task ${this.state}`));
    const keys = Object.keys(requests);
    const answers = keys.map((key) => {
      const request = requests[key]!;
      if (this.session) {
        // 2025-11-25: the task sends the request itself, tied to the task
        const given = request.params ?? {};
        const meta = isObject(given._meta) ? given._meta : {};
        const params = { ...given, _meta: { ...meta, [META_RELATED_TASK]: { taskId: this.taskId } } };
        return this.session.request(request.method, params);
      }
      return new Promise<JsonObject>((resolve, reject) => this.pending.set(key, { request, resolve, reject }));
    });
    this.moveTo("input_required");
    return Promise.all(answers).then((values) => {
      if (!this.terminal && this.pending.size === 0) this.moveTo("working");
      return Object.fromEntries(keys.map((k, i) => [k, values[i]!]));
    });
  }

  /** Answers outstanding input requests; keys not outstanding are ignored, as the extension says. */
  answer(responses: JsonObject): void {
    for (const [key, value] of Object.entries(responses)) {
      const pending = this.pending.get(key);
      if (!pending || !isObject(value)) continue;
      this.pending.delete(key);
      pending.resolve(value);
    }
    if (this.pending.size > 0) this.changed(this);
  }

  cancel(): void {
    if (this.terminal) return;
    this.moveTo("cancelled", { message: "The task was cancelled by request." });
    (this.controller ??= new AbortController()).abort(new Error("task cancelled"));
  }

  /** Starts `work` once the caller has the task in hand; it ends as soon as the work's promise settles. */
  run(work: TaskWork | RequestWork): void {
    const fail = (e: unknown) => this.moveTo("failed", { error: errorObject(e) });
    queueMicrotask(() => {
      let outcome: CallToolResult | JsonObject | Promise<CallToolResult | JsonObject>;
      try {
        outcome = work(this);
      } catch (e) {
        fail(e);
        return;
      }
      Promise.resolve(outcome).then((result) => this.moveTo("completed", { result: result as JsonObject }), fail);
    });
  }

  /**
   * 2025-11-25 `tasks/result`: waits for the task to end (or the request's cancellation), then answers exactly as
   * the request would have, the result tied to the task by its `_meta`.
   */
  legacyOutcome(request: { readonly signal: AbortSignal }): JsonObject | Promise<JsonObject> {
    // the request's signal is made only for a wait: a finished task is answered at once
    if (this.terminal) return this.finalOutcome();
    return untilAborted(this.done, request.signal).then(() => this.finalOutcome());
  }

  /** What a finished task's request answers: its result, tied to the task, or its error (thrown). */
  private finalOutcome(): JsonObject {
    if (this.state === "completed" && this.result) {
      const meta = isObject(this.result._meta) ? this.result._meta : {};
      return { ...this.result, _meta: { ...meta, [META_RELATED_TASK]: { taskId: this.taskId } } };
    }
    const error = this.error ?? { code: INVALID_PARAMS, message: `Task ${this.taskId} was cancelled` };
    throw new ResponseError(
      typeof error.code === "number" ? error.code : INVALID_PARAMS,
      String(error.message),
      error.data,
    );
  }

  /** 2025-11-25 `tasks/cancel`: a finished task is refused with -32602; else the cancelled task. */
  legacyCancel(): JsonObject {
    if (this.terminal) throw new ResponseError(INVALID_PARAMS, `Task ${this.taskId} is already ${this.state}`);
    this.cancel();
    return this.legacy();
  }

  private lastUpdatedIso(): string {
    if (this.updatedIso.at !== this.lastUpdatedAt)
      this.updatedIso = { at: this.lastUpdatedAt, text: isoTime(this.lastUpdatedAt) };
    return this.updatedIso.text;
  }

  /** The task as 2026-07-28 lists it: `ttlMs`, `pollIntervalMs`. */
  modern(): JsonObject {
    const t: JsonObject = {
      taskId: this.taskId,
      status: this.state,
      createdAt: this.createdIso,
      lastUpdatedAt: this.lastUpdatedIso(),
      ttlMs: this.ttlMs,
    };
    if (this.pollIntervalMs > 0) t.pollIntervalMs = this.pollIntervalMs;
    if (this.statusMessage !== undefined) t.statusMessage = this.statusMessage;
    return t;
  }

  /** The 2026-07-28 `DetailedTask`: with the result, the error or the outstanding input requests. */
  detailed(): JsonObject {
    const t = this.modern();
    if (this.state === "completed" && this.result) t.result = this.result;
    else if (this.state === "failed" && this.error) t.error = this.error;
    else if (this.state === "input_required")
      t.inputRequests = Object.fromEntries([...this.pending].map(([k, p]) => [k, p.request as unknown as JsonObject]));
    return t;
  }

  /**
   * The task as 2025-11-25 lists it: `ttl`, `pollInterval`. There a tool call whose result has
   * `isError` is a `failed` task (its result still what `tasks/result` answers); the extension
   * keeps `failed` for JSON-RPC errors, so the distinction is made here, in the older view only.
   */
  legacy(): JsonObject {
    const toolError = this.state === "completed" && this.result?.isError === true;
    const t: JsonObject = {
      taskId: this.taskId,
      status: toolError ? "failed" : this.state,
      createdAt: this.createdIso,
      lastUpdatedAt: this.lastUpdatedIso(),
      ttl: this.ttlMs,
    };
    if (this.pollIntervalMs > 0) t.pollInterval = this.pollIntervalMs;
    if (this.statusMessage !== undefined) t.statusMessage = this.statusMessage;
    else if (toolError) t.statusMessage = "The tool call returned a result with isError set.";
    return t;
  }
}

/** `done`, or the rejection `signal` is aborted with, whichever comes first. */
function untilAborted(done: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason as Error);
    signal.addEventListener("abort", stop, { once: true });
  });
  return Promise.race([done, aborted]).finally(() => signal.removeEventListener("abort", stop!));
}

/** A JSON-RPC error object for what the work threw. */
function errorObject(e: unknown): JsonObject {
  if (e instanceof ResponseError) {
    const error: JsonObject = { code: e.code, message: e.message };
    if (e.data !== undefined) error.data = e.data as JsonObject;
    return error;
  }
  return { code: INTERNAL_ERROR, message: e instanceof Error ? e.message : String(e) };
}

/** Every task the server holds, by id; expired ones are dropped as the store is used. */
export class TaskStore {
  private readonly tasks = new Map<string, Task>();
  private readonly ttlMs: number | null;
  private readonly pollIntervalMs: number;
  private readonly maxTasks: number;
  private lastSweep = 0;

  constructor(
    options: TaskStoreOptions,
    private readonly changed: (task: Task) => void,
  ) {
    this.ttlMs = options.ttlMs === undefined ? 300_000 : options.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.maxTasks = options.maxTasks ?? 10_000;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Creates a task and starts its work; the task can be got before this returns. */
  create(work: TaskWork | RequestWork, options: TaskOptions, session: SessionLink | undefined): Task {
    this.sweep(this.tasks.size >= this.maxTasks);
    if (this.tasks.size >= this.maxTasks)
      throw new ResponseError(INTERNAL_ERROR, `Too many tasks: this server keeps at most ${this.maxTasks}`);
    const ttl = options.ttlMs === undefined ? this.ttlMs : options.ttlMs;
    const task = new Task(
      randomUUID(),
      ttl === null ? null : Math.max(1, Math.round(ttl)),
      Math.max(0, Math.round(options.pollIntervalMs ?? this.pollIntervalMs)),
      session,
      this.changed,
    );
    this.tasks.set(task.taskId, task);
    task.run(work);
    return task;
  }

  /** The task `params.taskId` names, seen from `session` (a 2025-11-25 task only from its own); else -32602. */
  get(params: JsonObject, session: SessionLink | undefined): Task {
    this.sweep();
    const id = params.taskId;
    if (typeof id !== "string") throw new ResponseError(INVALID_PARAMS, "taskId must be a string");
    const task = this.tasks.get(id);
    if (!task || task.session !== session)
      throw new ResponseError(INVALID_PARAMS, `Unknown task: ${JSON.stringify(id)}`);
    return task;
  }

  /** One page of the tasks `session` created (2025-11-25 `tasks/list`). */
  list(params: JsonObject, session: SessionLink, pageSize: number): JsonObject {
    this.sweep();
    const mine = [...this.tasks.values()].filter((t) => t.session === session).map((t) => t.legacy());
    return page("tasks", mine, params.cursor, pageSize);
  }

  /** Forgets every task of a session that ended: nobody can see them any more. */
  dropSession(session: SessionLink): void {
    for (const [id, task] of this.tasks) {
      if (task.session !== session) continue;
      task.cancel();
      this.tasks.delete(id);
    }
  }

  /** Drops expired tasks, at most once a second unless the store is full (`now`). */
  private sweep(now_ = false): void {
    const now = Date.now();
    if (!now_ && now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [id, task] of this.tasks) {
      if (!task.expired(now)) continue;
      task.cancel();
      this.tasks.delete(id);
    }
  }
}
