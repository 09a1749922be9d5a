/**
 * The methods the server core serves over its registries: resources, prompts, completions,
 * subscriptions (legacy `resources/subscribe`, 2026-07-28 `subscriptions/listen`) and tasks.
 * Each is declared in the capabilities only while there is something behind it.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { INVALID_PARAMS, METHOD_NOT_FOUND } from "../rules/error-codes.js";
import { isObject, missingCapabilities } from "./meta.js";
import { completionArguments, type Completer } from "./resources.js";
import { sessionOf, type McpServer, type MethodHandler, type MethodOptions, type ServeContext } from "./server.js";

type Register = (name: string, handler: MethodHandler, options: MethodOptions, served: () => boolean) => void;

/** Completion values a response may carry at most (the spec's limit). */
const MAX_COMPLETIONS = 100;

const LEGACY = { eras: ["legacy"] as const };
const MODERN = { eras: ["modern"] as const };

const TASKS_REQUIRED: JsonObject = { extensions: { [TASKS_EXTENSION]: {} } };

export class CoreMethods {
  constructor(private readonly server: McpServer) {}

  register(add: Register): void {
    const { resources, prompts } = this.server;
    const hasResources = () => resources.size > 0;
    const hasPrompts = () => prompts.size > 0;
    add("resources/list", (p) => resources.list(p, this.server.pageSize), {}, hasResources);
    add("resources/templates/list", (p) => resources.listTemplates(p, this.server.pageSize), {}, hasResources);
    add("resources/read", (p, c) => resources.read(p, c), {}, hasResources);
    add("resources/subscribe", (p, c) => this.subscribe(p, c, true), LEGACY, hasResources);
    add("resources/unsubscribe", (p, c) => this.subscribe(p, c, false), LEGACY, hasResources);
    add("prompts/list", (p) => prompts.list(p, this.server.pageSize), {}, hasPrompts);
    add("prompts/get", (p, c) => prompts.get(p, c), {}, hasPrompts);
    add(
      "completion/complete",
      (p) => this.complete(p),
      {},
      () => hasPrompts() || hasResources(),
    );
    add(
      "subscriptions/listen",
      (p, c) => this.listen(p, c),
      MODERN,
      () => true,
    );
    add(
      "tasks/get",
      (p, c) => this.taskGet(p, c),
      {},
      () => this.server.tasksEnabled,
    );
    add(
      "tasks/update",
      (p, c) => this.taskUpdate(p, c),
      MODERN,
      () => this.server.tasksEnabled,
    );
    add(
      "tasks/cancel",
      (p, c) => this.taskCancel(p, c),
      {},
      () => this.server.tasksEnabled,
    );
    add(
      "tasks/result",
      (p, c) => this.taskResult(p, c),
      LEGACY,
      () => this.server.tasksEnabled,
    );
    add(
      "tasks/list",
      (p, c) => this.taskList(p, c),
      LEGACY,
      () => this.server.tasksEnabled,
    );
  }

  private subscribe(params: JsonObject, context: ServeContext, on: boolean): JsonObject {
    const uri = params.uri;
    if (typeof uri !== "string") throw new ResponseError(INVALID_PARAMS, "uri must be a string");
    const session = sessionOf(context);
    if (on) session?.uris.add(uri);
    else session?.uris.delete(uri);
    return {};
  }

  private async complete(params: JsonObject): Promise<JsonObject> {
    const ref = isObject(params.ref) ? params.ref : {};
    const argument = isObject(params.argument) ? params.argument : {};
    if (typeof argument.name !== "string" || typeof argument.value !== "string")
      throw new ResponseError(INVALID_PARAMS, "argument must have a string name and value");
    let completer: Completer | undefined;
    if (ref.type === "ref/prompt" && typeof ref.name === "string")
      completer = this.server.prompts.completer(ref.name, argument.name);
    else if (ref.type === "ref/resource" && typeof ref.uri === "string")
      completer = this.server.resources.completer(ref.uri, argument.name);
    else throw new ResponseError(INVALID_PARAMS, "ref must be a ref/prompt with a name or a ref/resource with a uri");
    const all = completer ? await completer(argument.value, { arguments: completionArguments(params) }) : [];
    const values = all.slice(0, MAX_COMPLETIONS);
    return { completion: { values, total: all.length, hasMore: all.length > values.length } };
  }

  private listen(params: JsonObject, context: ServeContext): Promise<JsonObject> {
    const { server } = this;
    const lists = new Set<"tools" | "resources" | "prompts">(["tools"]);
    if (server.resources.size > 0) lists.add("resources");
    if (server.prompts.size > 0) lists.add("prompts");
    return server.subscriptions.listen(
      context.id,
      params,
      context.clientCapabilities,
      { lists, resources: server.resources.size > 0, tasks: server.tasksEnabled },
      context.signal,
      (method, p) => context.notify(method, p),
    );
  }

  /** The tasks surface exists only where tasks are on and the request's era has it. */
  private gate(context: ServeContext): void {
    const absent = () =>
      new ResponseError(METHOD_NOT_FOUND, `Method not found: ${context.method} (this server runs no tasks here)`);
    if (!this.server.tasksEnabled) throw absent();
    if (context.era === "modern") {
      const missing = missingCapabilities(TASKS_REQUIRED, context.clientCapabilities);
      if (missing) throw missing;
    } else if (context.revision !== "2025-11-25") throw absent();
  }

  private taskGet(params: JsonObject, context: ServeContext): JsonObject {
    this.gate(context);
    const task = this.server.taskStore.get(params, sessionOf(context));
    return context.era === "modern" ? task.detailed() : task.legacy();
  }

  private taskUpdate(params: JsonObject, context: ServeContext): JsonObject {
    this.gate(context);
    const task = this.server.taskStore.get(params, undefined);
    if (!isObject(params.inputResponses)) throw new ResponseError(INVALID_PARAMS, "inputResponses must be an object");
    task.answer(params.inputResponses);
    return {};
  }

  private taskCancel(params: JsonObject, context: ServeContext): JsonObject {
    this.gate(context);
    const task = this.server.taskStore.get(params, sessionOf(context));
    // 2026-07-28 acknowledges any cancel; 2025-11-25 refuses one of a finished task
    if (context.era === "modern") {
      task.cancel();
      return {};
    }
    return task.legacyCancel();
  }

  /** 2025-11-25: waits for the task to end, then answers exactly as the call would have. */
  private taskResult(params: JsonObject, context: ServeContext): JsonObject | Promise<JsonObject> {
    this.gate(context);
    return this.server.taskStore.get(params, sessionOf(context)).legacyOutcome(context);
  }

  private taskList(params: JsonObject, context: ServeContext): JsonObject {
    this.gate(context);
    const session = sessionOf(context);
    if (!session) throw new ResponseError(METHOD_NOT_FOUND, "Method not found: tasks/list");
    return this.server.taskStore.list(params, session, this.server.pageSize);
  }
}
