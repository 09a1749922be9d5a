/**
 * The rules of one revision applied to a parsed JSON value: what kind of message it is and
 * every way it breaks the rules. `decode` runs this after parsing; `encode` runs it before
 * serialising, so both sides judge by the same code.
 *
 * Written by hand, not with a schema library: it sits on the hot path of every message, and it
 * must name each defect precisely rather than report a generic schema mismatch.
 */
import { describeError } from "../rules/error-codes.js";
import { extensionOfResultType } from "../rules/extensions.js";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  type RevisionRules,
} from "../rules/revisions.js";
import { cleanKind, countKeys, isPlainObject } from "./clean.js";
import { DEFECTS, defect, pointerToken, quote, type Defect, type DefectCase, type DefectCode } from "./defects.js";
import type {
  ErrorMessage,
  Message,
  MessageKind,
  NotificationMessage,
  RequestMessage,
  ResultMessage,
  SingleKind,
} from "./message.js";

/** Who sent the message; some rules bind only one side. */
export type Role = "client" | "server";

/**
 * What a value is as a message, and every way it breaks the rules: a union on `kind`, so that
 * `if (c.kind === "request") c.message.method` needs no cast. `message` is there exactly when
 * the envelope is sound (every kind but `invalid`).
 */
export type Checked =
  CheckedRequest | CheckedNotification | CheckedResult | CheckedError | CheckedBatch | CheckedInvalid;

/** The members every verdict has; `items` only a batch's (and a broken batch's) carries. */
interface Verdict<K extends MessageKind> {
  kind: K;
  defects: Defect[];
  /** Each member's own verdict, when the value is a batch. */
  items?: Checked[] | undefined;
  /** The parsed JSON, when the text was JSON but not a sound message (for evidence): `invalid` only. */
  value?: unknown;
}

export interface CheckedRequest extends Verdict<"request"> {
  message: RequestMessage;
  items?: undefined;
  value?: undefined;
}
export interface CheckedNotification extends Verdict<"notification"> {
  message: NotificationMessage;
  items?: undefined;
  value?: undefined;
}
export interface CheckedResult extends Verdict<"result"> {
  message: ResultMessage;
  items?: undefined;
  value?: undefined;
}
export interface CheckedError extends Verdict<"error"> {
  message: ErrorMessage;
  items?: undefined;
  value?: undefined;
}
export interface CheckedBatch extends Verdict<"batch"> {
  message: Message[];
  items: Checked[];
  value?: undefined;
}
export interface CheckedInvalid extends Verdict<"invalid"> {
  message?: undefined;
}

const JSONRPC_SPEC = "JSON-RPC 2.0";

/** Where a revision writes its base-protocol rules, for the end of a defect message. */
function ref(rules: RevisionRules): string {
  return rules.revision === "2024-11-05" ? "(2024-11-05 schema)" : `(${rules.revision} basic/index)`;
}

/**
 * Mutable state of one check: the defects found and whether the envelope broke.
 *
 * Made by an object literal, not a class: V8 keeps a literal's hidden class alive with the
 * literal, but the classes a constructor's field assignments pass through only as long as some
 * instance lives. One check's state dies with the check, so after every full collection a class
 * would come back with new hidden classes and every optimised function on the decode path that
 * had seen the old ones would be thrown away and compiled again.
 */
interface Findings {
  readonly rules: RevisionRules;
  readonly defects: Defect[];
  broken: boolean;
}

function findings(rules: RevisionRules): Findings {
  return { rules, defects: [], broken: false };
}

function add<C extends DefectCode>(f: Findings, code: C, path: string, message: string, when?: DefectCase<C>): void {
  const d = defect(code, path, message, when);
  if (d.severity === "error" && DEFECTS[code].scope === "envelope") f.broken = true;
  f.defects.push(d);
}

function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a fractional number";
  return `a ${typeof v}`;
}

/**
 * Does this array look like JSON-RPC messages (a batch), or like a bare result list? With
 * `objectless`, an array holding no object at all (`[1,2,3]`, `[null]`) counts as a batch too:
 * where batches exist, JSON-RPC 2.0 §6 reads it as a batch of invalid requests, each answered.
 */
