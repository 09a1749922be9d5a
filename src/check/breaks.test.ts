/**
 * The evidence behind the rule catalogue's `breaks` lists (src/testkit/breaks.ts): one rule's,
 * against every real client, here; every other rule's in `npm run interop` (interop/breaks.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EVIDENCE, breaksSuite } from "../testkit/breaks.js";
import { CHECK_RULES } from "./rules.js";

breaksSuite((e) => e.rule === "tool_input_schema_not_object");

test("no rule claims a client the evidence does not show breaking", () => {
  const shown = new Set<string>(EVIDENCE.map((e) => e.rule));
  for (const rule of CHECK_RULES) if (!shown.has(rule.id)) assert.deepEqual(rule.breaks ?? [], [], rule.id);
});
