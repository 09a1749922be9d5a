/**
 * The report's words for the probe's classes and details, and how classes group in prose:
 * "protocol errors" (the address answered and spoke something, but not MCP) are counted apart
 * from "web pages" (docs/report.md, "Classes and details").
 */
import { PROBE_CLASSES } from "../probe/verdict.js";
import { counted, list } from "./words.js";

/** Every class a stored attempt can have, in the order tables and charts show them. */
export const CLASSES = [...PROBE_CLASSES, "invalid_target"] as const;

/** A class in a few plain words, for tables and legends. */
export const CLASS_WORDS: Record<string, string> = {
  ok: "answered, tools listed",
  unreachable: "could not be reached",
  timeout: "no answer in time",
  auth_required: "refused for lack of a key",
  http_error: "HTTP error, no JSON-RPC",
  web_page: "a web page",
  not_json: "not JSON",
  not_jsonrpc: "JSON, but not JSON-RPC",
  rpc_error: "JSON-RPC error on opening",
  protocol_violation: "broke the protocol",
  invalid_target: "not called: invalid target",
};

/** The classes the report calls protocol errors (docs/report.md). */
export const PROTOCOL_ERROR_CLASSES: readonly string[] = ["not_json", "not_jsonrpc", "protocol_violation"];

/**
 * The kinds a target's history is told in, as countable nouns, in the order a person lists
 * them: what the server spoke wrongly first, what kept it from being reached last.
 */
export const HISTORY_KINDS: readonly { classes: readonly string[]; one: string; many: string }[] = [
  { classes: PROTOCOL_ERROR_CLASSES, one: "protocol error", many: "protocol errors" },
  { classes: ["web_page"], one: "web page", many: "web pages" },
  { classes: ["rpc_error"], one: "JSON-RPC error", many: "JSON-RPC errors" },
  { classes: ["auth_required"], one: "refusal for lack of a key", many: "refusals for lack of a key" },
  { classes: ["http_error"], one: "HTTP error", many: "HTTP errors" },
  { classes: ["timeout"], one: "timeout", many: "timeouts" },
  { classes: ["unreachable"], one: "time unreachable", many: "times unreachable" },
  { classes: ["invalid_target"], one: "invalid target", many: "invalid targets" },
];

/** Details as countable nouns; a detail not here is named by its code. */
const DETAIL_NOUNS: Record<string, readonly [string, string]> = {
  // not JSON, not JSON-RPC, protocol violations
  empty_body: ["empty body", "empty bodies"],
  text: ["plain-text answer", "plain-text answers"],
  bare_array: ["bare JSON array", "bare JSON arrays"],
  no_envelope: ["result with no envelope", "results with no envelope"],
  not_object: ["JSON value that is not an object", "JSON values that are not objects"],
  missing_jsonrpc: ['answer without "jsonrpc"', 'answers without "jsonrpc"'],
  wrong_jsonrpc_version: ['wrong "jsonrpc" version', 'wrong "jsonrpc" versions'],
  id_null: ["null id", "null ids"],
  id_missing: ["missing id", "missing ids"],
  result_and_error: ["result and error together", "results and errors together"],
  id_invalid_type: ["id of the wrong type", "ids of the wrong type"],
  unknown_response_id: ["answer with an id we never sent", "answers with ids we never sent"],
  duplicate_response: ["answer sent twice", "answers sent twice"],
  result_not_object: ["result that is not an object", "results that are not objects"],
  error_invalid: ["malformed error", "malformed errors"],
  too_large: ["oversized answer", "oversized answers"],
  stream_broken: ["broken stream", "broken streams"],
  no_response: ["stream with no answer to our request", "streams with no answer to our request"],
  // unreachable
  dns: ["name that did not resolve", "names that did not resolve"],
  refused: ["refused connection", "refused connections"],
  reset: ["reset connection", "reset connections"],
  tls: ["TLS failure", "TLS failures"],
  spawn: ["command that did not start", "commands that did not start"],
  exited: ["process that exited before answering", "processes that exited before answering"],
  // invalid targets
  bad_url: ["malformed URL", "malformed URLs"],
  template: ["URL template with no default", "URL templates with no default"],
  private_address: ["private address", "private addresses"],
};

/** A detail's noun, singular and plural; a detail without one is named by its code. */
export function detailNoun(detail: string): readonly [string, string] {
  return DETAIL_NOUNS[detail] ?? [detail, detail];
}

/** "2 bare JSON arrays, one result with no envelope and one id_mismatch". */
export function detailBreakdown(details: readonly { detail: string; count: number }[]): string {
  return list(
    details.map(({ detail, count }) => {
      const nouns = DETAIL_NOUNS[detail];
      return nouns ? counted(count, nouns[0], nouns[1]) : counted(count, detail, detail);
    }),
  );
}

/** Range names as a sentence says them. */
export function rangeWords(range: string | null): string {
  switch (range) {
    case "legacy":
      return "legacy range";
    case "mcp":
      return "MCP range";
    case "application":
      return "application-defined";
    case "standard":
      return "standard";
    default:
      return "range unknown";
  }
}
