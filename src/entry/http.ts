/**
 * mcp-wire/http: MCP over HTTP, both sides: the Streamable HTTP and HTTP+SSE client transports,
 * the Streamable HTTP endpoint for a server (node:http or any Fetch-API server), the header
 * codec of the 2026-07-28 `Mcp-Param-*` headers. The sign-in diagnosis is mcp-wire/auth's. See
 * docs/library.md.
 */
export { StreamableHttpTransport } from "../transport/http/client.js";
export type { HttpClientOptions, ExchangeRecord } from "../transport/http/client.js";
export { SseClientTransport } from "../transport/http/sse-client.js";
export { createHttpHandler } from "../transport/http/server.js";
export type { HttpHandler, HttpHandlerOptions, HttpServable } from "../transport/http/server.js";
export type { HttpRequestLike, HttpResponder } from "../transport/http/exchange.js";
export { encodeHeaderValue, decodeHeaderValue } from "../transport/http/headers.js";
