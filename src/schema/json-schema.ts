/**
 * Schemas a peer sends (a tool's `inputSchema` and `outputSchema`), checked and used with ajv under
 * the dialect the revision gives them: 2025-11-25 and later read a schema without `$schema` as JSON
 * Schema 2020-12 (basic/index.mdx, "Schema Dialect"); earlier revisions name no dialect, and their
 * own schema.json, like the SDKs of their time, is draft-07, so that is the default there. An
 * explicit `$schema` of draft-07 or 2020-12 is honoured under every revision; any other is reported
 * as unsupported, which the spec asks for rather than guessing.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Revision } from "../rules/revisions.js";
import { newAjv, type Dialect } from "./engine.js";
import { collectEveryError } from "./load.js";

export interface SchemaOptions {
  readonly revision: Revision;
  /** Time shared by the schemas of one listing: once spent, a schema not compiled yet is not checked. */
  readonly budget?: SchemaBudget;
}

/**
 * Time for checking and compiling peers' schemas, shared by the calls a caller gives it (a
 * server's tool list): ajv is synchronous and nothing interrupts it, so a listing of thousands
 * of distinct schemas is checked until the budget is spent and the rest are not checked.
 */
export class SchemaBudget {
  spentMs = 0;
  constructor(readonly ms: number) {}
  get exhausted(): boolean {
    return this.spentMs >= this.ms;
  }
}

/** One schema against its meta-schema longer than this is not checked: its verdict would cost more than it says. */
const META_BUDGET_MS = 250;

