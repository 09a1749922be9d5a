/**
 * mcp-wire/server: the dual-era MCP server core (modern stateless requests and legacy
 * `initialize` sessions on one connection), its tools, and the reference server `mcp-wire
 * serve` runs. Serve it over stdio with mcp-wire/peer's `StreamTransport`, over HTTP with
 * mcp-wire/http's `createHttpHandler`. See docs/library.md.
 */
export { McpServer } from "../mcp/server.js";
export type { ServerOptions, ServeContext, MethodHandler, MethodOptions } from "../mcp/server.js";
export { ToolRegistry } from "../mcp/tools.js";
export type { ToolHandler, ToolOptions } from "../mcp/tools.js";
export { createReferenceServer, defineReferenceTools } from "../mcp/reference-server.js";
