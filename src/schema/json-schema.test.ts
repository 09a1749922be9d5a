import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { dialectFor, schemaProblems, validateAgainstSchema } from "./json-schema.js";

describe("peers' JSON Schemas", () => {
  test("the default dialect: 2020-12 from 2025-11-25, draft-07 before; an explicit $schema wins", () => {
    assert.equal(dialectFor({ type: "object" }, "2025-11-25"), "2020-12");
    assert.equal(dialectFor({ type: "object" }, "2026-07-28"), "2020-12");
    assert.equal(dialectFor({ type: "object" }, "2025-06-18"), "draft-07");
    assert.equal(dialectFor({ $schema: "http://json-schema.org/draft-07/schema#" }, "2026-07-28"), "draft-07");
    assert.equal(dialectFor({ $schema: "https://json-schema.org/draft/2020-12/schema" }, "2024-11-05"), "2020-12");
    assert.match(String(dialectFor({ $schema: "http://json-schema.org/draft-04/schema#" }, "2025-11-25")), /does not support/);
  });

  test("a valid schema has no problems; an invalid one is named by ajv against the dialect's meta-schema", () => {
    assert.deepEqual(schemaProblems({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { revision: "2025-11-25" }), []);
    assert.deepEqual(schemaProblems(true, { revision: "2025-11-25" }), []);
    const problems = schemaProblems({ type: "object", properties: { a: { type: "text" } } }, { revision: "2025-11-25" });
    assert.ok(problems.some((p) => p.startsWith("/properties/a/type:")), problems.join("; "));
    assert.deepEqual(schemaProblems({ type: "object", required: "a" }, { revision: "2025-06-18" }), ["/required: must be array"]);
    assert.match(schemaProblems([1], { revision: "2025-06-18" })[0] ?? "", /not an array/);
  });

  test("the dialect decides: prefixItems is 2020-12; draft-07's items array is not valid there", () => {
    const tuple = { type: "array", items: [{ type: "string" }] };
    assert.deepEqual(schemaProblems(tuple, { revision: "2025-06-18" }), []);
    assert.notDeepEqual(schemaProblems(tuple, { revision: "2025-11-25" }), []);
    const prefix = { type: "array", prefixItems: [{ type: "string" }], items: false };
    assert.equal(validateAgainstSchema(prefix, ["a", "b"], { revision: "2025-11-25" }).ok, false);
    assert.equal(validateAgainstSchema(prefix, ["a"], { revision: "2025-11-25" }).ok, true);
  });

  test("a reference to another document is never fetched: reported unresolvable", () => {
    const problems = schemaProblems({ type: "object", properties: { p: { $ref: "http://127.0.0.1:9/x.json" } } }, { revision: "2026-07-28" });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /never fetched/);
    assert.deepEqual(schemaProblems({ $defs: { id: { type: "string" } }, properties: { id: { $ref: "#/$defs/id" } } }, { revision: "2026-07-28" }), []);
  });

  test("structured content against an output schema: every error with its path and keyword", () => {
    const outputSchema = { type: "object", properties: { t: { type: "number" }, c: { type: "string" } }, required: ["t", "c"] };
    assert.deepEqual(validateAgainstSchema(outputSchema, { t: 21.5, c: "sunny" }, { revision: "2025-06-18" }), { ok: true, errors: [] });
    const verdict = validateAgainstSchema(outputSchema, { t: "warm" }, { revision: "2025-06-18" });
    assert.equal(verdict.ok, false);
    assert.deepEqual(
      verdict.errors.map((e) => [e.path, e.keyword]).sort(),
      [["", "required"], ["/t", "type"]],
    );
  });

  test("a large value gets its first error only; a small one every error", () => {
    const schema = { type: "array", items: { type: "string" } };
    const big = validateAgainstSchema(schema, Array.from({ length: 50_000 }, (_, i) => i), { revision: "2025-11-25" });
    assert.deepEqual(big.errors.map((e) => e.path), ["/0"]);
    const small = validateAgainstSchema(schema, [1, "a", 2], { revision: "2025-11-25" });
    assert.deepEqual(small.errors.map((e) => e.path), ["/0", "/2"]);
  });

  test("two schemas with the same $id are compiled apart", () => {
    const a = { $id: "https://example.com/s.json", type: "string" };
    const b = { $id: "https://example.com/s.json", type: "number" };
    assert.equal(validateAgainstSchema(a, "s", { revision: "2025-11-25" }).ok, true);
    assert.equal(validateAgainstSchema(b, "s", { revision: "2025-11-25" }).ok, false);
    assert.equal(validateAgainstSchema(b, 1, { revision: "2025-11-25" }).ok, true);
  });

  test("an unusable schema makes validation fail with the reason, not throw", () => {
    const verdict = validateAgainstSchema({ $schema: "http://json-schema.org/draft-04/schema#" }, {}, { revision: "2025-11-25" });
    assert.equal(verdict.ok, false);
    assert.match(verdict.errors[0]!.message, /the schema itself is invalid/);
  });
});
