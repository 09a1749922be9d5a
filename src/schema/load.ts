/**
 * The official MCP schemas (`schema/<revision>/schema.json`, vendored from the specification
 * repository; see docs/schema.md), loaded lazily per revision, with their known errata patched.
 * Their validators are compiled ahead of time, when mcp-wire is built (compile.ts, into
 * `compiled/`): compiling a definition at run time took 25-50 ms and ajv itself 100 ms to load,
 * which a first message paid. A revision costs one parse of its document and one load of the
 * compiled module of each error mode, the first time it is asked for.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ValidateFunction } from "ajv";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { isRevision, REVISIONS, UnknownRevisionError, type Revision } from "../rules/revisions.js";
import { allFormats, linearRegExp, type Dialect, type ErrorMode } from "./engine.js";

export type { Dialect, ErrorMode } from "./engine.js";

/**
 * Values up to this size (as JSON text) get every error collected; larger ones their first.
 * Collecting costs more than linear time in the number of errors (ajv concatenates its error
 * array at every `$ref`), and a value can carry about one error per three characters, so the
 * limit keeps the worst case to a few milliseconds.
 */
const ALL_ERRORS_MAX_CHARS = 1024;

/** Whether collecting every error of `value` is affordable (see `ErrorMode`). */
export function collectEveryError(value: unknown): boolean {
  return typeof value === "string" ? value.length <= ALL_ERRORS_MAX_CHARS : jsonSizeAtMost(value, ALL_ERRORS_MAX_CHARS);
}

/**
 * Whether `value` as JSON text is about `limit` characters or fewer, walking no more of it than
 * that (strings counted without their escapes): the answer for a megabyte costs what a kilobyte does.
 */
function jsonSizeAtMost(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") size += v.length + 2;
    else if (typeof v === "number" || typeof v === "boolean" || v === null) size += 5;
    else if (Array.isArray(v)) {
      size += 1 + v.length;
      for (let i = 0; i < v.length && size <= limit; i++) stack.push(v[i]);
    } else if (typeof v === "object") {
      size += 2;
      for (const key in v) {
        size += key.length + 4;
        if (size > limit) return false;
        stack.push((v as Record<string, unknown>)[key]);
      }
    } else return false; // not JSON at all (a BigInt, a function): the first error says enough
    if (size > limit) return false;
  }
  return true;
}

const SCHEMA_DIR = new URL("../../../schema/", import.meta.url);
/** The vendored files are about 200 kB; anything far larger is not the file we shipped. */
const MAX_SCHEMA_BYTES = 8 * 1024 * 1024;

/** A union of every request (or result…) of one side: never the definition of one method. */
const UNIONS = new Set([
  "ClientRequest",
  "ClientNotification",
  "ClientResult",
  "ClientMessage",
  "ServerRequest",
  "ServerNotification",
  "ServerResult",
  "ServerMessage",
]);

export interface RevisionSchema {
  /** The revision, or the directory of an extension's schema (`ext-tasks`). */
  readonly name: string;
  readonly dialect: Dialect;
  /** `definitions` (draft-07) or `$defs` (2020-12). */
  readonly defsKey: "definitions" | "$defs";
  readonly definitions: Readonly<Record<string, unknown>>;
  /** Method name → the request or notification definition whose `method` is that const. */
  readonly methodDefinitions: ReadonlyMap<string, string>;
  /** Request method → its result definition (`FooRequest` → `FooResult`, where the schema has one). */
  readonly resultDefinitions: ReadonlyMap<string, string>;
  /** Error code → the error response definition that fixes `error.code` to it. */
  readonly errorDefinitions: ReadonlyMap<number, string>;
  has(definition: string): boolean;
  /**
   * The definition a schema object belongs to, when it is a definition itself or its `type`
   * property: how an ajv error (with `verbose`) tells which branch of a union it came from.
   */
  branchOf(schemaObject: unknown): string | undefined;
  /** The validator of one definition (its revision's compiled module loaded on first use). */
  validator(definition: string, mode: ErrorMode): ValidateFunction;
}

const loaded = new Map<string, RevisionSchema>();

/**
 * Told before and after a schema, or its compiled validators, are loaded: the validation worker
 * tells its owner, whose time budget is for judging a message, not for loading mcp-wire's own schemas.
 */
let compileObserver: ((compiling: boolean) => void) | undefined;

