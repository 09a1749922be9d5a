/** The MCP vocabulary both cores share: implementation info, capabilities, tools, eras. */
import type { JsonObject } from "../codec/message.js";
import { RULES, REVISIONS, type Revision } from "../rules/revisions.js";
import { HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION } from "../rules/error-codes.js";

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

export const MODERN_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => RULES[r].era === "modern").reverse();

/** Errors only a modern server sends: their arrival proves the server's era (2026-07-28 versioning). */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]);

/** The newest revision both sides know, among `mine` (newest first). */
export function mutualRevision(mine: readonly Revision[], theirs: readonly unknown[]): Revision | undefined {
  return mine.find((r) => theirs.includes(r));
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
