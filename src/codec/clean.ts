/**
 * The common case of `checkValue`, answered without collecting anything: is this object a
 * message that breaks no rule at all, and if so, of which kind?
 *
 * Nearly every message on the wire is clean, and for a small one the full check (findings to
 * fill, defects to word) costs a sizeable share of JSON.parse's own time. So this tests the same
 * conditions check.ts tests, in the same terms, and answers only when none of them would name a
 * defect; anything else (undefined) goes to the full check, which finds and words the defects.
 * It may give up on a clean message; it must never answer for one with a defect, of any severity.
 */
import { describeError } from "../rules/error-codes.js";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  type RevisionRules,
} from "../rules/revisions.js";
import type { Role } from "./check.js";
import type { SingleKind } from "./message.js";

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Own (and inherited) enumerable keys, counted without allocating an array: this runs on every message. */
export function countKeys(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** A request id no rule objects to: a string, or an integer JavaScript holds exactly. */
function cleanId(id: unknown): boolean {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** Where a read by name ends for a member JSON.parse did not make: %Object.prototype%. */
const OBJECT_PROTOTYPE: Record<string, unknown> = Object.getPrototypeOf({}) as Record<string, unknown>;

/**
 * The kind of a defect-free message object, or undefined when the full check must look.
 * `parsed`: `o` was just made by JSON.parse (decode), so every member of its own is enumerable.
 */
export function cleanKind(
  o: Record<string, unknown>,
  rules: RevisionRules,
  role: Role | undefined,
  parsed = false,
): SingleKind | undefined {
  // One enumeration finds the members and counts them. Reads by name cost more: messages come in
  // many shapes, so V8 would look each of the six names up in its megamorphic cache.
  let jsonrpc: unknown;
  let id: unknown;
  let method: unknown;
  let params: unknown;
  let result: unknown;
  let error: unknown;
  let count = 0;
  for (const k in o) {
    count++;
    if (k === "jsonrpc") jsonrpc = o[k];
    else if (k === "id") id = o[k];
    else if (k === "method") method = o[k];
    else if (k === "params") params = o[k];
    else if (k === "result") result = o[k];
    else if (k === "error") error = o[k];
  }
  // A member enumeration did not find may still be found by the full check's read by name (not
  // enumerable, or inherited and not enumerable), so it is read by name too. JSON.parse makes only
  // enumerable own members: on its objects such a read can only end in Object.prototype.
  const rest = parsed ? OBJECT_PROTOTYPE : o;
  if (jsonrpc === undefined) jsonrpc = rest.jsonrpc;
  if (id === undefined) id = rest.id;
  if (method === undefined) method = rest.method;
  if (params === undefined) params = rest.params;
  if (result === undefined) result = rest.result;
  if (error === undefined) error = rest.error;
  if (jsonrpc !== "2.0") return undefined;
  if (method !== undefined) {
    if (result !== undefined || error !== undefined) return undefined;
    if (typeof method !== "string" || (method.charCodeAt(0) === 114 /* r */ && method.startsWith("rpc.")))
      return undefined;
    let members = 2;
    if (params !== undefined) {
      if (!isPlainObject(params)) return undefined;
      members++;
    }
    if (id === undefined) return count === members ? "notification" : undefined;
    if (!cleanId(id)) return undefined;
    if (rules.requiredRequestMeta.length > 0 && role !== "server" && !cleanRequestMeta(params)) return undefined;
    return count === members + 1 ? "request" : undefined;
  }
  if (result !== undefined) {
    if (error !== undefined || !cleanId(id) || !isPlainObject(result)) return undefined;
    if (rules.resultType === "required") {
      const rt = member(result, "resultType");
      if (typeof rt !== "string" || !rules.resultTypes.includes(rt)) return undefined;
    }
    // params on a response is an unexpected member: the count catches it with any other
    return count === 3 ? "result" : undefined;
  }
  if (error !== undefined) {
    if (id === undefined ? !rules.errorIdOptional : !cleanId(id)) return undefined;
    if (!isPlainObject(error)) return undefined;
    const code = error.code;
    if (typeof error.message !== "string" || typeof code !== "number" || !Number.isInteger(code)) return undefined;
    if (countKeys(error) !== (error.data !== undefined ? 3 : 2)) return undefined;
    const status = describeError(code, rules.revision).status;
    if (status !== "defined" && status !== "application") return undefined;
    return count === (id === undefined ? 2 : 3) ? "error" : undefined;
  }
  return undefined;
}

/*
 * Below, members of params, _meta and result are read while enumerating the object rather than
 * by name. A read by name makes optimised code depend on the hidden classes it has seen, and
 * params and _meta come in so few shapes that it would: when no message of such a shape is alive
 * at a full collection, V8 drops the hidden class and with it every optimised function that
 * named it, to compile them again. Enumeration reads by index, whatever the hidden class. A
 * member that enumeration does not find (not enumerable, or absent) is left to the full check.
 */

/** The enumerable member `key` of `o`, read as `o[key]` reads it; undefined when there is none. */
function member(o: Record<string, unknown>, key: string): unknown {
  for (const k in o) if (k === key) return o[k];
  return undefined;
}

/** A modern request's _meta with nothing missing or mistyped. */
function cleanRequestMeta(params: unknown): boolean {
  if (!isPlainObject(params)) return false;
  const meta = member(params, "_meta");
  if (!isPlainObject(meta)) return false;
  let version: unknown;
  let capabilities: unknown;
  let info: unknown;
  let hasInfo = false;
  for (const k in meta) {
    if (k === META_PROTOCOL_VERSION) version = meta[k];
    else if (k === META_CLIENT_CAPABILITIES) capabilities = meta[k];
    else if (k === META_CLIENT_INFO) {
      info = meta[k];
      hasInfo = true;
    }
  }
  if (typeof version !== "string" || !isPlainObject(capabilities)) return false;
  // optional, but a value a name read would find and enumeration does not still counts
  if (!hasInfo) return Reflect.get(meta, META_CLIENT_INFO) === undefined;
  if (!isPlainObject(info)) return false;
  let name: unknown;
  let release: unknown;
  for (const k in info) {
    if (k === "name") name = info[k];
    else if (k === "version") release = info[k];
  }
  return typeof name === "string" && typeof release === "string";
}