/** Sets (or, with undefined, clears) the one observer of compiles. */
export function observeCompiles(observer: ((compiling: boolean) => void) | undefined): void {
  compileObserver = observer;
}

type Properties = Record<string, { const?: unknown; allOf?: { properties?: { code?: { const?: unknown } } }[] }>;

/** A definition's properties, its own or those of the parts of its `allOf` (how the extension schemas write a request). */
function ownProperties(definition: Record<string, unknown>): Properties {
  const own = definition.properties as Properties | undefined;
  if (own !== undefined) return own;
  const parts = Array.isArray(definition.allOf) ? (definition.allOf as { properties?: Properties }[]) : [];
  return Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Properties;
}

/**
 * The vendored schemas of the extensions mcp-wire judges, each from its own repository (its
 * licence beside it): extension id → directory under schema/.
 */
const EXTENSION_SCHEMAS: Readonly<Record<string, string>> = { [TASKS_EXTENSION]: "ext-tasks" };

/** The vendored document, unpatched, as the specification repository publishes it. */
export function officialSchema(revision: Revision): Record<string, unknown> {
  if (!isRevision(revision)) throw new UnknownRevisionError(revision);
  return JSON.parse(vendoredBytes(revision).toString("utf8")) as Record<string, unknown>;
}

/** Every vendored schema by its directory under schema/: the revisions', then the extensions'. */
export const SCHEMA_NAMES: readonly string[] = [...REVISIONS, ...Object.values(EXTENSION_SCHEMAS)];

/** One vendored schema as mcp-wire validates with it. */
export interface VendoredSchema {
  readonly name: string;
  /** SHA-256 of the vendored file, hex: what its compiled validators were made from. */
  readonly digest: string;
  /** The document with its errata patched. */
  readonly document: Record<string, unknown>;
  readonly dialect: Dialect;
  readonly defsKey: "definitions" | "$defs";
  /** The `$id` it is known by, whatever its own says: its `$ref`s are all within the document. */
  readonly id: string;
}

/** The vendored schema in directory `name` of schema/, read now (its compiled validators are built from this). */
export function vendoredSchema(name: string): VendoredSchema {
  const bytes = vendoredBytes(name);
  const document = patchErrata(JSON.parse(bytes.toString("utf8")) as Record<string, unknown>);
  return {
    name,
    digest: createHash("sha256").update(bytes).digest("hex"),
    document,
    dialect: dialectOf(document),
    defsKey: "$defs" in document ? "$defs" : "definitions",
    id: `mcp-wire://schema/${name}/schema.json`,
  };
}

function vendoredBytes(directory: string): Buffer {
  const url = new URL(`${directory}/schema.json`, SCHEMA_DIR);
  const bytes = readFileSync(url);
  if (bytes.length > MAX_SCHEMA_BYTES) throw new Error(`${fileURLToPath(url)} is larger than ${MAX_SCHEMA_BYTES} bytes`);
  return bytes;
}

function dialectOf(document: Record<string, unknown>): Dialect {
  return typeof document.$schema === "string" && document.$schema.includes("2020-12") ? "2020-12" : "draft-07";
}

/**
 * The known errata of the published schemas, patched as the official conformance suite patches
 * them, so a sound message is not failed for the generator's mistake:
 * - `NumberSchema.minimum`/`maximum`/`default` were generated as `integer` (2025-06-18,
 *   2025-11-25) where schema.ts says `number`; patched to `number` wherever found.
 * - `format: "byte"` (base64 data) is not a format ajv knows; it is registered as accepting any
 *   string (see engine.ts), the suite's reading, since the `type: "string"` beside it still holds.
 */
export function patchErrata(document: Record<string, unknown>): Record<string, unknown> {
  const patched = structuredClone(document);
  const defs = (patched.$defs ?? patched.definitions) as Record<string, { properties?: Record<string, { type?: unknown }> }> | undefined;
  const number = defs?.NumberSchema?.properties;
  if (number !== undefined) {
    for (const key of ["minimum", "maximum", "default"]) {
      const property = number[key];
      if (property?.type === "integer") property.type = "number";
    }
  }
  return patched;
}

/** `revision`'s official schema, loaded once; an unknown revision throws `UnknownRevisionError`. */
export function revisionSchema(revision: Revision): RevisionSchema {
  if (!isRevision(revision)) throw new UnknownRevisionError(revision);
  return loadedSchema(revision);
}

