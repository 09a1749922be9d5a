/**
 * The catalogue of everything mcp-wire can say is wrong with a message or a conversation.
 * Codes are stable names users rely on (docs/defects.md lists them); messages are for people.
 */

export type Severity = "error" | "warning" | "info";

/**
 * `envelope`: the JSON-RPC frame itself (members `jsonrpc`, `id`, `method`, `params`, `result`,
 * `error`, their types, or the text as a whole). An error here makes the message `invalid`.
 * `content`: a rule about what a sound envelope carries (`resultType`, `_meta`, error codes); the
 * message keeps its kind. `conversation`: needs more than one message. `transport`: what the
 * channel carries beside the message (HTTP headers that must mirror the body).
 */
export type DefectScope = "envelope" | "content" | "conversation" | "transport";

/**
 * The one severity table: every emitter (the codec, the conversation checker, the peer, probe,
 * tap, lint) takes a defect's severity from here and never decides it at the emit site. Where
 * one code has a milder case, the case is named under `when` and the emitter names the case,
 * so a severity can only change in this table.
 */
interface DefectSpec {
  readonly severity: Severity;
  readonly scope: DefectScope;
  readonly when?: Readonly<Record<string, Severity>>;
}

export const DEFECTS = {
  // the text as a whole
  parse_error: { severity: "error", scope: "envelope" },
  invalid_utf8: { severity: "error", scope: "envelope" },
  too_large: { severity: "error", scope: "envelope" },
  too_deep: { severity: "error", scope: "envelope" },
  byte_order_mark: { severity: "info", scope: "envelope" },
  not_object: { severity: "error", scope: "envelope" },
  no_envelope: { severity: "error", scope: "envelope" },
  bare_array: { severity: "error", scope: "envelope" },
  // batches
  batch_not_allowed: { severity: "error", scope: "envelope" },
  empty_batch: { severity: "error", scope: "envelope" },
  batch_mixed: { severity: "error", scope: "envelope" },
  batch_initialize: { severity: "error", scope: "envelope" },
  // the members
  missing_jsonrpc: { severity: "error", scope: "envelope" },
  wrong_jsonrpc_version: { severity: "error", scope: "envelope" },
  // JSON-RPC's own mark for an unreadable request id is legal on an error response; MCP has no null id
  id_null: { severity: "error", scope: "envelope", when: { error_response: "warning" } },
  // an error response without an id is a warning at most (a transport's refusal reads this way)
  id_missing: { severity: "error", scope: "envelope", when: { error_response: "warning" } },
  id_invalid_type: { severity: "error", scope: "envelope" },
  id_fractional: { severity: "error", scope: "envelope" },
  id_unsafe_integer: { severity: "warning", scope: "envelope" },
  method_invalid: { severity: "error", scope: "envelope" },
  params_not_object: { severity: "error", scope: "envelope" },
  ambiguous_kind: { severity: "error", scope: "envelope" },
  result_and_error: { severity: "error", scope: "envelope" },
  neither_result_nor_error: { severity: "error", scope: "envelope" },
  result_not_object: { severity: "error", scope: "envelope" },
  error_invalid: { severity: "error", scope: "envelope" },
  error_code_not_integer: { severity: "error", scope: "envelope" },
  unexpected_member: { severity: "warning", scope: "envelope" },
  // content rules of a revision
  error_code_undefined_mcp: { severity: "error", scope: "content" },
  error_code_reserved: { severity: "warning", scope: "content" },
  error_code_legacy: { severity: "warning", scope: "content" },
  error_code_retired: { severity: "error", scope: "content" },
  result_type_missing: { severity: "warning", scope: "content" },
  result_type_unknown: { severity: "error", scope: "content" },
  meta_missing_protocol_version: { severity: "error", scope: "content" },
  meta_missing_client_capabilities: { severity: "error", scope: "content" },
  meta_invalid: { severity: "error", scope: "content" },
  // the message against its revision's official schema.json (src/schema/validate.ts): what a sender MUST send
  schema_invalid: { severity: "error", scope: "content" },
  // a result validated without the method it answers: its envelope alone was judged
  schema_envelope_only: { severity: "info", scope: "content" },
  // a message over the validation budget of lint --schema and tap: not held to the schema at all
  schema_not_judged: { severity: "info", scope: "content" },
  // conversations
  // an error without an id right after a notification: the same refusal, a warning at most
  response_to_notification: { severity: "error", scope: "conversation", when: { no_id_error: "warning" } },
  id_reused_in_flight: { severity: "error", scope: "conversation" },
  id_reused_in_session: { severity: "error", scope: "conversation" },
  // an error without an id is a refusal before the id could be read (a transport-level 400 body),
  // not a broken conversation
  unknown_response_id: { severity: "error", scope: "conversation", when: { no_id_error: "warning" } },
  duplicate_response: { severity: "error", scope: "conversation" },
  response_after_cancel: { severity: "warning", scope: "conversation" },
  initialize_version_not_latest: { severity: "warning", scope: "conversation" },
  revision_unknown: { severity: "warning", scope: "conversation" },
  version_not_negotiated: { severity: "warning", scope: "conversation" },
  // a server that answers 2026-07-28 requests but refuses server/discover, which it MUST implement
  discover_missing: { severity: "error", scope: "conversation" },
  // the channel: 2026-07-28 Streamable HTTP headers against the body they mirror
  header_missing: { severity: "error", scope: "transport" },
  header_mismatch: { severity: "error", scope: "transport" },
  header_malformed: { severity: "error", scope: "transport" },
  // a POST answered with a redirect: followed, but many clients do not follow one
  redirect: { severity: "warning", scope: "transport" },
  // a JSON-RPC answer over Streamable HTTP with neither application/json nor text/event-stream
  content_type_invalid: { severity: "error", scope: "transport" },
} as const satisfies Record<string, DefectSpec>;