function looksLikeMessages(list: unknown[], objectless: boolean): boolean {
  let objects = false;
  for (const e of list) {
    if (!isPlainObject(e)) continue;
    if (e.jsonrpc !== undefined || e.method !== undefined || e.result !== undefined || e.error !== undefined)
      return true;
    objects = true;
  }
  return objectless && !objects;
}

export function checkValue(value: unknown, rules: RevisionRules, role?: Role): Checked {
  if (Array.isArray(value)) return checkArray(value, rules, role);
  if (isPlainObject(value)) {
    const kind = cleanKind(value, rules, role);
    if (kind !== undefined) return { kind, message: value as unknown as Message, defects: [] } as Checked;
  }
  return checkEveryRule(value, rules, role);
}

/** `checkValue` without the shortcut for clean messages: every rule tested, every defect worded. */
export function checkEveryRule(value: unknown, rules: RevisionRules, role?: Role): Checked {
  if (Array.isArray(value)) return checkArray(value, rules, role);
  const f = findings(rules);
  if (!isPlainObject(value)) {
    add(f, "not_object", "", `the JSON is ${describeType(value)}, not a JSON-RPC message object (${JSONRPC_SPEC} §4)`);
    return { kind: "invalid", defects: f.defects };
  }
  const kind = checkObject(value, f, "", role);
  return f.broken
    ? { kind: "invalid", defects: f.defects }
    : ({ kind, message: value as unknown as Message, defects: f.defects } as Checked);
}

function checkArray(list: unknown[], rules: RevisionRules, role?: Role): Checked {
  const f = findings(rules);
  const batches = rules.batches !== "none";
  if (list.length === 0) {
    if (batches) add(f, "empty_batch", "", `an empty array is not a valid batch (${JSONRPC_SPEC} §6)`);
    else add(f, "bare_array", "", `an empty array is not a JSON-RPC message ${ref(rules)}`);
    return { kind: "invalid", defects: f.defects };
  }
  if (!looksLikeMessages(list, batches)) {
    add(
      f,
      "bare_array",
      "",
      `a bare array of ${list.length} item(s) with no JSON-RPC envelope: expected one message object ${ref(rules)}`,
    );
    return { kind: "invalid", defects: f.defects };
  }
  const items: Checked[] = [];
  let calls = 0;
  let answers = 0;
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    // a batch holds message objects (JSON-RPC 2.0 §6), never another batch
    const item: Checked = Array.isArray(m) ? nestedArray(rules) : checkValue(m, rules, role);
    items.push(item);
    for (const d of item.defects) f.defects.push({ ...d, path: `/${i}${d.path}` });
    if (item.kind === "request" || item.kind === "notification") calls++;
    else if (item.kind === "result" || item.kind === "error") answers++;
    if (item.kind === "request" && isPlainObject(m) && m.method === "initialize") {
      add(f, "batch_initialize", `/${i}`, `initialize must not be part of a batch (2025-03-26 basic/lifecycle)`);
    }
  }
  if (!batches) {
    add(
      f,
      "batch_not_allowed",
      "",
      `a batch of ${list.length} message(s): ${rules.revision} has no JSON-RPC batching, send one message at a time ${ref(rules)}`,
    );
  }
  if (calls > 0 && answers > 0) {
    add(
      f,
      "batch_mixed",
      "",
      `a batch mixes requests or notifications with responses (${JSONRPC_SPEC} §6; 2025-03-26 schema)`,
    );
  }
  if (f.broken) return { kind: "invalid", items, defects: f.defects };
  return { kind: "batch", message: list as Message[], items, defects: f.defects };
}

function nestedArray(rules: RevisionRules): Checked {
  return {
    kind: "invalid",
    defects: [
      defect(
        "not_object",
        "",
        `the JSON is an array inside a batch, not a JSON-RPC message object (${JSONRPC_SPEC} §6) ${ref(rules)}`,
      ),
    ],
  };
}

