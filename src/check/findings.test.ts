/** How findings are recorded: from the catalogue, once each, bounded, and only for the rules chosen. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Findings, selection } from "./findings.js";
import { ruleOf } from "./rules.js";

test("a finding takes its severity, fix and spec from the catalogue, and is recorded once", () => {
  const f = new Findings(selection(undefined, undefined));
  for (let i = 0; i < 3; i++)
    f.add("ping_failed", { revision: "2025-06-18", method: "ping", message: "ping was answered with an error" });
  assert.equal(f.list.length, 1);
  const rule = ruleOf("ping_failed");
  assert.deepEqual([f.list[0]!.severity, f.list[0]!.fix, f.list[0]!.spec], [rule.severity, rule.fix, rule.spec]);
  assert.deepEqual(f.counts(), { error: 1, warning: 0, info: 0 });
  assert.deepEqual(f.ran, [{ id: "ping_failed", revision: "2025-06-18" }]);
});

test("a rule outside its revisions is neither run nor found (ping on 2026-07-28, which removed it)", () => {
  const f = new Findings(selection(undefined, undefined));
  f.checked("ping_failed", "2026-07-28");
  f.add("ping_failed", { revision: "2026-07-28", message: "x" });
  assert.deepEqual([f.list, f.ran], [[], []]);
});

test("--only and --skip choose the rules; a milder case keeps its own severity", () => {
  const only = new Findings(selection(["tool_name_format"], undefined));
  only.add("ping_failed", { revision: "2025-06-18", message: "x" });
  only.add("tool_name_format", { revision: "2025-11-25", message: "y" });
  assert.deepEqual(
    only.list.map((x) => x.id),
    ["tool_name_format"],
  );
  const skip = new Findings(selection(undefined, ["tool_name_format"]));
  skip.add("tool_name_format", { revision: "2025-11-25", message: "y" });
  assert.deepEqual(skip.list, []);
  const mild = new Findings(selection(undefined, undefined));
  mild.add("id_null", { revision: "2025-06-18", message: "an error response with a null id", severity: "warning" });
  assert.equal(mild.list[0]!.severity, "warning");
});

test("a hostile server cannot grow a report without bound: 20 findings per rule, revision and method", () => {
  const f = new Findings(selection(undefined, undefined));
  for (let i = 0; i < 1000; i++)
    f.add("schema_invalid", {
      revision: "2025-06-18",
      method: "tools/list",
      path: `/result/tools/${i}`,
      message: `tool ${i}`,
    });
  assert.equal(f.list.length, 20);
  f.add("schema_invalid", {
    revision: "2025-06-18",
    method: "prompts/list",
    path: "/result",
    message: "another method",
  });
  assert.equal(f.list.length, 21);
});
