/**
 * What a JSON-RPC error code means on a given MCP revision.
 *
 * JSON-RPC 2.0 reserves -32768…-32000: five codes are defined, -32000…-32099 is left to
 * implementations, the rest is reserved for the future. MCP 2026-07-28 splits -32000…-32099 into
 * a legacy part (-32000…-32019: no meaning may be read into it, except the old -32002) and a part
 * owned by the specification (-32020…-32099). Everything outside -32768…-32000 is the
 * application's.
 */
import { RULES, type Revision } from "./revisions.js";

/**
 * `standard`: JSON-RPC's own range. `legacy`: implementation-defined codes, no shared meaning.
 * `mcp`: a code the MCP specification defines or reserves. `application`: outside JSON-RPC's range.
 */
export type ErrorRange = "standard" | "legacy" | "mcp" | "application";

export interface ErrorDescription {
  readonly code: number;
  readonly range: ErrorRange;
  readonly name: string;
  readonly meaning: string;
  /**
   * How the code stands on this revision: `defined` (a meaning the revision gives it), `legacy`
   * (legal, meaningless), `retired` (the revision forbids sending it), `undefined` (reserved but
   * unassigned: sending it breaks the rules), `application`.
   */
  readonly status: "defined" | "legacy" | "retired" | "undefined" | "application";
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Resource not found, as revisions before 2026-07-28 define it (that revision uses -32602). */
export const RESOURCE_NOT_FOUND = -32002;
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The JSON-RPC error codes the specifications name, by name: one table rather than eight constants. */
export const ERROR_CODES = Object.freeze({
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} as const);

const STANDARD: Readonly<Record<number, readonly [string, string]>> = {
  [PARSE_ERROR]: ["Parse error", "the body was not valid JSON"],
  [INVALID_REQUEST]: ["Invalid Request", "valid JSON, but not a valid JSON-RPC request"],
  [METHOD_NOT_FOUND]: ["Method not found", "the receiver has no method by that name"],
  [INVALID_PARAMS]: ["Invalid params", "the method exists, but the arguments are wrong"],
  [INTERNAL_ERROR]: ["Internal error", "the receiver failed while handling the request"],
};

const LEGACY_LOW = -32019;
const SERVER_LOW = -32099;
const SERVER_HIGH = -32000;
const RESERVED_LOW = -32768;

export function describeError(code: number, revision: Revision): ErrorDescription {
  const rules = RULES[revision];
  const standard = STANDARD[code];
  if (standard) return { code, range: "standard", name: standard[0], meaning: standard[1], status: "defined" };

  if (!Number.isInteger(code) || code > SERVER_HIGH || code < RESERVED_LOW) {
    return {
      code,
      range: "application",
      name: "Application error",
      meaning: "an application-defined code: its meaning is the server's own",
      status: "application",
    };
  }
  if (code < SERVER_LOW) {
    return {
      code,
      range: "standard",
      name: "Reserved by JSON-RPC",
      meaning: "JSON-RPC reserves -32768…-32000 for its own codes and defines no meaning for this one",
      status: "undefined",
    };
  }

  const defined = rules.definedErrorCodes.find((d) => d.code === code);
  if (defined) return { code, range: "mcp", name: defined.name, meaning: defined.meaning, status: "defined" };

  const retired = rules.retiredErrorCodes.find((d) => d.code === code);
  if (retired) {
    return {
      code,
      range: code >= LEGACY_LOW ? "legacy" : "mcp",
      name: retired.name,
      meaning: `${retired.meaning} (an earlier revision's code; ${revision} forbids sending it)`,
      status: "retired",
    };
  }

  if (rules.partitionedServerErrors && code < LEGACY_LOW) {
    return {
      code,
      range: "mcp",
      name: "Reserved by MCP",
      meaning: "reserved for the MCP specification, which defines no meaning for this code",
      status: "undefined",
    };
  }
  return {
    code,
    range: "legacy",
    name: "Implementation-defined",
    meaning: "an implementation-defined server error: no meaning may be read into it",
    status: "legacy",
  };
}