function checkObject(o: Record<string, unknown>, f: Findings, path: string, role?: Role): SingleKind | "invalid" {
  const { jsonrpc, id, method, params, result, error } = o;
  const hasMethod = method !== undefined;
  const hasResult = result !== undefined;
  const hasError = error !== undefined;
  const hasId = id !== undefined;
  if (jsonrpc === undefined && !hasMethod && !hasResult && !hasError && !hasId) {
    noEnvelope(o, f, path);
    return "invalid";
  }
  checkJsonrpc(jsonrpc, f, path);
  let kind: SingleKind;
  if (hasMethod) {
    const answer = hasResult ? "result" : hasError ? "error" : undefined;
    kind = checkCall(method, params, id, answer, f, path, role);
  } else if (hasResult || hasError) {
    kind = checkResponse(id, result, error, f, path);
  } else {
    neitherCallNorResponse(params, f, path);
    return "invalid";
  }
  // counting allocates nothing: the members are listed only when one is left over
  const known =
    (jsonrpc === undefined ? 0 : 1) +
    (hasId ? 1 : 0) +
    (hasMethod ? 1 + (params !== undefined ? 1 : 0) : 0) +
    (hasResult ? 1 : 0) +
    (hasError ? 1 : 0);
  if (countKeys(o) > known) unexpectedMembers(o, f, path, kind);
  return kind;
}

/** An object with none of the envelope's members: most often a bare result sent as it is. */
function noEnvelope(o: Record<string, unknown>, f: Findings, path: string): void {
  const keys = Object.keys(o);
  const shown = keys
    .slice(0, 3)
    .map((k) => quote(k))
    .join(", ");
  add(
    f,
    "no_envelope",
    path,
    keys.length === 0
      ? `an empty object: no jsonrpc, id, method, result or error ${ref(f.rules)}`
      : `no JSON-RPC envelope: an object with ${shown}${keys.length > 3 ? ", …" : ""} but no jsonrpc, id, method, result or error, as if a bare result were sent ${ref(f.rules)}`,
  );
}

function checkJsonrpc(jsonrpc: unknown, f: Findings, path: string): void {
  if (jsonrpc === undefined) {
    add(
      f,
      "missing_jsonrpc",
      `${path}`,
      `no "jsonrpc" member: every message must carry "jsonrpc": "2.0" (${JSONRPC_SPEC} §4)`,
    );
  } else if (jsonrpc !== "2.0") {
    add(
      f,
      "wrong_jsonrpc_version",
      `${path}/jsonrpc`,
      `"jsonrpc" is ${quote(jsonrpc)}: it must be exactly the string "2.0" (${JSONRPC_SPEC} §4)`,
    );
  }
}

/** A request or a notification; `answer` names the response member it also carries, if any. */
function checkCall(
  method: unknown,
  params: unknown,
  id: unknown,
  answer: "result" | "error" | undefined,
  f: Findings,
  path: string,
  role: Role | undefined,
): SingleKind {
  if (answer !== undefined) {
    add(
      f,
      "ambiguous_kind",
      path,
      `has "method" and also "${answer}": a message is either a request or a response (${JSONRPC_SPEC} §4-5)`,
    );
  }
  checkMethod(method, f, path);
  if (params !== undefined && !isPlainObject(params)) {
    add(
      f,
      "params_not_object",
      `${path}/params`,
      `"params" is ${describeType(params)}: MCP params are always an object ${ref(f.rules)}`,
    );
  }
  if (id === undefined) return "notification";
  checkId(id, f, path, "request");
  if (f.rules.requiredRequestMeta.length > 0 && role !== "server" && typeof method === "string") {
    checkRequestMeta(params, f, path);
  }
  return "request";
}

