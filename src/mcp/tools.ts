/** The tools a server offers: listed in the order they were defined, called by name. */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import type { Era } from "../rules/revisions.js";
import { isObject, type CallToolResult, type Tool } from "./meta.js";
import type { ServeContext } from "./server.js";

export type ToolHandler = (args: JsonObject, context: ServeContext) => CallToolResult | Promise<CallToolResult>;

const PAGE_SIZE = 100;

export class ToolRegistry {
  private readonly tools = new Map<string, { tool: Tool; handler: ToolHandler }>();

  define(tool: Tool, handler: ToolHandler): void {
    this.tools.set(tool.name, { tool, handler });
  }

  get size(): number {
    return this.tools.size;
  }

  /** One page of tools; the cursor is the index of the next one, opaque to clients. */
  list(params: JsonObject, era: Era): JsonObject {
    let start = 0;
    if (params.cursor !== undefined) {
      const n = typeof params.cursor === "string" ? Number.parseInt(Buffer.from(params.cursor, "base64url").toString("utf8"), 10) : NaN;
      if (!Number.isSafeInteger(n) || n < 0 || n > this.tools.size) throw new ResponseError(INVALID_PARAMS, "Invalid cursor");
      start = n;
    }
    const all = [...this.tools.values()];
    const result: JsonObject = { tools: all.slice(start, start + PAGE_SIZE).map((t) => t.tool) };
    if (start + PAGE_SIZE < all.length) result.nextCursor = Buffer.from(String(start + PAGE_SIZE)).toString("base64url");
    if (era === "modern") {
      result.ttlMs = 0;
      result.cacheScope = "public";
    }
    return result;
  }

  call(params: JsonObject, context: ServeContext): CallToolResult | Promise<CallToolResult> {
    const name = params.name;
    const entry = typeof name === "string" ? this.tools.get(name) : undefined;
    if (!entry) throw new ResponseError(INVALID_PARAMS, `Unknown tool: ${typeof name === "string" ? name : JSON.stringify(name)}`);
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isObject(args)) throw new ResponseError(INVALID_PARAMS, "Tool arguments must be an object");
    return entry.handler(args, context);
  }
}
