/**
 * mcp-wire/http: MCP over HTTP, both sides: the Streamable HTTP and HTTP+SSE client transports,
 * the Streamable HTTP endpoint for a server (node:http or any Fetch-API server), the header
 * codec of the 2026-07-28 `Mcp-Param-*` headers, and the sign-in diagnosis (the OAuth discovery
 * walk, GET and OPTIONS only). See docs/library.md.
 */
export { StreamableHttpTransport } from "../transport/http/client.js";
export type { HttpClientOptions, ExchangeRecord } from "../transport/http/client.js";
export { SseClientTransport } from "../transport/http/sse-client.js";
export { createHttpHandler } from "../transport/http/server.js";
export type { HttpHandler, HttpHandlerOptions, HttpServable } from "../transport/http/server.js";
export type { HttpRequestLike, HttpResponder } from "../transport/http/exchange.js";
export { encodeHeaderValue, decodeHeaderValue } from "../transport/http/headers.js";

// Sign-in diagnosis: the OAuth discovery walk (passive: GET and OPTIONS only)
export { walkAuth } from "../auth/walk.js";
export type { AuthWalkOptions } from "../auth/walk.js";
export type { HostSlot } from "../auth/fetcher.js";
export { parseChallenges } from "../auth/challenge.js";
export type { Challenge } from "../auth/challenge.js";
export { AUTH_VERDICTS, AUTH_STEPS, AUTH_DEFECT_CODES } from "../auth/types.js";
export type {
  AuthResult,
  AuthVerdict,
  AuthStep,
  AuthDefect,
  AuthDefectCode,
  AuthSide,
  AuthStepRecord,
  AuthChallengeSeen,
  AuthResourceMetadataSeen,
  AuthServerSeen,
} from "../auth/types.js";