export interface SchemaError {
  /** JSON Pointer into the validated value. */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

export interface SchemaVerdict {
  readonly ok: boolean;
  readonly errors: SchemaError[];
  /** Why the value could not be checked at all (a schema too large to compile): `ok` is then true. */
  readonly unchecked?: string;
}

const DIALECT_URIS: Readonly<Record<string, Dialect>> = {
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "http://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** Revisions whose spec makes 2020-12 the default dialect. */
const DEFAULT_2020_12 = new Set<Revision>(["2025-11-25", "2026-07-28"]);

/** Compiled peer schemas kept for reuse: a peer lists its tools once and calls them often. Bounded, oldest first out. */
const MAX_CACHED = 256;
const MAX_ERRORS = 20;
const cache = new Map<string, Compiled>();

/**
 * A usable schema: its validator stopping at the first error, and (compiled when first needed)
 * one collecting every error; or why it is not a valid schema; or why it could not be checked.
 */
type Compiled =
  | { readonly first: ValidateFunction; all(): ValidateFunction; release(): void }
  | { readonly problems: string[] }
  | { readonly unchecked: string };

/** Peer schemas larger than this (as JSON text) are not compiled: reported as too large to check. */
const MAX_SCHEMA_CHARS = 64 * 1024;

const compilers = new Map<string, Ajv>();
function sharedCompiler(dialect: Dialect, allErrors: boolean): Ajv {
  const key = `${dialect}\u0000${allErrors}`;
  let ajv = compilers.get(key);
  if (ajv === undefined) {
    ajv = newAjv(dialect, { strict: false, allErrors, logger: false, validateSchema: false });
    compilers.set(key, ajv);
  }
  return ajv;
}

/**
 * One meta-validator per dialect, shared by every peer schema: compiling a dialect's
 * meta-schema costs milliseconds, checking a schema against it a fraction of one.
 */
const metaValidators = new Map<string, Ajv>();
function metaValidator(dialect: Dialect, allErrors: boolean): Ajv {
  const key = `${dialect}\u0000${allErrors}`;
  let ajv = metaValidators.get(key);
  if (ajv === undefined) {
    ajv = newAjv(dialect, { strict: false, allErrors, logger: false });
    // ajv compiles the meta-schema on its first use: done here, so that a schema's META_BUDGET_MS
    // measures checking it, not compiling the meta-schema (which a busy machine can stretch past it)
    ajv.validateSchema({});
    metaValidators.set(key, ajv);
  }
  return ajv;
}

/** The dialect a schema is read in under `revision`, or a sentence saying its `$schema` is not supported. */
export function dialectFor(schema: unknown, revision: Revision): Dialect | string {
  const declared = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as { $schema?: unknown }).$schema : undefined;
  if (declared === undefined) return DEFAULT_2020_12.has(revision) ? "2020-12" : "draft-07";
  if (typeof declared !== "string") return `$schema must be a string, got ${JSON.stringify(declared)?.slice(0, 60)}`;
  const dialect = DIALECT_URIS[declared.replace(/#$/, "")];
  return dialect ?? `$schema ${JSON.stringify(declared.slice(0, 100))} names a dialect mcp-wire does not support (draft-07 and 2020-12 are)`;
}

/**
 * Why `schema` is not a valid JSON Schema under the revision's dialect (its meta-schema, then
 * compiling it with ajv); `[]` when it is one. A `$ref` to another document is never fetched
 * (2026-07-28 basic/index.mdx forbids dereferencing network references automatically), so it is
 * reported as unresolvable.
 */
export function schemaProblems(schema: unknown, opts: SchemaOptions): string[] {
  const compiled = compile(schema, opts.revision, opts.budget);
  return "problems" in compiled ? [...compiled.problems] : [];
}

/** Why `schema` could not be checked at all (too large to compile), or undefined when it could. */
export function schemaUnchecked(schema: unknown, opts: SchemaOptions): string | undefined {
  const compiled = compile(schema, opts.revision, opts.budget);
  return "unchecked" in compiled ? compiled.unchecked : undefined;
}

/** `value` against `schema` (e.g. a tool result's `structuredContent` against the tool's `outputSchema`). */
export function validateAgainstSchema(schema: unknown, value: unknown, opts: SchemaOptions): SchemaVerdict {
  const compiled = compile(schema, opts.revision, opts.budget);
  if ("unchecked" in compiled) return { ok: true, errors: [], unchecked: compiled.unchecked };
  if ("problems" in compiled) {
    return { ok: false, errors: compiled.problems.map((message) => ({ path: "", keyword: "$schema", message: `the schema itself is invalid: ${message}` })) };
  }
  if (compiled.first(value)) return { ok: true, errors: [] };
  let found = compiled.first.errors ?? [];
  if (collectEveryError(value)) {
    const all = compiled.all();
    if (!all(value) && all.errors) found = all.errors;
  }
  const errors = found.slice(0, MAX_ERRORS).map((e) => ({ path: e.instancePath, keyword: e.keyword, message: `${e.instancePath === "" ? "the value" : e.instancePath}: ${e.message ?? "is invalid"}` }));
  return { ok: false, errors };
}

function compile(schema: unknown, revision: Revision, budget: SchemaBudget | undefined): Compiled {
  const dialect = dialectFor(schema, revision);
  let text: string;
  try {
    text = JSON.stringify(schema) ?? "undefined";
  } catch (error) {
    if (error instanceof RangeError) return { unchecked: "the schema is too large or too deep to check" };
    return { problems: ["the schema is not JSON"] };
  }
  const key = `${dialect}\u0000${text}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  // not kept: with time to spare, another listing checks it
  if (budget?.exhausted) return { unchecked: `the ${budget.ms} ms budget for checking this listing's schemas was spent before it` };
  const start = performance.now();
  const compiled = compileFresh(schema, dialect, text);
  if (budget !== undefined) budget.spentMs += performance.now() - start;
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value!;
    const evicted = cache.get(oldest)!;
    cache.delete(oldest);
    if ("release" in evicted) evicted.release();
  }
  cache.set(key, compiled);
  return compiled;
}

function compileFresh(schema: unknown, dialect: Dialect | string, text: string): Compiled {
  if (dialect !== "draft-07" && dialect !== "2020-12") return { problems: [dialect] };
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    return { problems: [`a JSON Schema is an object or a boolean, not ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`] };
  }
  if (text.length > MAX_SCHEMA_CHARS) return { unchecked: `the schema is too large to check: ${text.length} characters as JSON, over the ${MAX_SCHEMA_CHARS} mcp-wire compiles` };
  // Every error of the schema itself is collected only for a small one (see ErrorMode).
  const meta = metaValidator(dialect, collectEveryError(text));
  try {
    const start = performance.now();
    const valid = meta.validateSchema(schema as object);
    const ms = performance.now() - start;
    // past the budget is past it, errors found or not: what took that long is not judged on it
    if (ms > META_BUDGET_MS) return { unchecked: `checking it against its meta-schema took ${ms.toFixed(0)} ms, past the ${META_BUDGET_MS} ms budget` };
    if (!valid) return { problems: (meta.errors ?? []).slice(0, MAX_ERRORS).map(metaProblem) };
  } catch (error) {
    if (error instanceof RangeError) return { unchecked: `the schema is too large or too deep to check (${error.message})` };
    throw error;
  }
  // A schema that names `$id`s gets an ajv of its own, so they never collide with another
  // peer's; the others share one per dialect, each schema removed from it when it leaves the
  // cache. Neither applies the meta-schema again: the shared meta-validator just did.
  const own = text.includes('"$id"');
  const ajvFor = (allErrors: boolean) =>
    own ? newAjv(dialect, { strict: false, allErrors, logger: false, validateSchema: false }) : sharedCompiler(dialect, allErrors);
  try {
    const first = ajvFor(false).compile(schema as object);
    let all: ValidateFunction | undefined;
    return {
      first,
      all: () => (all ??= ajvFor(true).compile(schema as object)),
      release: own
        ? () => undefined
        : () => {
            sharedCompiler(dialect, false).removeSchema(schema as object);
            if (all !== undefined) sharedCompiler(dialect, true).removeSchema(schema as object);
          },
    };
  } catch (error) {
    // code generation recursing past the stack on a huge schema: the schema's size, not a fault in it
    if (error instanceof RangeError) return { unchecked: `the schema is too large or too deep to check (${error.message})` };
    const text = error instanceof Error ? error.message : String(error);
    return { problems: [text.startsWith("can't resolve reference") ? `${text} (references to other documents are never fetched)` : text] };
  }
}

function metaProblem(e: ErrorObject): string {
  const params = e.params as { allowedValues?: unknown };
  const where = e.instancePath === "" ? "the schema" : e.instancePath;
  return `${where}: ${e.message ?? "is invalid"}${params.allowedValues !== undefined ? ` ${JSON.stringify(params.allowedValues).slice(0, 120)}` : ""}`;
}
