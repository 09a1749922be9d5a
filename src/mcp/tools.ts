/** The tools a server offers: listed in the order they were defined, called by name. */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import type { Era } from "../rules/revisions.js";
import { isObject, missingCapabilities, type CallToolResult, type InputRequiredResult, type Tool } from "./meta.js";
import type { ServeContext } from "./server.js";

/** A tool's answer; on 2026-07-28 it may instead ask the client for input first. */
export type ToolHandler = (
  args: JsonObject,
  context: ServeContext,
) => CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult>;

export interface ToolOptions {
  /** Client capabilities the tool cannot work without: a modern call without them gets -32021. */
  requires?: JsonObject;
  /** The eras that see the tool (default both), e.g. one that answers with an `input_required` result. */
  eras?: readonly Era[];
}

interface Entry {
  tool: Tool;
  handler: ToolHandler;
  requires: JsonObject | undefined;
  eras: readonly Era[];
}

const BOTH: readonly Era[] = ["legacy", "modern"];

const PAGE_SIZE = 100;

export class ToolRegistry {
  private readonly tools = new Map<string, Entry>();

  define(tool: Tool, handler: ToolHandler, options: ToolOptions = {}): void {
    this.tools.set(tool.name, { tool, handler, requires: options.requires, eras: options.eras ?? BOTH });
  }

  get size(): number {
    return this.tools.size;
  }

  /** The definition of the tool called `name`, if there is one. */
  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** One page of tools; the cursor is the index of the next one, opaque to clients. */
  list(params: JsonObject, era: Era): JsonObject {
    let start = 0;
    if (params.cursor !== undefined) {
      const n =
        typeof params.cursor === "string"
          ? Number.parseInt(Buffer.from(params.cursor, "base64url").toString("utf8"), 10)
          : NaN;
      if (!Number.isSafeInteger(n) || n < 0 || n > this.tools.size)
        throw new ResponseError(INVALID_PARAMS, "Invalid cursor");
      start = n;
    }
    const all = [...this.tools.values()].filter((t) => t.eras.includes(era));
    const result: JsonObject = { tools: all.slice(start, start + PAGE_SIZE).map((t) => t.tool) };
    if (start + PAGE_SIZE < all.length)
      result.nextCursor = Buffer.from(String(start + PAGE_SIZE)).toString("base64url");
    if (era === "modern") {
      result.ttlMs = 0;
      result.cacheScope = "public";
    }
    return result;
  }

  call(
    params: JsonObject,
    context: ServeContext,
  ): CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult> {
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
    return entry.handler(args, context);
  }
}
