/** mcp-wire's own reference server: dual-era, with a few tools that exercise the protocol. */
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import { McpServer, type ServerOptions } from "./server.js";
import { VERSION } from "../version.js";

/** How the reference server introduces itself, for servers built on it. */
export const REFERENCE_SERVER_OPTIONS: ServerOptions = {
  serverInfo: { name: "mcp-wire-reference", version: VERSION },
  instructions:
    "A reference server: echo returns its text, add sums two numbers, progress counts with progress notifications.",
};

export function createReferenceServer(options: Partial<ServerOptions> = {}): McpServer {
  const server = new McpServer({ ...REFERENCE_SERVER_OPTIONS, ...options });
  defineReferenceTools(server);
  return server;
}

/** The reference tools (echo, add, progress), on any server. */
export function defineReferenceTools(server: McpServer): void {
  server.tools.define(
    {
      name: "echo",
      description: "Returns its text argument as text content.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    (args) => {
      if (typeof args.text !== "string") throw new ResponseError(INVALID_PARAMS, "echo: text must be a string");
      return { content: [{ type: "text", text: args.text }] };
    },
  );

  server.tools.define(
    {
      name: "add",
      description: "Adds two numbers.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    (args) => {
      const { a, b } = args;
      if (typeof a !== "number" || typeof b !== "number")
        throw new ResponseError(INVALID_PARAMS, "add: a and b must be numbers");
      const sum = a + b;
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } as JsonObject };
    },
  );

  server.tools.define(
    {
      name: "progress",
      description: "Counts to `steps`, one step every `intervalMs`, reporting progress; stops when cancelled.",
      inputSchema: {
        type: "object",
        properties: {
          steps: { type: "integer", minimum: 1, maximum: 1000 },
          intervalMs: { type: "integer", minimum: 0, maximum: 10000 },
        },
      },
    },
    async (args, context) => {
      const steps =
        typeof args.steps === "number" && Number.isInteger(args.steps) ? Math.min(Math.max(args.steps, 1), 1000) : 5;
      const interval = typeof args.intervalMs === "number" ? Math.min(Math.max(args.intervalMs, 0), 10_000) : 100;
      for (let i = 1; i <= steps; i++) {
        // a timer of 0 ms still waits about 1 ms in Node: with no interval, each step only yields
        // one turn of the loop (so a cancel can still arrive), and no timer paces the answer
        await (
          interval > 0
            ? sleep(interval, undefined, { signal: context.signal })
            : nextTurn(undefined, { signal: context.signal })
        ).catch(() => undefined);
        if (context.signal.aborted)
          return { content: [{ type: "text", text: `cancelled at step ${i}` }], isError: true };
        await context.progress(i, steps, `step ${i} of ${steps}`);
      }
      return { content: [{ type: "text", text: `counted to ${steps}` }] };
    },
  );
}
