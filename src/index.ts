/**
 * mcp-wire: the JSON-RPC 2.0 layer of the Model Context Protocol.
 * The whole public API, grouped by layer, bottom up.
 */

// Revisions and their rules, as data
export {
  REVISIONS,
  LATEST_REVISION,
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  RULES,
  rulesFor,
  isRevision,
  META_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_SERVER_INFO,
} from "./rules/revisions.js";
export type { Revision, RevisionRules, Era, DefinedErrorCode } from "./rules/revisions.js";

// Error codes
export {
  describeError,
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./rules/error-codes.js";
export type { ErrorDescription, ErrorRange } from "./rules/error-codes.js";

// Messages: decode, encode, defects
export { decode, DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH } from "./codec/decode.js";
export type { DecodeOptions, Decoded } from "./codec/decode.js";
export { encode, EncodeError } from "./codec/encode.js";
export type { EncodeOptions } from "./codec/encode.js";
export type { Role, Checked } from "./codec/check.js";
export { DEFECTS, severityOf, worstSeverity } from "./codec/defects.js";
export type { Defect, DefectCase, DefectCode, Severity, DefectScope } from "./codec/defects.js";
export type {
  Message,
  MessageKind,
  RequestMessage,
  NotificationMessage,
  ResultMessage,
  ErrorMessage,
  ResponseMessage,
  ErrorObject,
  RequestId,
  JsonValue,
  JsonObject,
} from "./codec/message.js";

// Conversations: rules across messages
export { Conversation } from "./codec/conversation.js";
export type { ConversationOptions, Sender } from "./codec/conversation.js";
export { revisionEvidence } from "./codec/evidence.js";
export type { RevisionEvidence } from "./codec/evidence.js";

// Framing: newline-delimited streams
export { LineSplitter } from "./codec/lines.js";
export type { Line } from "./codec/lines.js";

// Lint: captures, line by line
export { Linter, lintStream, summaryLine } from "./lint/lint.js";
export type { LintOptions, LintRecord, LintSummary } from "./lint/lint.js";

// Peer: requests and responses over any transport
export { Peer } from "./peer/peer.js";
export type { PeerOptions, RequestOptions, RequestContext, RequestHandler, NotificationHandler, Progress, DefectReport } from "./peer/peer.js";
export type { Transport, TransportSink, DroppedAnswer } from "./peer/transport.js";
export {
  ResponseError,
  ConnectionError,
  ConnectionErrorCode,
  TimeoutError,
  ClosedError,
  AbortedError,
  OverloadedError,
  InvalidResponseError,
  MessageTooLargeError,
} from "./peer/errors.js";

// Transports
export { createMemoryPair } from "./transport/memory.js";
export { StreamTransport } from "./transport/stream.js";
export type { StreamTransportOptions } from "./transport/stream.js";
export { ChildServer } from "./transport/child.js";
export type { SpawnOptions, ExitStatus } from "./transport/child.js";
export { StreamableHttpTransport } from "./transport/http/client.js";
export type { HttpClientOptions, ExchangeRecord } from "./transport/http/client.js";
export { SseClientTransport } from "./transport/http/sse-client.js";
export { HttpError } from "./transport/http/error.js";
export type { HttpFailure } from "./transport/http/error.js";
export { encodeHeaderValue, decodeHeaderValue } from "./transport/http/headers.js";
export { createHttpHandler } from "./transport/http/server.js";
export type { HttpHandler, HttpHandlerOptions, HttpServable } from "./transport/http/server.js";
export type { HttpRequestLike, HttpResponder } from "./transport/http/exchange.js";

// MCP: dual-era client and server cores
export { McpClient, NegotiationError } from "./mcp/client.js";
export { connectHttp, forgetHttpEras } from "./mcp/connect-http.js";
export type { HttpConnectOptions, HttpConnection, HttpTransportName } from "./mcp/connect-http.js";
export type { ClientOptions, Connector, ConnectStep } from "./mcp/client.js";
export { InputRequiredError, INPUT_METHODS } from "./mcp/mrtr.js";
export type { InputHandler, InputHandlers, InputContext, InputMethod, InputRequiredReason } from "./mcp/mrtr.js";
export { McpServer } from "./mcp/server.js";
export type { ServerOptions, ServeContext, MethodHandler, MethodOptions } from "./mcp/server.js";
export { ToolRegistry } from "./mcp/tools.js";
export type { ToolHandler, ToolOptions } from "./mcp/tools.js";
export { createReferenceServer, defineReferenceTools } from "./mcp/reference-server.js";
export { createConformanceServer, defineConformanceFixtures } from "./fleet/conformance-server.js";
export { MODERN_REVISIONS, MODERN_ERROR_CODES, LOG_LEVELS } from "./mcp/meta.js";
export type { Implementation, Tool, CallToolResult, ContentBlock, InputRequiredResult, LogLevel } from "./mcp/meta.js";

// Sign-in diagnosis: the OAuth discovery walk (passive: GET and OPTIONS only)
export { walkAuth } from "./auth/walk.js";
export type { AuthWalkOptions } from "./auth/walk.js";
export { parseChallenges } from "./auth/challenge.js";
export type { Challenge } from "./auth/challenge.js";
export { AUTH_VERDICTS, AUTH_STEPS, AUTH_DEFECT_CODES } from "./auth/types.js";
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
} from "./auth/types.js";

// Schemas: messages against each revision's official schema.json; peers' JSON Schemas
export { validate } from "./schema/validate.js";
export type { ValidateOptions, Direction } from "./schema/validate.js";
export { validateAgainstSchema, schemaProblems } from "./schema/json-schema.js";
export type { SchemaOptions, SchemaError, SchemaVerdict } from "./schema/json-schema.js";

// check: every rule a client relies on, read-only, in every revision a server speaks (docs/check.md)
export { checkHttp, checkStdio } from "./check/check.js";
export type { CheckOptions } from "./check/check.js";
export { CHECK_RULES, ruleOf } from "./check/rules.js";
export type { CheckReport, CheckRule, Finding, RevisionOutcome, BaselineKey, ClientName } from "./check/types.js";