function checkMethod(method: unknown, f: Findings, path: string): void {
  // an empty name is a well-formed call of a method nobody has: answered -32601, not -32600
  if (typeof method !== "string") {
    add(
      f,
      "method_invalid",
      `${path}/method`,
      `"method" is ${describeType(method)}: it must be a string (${JSONRPC_SPEC} §4)`,
    );
  } else if (method.charCodeAt(0) === 114 /* r */ && method.startsWith("rpc.")) {
    add(
      f,
      "method_invalid",
      `${path}/method`,
      `"method" ${quote(method)} starts with "rpc.", which JSON-RPC reserves for itself (${JSONRPC_SPEC} §4)`,
    );
  }
}

/** A response: a result, or an error when it carries one (with a result too, that is a defect of its own). */
function checkResponse(id: unknown, result: unknown, error: unknown, f: Findings, path: string): "result" | "error" {
  if (result !== undefined && error !== undefined) {
    add(
      f,
      "result_and_error",
      path,
      `has both "result" and "error": a response carries exactly one (${JSONRPC_SPEC} §5)`,
    );
  }
  if (error === undefined) {
    if (id === undefined)
      add(
        f,
        "id_missing",
        `${path}`,
        `a result with no "id": a response must carry the id of the request it answers ${ref(f.rules)}`,
      );
    else checkId(id, f, path, "result");
    checkResult(result, f, path);
    return "result";
  }
  checkErrorId(id, f, path);
  checkError(error, f, path);
  return "error";
}

function checkErrorId(id: unknown, f: Findings, path: string): void {
  const rules = f.rules;
  if (id === undefined) {
    if (!rules.errorIdOptional) {
      // an error without an id is a warning at most (a transport's refusal reads this way too)
      add(
        f,
        "id_missing",
        `${path}`,
        `an error with no "id": ${rules.revision} requires the request's id (null if it could not be read) ${ref(rules)}`,
        "error_response",
      );
    }
  } else if (id === null) {
    // JSON-RPC's own mark for an unreadable request id: legal, but MCP's schema has no null id
    add(
      f,
      "id_null",
      `${path}/id`,
      `error "id" is null: JSON-RPC's mark for an unreadable request id; MCP ${rules.errorIdOptional ? "omits the id instead" : "expects the request's id"} ${ref(rules)}`,
      "error_response",
    );
  } else {
    checkId(id, f, path, "error");
  }
}

/** Neither a call nor a response: params without a method reads as a call that lost its name. */
function neitherCallNorResponse(params: unknown, f: Findings, path: string): void {
  if (params !== undefined) {
    add(
      f,
      "method_invalid",
      `${path}`,
      `has "params" but no "method": a request or notification must name its method (${JSONRPC_SPEC} §4)`,
    );
  } else {
    add(
      f,
      "neither_result_nor_error",
      path,
      `no "method", "result" or "error": the message is neither a request nor a response (${JSONRPC_SPEC} §5)`,
    );
  }
}

function unexpectedMembers(o: Record<string, unknown>, f: Findings, path: string, kind: SingleKind): void {
  const call = kind === "request" || kind === "notification";
  for (const k of Object.keys(o)) {
    if (k === "jsonrpc" || k === "id" || k === "result" || k === "error") continue;
    // a response has no method (that would be ambiguous_kind) and no params
    if ((k === "method" || k === "params") && call) continue;
    add(
      f,
      "unexpected_member",
      `${path}/${pointerToken(k)}`,
      `unexpected member ${quote(k)}: a ${kind} carries only ${call ? "jsonrpc, id, method and params" : "jsonrpc, id and " + kind} (${JSONRPC_SPEC} §4-5)`,
    );
  }
}

function checkId(id: unknown, f: Findings, path: string, what: "request" | "result" | "error"): void {
  const rules = f.rules;
  if (typeof id === "string") return;
  if (typeof id === "number") {
    if (!Number.isInteger(id)) {
      add(
        f,
        "id_fractional",
        `${path}/id`,
        `id is ${id}, a fractional number: MCP ids are strings or integers ${ref(rules)}`,
      );
    } else if (!Number.isSafeInteger(id)) {
      add(
        f,
        "id_unsafe_integer",
        `${path}/id`,
        `id ${id} is beyond 2^53: JavaScript peers cannot hold it exactly and may answer with another id`,
      );
    }
    return;
  }
  if (id === null) {
    add(
      f,
      "id_null",
      `${path}/id`,
      `id is null: MCP ${what === "request" ? "requests need" : "responses need"} a string or integer id ${ref(rules)}`,
    );
    return;
  }
  add(f, "id_invalid_type", `${path}/id`, `id is ${describeType(id)}: MCP ids are strings or integers ${ref(rules)}`);
}

