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

test("one finding per problem: the same rule, subject and pointer in another revision adds that revision", () => {
  const f = new Findings(selection(undefined, undefined));
  const page = (name: string) => ({ result: { tools: [{ name: "other" }, { name }] } });
  for (const revision of ["2025-06-18", "2026-07-28", "2025-11-25"] as const)
    f.add("schema_invalid", {
      revision,
      method: "tools/list",
      path: "/result/tools/1/inputSchema",
      message: `bad under ${revision}`,
      value: page("search"),
    });
  // the same fault in another tool is another problem
  f.add("schema_invalid", {
    revision: "2025-11-25",
    method: "tools/list",
    path: "/result/tools/1/inputSchema",
    message: "bad",
    value: page("fetch"),
  });
  assert.equal(f.list.length, 2);
  const [one, two] = f.list;
  assert.deepEqual(
    [one!.subject, one!.subjectPath, one!.revision, one!.revisions, one!.message],
    ["tool:search", "/inputSchema", "2026-07-28", ["2026-07-28", "2025-11-25", "2025-06-18"], "bad under 2026-07-28"],
  );
  assert.deepEqual([two!.subject, two!.revisions], ["tool:fetch", ["2025-11-25"]]);
  assert.deepEqual(f.counts(), { error: 2, warning: 0, info: 0 });
});

test("subjects: list items by name or URI, a nameless item by its page, else the method or the server", () => {
  const f = new Findings(selection(undefined, undefined));
  const at = (method: string | null, path: string | null, value?: unknown, page?: number) => {
    f.add("schema_invalid", {
      revision: "2025-11-25",
      method,
      path,
      message: `${method} ${path}`,
      value,
      ...(page ? { page } : {}),
    });
    const last = f.list.at(-1)!;
    return `${last.subject} ${last.subjectPath}`;
  };
  assert.equal(
    at("resources/list", "/result/resources/0/mimeType", { result: { resources: [{ uri: "file:///a" }] } }),
    "resource:file:///a /mimeType",
  );
  assert.equal(
    at("resources/templates/list", "/result/resourceTemplates/0", {
      result: { resourceTemplates: [{ uriTemplate: "x://{id}" }] },
    }),
    "template:x://{id} ",
  );
  assert.equal(
    at("prompts/list", "/result/prompts/0/arguments", { result: { prompts: [{ name: "greet" }] } }),
    "prompt:greet /arguments",
  );
  assert.equal(
    at("tools/list", "/result/tools/0", { result: { tools: [{}] } }, 2),
    "page:tools/list#2 /result/tools/0",
  );
  assert.equal(at("initialize", "/result/capabilities"), "method:initialize /result/capabilities");
  assert.equal(at(null, null), "server null");
});

test("checkHttp and checkStdio refuse an id no rule has, before any request: a typo is no empty check", async () => {
  const { checkHttp, checkStdio } = await import("./check.js");
  // port 9 on loopback: nothing would answer, and nothing is asked
  await assert.rejects(checkHttp("http://127.0.0.1:9/mcp", { only: ["ping_faild"] }), {
    name: "RangeError",
    message: /only: no check is named "ping_faild"/,
  });
  await assert.rejects(
    checkStdio("no-such-command", [], { skip: ["ping_failed", "nope"] }),
    /skip: no check is named "nope"/,
  );
});
