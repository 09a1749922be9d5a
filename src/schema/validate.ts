/**
 * `validate`: one message against its revision's official schema.json, judging what a sender MUST
 * send. A request or notification is checked against the definition whose `method` const is its
 * method; a result against the method's `…Result` definition (the method comes from the request
 * it answers) and then the JSON-RPC result envelope; an error against the error definition of its
 * code, or the JSON-RPC error envelope. `decode` judges what a receiver may accept and stays
 * lenient where the schema is strict (docs/schema.md).
 */
import type { ErrorObject } from "ajv";
import { defect, quote, type Defect } from "../codec/defects.js";
import { EXTENSIONS } from "../rules/extensions.js";
import type { Revision } from "../rules/revisions.js";
import { collectEveryError, extensionSchema, revisionSchema, type RevisionSchema } from "./load.js";

export type Direction = "request" | "response" | "notification";

export interface ValidateOptions {
  readonly revision: Revision;
  /** The method a response answers (a request's or notification's own method is read from it). */
  readonly method?: string;
  /** Inferred from the message when absent: `method` with `id` a request, without one a notification, else a response. */
  readonly direction?: Direction;
}

/** More than this many schema errors in one message says nothing more; the last defect counts the rest. */
const MAX_DEFECTS = 8;

/**
 * The schema defects (`schema_invalid`, errors) of one decoded message; `[]` when it is sound.
 * Throws `UnknownRevisionError` for a revision mcp-wire does not know.
 */
export function validate(message: unknown, opts: ValidateOptions): Defect[] {
  const schema = revisionSchema(opts.revision);
  if (Array.isArray(message)) {
    const defects: Defect[] = [];
    message.forEach((element, index) => {
      for (const d of validate(element, { revision: opts.revision })) defects.push({ ...d, path: `/${index}${d.path}` });
    });
    return defects.length > 0 ? defects : check(schema, "JSONRPCMessage", message, "");
  }
  const object = typeof message === "object" && message !== null ? (message as Record<string, unknown>) : undefined;
  const direction = opts.direction ?? inferDirection(object);
  if (object === undefined || direction === undefined) return check(schema, "JSONRPCMessage", message, "");

  if (direction === "request" || direction === "notification") {
    const method = typeof object.method === "string" ? object.method : opts.method;
    const core = method !== undefined ? schema.methodDefinitions.get(method) : undefined;
    const extension = core === undefined && method !== undefined ? extensionDefining(opts.revision, method, "method") : undefined;
    if (extension !== undefined) return check(extension.schema, extension.definition, message, "");
    return check(schema, core ?? (direction === "request" ? "JSONRPCRequest" : "JSONRPCNotification"), message, "");
  }

  if (object.error !== undefined && object.error !== null) {
    const code = (object.error as { code?: unknown }).code;
    const definition = (typeof code === "number" ? schema.errorDefinitions.get(code) : undefined) ?? firstOf(schema, "JSONRPCErrorResponse", "JSONRPCError");
    return check(schema, definition, message, "");
  }

  const result = object.result;
  const resultType = typeof result === "object" && result !== null ? (result as { resultType?: unknown }).resultType : undefined;
  let held: { schema: RevisionSchema; definition: string } | undefined;
  if (resultType === "input_required" && schema.has("InputRequiredResult")) held = { schema, definition: "InputRequiredResult" };
  // a task-augmented request is answered at once with the task, not the method's result
  // (2025-11-25 basic/utilities/tasks): no core result carries a `task` member otherwise
  else if (isObject(result) && isObject(result.task) && schema.has("CreateTaskResult")) held = { schema, definition: "CreateTaskResult" };
  // a result type an extension defines (2026-07-28 "task": the extension's CreateTaskResult)
  else if (typeof resultType === "string" && resultType !== "complete" && resultType !== "input_required") {
    held = extensionDefining(opts.revision, resultType, "resultType");
  } else if (opts.method !== undefined) {
    const core = schema.resultDefinitions.get(opts.method);
    held = core !== undefined ? { schema, definition: core } : extensionDefining(opts.revision, opts.method, "result");
  }
  if (held !== undefined) {
    const defects = check(held.schema, held.definition, result, "/result");
    if (defects.length > 0) return defects;
  }
  const envelope = check(schema, firstOf(schema, "JSONRPCResultResponse", "JSONRPCResponse"), message, "");
  if (envelope.length > 0 || held !== undefined || opts.method !== undefined || resultType === "input_required") return envelope;
  return [envelopeOnly()];
}

/**
 * The extension schema that defines `name` (a method, the result of a method, or a result type)
 * on `revision`, where mcp-wire vendors one: the `tasks/` methods and `"task"` results of
 * 2026-07-28, which the core schema leaves to the tasks extension.
 */
function extensionDefining(revision: Revision, name: string, what: "method" | "result" | "resultType"): { schema: RevisionSchema; definition: string } | undefined {
  for (const extension of Object.values(EXTENSIONS)) {
    if (!extension.revisions.includes(revision)) continue;
    const schema = extensionSchema(extension.id);
    if (schema === undefined) continue;
    const definition =
      what === "method"
        ? schema.methodDefinitions.get(name)
        : what === "result"
          ? schema.resultDefinitions.get(name)
          : extension.resultTypes.includes(name) && schema.has(RESULT_TYPE_DEFINITIONS[name] ?? "")
            ? RESULT_TYPE_DEFINITIONS[name]
            : undefined;
    if (definition !== undefined) return { schema, definition };
  }
  return undefined;
}

