/**
 * validate() agrees with the official conformance suite's own schema verdicts (its
 * `wire-schema-valid` check) on a corpus of recorded real traffic (test/fixtures/schema-corpus.ndjson,
 * written by interop/schema-peers.test.ts: every peer at every revision it speaks, and deliberately
 * broken copies).
 *
 * The suite is one bundled CLI whose internals are not exported (importing it would run the CLI),
 * so its verdicts are reproduced here: the schema documents it bundles are read out of its
 * dist/index.js as data (their object literals, through the TypeScript parser: nothing of it is
 * run), and run through ajv configured as the suite configures it (ajv or ajv/2020 by `$schema`,
 * strict off, all errors, ajv-formats, `byte` accepted, the NumberSchema errata patched for
 * 2025-06-18 and 2025-11-25 only), choosing the definition as its check does. It bundles no
 * 2024-11-05 schema, so that revision is compared with nothing; it is counted and said so.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import type { ValidateFunction } from "ajv";
import type { Revision } from "../rules/revisions.js";
import { newAjv } from "./engine.js";
import { officialSchema, patchErrata } from "./load.js";
import { validate } from "./validate.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Record_ {
  peer: string;
  revision: Revision;
  from: "client" | "server";
  method?: string;
  message: unknown;
  broken?: string;
}

const CORPUS = fileURLToPath(new URL("../../../test/fixtures/schema-corpus.ndjson", import.meta.url));
const require = createRequire(import.meta.url);
const SUITE = require.resolve("@modelcontextprotocol/conformance/dist/index.js");

/** The value of a literal expression of the bundle; anything that is not plain data is refused. */
function literal(node: ts.Expression, constants: Map<string, Json>): Json {
  if (ts.isParenthesizedExpression(node)) return literal(node.expression, constants);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text);
  // the minifier's spelling of true and false
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken && ts.isNumericLiteral(node.operand)) return !Number(node.operand.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => literal(e, constants));
  if (ts.isIdentifier(node) && constants.has(node.text)) return constants.get(node.text)!;
  if (ts.isObjectLiteralExpression(node)) {
    const out: { [key: string]: Json } = {};
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p)) throw new Error(`not data: ${p.getText().slice(0, 80)}`);
      let key: string;
      if (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) || ts.isNumericLiteral(p.name)) key = p.name.text;
      else if (ts.isComputedPropertyName(p.name)) key = String(literal(p.name.expression, constants));
      else throw new Error(`not data: ${p.name.getText()}`);
      out[key] = literal(p.initializer, constants);
    }
    return out;
  }
  throw new Error(`not data: ${node.getText().slice(0, 80)}`);
}

/**
 * The schema documents the suite bundles, by revision: the object literal keyed by revision
 * names ("2025-03-26": …) whose values are the bundled documents.
 */
function bundledSchemas(): Map<string, Record<string, unknown>> {
  const source = ts.createSourceFile("index.js", readFileSync(SUITE, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const declarations = new Map<string, ts.Expression>();
  const constants = new Map<string, Json>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      declarations.set(node.name.text, node.initializer);
      const init = node.initializer;
      if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) constants.set(node.name.text, init.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const init of declarations.values()) {
    if (!ts.isObjectLiteralExpression(init)) continue;
    const keys = init.properties.map((p) => (ts.isPropertyAssignment(p) && (ts.isStringLiteral(p.name) || ts.isNoSubstitutionTemplateLiteral(p.name)) ? p.name.text : undefined));
    if (!keys.includes("2025-03-26") || !keys.includes("2025-11-25")) continue;
    const out = new Map<string, Record<string, unknown>>();
    for (const p of init.properties) {
      if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.initializer)) continue;
      const key = ts.isComputedPropertyName(p.name) ? String(literal(p.name.expression, constants)) : (p.name as ts.StringLiteral).text;
      const document = declarations.get(p.initializer.text);
      if (document) out.set(key, literal(document, constants) as Record<string, unknown>);
    }
    if (out.size > 0) return out;
  }
  throw new Error(`no bundled schema table found in ${SUITE}`);
}

/** The suite's check, reproduced: its ajv set-up, its choice of definition, its verdict (errors or none). */
class SuiteVerdicts {
  private readonly byRevision = new Map<string, { defs: Record<string, Record<string, any>>; key: string; id: string; ajv: ReturnType<typeof newAjv>; methods: Map<string, string>; results: Map<string, string>; errors: Map<number, string>; compiled: Map<string, ValidateFunction> }>();
  constructor(private readonly documents: Map<string, Record<string, unknown>>) {}

  has(revision: string): boolean {
    return this.documents.has(revision);
  }

  private load(revision: string) {
    let known = this.byRevision.get(revision);
    if (known) return known;
    let doc = this.documents.get(revision)!;
    if (revision === "2025-06-18" || revision === "2025-11-25") {
      doc = structuredClone(doc);
      const defs = (doc.$defs ?? doc.definitions) as Record<string, any>;
      for (const k of ["minimum", "maximum", "default"]) if (defs.NumberSchema?.properties?.[k]?.type === "integer") defs.NumberSchema.properties[k].type = "number";
    }
    const dialect = typeof doc.$schema === "string" && doc.$schema.includes("2020-12") ? "2020-12" : "draft-07";
    const ajv = newAjv(dialect, { strict: false, allErrors: true });
    const id = `suite://${revision}/schema.json`;
    ajv.addSchema({ ...doc, $id: id });
    const key = "$defs" in doc ? "$defs" : "definitions";
    const defs = doc[key] as Record<string, Record<string, any>>;
    const unions = new Set(["ClientRequest", "ClientNotification", "ClientResult", "ClientMessage", "ServerRequest", "ServerNotification", "ServerResult", "ServerMessage"]);
    const methods = new Map<string, string>();
    const results = new Map<string, string>();
    const errors = new Map<number, string>();
    for (const [name, def] of Object.entries(defs)) {
      if (unions.has(name)) continue;
      const method = def.properties?.method?.const;
      if (typeof method === "string") {
        methods.set(method, name);
        if (name.endsWith("Request") && `${name.slice(0, -7)}Result` in defs) results.set(method, `${name.slice(0, -7)}Result`);
      }
      for (const part of def.properties?.error?.allOf ?? []) if (typeof part.properties?.code?.const === "number") errors.set(part.properties.code.const, name);
    }
    known = { defs, key, id, ajv, methods, results, errors, compiled: new Map() };
    this.byRevision.set(revision, known);
    return known;
  }