// the per-request _meta keys as JSON Pointer tokens ("/" escaped), worked out once
const PROTOCOL_VERSION_TOKEN = pointerToken(META_PROTOCOL_VERSION);
const CLIENT_CAPABILITIES_TOKEN = pointerToken(META_CLIENT_CAPABILITIES);
const CLIENT_INFO_TOKEN = pointerToken(META_CLIENT_INFO);

/** Runs on every modern request: paths and messages are only put together for a defect. */
function checkRequestMeta(params: unknown, f: Findings, path: string): void {
  const meta = isPlainObject(params) ? params._meta : undefined;
  const rules = f.rules;
  if (!isPlainObject(meta)) {
    add(
      f,
      "meta_missing_protocol_version",
      `${path}/params/_meta`,
      `no params._meta: every ${rules.revision} request carries "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}" in _meta ${ref(rules)}`,
    );
    return;
  }
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string") {
    const at = `${path}/params/_meta/${PROTOCOL_VERSION_TOKEN}`;
    if (version === undefined) {
      add(
        f,
        "meta_missing_protocol_version",
        at,
        `_meta has no "${META_PROTOCOL_VERSION}": every ${rules.revision} request names its protocol version ${ref(rules)}`,
      );
    } else {
      add(
        f,
        "meta_invalid",
        at,
        `_meta "${META_PROTOCOL_VERSION}" is ${describeType(version)}: it must be a string ${ref(rules)}`,
      );
    }
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) {
    const at = `${path}/params/_meta/${CLIENT_CAPABILITIES_TOKEN}`;
    if (capabilities === undefined) {
      add(
        f,
        "meta_missing_client_capabilities",
        at,
        `_meta has no "${META_CLIENT_CAPABILITIES}": every ${rules.revision} request declares its capabilities ({} for none) ${ref(rules)}`,
      );
    } else {
      add(
        f,
        "meta_invalid",
        at,
        `_meta "${META_CLIENT_CAPABILITIES}" is ${describeType(capabilities)}: it must be an object ({} for none) ${ref(rules)}`,
      );
    }
  }
  // optional (clients SHOULD send it), but when sent it is an Implementation
  const info = meta[META_CLIENT_INFO];
  if (info === undefined || (isPlainObject(info) && typeof info.name === "string" && typeof info.version === "string"))
    return;
  const at = `${path}/params/_meta/${CLIENT_INFO_TOKEN}`;
  if (!isPlainObject(info)) {
    add(
      f,
      "meta_invalid",
      at,
      `_meta "${META_CLIENT_INFO}" is ${describeType(info)}: it must be an object with string "name" and "version" ${ref(rules)}`,
    );
    return;
  }
  for (const member of ["name", "version"] as const) {
    const v = info[member];
    if (typeof v !== "string") {
      add(
        f,
        "meta_invalid",
        `${at}/${member}`,
        `_meta "${META_CLIENT_INFO}" ${v === undefined ? `has no "${member}"` : `"${member}" is ${describeType(v)}`}: it must be a string ${ref(rules)}`,
      );
    }
  }
}

