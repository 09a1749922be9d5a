/**
 * The validators compiled at build time (compile.ts) are the validators ajv compiles at run time
 * from the same document with the same options: same verdict and same errors, on the recorded
 * real traffic of test/fixtures/schema-corpus.ndjson and on broken copies of it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import type { ErrorObject, ValidateFunction } from "ajv";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { compiledModule } from "./compile.js";
import { ALL_ERRORS_OPTIONS, FIRST_ERROR_OPTIONS, newAjv, type ErrorMode } from "./engine.js";
import { compiledPath, extensionSchema, revisionSchema, vendoredSchema, type RevisionSchema } from "./load.js";

interface CorpusRecord {
  revision: Revision;
  method?: string;
  message: { method?: unknown; result?: unknown };
}
const CORPUS = fileURLToPath(new URL("../../../test/fixtures/schema-corpus.ndjson", import.meta.url));
const corpus = readFileSync(CORPUS, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as CorpusRecord);

/** ajv compiling `schema`'s definitions now, over the very definition objects the compiled validators were handed. */
function compiledNow(schema: RevisionSchema, mode: ErrorMode): (definition: string) => ValidateFunction {
  const ajv = newAjv(schema.dialect, { ...(mode === "first" ? FIRST_ERROR_OPTIONS : ALL_ERRORS_OPTIONS), validateSchema: false });
  const id = `test://${schema.name}/${mode}`;
  const root = schema.dialect === "2020-12" ? "https://json-schema.org/draft/2020-12/schema" : "http://json-schema.org/draft-07/schema#";
  ajv.addSchema({ $schema: root, $id: id, [schema.defsKey]: schema.definitions });
  const cache = new Map<string, ValidateFunction>();
  return (definition) => {
    let v = cache.get(definition);
    if (v === undefined) cache.set(definition, (v = ajv.getSchema(`${id}#/${schema.defsKey}/${definition}`)!));
    return v;
  };
}

/** An error as compared: the schema objects it points at by identity, its data by value. */
const shown = (errors: readonly ErrorObject[] | null | undefined, ahead: readonly ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e, i) => ({
    instancePath: e.instancePath,
    schemaPath: e.schemaPath,
    keyword: e.keyword,
    params: e.params,
    message: e.message,
    data: e.data,
    sameSchema: e.schema === ahead?.[i]?.schema || JSON.stringify(e.schema) === JSON.stringify(ahead?.[i]?.schema),
    sameParent: e.parentSchema === ahead?.[i]?.parentSchema,
  }));

function agree(schema: RevisionSchema, definitions: readonly string[], values: readonly unknown[], seed: number): number {
  let compared = 0;
  for (const mode of ["first", "all"] as const) {
    const now = compiledNow(schema, mode);
    for (const definition of definitions) {
      const ahead = schema.validator(definition, mode);
      const runtime = now(definition);
      const same = (value: unknown): void => {
        const verdict = ahead(value);
        assert.equal(runtime(value), verdict, `${schema.name} ${definition} (${mode}): ${JSON.stringify(value).slice(0, 200)}`);
        if (!verdict) {
          const got = shown(ahead.errors, runtime.errors);
          assert.deepEqual(got, shown(runtime.errors, runtime.errors), `${schema.name} ${definition} (${mode})`);
        }
        compared++;
      };
      for (const value of values) same(value);
      // broken copies: one member somewhere replaced by another JSON value, or taken out
      fc.assert(
        fc.property(fc.constantFrom(...values), fc.nat(), fc.option(fc.jsonValue({ maxDepth: 2 })), (value, at, replacement) =>
          same(mutate(value, at, replacement)),
        ),
        { seed: seed + definition.length, numRuns: 40 },
      );
    }
  }
  return compared;
}

/** `value` with the `at`-th member of its tree (in walk order) replaced, or deleted when `replacement` is null. */
function mutate(value: unknown, at: number, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const slots: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        slots.push([v, i]);
        walk(item);
      });
    } else if (typeof v === "object" && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        slots.push([v as Record<string, unknown>, k]);
        walk(item);
      }
    }
  };
  walk(copy);
  if (slots.length === 0) return replacement;
  const [holder, key] = slots[at % slots.length]!;
  if (replacement === null && !Array.isArray(holder)) delete holder[key as string];
  else (holder as Record<string | number, unknown>)[key] = replacement;
  return copy;
}

