/**
 * The official MCP schemas (`schema/<revision>/schema.json`, vendored from the specification
 * repository; see docs/schema.md), loaded lazily per revision, with their known errata patched,
 * compiled by ajv in the dialect each one declares. Compiled validators are cached per definition,
 * so a revision costs one parse and each definition one compile, the first time it is asked for.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Ajv, Options, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { RE2JS } from "re2js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { isRevision, UnknownRevisionError, type Revision } from "../rules/revisions.js";

export type Dialect = "draft-07" | "2020-12";

/**
 * ajv and its formats (CommonJS), required when the first validator is made rather than with
 * this module: they take some 100 ms to load, which a process that validates later (the
 * gauntlet's server, while its client boots) or never need not wait for first.
 */
interface Engines {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv) => Ajv;
}
let engines: Engines | undefined;
function loadEngines(): Engines {
  if (engines !== undefined) return engines;
  const require = createRequire(import.meta.url);
  // ajv-formats' plugin is `module.exports`, with itself as `default` too
  const formats = require("ajv-formats") as { default?: Engines["addFormats"] } & Engines["addFormats"];
  engines = {
    Ajv: (require("ajv") as { Ajv: typeof Ajv }).Ajv,
    Ajv2020: (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    addFormats: formats.default ?? formats,
  };
  return engines;
}

/** ajv as the official conformance suite configures it for these schemas: lenient about unknown keywords, every error reported. */
const OPTIONS: Options = { strict: false, allErrors: true };
/**
 * `verbose` adds each error's schema objects, which name the union branch an error came from (see
 * `branchOf`). Two compilations of each definition: one that stops at the first error, for the
 * verdict (and the defect of a large message), and one that collects every error, for the
 * defects of a small one. Collecting every error costs more than linear time in their number,
 * so a hostile message with thousands of broken items is never given to it.
 */
const FIRST_ERROR_OPTIONS: Options = { ...OPTIONS, allErrors: false, verbose: true };
const ALL_ERRORS_OPTIONS: Options = { ...OPTIONS, verbose: true };

export type ErrorMode = "first" | "all";

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
  /** The compiled validator of one definition (compiled on first use, then cached). */
  validator(definition: string, mode: ErrorMode): ValidateFunction;
}

const loaded = new Map<string, RevisionSchema>();

/**
 * Told before and after a definition is compiled: the validation worker tells its owner, whose
 * time budget is for judging a message, not for compiling mcp-wire's own schemas.
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
  return vendored(revision);
}

function vendored(directory: string): Record<string, unknown> {
  const url = new URL(`${directory}/schema.json`, SCHEMA_DIR);
  const text = readFileSync(url);
  if (text.length > MAX_SCHEMA_BYTES) throw new Error(`${url.pathname} is larger than ${MAX_SCHEMA_BYTES} bytes`);
  return JSON.parse(text.toString("utf8")) as Record<string, unknown>;
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
 *   string (see `newAjv`), the suite's reading, since the `type: "string"` beside it still holds.
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

/**
 * `pattern` on a linear-time engine (RE2): a peer's schema may carry `^(a+)+$`, which a
 * backtracking engine takes exponential time on, and nothing can interrupt a running RegExp. A
 * pattern RE2 cannot run (lookaround, backreferences) is not checked: it accepts every string.
 */
const linearRegExp = Object.assign(
  (pattern: string): { test(s: string): boolean; toString(): string } => {
    // ajv keys the patterns it keeps by this string: each pattern needs its own
    const toString = () => `/${pattern}/`;
    try {
      const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
      return { test: (s: string) => re.test(s), toString };
    } catch {
      return { test: () => true, toString };
    }
  },
  { code: 'require("re2js").RE2JS' },
);

/** A URL as ajv-formats' `url` reads it, without its regular expression, which is quadratic on some inputs. */
function isUrl(s: string): boolean {
  if (s.length > 8192 || !/^(?:https?|ftp):\/\//i.test(s)) return false;
  return URL.canParse(s);
}

/** A fresh ajv of `dialect`, with the formats the MCP schemas use. */
export function newAjv(dialect: Dialect, options: Options = OPTIONS): Ajv {
  const withEngine: Options = { ...options, code: { ...options.code, regExp: linearRegExp } };
  const { Ajv, Ajv2020, addFormats } = loadEngines();
  const ajv = dialect === "2020-12" ? new Ajv2020(withEngine) : new Ajv(withEngine);
  addFormats(ajv);
  ajv.addFormat("byte", true);
  ajv.addFormat("url", isUrl);
  return ajv;
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

function freshSchema(name: string): RevisionSchema {
  const document = patchErrata(vendored(name));
  const dialect = dialectOf(document);
  const defsKey = "$defs" in document ? "$defs" : "definitions";
  const definitions = document[defsKey] as Record<string, Record<string, unknown>>;
  const id = `mcp-wire://schema/${name}/schema.json`;
  const instances: Record<ErrorMode, Ajv | undefined> = { first: undefined, all: undefined };
  const ajvFor = (mode: ErrorMode): Ajv => {
    let ajv = instances[mode];
    if (ajv === undefined) {
      // the vendored document is held to its meta-schema by the tests; checking it again in
      // every process compiled the dialect's meta-schema first, most of the cost of a first verdict
      ajv = newAjv(dialect, { ...(mode === "first" ? FIRST_ERROR_OPTIONS : ALL_ERRORS_OPTIONS), validateSchema: false });
      ajv.addSchema({ ...document, $id: id });
      instances[mode] = ajv;
    }
    return ajv;
  };

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

  const validators: Record<ErrorMode, Map<string, ValidateFunction>> = { first: new Map(), all: new Map() };
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
      let validate = validators[mode].get(definition);
      if (validate === undefined) {
        if (!Object.hasOwn(definitions, definition)) throw new Error(`schema ${name} has no definition ${definition}`);
        compileObserver?.(true);
        try {
          validate = ajvFor(mode).compile({ $ref: `${id}#/${defsKey}/${definition}` });
        } finally {
          compileObserver?.(false);
        }
        validators[mode].set(definition, validate);
      }
      return validate;
    },
  };
  return schema;
}