export type DefectCode = keyof typeof DEFECTS;

/** The named milder (or harsher) cases of one code, as the table lists them. */
export type DefectCase<C extends DefectCode> = (typeof DEFECTS)[C] extends { when: infer W } ? keyof W & string : never;

/** The severity the table gives `code`, in the named case when there is one. */
export function severityOf<C extends DefectCode>(code: C, when?: DefectCase<C>): Severity {
  const spec: DefectSpec = DEFECTS[code];
  return (when !== undefined ? spec.when?.[when] : undefined) ?? spec.severity;
}

export interface Defect {
  readonly code: DefectCode;
  readonly severity: Severity;
  /** JSON Pointer (RFC 6901) into the message; "" is the message as a whole. */
  readonly path: string;
  /** One line a person understands, ending with where the rule is written. */
  readonly message: string;
  /** `schema_invalid` only: the schema definition the message broke, e.g. `ListToolsResult`. */
  readonly definition?: string;
  /** `schema_invalid` only: the JSON Schema keyword that failed, e.g. `required`. */
  readonly keyword?: string;
}

/** A defect whose severity is the table's for `code` (in the case `when`, if the table names one). */
export function defect<C extends DefectCode>(code: C, path: string, message: string, when?: DefectCase<C>): Defect {
  return { code, severity: when === undefined ? DEFECTS[code].severity : severityOf(code, when), path, message };
}

/** Escapes one reference token of a JSON Pointer. */
export function pointerToken(key: string | number): string {
  if (typeof key === "number") return String(key);
  return key.indexOf("~") === -1 && key.indexOf("/") === -1 ? key : key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function worstSeverity(defects: readonly Defect[]): Severity | null {
  let worst: Severity | null = null;
  for (const d of defects) {
    if (d.severity === "error") return "error";
    if (d.severity === "warning") worst = "warning";
    else if (worst === null) worst = "info";
  }
  return worst;
}

/** A value quoted in a defect message: JSON, cut short so one hostile value cannot flood a report. */
export function quote(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
