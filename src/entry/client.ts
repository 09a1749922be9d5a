/**
 * mcp-wire/client: the dual-era MCP client, opened on a stdio server it starts (`ChildServer`)
 * or on a remote one (`connectHttp`), and the handlers that answer what a server asks of it.
 * See docs/library.md.
 */
export { McpClient } from "../mcp/client.js";
export type { ClientOptions, Connector, ConnectStep } from "../mcp/client.js";
export { connectHttp } from "../mcp/connect-http.js";
export type {
  HttpConnectOptions,
  HttpConnection,
  HttpTransportName,
  HttpEra,
  HttpEraMemory,
} from "../mcp/connect-http.js";
export { INPUT_METHODS } from "../mcp/mrtr.js";
export type { InputHandler, InputHandlers, InputContext, InputMethod } from "../mcp/mrtr.js";
export { ChildServer } from "../transport/child.js";
export type { SpawnOptions, ExitStatus } from "../transport/child.js";
