/**
 * mcp-wire: the JSON-RPC 2.0 layer of the Model Context Protocol.
 *
 * This entry holds what reads and judges messages: the revisions' rules as data, the codec and
 * its defects, conversations, schema validation, and every error the library throws. The rest is
 * in subpath entries, by what a program does with it (docs/library.md lists each):
 * `mcp-wire/peer` (the JSON-RPC engine and its transports), `mcp-wire/client`,
 * `mcp-wire/server`, `mcp-wire/http`, `mcp-wire/auth`, `mcp-wire/lint`, `mcp-wire/check` and
 * `mcp-wire/testing`.
 */

// Revisions and their rules, as data
export { REVISIONS, LATEST_REVISION, LEGACY_REVISIONS, RULES, rulesFor, isRevision } from "./rules/revisions.js";
export type { Revision, RevisionRules, Era, DefinedErrorCode } from "./rules/revisions.js";
export { MODERN_REVISIONS, LOG_LEVELS, META_KEYS } from "./mcp/meta.js";
export type { Implementation, Tool, CallToolResult, ContentBlock, InputRequiredResult, LogLevel } from "./mcp/meta.js";

// JSON-RPC error codes, what the other side sends
export { describeError, ERROR_CODES } from "./rules/error-codes.js";
export type { ErrorDescription, ErrorRange } from "./rules/error-codes.js";

// Messages: decode, encode, defects
export { decode, DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH } from "./codec/decode.js";
export type { DecodeOptions, Decoded } from "./codec/decode.js";
export { encode } from "./codec/encode.js";
export type { EncodeOptions } from "./codec/encode.js";
export type {
  Role,
  Checked,
  CheckedRequest,
  CheckedNotification,
  CheckedResult,
  CheckedError,
  CheckedBatch,
  CheckedInvalid,
} from "./codec/check.js";
export { DEFECTS, severityOf, worstSeverity } from "./codec/defects.js";
export type { Defect, DefectCase, DefectCode, Severity, DefectScope } from "./codec/defects.js";
export type {
  Message,
  MessageKind,
  SingleKind,
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
export type { ConversationOptions, ObserveOptions, Sender } from "./codec/conversation.js";

// Errors: every class the library throws, and the table of their codes (docs/errors.md)
export { LIBRARY_ERRORS } from "./rules/library-errors.js";
export type { LibraryError, LibraryErrorCode } from "./rules/library-errors.js";
export { EncodeError } from "./codec/encode.js";
export {
  ResponseError,
  ConnectionError,
  ConnectionErrorCode,
  TimeoutError,
  ClosedError,
  SpawnError,
  AbortedError,
  OverloadedError,
  InvalidResponseError,
  MessageTooLargeError,
} from "./peer/errors.js";
export { HttpError } from "./transport/http/error.js";
export type { HttpFailure } from "./transport/http/error.js";
export { NegotiationError, RevisionNotSpokenError } from "./mcp/client.js";
export { InputRequiredError } from "./mcp/mrtr.js";
export type { InputRequiredReason } from "./mcp/mrtr.js";
export { NotACaptureError } from "./lint/lint.js";
export { UnknownRevisionError } from "./rules/revisions.js";

// Schemas: messages against each revision's official schema.json; peers' JSON Schemas
export { validate } from "./schema/validate.js";
export type { ValidateOptions, Direction } from "./schema/validate.js";
export { validateAgainstSchema, schemaProblems } from "./schema/json-schema.js";
export type { SchemaOptions, SchemaError, SchemaVerdict } from "./schema/json-schema.js";
