/**
 * Helpers shared by the codec, rules and lint tests. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import assert from "node:assert/strict";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { decode, type Decoded, type DecodeOptions } from "../codec/decode.js";
import { DEFECTS, type Defect, type DefectCode, type Severity } from "../codec/defects.js";
import type { MessageKind } from "../codec/message.js";

export const ALL: readonly Revision[] = REVISIONS;
export const LEGACY: readonly Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
export const MODERN: Revision = "2026-07-28";

export function except(...skip: Revision[]): Revision[] {
  return ALL.filter((r) => !skip.includes(r));
}

export function dec(input: string | Uint8Array, revision: Revision, options: Partial<DecodeOptions> = {}): Decoded {
  const d = decode(input, { ...options, revision });
  assertSound(d);
  return d;
}

export function codes(d: { defects: readonly Defect[] }): DefectCode[] {
  return d.defects.map((x) => x.code);
}

function find(d: { defects: readonly Defect[] }, code: DefectCode): Defect | undefined {
  return d.defects.find((x) => x.code === code);
}

/** RFC 6901: "" or a sequence of "/token", where "~" only appears as "~0" or "~1". */
function isJsonPointer(p: string): boolean {
  return p === "" || /^(\/([^~/]|~[01])*)+$/.test(p);
}

/** Every defect is well formed: known code, its severity, a JSON Pointer, one line of text. */
export function assertDefectShape(d: Defect): void {
  assert.ok(Object.hasOwn(DEFECTS, d.code), `unknown defect code ${d.code}`);
  assert.ok(["error", "warning", "info"].includes(d.severity), `severity ${d.severity}`);
  // the table's severity, or the one it names for a case of the code (severities live nowhere else)
  const spec: { severity: string; when?: Record<string, string> } = DEFECTS[d.code];
  assert.ok(
    d.severity === spec.severity || Object.values(spec.when ?? {}).includes(d.severity),
    `${d.code} has severity ${d.severity}`,
  );
  assert.equal(typeof d.path, "string");
  assert.ok(isJsonPointer(d.path), `${d.code}: path ${JSON.stringify(d.path)} is not a JSON Pointer`);
  assert.equal(typeof d.message, "string");
  assert.ok(d.message.length > 0, `${d.code}: empty message`);
  assert.ok(!/[\r\n]/.test(d.message), `${d.code}: message is not one line: ${JSON.stringify(d.message)}`);
}

const BATCH_LEVEL: ReadonlySet<DefectCode> = new Set([
  "batch_not_allowed",
  "empty_batch",
  "batch_mixed",
  "batch_initialize",
  "bare_array",
]);

/**
 * The invariants every decode result keeps: well-formed defects; `invalid` exactly when an
 * error-severity envelope defect concerns the message itself; a message only when not invalid.
 */
export function assertSound(d: Decoded): void {
  assert.ok(["request", "notification", "result", "error", "batch", "invalid"].includes(d.kind), `kind ${d.kind}`);
  for (const x of d.defects) assertDefectShape(x);
  if (d.items) {
    // a batch: the array itself is invalid only for its own faults; each member has its verdict
    d.items.forEach((item) => assertSound(item));
    const own = d.defects.filter((x) => BATCH_LEVEL.has(x.code) && x.severity === "error");
    assert.equal(d.kind === "invalid", own.length > 0, `batch kind ${d.kind} with ${JSON.stringify(codes(d))}`);
  } else {
    const envelopeError = d.defects.some((x) => x.severity === "error" && DEFECTS[x.code].scope === "envelope");
    assert.equal(d.kind === "invalid", envelopeError, `kind ${d.kind} with defects ${JSON.stringify(codes(d))}`);
  }
  if (d.kind === "invalid") assert.equal(d.message, undefined);
  else assert.notEqual(d.message, undefined);
}

export interface Expect {
  severity?: Severity;
  path?: string;
  kind?: MessageKind;
}

/** `code` is among the defects (once at least), with the given severity, path and kind. */
export function raised(d: Decoded, code: DefectCode, expect: Expect = {}): Defect {
  const x = find(d, code);
  assert.ok(x, `expected ${code}, got ${JSON.stringify(codes(d))}`);
  assert.equal(x.severity, expect.severity ?? DEFECTS[code].severity, `${code} severity`);
  if (expect.path !== undefined) assert.equal(x.path, expect.path, `${code} path`);
  if (expect.kind !== undefined) assert.equal(d.kind, expect.kind, `kind with ${code}`);
  return x;
}

export function notRaised(d: Decoded, code: DefectCode): void {
  assert.ok(!find(d, code), `did not expect ${code}: ${JSON.stringify(d.defects)}`);
}

export function hasError(d: { defects: readonly Defect[] }): boolean {
  return d.defects.some((x) => x.severity === "error");
}

/** A 2026-07-28 request's required `_meta`. */
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A request that is clean on `revision`: modern requests carry the per-request `_meta`. */
export function request(
  revision: Revision,
  id: string | number = 1,
  method = "tools/list",
  params: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params:
      revision === MODERN
        ? { ...params, _meta: { ...META, "io.modelcontextprotocol/protocolVersion": revision } }
        : params,
  };
}

/** A result that is clean on `revision`: modern results carry `resultType`. */
export function result(
  revision: Revision,
  id: string | number = 1,
  body: Record<string, unknown> = {},
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result: revision === MODERN ? { ...body, resultType: "complete" } : body };
}

export function json(v: unknown): string {
  return JSON.stringify(v);
}
