/** The tools a server offers: listed in the order they were defined, called by name. */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { INVALID_PARAMS, METHOD_NOT_FOUND } from "../rules/error-codes.js";
import type { Era } from "../rules/revisions.js";
import { ChangeSignal } from "./changes.js";
import {
  isObject,
  missingCapabilities,
  type CallToolResult,
  type CreateTaskResult,
  type InputRequiredResult,
  type Tool,
} from "./meta.js";
import { page } from "./list-page.js";
import type { ServeContext } from "./server.js";

/** A tool's answer; on 2026-07-28 it may instead ask the client for input first. */
export type ToolHandler = (args: JsonObject, context: ServeContext) => ToolAnswer | Promise<ToolAnswer>;

/** A tool's result, an `input_required` answer (2026-07-28), or a task's handle. */
export type ToolAnswer = CallToolResult | InputRequiredResult | CreateTaskResult;

export interface ToolOptions {
  /** Client capabilities the tool cannot work without: a modern call without them gets -32021. */
  requires?: JsonObject;
  /** The eras that see the tool (default both), e.g. one that answers with an `input_required` result. */
  eras?: readonly Era[];
  /**
   * Whether the tool may run as a task (`context.task`): `optional` (it also answers at once to a
   * client that did not negotiate tasks) or `required` (such a client gets -32021 on 2026-07-28,
   * -32601 on 2025-11-25, as those revisions say). Default: it never does.
   */
  taskSupport?: "optional" | "required";
}

interface Entry {
  tool: Tool;
  handler: ToolHandler;
  requires: JsonObject | undefined;
  eras: readonly Era[];
  taskSupport: "optional" | "required" | undefined;
  /** The definition 2025-11-25 lists: with `execution.taskSupport`, which only that revision has. */
  withExecution: Tool;
}

const BOTH: readonly Era[] = ["legacy", "modern"];

const TASKS_REQUIRED: JsonObject = { extensions: { [TASKS_EXTENSION]: {} } };

export class ToolRegistry {
  private readonly tools = new Map<string, Entry>();
  /** Fires when a tool is defined or removed. */
  readonly changes = new ChangeSignal();
  /** Whether any tool was defined with `taskSupport`. */
  tasks = false;

  define(tool: Tool, handler: ToolHandler, options: ToolOptions = {}): void {
    const taskSupport = options.taskSupport;
    const withExecution = taskSupport
      ? { ...tool, execution: { ...(isObject(tool.execution) ? tool.execution : {}), taskSupport } }
      : tool;
    if (taskSupport) this.tasks = true;
    this.tools.set(tool.name, {
      tool,
      handler,
      requires: options.requires,
      eras: options.eras ?? BOTH,
      taskSupport,
      withExecution,
    });
    this.changes.changed();
  }

  /** Removes the tool called `name`; true when there was one. */
  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changes.changed();
    return removed;
  }

  get size(): number {
    return this.tools.size;
  }

  /** The definition of the tool called `name`, if there is one. */
  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** One page of the tools `context`'s era sees. */
  list(params: JsonObject, context: Pick<ServeContext, "era" | "revision">, pageSize: number): JsonObject {
    const era = context.era;
    const execution = context.revision === "2025-11-25";
    const all = [...this.tools.values()].filter((t) => t.eras.includes(era));
    const result = page(
      "tools",
      all.map((t) => (execution ? t.withExecution : t.tool)),
      params.cursor,
      pageSize,
    );
    if (era === "modern") {
      result.ttlMs = 0;
      result.cacheScope = "public";
    }
    return result;
  }

  call(params: JsonObject, context: ServeContext): ToolAnswer | Promise<ToolAnswer> {
    const name = params.name;
    const found = typeof name === "string" ? this.tools.get(name) : undefined;
    const entry = found?.eras.includes(context.era) ? found : undefined;
    if (!entry)
      throw new ResponseError(
        INVALID_PARAMS,
        `Unknown tool: ${typeof name === "string" ? name : JSON.stringify(name)}`,
      );
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isObject(args)) throw new ResponseError(INVALID_PARAMS, "Tool arguments must be an object");
    // 2026-07-28 alone defines -32021; a legacy session declared its capabilities once, at initialize
    if (context.era === "modern") {
      const missing = missingCapabilities(entry.requires, context.clientCapabilities);
      if (missing) throw missing;
    }
    if (entry.taskSupport === "required" && !context.tasks) {
      if (context.era === "modern") throw missingCapabilities(TASKS_REQUIRED, context.clientCapabilities)!;
      throw new ResponseError(METHOD_NOT_FOUND, `Tool ${entry.tool.name} must be called as a task`);
    }
    return entry.handler(args, context);
  }
}
