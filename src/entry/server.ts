/**
 * mcp-wire/server: the dual-era MCP server core (modern stateless requests and legacy
 * `initialize` sessions on one connection), its tools, and the reference server `mcp-wire
 * serve` runs. Serve it over stdio with mcp-wire/peer's `StreamTransport`, over HTTP with
 * mcp-wire/http's `createHttpHandler`. See docs/library.md.
 */
export { McpServer } from "../mcp/server.js";
export type { ServerOptions, ServeContext, MethodHandler, MethodOptions } from "../mcp/server.js";
export { ToolRegistry } from "../mcp/tools.js";
export type { ToolHandler, ToolOptions, ToolAnswer } from "../mcp/tools.js";
export { ResourceRegistry } from "../mcp/resources.js";
export type {
  Resource,
  ResourceTemplate,
  ResourceContents,
  ReadResourceResult,
  ResourceReader,
  Completer,
  TemplateOptions,
} from "../mcp/resources.js";
export { PromptRegistry } from "../mcp/prompts.js";
export type {
  Prompt,
  PromptArgument,
  PromptMessage,
  GetPromptResult,
  PromptHandler,
  PromptOptions,
} from "../mcp/prompts.js";
export type { TaskContext, TaskWork, TaskOptions, TaskStoreOptions, TaskStatus } from "../mcp/tasks.js";
export { createReferenceServer, defineReferenceTools } from "../mcp/reference-server.js";