function checkResult(result: unknown, f: Findings, path: string): void {
  const rules = f.rules;
  if (!isPlainObject(result)) {
    add(
      f,
      "result_not_object",
      `${path}/result`,
      `"result" is ${describeType(result)}: MCP results are always an object ${ref(rules)}`,
    );
    return;
  }
  if (rules.resultType !== "required") return;
  const rt = result.resultType;
  if (rt === undefined) {
    add(
      f,
      "result_type_missing",
      `${path}/result/resultType`,
      `result has no "resultType": read as "complete", but ${rules.revision} servers must send it ${ref(rules)}`,
    );
  } else if (typeof rt !== "string" || !rules.resultTypes.includes(rt)) {
    const extension = typeof rt === "string" ? extensionOfResultType(rules.revision, rt) : undefined;
    add(
      f,
      "result_type_unknown",
      `${path}/result/resultType`,
      extension
        ? `"resultType" is ${quote(rt)}, which only the extension ${extension.id} allows, and it was not negotiated: a server must not send it to a client that did not declare the extension (extensions/overview)`
        : `"resultType" is ${quote(rt)}: ${rules.revision} knows ${rules.resultTypes.map((t) => `"${t}"`).join(" and ")}, and an unrecognised value must be treated as invalid ${ref(rules)}`,
    );
  }
}

function checkError(error: unknown, f: Findings, path: string): void {
  const rules = f.rules;
  const at = `${path}/error`;
  if (!isPlainObject(error)) {
    add(
      f,
      "error_invalid",
      at,
      `"error" is ${describeType(error)}: it must be an object with an integer code and a message ${ref(rules)}`,
    );
    return;
  }
  const { code, message } = error;
  let known = 0;
  if (code === undefined) {
    add(
      f,
      "error_invalid",
      `${at}/code`,
      `the error has no "code": it needs an integer code and a message ${ref(rules)}`,
    );
  } else {
    known++;
    if (typeof code !== "number" || !Number.isInteger(code)) {
      add(
        f,
        "error_code_not_integer",
        `${at}/code`,
        `error code is ${describeType(code)}${typeof code === "number" || typeof code === "string" ? ` (${quote(code)})` : ""}: error codes must be integers ${ref(rules)}`,
      );
    } else {
      checkErrorCode(code, f, at);
    }
  }
  if (message === undefined) {
    add(
      f,
      "error_invalid",
      `${at}/message`,
      `the error has no "message": it needs an integer code and a message ${ref(rules)}`,
    );
  } else {
    known++;
    if (typeof message !== "string") {
      add(
        f,
        "error_invalid",
        `${at}/message`,
        `error message is ${describeType(message)}: it must be a string ${ref(rules)}`,
      );
    }
  }
  if (error.data !== undefined) known++;
  if (countKeys(error) > known) {
    for (const k of Object.keys(error)) {
      if (k === "code" || k === "message" || k === "data") continue;
      add(
        f,
        "unexpected_member",
        `${at}/${pointerToken(k)}`,
        `unexpected member ${quote(k)} in the error object: extra information belongs in "data" (${JSONRPC_SPEC} §5.1)`,
      );
    }
  }
}

function checkErrorCode(code: number, f: Findings, at: string): void {
  const rules = f.rules;
  const d = describeError(code, rules.revision);
  switch (d.status) {
    case "defined":
    case "application":
      return;
    case "legacy":
      add(
        f,
        "error_code_legacy",
        `${at}/code`,
        `error code ${code} is implementation-defined: no meaning may be read into it, and a client cannot act on it${rules.partitionedServerErrors ? ` (${rules.revision} basic/index: legacy range)` : ` (${JSONRPC_SPEC} §5.1)`}`,
      );
      return;
    case "retired":
      add(
        f,
        "error_code_retired",
        `${at}/code`,
        `error code ${code} (${d.name}) is retired: ${rules.revision} forbids sending it${code === -32002 ? ", use -32602" : ""} ${ref(rules)}`,
      );
      return;
    case "undefined":
      if (d.range === "mcp") {
        add(
          f,
          "error_code_undefined_mcp",
          `${at}/code`,
          `error code ${code} is in -32020…-32099, reserved for the MCP specification, which does not define it ${ref(rules)}`,
        );
      } else {
        add(
          f,
          "error_code_reserved",
          `${at}/code`,
          `error code ${code} is in -32768…-32100, reserved by JSON-RPC for codes it has not defined (${JSONRPC_SPEC} §5.1)`,
        );
      }
      return;
  }
}
