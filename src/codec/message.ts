/** The JSON-RPC 2.0 messages MCP exchanges, as TypeScript types. */

export type RequestId = string | number;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: unknown };

export interface RequestMessage {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: JsonObject;
}

export interface NotificationMessage {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject;
}

export interface ResultMessage {
  jsonrpc: "2.0";
  id: RequestId;
  result: JsonObject;
}

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface ErrorMessage {
  jsonrpc: "2.0";
  /** Absent (2025-11-25 on) or null (JSON-RPC) when the request id could not be read. */
  id?: RequestId | null;
  error: ErrorObject;
}

export type ResponseMessage = ResultMessage | ErrorMessage;
export type Message = RequestMessage | NotificationMessage | ResultMessage | ErrorMessage;

/** What `decode` says a text is. */
export type MessageKind = SingleKind | "batch" | "invalid";

/** The kind of one sound message. */
export type SingleKind = "request" | "notification" | "result" | "error";