describe("compiled validators: the same as compiled at run time", () => {
  for (const revision of REVISIONS) {
    test(`${revision}: every definition the corpus is judged by, on its messages and broken copies`, () => {
      const schema = revisionSchema(revision);
      const records = corpus.filter((r) => r.revision === revision);
      assert.ok(records.length > 50, `${records.length} records of ${revision}`);
      const definitions = new Set<string>(["JSONRPCMessage"].filter((d) => schema.has(d)));
      const values: unknown[] = [];
      for (const r of records) {
        const method = typeof r.message.method === "string" ? r.message.method : r.method;
        const request = method === undefined ? undefined : schema.methodDefinitions.get(method);
        const result = method === undefined ? undefined : schema.resultDefinitions.get(method);
        if (request !== undefined && "method" in r.message) definitions.add(request);
        if (result !== undefined && "result" in r.message) definitions.add(result);
        values.push("result" in r.message ? r.message.result : r.message);
      }
      const compared = agree(schema, [...definitions], values, revision.length * 1000 + Number(revision.slice(-2)));
      assert.ok(compared > 1000, `${compared} comparisons`);
    });
  }

  test("the tasks extension's schema, on its task and its methods and broken copies", () => {
    const schema = extensionSchema(TASKS_EXTENSION)!;
    const task = { taskId: "t-1", status: "working", createdAt: "2025-11-25T10:30:00Z", lastUpdatedAt: "2025-11-25T10:50:00Z", ttlMs: 60000, pollIntervalMs: 5000 };
    const values = [
      { resultType: "task", ...task },
      { resultType: "complete", ...task, status: "completed", result: { content: [{ type: "text", text: "Hello" }], isError: false } },
      { resultType: "complete", ...task, status: "failed", error: { code: -32603, message: "boom" } },
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: "t-1" } },
      { jsonrpc: "2.0", id: 2, method: "tasks/update", params: { taskId: "t-1", inputResponses: {} } },
      { jsonrpc: "2.0", method: "notifications/tasks", params: { ...task, status: "cancelled" } },
    ];
    const definitions = ["CreateTaskResult", "GetTaskResult", "GetTaskRequest", "UpdateTaskRequest", "TaskStatusNotification"].filter((d) => schema.has(d));
    assert.ok(definitions.length >= 4, definitions.join(", "));
    agree(schema, definitions, values, 7);
  });

  test("definitions equal in text are still told apart: each one's errors point at its own object", () => {
    let twins = 0;
    for (const schema of [...REVISIONS.map((r) => revisionSchema(r)), extensionSchema(TASKS_EXTENSION)!]) {
      const byText = new Map<string, string[]>();
      for (const [definition, body] of Object.entries(schema.definitions)) {
        const text = JSON.stringify(body);
        byText.set(text, [...(byText.get(text) ?? []), definition]);
      }
      const equal = [...byText.values()].filter((names) => names.length > 1).flat();
      if (equal.length === 0) continue;
      twins += equal.length;
      agree(schema, equal, [[], "x", {}, { resultType: 5, _meta: 1 }, { method: 3, params: [] }], 11);
    }
    // 2026-07-28's EmptyResult and ClientResult, among others
    assert.ok(twins >= 4, `${twins} definitions with a twin`);
  });

  test("each module is made from the vendored file it is loaded against, and copies none of its text", () => {
    const module = compiledModule("2025-06-18", "first");
    assert.match(module, new RegExp(`exports.digest = "${vendoredSchema("2025-06-18").digest}"`));
    assert.equal(readFileSync(compiledPath("2025-06-18", "first"), "utf8"), module, "the built module is what compile.ts writes today");
    // descriptions are the bulk of the schema's text; the code points at the loaded definitions instead
    assert.doesNotMatch(module, /"description":/);
  });

  test("validating a message loads no ajv compiler, only its small runtime helpers", () => {
    const script = `
      const { validate } = await import(${JSON.stringify(new URL("./validate.js", import.meta.url).href)});
      const defects = validate({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 7 } }, { revision: "2025-11-25" });
      const { createRequire } = await import("node:module");
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes("/node_modules/ajv/"));
      console.log(JSON.stringify({ defects: defects.map((d) => d.code), loaded: loaded.map((p) => p.slice(p.indexOf("/node_modules/ajv/"))) }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const { defects, loaded } = JSON.parse(run.stdout) as { defects: string[]; loaded: string[] };
    assert.ok(defects.includes("schema_invalid"), defects.join());
    assert.ok(!loaded.some((p) => p.includes("/dist/core") || p.includes("/dist/ajv")), loaded.join(", "));
  });

  test("compiled validators made from another copy of a schema, or missing, are refused with a line saying to build again", () => {
    // a copy of the modules that load schemas, beside a schema/ of its own
    // a space and a letter outside ASCII in the path, as an install folder may have
    const root = mkdtempSync(join(tmpdir(), "mcp-wire compiled é-"));
    try {
      const dist = fileURLToPath(new URL("../", import.meta.url));
      for (const folder of ["schema", "rules"]) cpSync(join(dist, folder), join(root, "dist", "src", folder), { recursive: true });
      symlinkSync(fileURLToPath(new URL("../../../node_modules", import.meta.url)), join(root, "node_modules"), "dir");
      const schemaDir = join(root, "schema", "2025-11-25");
      mkdirSync(schemaDir, { recursive: true });
      const official = readFileSync(fileURLToPath(new URL("../../../schema/2025-11-25/schema.json", import.meta.url)), "utf8");
      writeFileSync(join(schemaDir, "schema.json"), `${official}\n`);
      // another revision, vendored as built: its validators load from the same folder
      cpSync(fileURLToPath(new URL("../../../schema/2025-06-18", import.meta.url)), join(root, "schema", "2025-06-18"), { recursive: true });
      rmSync(join(root, "dist", "src", "schema", "compiled", "2025-11-25.all.cjs"));
      const load = pathToFileURL(join(root, "dist", "src", "schema", "load.js")).href;
      const script = `
        const { revisionSchema } = await import(${JSON.stringify(load)});
        for (const [revision, mode] of [["2025-11-25", "first"], ["2025-11-25", "all"], ["2025-06-18", "first"]]) {
          try { console.log(mode, revisionSchema(revision).validator("JSONRPCRequest", mode)({}) ? "valid" : "invalid"); }
          catch (e) { console.log(mode, e.message); }
        }`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      const [first, all, sound] = run.stdout.trim().split("\n");
      assert.equal(sound, "first invalid", "a schema built from the file beside it loads and judges");
      assert.match(first!, /^first mcp-wire's compiled validators of 2025-11-25 were made from another schema\.json than the one vendored: build it again \(npm run build\)$/);
      assert.match(all!, /^all mcp-wire's compiled validators of 2025-11-25 are missing \(.*2025-11-25\.all\.cjs\): build it again \(npm run build\)$/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
