/** The prompts a server offers: listed in the order they were defined, got by name with their arguments. */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import { ChangeSignal } from "./changes.js";
import { isObject } from "./meta.js";
import { page } from "./list-page.js";
import type { Completer } from "./resources.js";
import type { ServeContext } from "./server.js";

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  [key: string]: unknown;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  [key: string]: unknown;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: JsonObject;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  [key: string]: unknown;
}

export type PromptHandler = (
  args: Record<string, string>,
  context: ServeContext,
) => GetPromptResult | Promise<GetPromptResult>;

export interface PromptOptions {
  /** Completers for the prompt's arguments, by name (`completion/complete` with a `ref/prompt`). */
  complete?: Record<string, Completer>;
}

interface Entry {
  prompt: Prompt;
  get: PromptHandler;
  complete: Record<string, Completer>;
}

export class PromptRegistry {
  private readonly prompts = new Map<string, Entry>();
  /** Fires when a prompt is defined or removed. */
  readonly changes = new ChangeSignal();

  define(prompt: Prompt, get: PromptHandler, options: PromptOptions = {}): void {
    this.prompts.set(prompt.name, { prompt, get, complete: options.complete ?? {} });
    this.changes.changed();
  }

  remove(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.changes.changed();
    return removed;
  }

  get size(): number {
    return this.prompts.size;
  }

  list(params: JsonObject, pageSize: number): JsonObject {
    return page(
      "prompts",
      [...this.prompts.values()].map((e) => e.prompt),
      params.cursor,
      pageSize,
    );
  }

  get(params: JsonObject, context: ServeContext): GetPromptResult | Promise<GetPromptResult> {
    const entry = typeof params.name === "string" ? this.prompts.get(params.name) : undefined;
    if (!entry) throw new ResponseError(INVALID_PARAMS, `Unknown prompt: ${JSON.stringify(params.name)}`);
    const given = params.arguments === undefined ? {} : params.arguments;
    if (!isObject(given)) throw new ResponseError(INVALID_PARAMS, "Prompt arguments must be an object");
    const args: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (typeof value !== "string")
        throw new ResponseError(INVALID_PARAMS, `Prompt argument ${JSON.stringify(name)} must be a string`);
      args[name] = value;
    }
    const missing = (entry.prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined);
    if (missing.length > 0)
      throw new ResponseError(
        INVALID_PARAMS,
        `Missing required argument(s) of prompt ${entry.prompt.name}: ${missing.map((a) => a.name).join(", ")}`,
      );
    return entry.get(args, context);
  }

  completer(name: string, argument: string): Completer | undefined {
    return this.prompts.get(name)?.complete[argument];
  }
}
