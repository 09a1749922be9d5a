/** The MCP vocabulary both cores share: implementation info, capabilities, tools, eras. */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import {
  RULES,
  REVISIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  type Revision,
} from "../rules/revisions.js";
import {
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../rules/error-codes.js";

export interface Implementation {
  name: string;
  version: string;
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  description?: string;
  inputSchema: JsonObject;
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: JsonObject;
  [key: string]: unknown;
}

/**
 * A 2026-07-28 answer asking the client for more before the request can complete (Multi
 * Round-Trip Requests): the client fulfils `inputRequests` itself and retries the request with
 * `inputResponses` and the `requestState` echoed back.
 */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests?: { [key: string]: { method: string; params?: JsonObject } } | undefined;
  requestState?: string;
  [key: string]: unknown;
}

/** `_meta` key tying a message to a task (2025-11-25 tasks). */
export const META_RELATED_TASK = "io.modelcontextprotocol/related-task";

/** A request the server needs the client to answer: elicitation, sampling or roots. */
export interface InputRequest {
  method: string;
  params?: JsonObject;
}

/**
 * A tool call's answer when it became a task: on 2026-07-28 the task itself with
 * `resultType: "task"`, on 2025-11-25 `{ task }`.
 */
export interface CreateTaskResult {
  resultType?: "task";
  task?: JsonObject;
  taskId?: string;
  [key: string]: unknown;
}

/** Log levels, least severe first (RFC 5424, as MCP's logging utility uses them). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `_meta` key with which a 2026-07-28 request asks for log messages at or above a level. */
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";

/** The 2026-07-28 `_meta` keys a request or a result carries, by what they hold. */
export const META_KEYS = Object.freeze({
  protocolVersion: META_PROTOCOL_VERSION,
  clientCapabilities: META_CLIENT_CAPABILITIES,
  clientInfo: META_CLIENT_INFO,
  serverInfo: META_SERVER_INFO,
  logLevel: META_LOG_LEVEL,
} as const);

export const MODERN_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => RULES[r].era === "modern").reverse();

/** Errors only a modern server sends: their arrival proves the server's era (2026-07-28 versioning). */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
]);

/** The newest revision both sides know, among `mine` (newest first). */
export function mutualRevision(mine: readonly Revision[], theirs: readonly unknown[]): Revision | undefined {
  return mine.find((r) => theirs.includes(r));
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The -32021 error for a request that needs client capabilities the client did not declare, or
 * undefined when none is missing. `data.requiredCapabilities` is a ClientCapabilities object.
 */
export function missingCapabilities(requires: JsonObject | undefined, declared: JsonObject): ResponseError | undefined {
  if (!requires) return undefined;
  const requiredCapabilities: JsonObject = {};
  const missing: string[] = [];
  for (const [k, wanted] of Object.entries(requires)) {
    if (k === "extensions" && isObject(wanted)) {
      // extensions are declared one by one, by identifier, under one key
      const have = isObject(declared.extensions) ? declared.extensions : {};
      const lacking = Object.keys(wanted).filter((id) => have[id] === undefined);
      if (lacking.length === 0) continue;
      requiredCapabilities.extensions = Object.fromEntries(lacking.map((id) => [id, wanted[id]]));
      missing.push(...lacking);
    } else if (declared[k] === undefined) {
      requiredCapabilities[k] = wanted;
      missing.push(k);
    }
  }
  if (missing.length === 0) return undefined;
  return new ResponseError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Missing required client capability: ${missing.join(", ")}`,
    { requiredCapabilities },
  );
}

/** One page of a list, as the server sent it: `nextCursor` present means there is more. */
export interface PagedResult {
  nextCursor?: string;
  [key: string]: unknown;
}

export interface ListToolsResult extends PagedResult {
  tools: Tool[];
}

export interface Resource {
  uri: string;
  name: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ListResourcesResult extends PagedResult {
  resources: Resource[];
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  [key: string]: unknown;
}

export interface ListResourceTemplatesResult extends PagedResult {
  resourceTemplates: ResourceTemplate[];
}

export interface Prompt {
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  [key: string]: unknown;
}

export interface ListPromptsResult extends PagedResult {
  prompts: Prompt[];
}

export interface ReadResourceResult {
  contents: ({ uri: string; mimeType?: string; text?: string; blob?: string } & JsonObject)[];
  [key: string]: unknown;
}

export interface GetPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
  [key: string]: unknown;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

/** What `completion/complete` completes: an argument of a prompt or of a resource template. */
export type CompleteRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