/** The official schema of the extension `id`, when mcp-wire vendors one. */
export function extensionSchema(id: string): RevisionSchema | undefined {
  return Object.hasOwn(EXTENSION_SCHEMAS, id) ? loadedSchema(EXTENSION_SCHEMAS[id]!) : undefined;
}

function loadedSchema(name: string): RevisionSchema {
  const known = loaded.get(name);
  if (known !== undefined) return known;
  compileObserver?.(true);
  try {
    const schema = freshSchema(name);
    loaded.set(name, schema);
    return schema;
  } finally {
    compileObserver?.(false);
  }
}

/** What a module of compile.ts exports. */
interface CompiledModule {
  digest: string;
  validators(
    definitions: Readonly<Record<string, unknown>>,
    formats: ReturnType<typeof allFormats>,
    regExp: typeof linearRegExp,
  ): Record<string, ValidateFunction>;
}

const COMPILED_DIR = new URL("./compiled/", import.meta.url);
const require = createRequire(import.meta.url);

/** Where compile.ts puts the validators of schema `name` in error mode `mode`. */
export function compiledPath(name: string, mode: ErrorMode): URL {
  return new URL(`${name}.${mode}.cjs`, COMPILED_DIR);
}

/**
 * The validators compiled from `source`, every definition's. They read their schema objects from
 * the definitions given (not from copies of their own), so an error's `parentSchema` is the very
 * object `branchOf` knows. Validators made from another copy of the file are refused.
 */
function loadCompiled(source: VendoredSchema, definitions: Readonly<Record<string, unknown>>, mode: ErrorMode): Record<string, ValidateFunction> {
  // a file path, not the URL's (percent-encoded) path: an install folder may hold a space
  const path = fileURLToPath(compiledPath(source.name, mode));
  let compiled: CompiledModule;
  try {
    compiled = require(path) as CompiledModule;
  } catch (e) {
    throw new Error(`mcp-wire's compiled validators of ${source.name} are missing (${path}): build it again (npm run build)`, { cause: e });
  }
  if (compiled.digest !== source.digest)
    throw new Error(`mcp-wire's compiled validators of ${source.name} were made from another schema.json than the one vendored: build it again (npm run build)`);
  return compiled.validators(definitions, allFormats(), linearRegExp);
}

function freshSchema(name: string): RevisionSchema {
  const source = vendoredSchema(name);
  const { document, dialect, defsKey } = source;
  const definitions = document[defsKey] as Record<string, Record<string, unknown>>;

  const methodDefinitions = new Map<string, string>();
  const resultDefinitions = new Map<string, string>();
  const errorDefinitions = new Map<number, string>();
  for (const [name, definition] of Object.entries(definitions)) {
    if (UNIONS.has(name)) continue;
    const properties = ownProperties(definition);
    const method = properties.method?.const;
    if (typeof method === "string") {
      methodDefinitions.set(method, name);
      if (name.endsWith("Request")) {
        const result = `${name.slice(0, -"Request".length)}Result`;
        if (result in definitions) resultDefinitions.set(method, result);
      }
    }
    for (const part of properties.error?.allOf ?? []) {
      const code = part.properties?.code?.const;
      if (typeof code === "number") errorDefinitions.set(code, name);
    }
  }

  const branches = new Map<unknown, string>();
  for (const [name, definition] of Object.entries(definitions)) {
    branches.set(definition, name);
    const type = (definition.properties as Record<string, unknown> | undefined)?.type;
    if (type !== undefined) branches.set(type, name);
  }

  const validators: Record<ErrorMode, Record<string, ValidateFunction> | undefined> = { first: undefined, all: undefined };
  const schema: RevisionSchema = {
    name,
    dialect,
    defsKey,
    definitions,
    methodDefinitions,
    resultDefinitions,
    errorDefinitions,
    has: (definition) => Object.hasOwn(definitions, definition),
    branchOf: (schemaObject) => branches.get(schemaObject),
    validator(definition, mode) {
      let table = validators[mode];
      if (table === undefined) {
        compileObserver?.(true);
        try {
          table = validators[mode] = loadCompiled(source, definitions, mode);
        } finally {
          compileObserver?.(false);
        }
      }
      if (!Object.hasOwn(table, definition)) throw new Error(`schema ${name} has no definition ${definition}`);
      return table[definition]!;
    },
  };
  return schema;
}