/** The definition of the result an extension's result type announces. */
const RESULT_TYPE_DEFINITIONS: Readonly<Record<string, string>> = { task: "CreateTaskResult" };

/** A result whose method was not given: only its envelope could be judged, and the caller is told so. */
function envelopeOnly(): Defect {
  return defect(
    "schema_envelope_only",
    "/result",
    "the result was judged against the JSON-RPC envelope alone: the method it answers is not known (validate's `method` option), so its result definition was not applied",
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function inferDirection(object: Record<string, unknown> | undefined): Direction | undefined {
  if (object === undefined) return undefined;
  if (typeof object.method === "string") return "id" in object ? "request" : "notification";
  if ("result" in object || "error" in object) return "response";
  return undefined;
}

function firstOf(schema: RevisionSchema, ...names: string[]): string {
  return names.find((name) => schema.has(name)) ?? names[names.length - 1]!;
}

function check(schema: RevisionSchema, definition: string, value: unknown, prefix: string): Defect[] {
  const first = schema.validator(definition, "first");
  if (first(value)) return [];
  let errors = first.errors ?? [];
  if (collectEveryError(value)) {
    const all = schema.validator(definition, "all");
    if (!all(value) && all.errors) errors = all.errors;
  }
  return toDefects(schema, errors, definition, prefix);
}

/**
 * ajv's errors as defects. When a value matches no branch of a union (a content block, say), ajv
 * reports every branch; the branches whose `type` const the value does not carry were never meant,
 * so their errors are dropped, and the union's own "must match a schema" only stays when nothing
 * more precise is left at its path.
 */
function toDefects(schema: RevisionSchema, errors: readonly ErrorObject[], definition: string, prefix: string): Defect[] {
  // every pass below is one walk over the errors with maps keyed by path: a hostile message can
  // carry thousands of them, and a scan of the errors per error would be quadratic
  const unions = new Set(errors.filter(isUnion).map((e) => e.instancePath));
  const missed = new Set<string>();
  const missedAt = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword !== "const" || !e.instancePath.endsWith("/type")) continue;
    const at = e.instancePath.slice(0, -"/type".length);
    const branch = schema.branchOf(e.parentSchema);
    if (!unions.has(at) || branch === undefined) continue;
    const key = `${at}\u0000${branch}`;
    if (missed.has(key)) continue;
    missed.add(key);
    const names = missedAt.get(at);
    if (names === undefined) missedAt.set(at, [branch]);
    else names.push(branch);
  }
  const fromMissedBranch = (e: ErrorObject): boolean => {
    const branch = schema.branchOf(e.parentSchema);
    if (branch === undefined) return false;
    const at = e.instancePath.endsWith("/type") && e.keyword === "const" ? e.instancePath.slice(0, -"/type".length) : e.instancePath;
    return missed.has(`${at}\u0000${branch}`);
  };
  let kept = errors.filter((e) => !fromMissedBranch(e));
  const perPath = new Map<string, number>();
  for (const e of kept) perPath.set(e.instancePath, (perPath.get(e.instancePath) ?? 0) + 1);
  kept = kept.filter((e) => !(isUnion(e) && perPath.get(e.instancePath)! > 1));
  if (kept.length === 0) kept = [...errors];
  // a union none of whose branches carries the value's `type`: say which types it does take
  const describeUnion = (e: ErrorObject): string | undefined => {
    if (!isUnion(e)) return undefined;
    const names = missedAt.get(e.instancePath) ?? [];
    const type = typeof e.data === "object" && e.data !== null ? (e.data as { type?: unknown }).type : undefined;
    return names.length > 0 && type !== undefined ? `type ${quote(type)} is none of the types this union takes (${names.join(", ")})` : undefined;
  };
  const seen = new Set<string>();
  const unique = kept.filter((e) => {
    const key = `${e.instancePath}\u0000${e.keyword}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const defects = unique.slice(0, MAX_DEFECTS).map((e) => schemaDefect(`${prefix}${e.instancePath}`, e.keyword, describeUnion(e) ?? describe(e), definition));
  if (unique.length > MAX_DEFECTS) {
    const last = defects[MAX_DEFECTS - 1]!;
    defects[MAX_DEFECTS - 1] = { ...last, message: `${last.message}; and ${unique.length - MAX_DEFECTS} more schema error(s)` };
  }
  if (defects.length === 0) return [schemaDefect(prefix, "$ref", "does not match", definition)];
  return defects;
}

function isUnion(e: ErrorObject): boolean {
  return e.keyword === "anyOf" || e.keyword === "oneOf";
}

function describe(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  const base = e.message ?? "is invalid";
  switch (e.keyword) {
    case "const":
      return `${base} ${quote(params.allowedValue)}`;
    case "enum":
      return `${base}: ${quote(params.allowedValues, 120)}`;
    case "additionalProperties":
      return `${base}: ${quote(params.additionalProperty)}`;
    default:
      return base;
  }
}

function schemaDefect(path: string, keyword: string, text: string, definition: string): Defect {
  return { ...defect("schema_invalid", path, `${path === "" ? "the message" : path}: ${text} (${definition})`), definition, keyword };
}

