/**
 * What a server that means harm sends the validator: each case with a bound far above what the
 * validator takes and far below what a quadratic or backtracking one took (the figures in each
 * test's comment, measured before the fix).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SchemaBudget, schemaProblems, schemaUnchecked, validateAgainstSchema } from "./json-schema.js";
import { validate } from "./validate.js";

const elapsed = <T>(run: () => T): { value: T; ms: number } => {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
};

describe("validation under hostile input", () => {
  test("a 64 KB result of thousands of broken content blocks validates in linear time (was 44 s)", () => {
    // warm: the first use of a definition compiles it
    validate({ jsonrpc: "2.0", id: 1, result: { content: [{}] } }, { revision: "2025-11-25", method: "tools/call" });
    for (const kb of [8, 45, 64]) {
      const items = Math.floor((kb * 1024 - 40) / 3);
      const message = { jsonrpc: "2.0", id: 1, result: { content: Array.from({ length: items }, () => ({})) } };
      const { value, ms } = elapsed(() => validate(message, { revision: "2025-11-25", method: "tools/call" }));
      assert.ok(value.length > 0 && value.every((d) => d.code === "schema_invalid"));
      assert.ok(ms < 1500, `${kb} KB took ${ms.toFixed(0)} ms`);
    }
  });

  test("a peer's catastrophic pattern runs on a linear-time engine (was 40 s at 28 characters, doubling per character)", () => {
    const { value, ms } = elapsed(() =>
      validateAgainstSchema({ type: "string", pattern: "^(a+)+$" }, `${"a".repeat(5000)}!`, { revision: "2025-11-25" }),
    );
    assert.equal(value.ok, false);
    assert.ok(ms < 1500, `${ms.toFixed(0)} ms`);
    // a sound pattern still judges, and one the linear engine cannot run (lookahead) is not checked
    assert.equal(validateAgainstSchema({ type: "string", pattern: "^a\\d+$" }, "a12", { revision: "2025-11-25" }).ok, true);
    assert.equal(validateAgainstSchema({ type: "string", pattern: "^a\\d+$" }, "ab", { revision: "2025-11-25" }).ok, false);
    assert.equal(validateAgainstSchema({ type: "string", pattern: "^(?=b)a$" }, "a", { revision: "2025-11-25" }).ok, true);
  });

  test('format "url" is not quadratic on a long string', () => {
    const schema = { type: "string", format: "url" };
    const { value, ms } = elapsed(() =>
      validateAgainstSchema(schema, `http://${"a".repeat(100_000)}@`, { revision: "2025-11-25" }),
    );
    assert.equal(value.ok, false);
    assert.ok(ms < 1500, `${ms.toFixed(0)} ms`);
    assert.equal(validateAgainstSchema(schema, "https://example.com/a?b=c", { revision: "2025-11-25" }).ok, true);
    assert.equal(validateAgainstSchema(schema, "not a url", { revision: "2025-11-25" }).ok, false);
  });

  test("500 distinct tool schemas share one meta-validator (was 16-20 ms each: 8-10 s)", () => {
    const { ms } = elapsed(() => {
      for (let i = 0; i < 500; i++) {
        const schema = { type: "object", properties: { [`hostile_${i}`]: { type: "string", minLength: i } } };
        assert.deepEqual(schemaProblems(schema, { revision: i % 2 === 0 ? "2025-11-25" : "2025-06-18" }), []);
      }
    });
    assert.ok(ms < 4000, `${ms.toFixed(0)} ms`);
    // a broken one is still told apart
    assert.ok(schemaProblems({ type: "object", properties: { q: { type: "text" } } }, { revision: "2025-11-25" }).length > 0);
  });

  test("a schema too large to compile is not checked, never invalid (was a false tool_schema_invalid)", () => {
    const properties = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`p${i}`, { type: "string" }]));
    const schema = { type: "object", properties };
    const { value, ms } = elapsed(() => schemaProblems(schema, { revision: "2025-11-25" }));
    assert.deepEqual(value, []);
    assert.match(schemaUnchecked(schema, { revision: "2025-11-25" }) ?? "", /too large/);
    assert.ok(ms < 1500, `${ms.toFixed(0)} ms`);
    const verdict = validateAgainstSchema(schema, { p0: 1 }, { revision: "2025-11-25" });
    assert.equal(verdict.ok, true);
    assert.match(verdict.unchecked ?? "", /too large/);
    // one nested past what code generation holds, under the size cap
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 3000; i++) deep = { type: "object", properties: { a: deep } };
    const nested = schemaUnchecked(deep, { revision: "2025-06-18" });
    assert.ok(nested === undefined || /too large|too deep/.test(nested), nested);
    assert.deepEqual(schemaProblems(deep, { revision: "2025-06-18" }), []);
  });

  test("2,000 distinct tool schemas of one listing are checked within the listing's time budget: the rest are not checked, never invalid", () => {
    const budget = new SchemaBudget(150);
    const verdicts: ("checked" | "unchecked")[] = [];
    const { ms } = elapsed(() => {
      for (let i = 0; i < 2000; i++) {
        // broken ones too: past the budget, not even a broken schema is judged
        const schema = { type: "object", properties: { [`budget_${i}`]: { type: i % 2 === 0 ? "string" : "text" } } };
        const unchecked = schemaUnchecked(schema, { revision: "2025-11-25", budget });
        if (unchecked !== undefined) {
          assert.match(unchecked, /150 ms budget for checking this listing's schemas was spent/);
          assert.deepEqual(schemaProblems(schema, { revision: "2025-11-25", budget }), []);
          verdicts.push("unchecked");
        } else verdicts.push("checked");
      }
    });
    assert.ok(verdicts.includes("checked") && verdicts.includes("unchecked"), `${verdicts.filter((v) => v === "checked").length} checked`);
    // once spent, everything after is unchecked: the budget is never spent twice
    assert.ok(verdicts.indexOf("unchecked") > verdicts.lastIndexOf("checked"));
    assert.ok(ms < 5000, `${ms.toFixed(0)} ms`);
    // a later listing with its own budget checks what this one could not
    assert.ok(schemaProblems({ type: "object", properties: { budget_1999: { type: "text" } } }, { revision: "2025-11-25", budget: new SchemaBudget(10_000) }).length > 0);
  });
});
