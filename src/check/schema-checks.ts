/**
 * What `check` asks of the official schemas: each message the server sent, judged against its
 * revision's schema.json; a tool's schemas, judged as JSON Schemas under the revision's dialect;
 * a called tool's `structuredContent`, judged against its `outputSchema`.
 */
import type { Revision } from "../rules/revisions.js";
import { schemaProblems, schemaUnchecked, validateAgainstSchema, type SchemaBudget } from "../schema/json-schema.js";
import { validate } from "../schema/validate.js";
import type { Findings } from "./findings.js";
import type { Received } from "./recorder.js";

/** Validates every message received in one revision's session; returns how many were validated. */
export function validateReceived(received: readonly Received[], revision: Revision, findings: Findings): number {
  for (const r of received) validateMessage(r.value, revision, r.method, findings, r.page);
  return received.length;
}

/** One message from the server (`method`: what it is or answers, when known) against the revision's schema. */
export function validateMessage(
  value: unknown,
  revision: Revision,
  method: string | undefined,
  findings: Findings,
  page?: number,
): void {
  if (!findings.wants("schema_invalid")) return;
  findings.checked("schema_invalid", revision);
  for (const d of validate(value, method !== undefined ? { revision, method } : { revision })) {
    // a result whose request was not seen is judged by its envelope alone: no finding of its own
    if (d.code !== "schema_invalid") continue;
    findings.add("schema_invalid", {
      revision,
      method: method ?? null,
      path: d.path,
      message: d.message,
      value,
      ...(page !== undefined ? { page } : {}),
    });
  }
}

/** Why `schema` is not a valid JSON Schema under `revision`'s dialect (empty when it is one). */
export function schemaDialectProblems(schema: unknown, revision: Revision, budget?: SchemaBudget): string[] {
  return schemaProblems(schema, { revision, ...(budget ? { budget } : {}) });
}

/** Why `schema` could not be checked at all (too large to compile, or past the listing's budget), or undefined. */
export function schemaUncheckedReason(schema: unknown, revision: Revision, budget?: SchemaBudget): string | undefined {
  return schemaUnchecked(schema, { revision, ...(budget ? { budget } : {}) });
}

/** Where `value` breaks `schema`, as one line each (empty when it conforms). */
export function conformanceProblems(
  schema: unknown,
  value: unknown,
  revision: Revision,
): { path: string; message: string }[] {
  const verdict = validateAgainstSchema(schema, value, { revision });
  return verdict.ok ? [] : verdict.errors.map((e) => ({ path: e.path, message: e.message }));
}