  /** True when the suite finds the message valid. */
  valid(revision: string, message: unknown, method: string | undefined): boolean {
    const s = this.load(revision);
    const check = (name: string, value: unknown): boolean => {
      let v = s.compiled.get(name);
      if (!v) s.compiled.set(name, (v = s.ajv.compile({ $ref: `${s.id}#/${s.key}/${name}` })));
      return v(value) as boolean;
    };
    const first = (...names: string[]) => names.find((n) => n in s.defs) ?? names[names.length - 1]!;
    const o = (typeof message === "object" && message !== null ? message : {}) as Record<string, any>;
    if (typeof o.method === "string") return check(s.methods.get(o.method) ?? ("id" in o ? "JSONRPCRequest" : "JSONRPCNotification"), message);
    if (o.error !== undefined && o.error !== null) return check((typeof o.error.code === "number" ? s.errors.get(o.error.code) : undefined) ?? first("JSONRPCErrorResponse", "JSONRPCError"), message);
    if (o.result !== undefined) {
      const type = o.result?.resultType;
      let def: string | undefined;
      if (type === "input_required" && "InputRequiredResult" in s.defs) def = "InputRequiredResult";
      else if (type !== "task" && method !== undefined) def = s.results.get(method);
      if (def !== undefined && !check(def, o.result)) return false;
      return check(first("JSONRPCResultResponse", "JSONRPCResponse"), message);
    }
    return false;
  }
}

const corpus: Record_[] = readFileSync(CORPUS, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record_);
const documents = bundledSchemas();
const suite = new SuiteVerdicts(documents);

describe("validate() agrees with the conformance suite's schema verdicts", () => {
  test("the corpus is real traffic of several peers at every revision, with broken copies", () => {
    const peers = new Set(corpus.map((r) => r.peer));
    const revisions = new Set(corpus.map((r) => r.revision));
    assert.ok(corpus.length >= 300, `${corpus.length} records`);
    assert.ok(peers.size >= 6, [...peers].join(", "));
    assert.equal(revisions.size, 5, [...revisions].join(", "));
    assert.ok(corpus.filter((r) => r.broken).length >= 50);
  });

  test("the suite still configures ajv as reproduced here (the set-up of its wire-schema-valid check)", () => {
    const bundle = readFileSync(SUITE, "utf8");
    assert.match(bundle, /id:`wire-schema-valid`/);
    assert.match(bundle, /\{strict:!1,allErrors:!0\}/);
    assert.match(bundle, /addFormat\(`byte`,!0\)/);
    assert.match(bundle, /for\(let e of\[`minimum`,`maximum`,`default`\]\)/);
  });

  test("the suite bundles the 2025-03-26, 2025-06-18 and 2025-11-25 schemas as vendored here, once the errata are patched", () => {
    for (const revision of ["2025-03-26", "2025-06-18", "2025-11-25"] as const) {
      assert.ok(documents.has(revision), `the suite bundles ${revision}`);
      assert.deepEqual(patchErrata(documents.get(revision)!), patchErrata(officialSchema(revision)), revision);
    }
  });

  for (const revision of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    test(`${revision}: the same verdict on every message, sound and broken`, (t) => {
      const records = corpus.filter((r) => r.revision === revision);
      assert.ok(records.length > 0 && suite.has(revision), revision);
      const disagreements: string[] = [];
      let invalid = 0;
      for (const r of records) {
        const ours = validate(r.message, { revision, ...(r.method ? { method: r.method } : {}) }).length === 0;
        const theirs = suite.valid(revision, r.message, r.method);
        if (!theirs) invalid++;
        if (ours !== theirs) disagreements.push(`${r.peer} ${r.broken ?? "sound"} ${r.method ?? ""}: ours ${ours ? "valid" : "invalid"}, suite ${theirs ? "valid" : "invalid"}: ${JSON.stringify(r.message).slice(0, 200)}`);
      }
      t.diagnostic(`${records.length} messages, ${invalid} invalid by the suite's verdict`);
      assert.deepEqual(disagreements, []);
      assert.ok(invalid > 0, "some broken copies are judged invalid");
      // every broken copy is caught, and a sound message is invalid only where a peer really breaks the schema
      for (const r of records.filter((x) => x.broken)) assert.ok(!suite.valid(revision, r.message, r.method), `${r.peer} ${r.broken}`);
    });
  }

  test("2024-11-05: the suite bundles no schema for it, so its messages are compared with nothing", (t) => {
    assert.equal(suite.has("2024-11-05"), false);
    t.diagnostic(`${corpus.filter((r) => r.revision === "2024-11-05").length} messages of 2024-11-05 not compared`);
  });
});
