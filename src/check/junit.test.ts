/**
 * `check --junit`: a document every CI system parses (checked by a strict XML reader), one test
 * case per check id and revision that ran, failures carrying their finding, and a failed case
 * for a target that could not be checked and for each stale baseline entry.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyBaseline } from "./baseline.js";
import { HOSTILE, RULES, SECRET, sampleReport, uncheckedReport } from "../testkit/check-fixtures.js";
import { renderJunit } from "./junit.js";
import { parseXml, type XmlElement } from "./xml.test.js";

const cases = (root: XmlElement) => root.children[0]!.children.filter((c) => c.name === "testcase");
const child = (e: XmlElement, name: string) => e.children.find((c) => c.name === name);

describe("renderJunit", () => {
  test("one case per check id and revision that ran; the failing ones carry their findings", () => {
    const xml = renderJunit(sampleReport(), RULES);
    const root = parseXml(xml);
    assert.equal(root.name, "testsuites");
    const all = cases(root);
    assert.deepEqual(
      all.map((c) => c.attributes.name),
      [
        "tool_input_schema_object (2025-06-18)",
        "tool_input_schema_object (2025-11-25)",
        "tool_input_schema_object (2026-07-28)",
        "tool_name_format (2025-11-25)",
        "tool_name_format (2026-07-28)",
        "stdio_exit_slow",
      ],
    );
    assert.equal(root.attributes.tests, "6");
    assert.equal(root.attributes.failures, "2");
    assert.equal(root.children[0]!.attributes.failures, "2");
    assert.equal(child(all[0]!, "failure"), undefined, "2025-06-18 ran and found nothing: it passes");
    const two = child(all[2]!, "failure")!;
    assert.equal(two.attributes.type, "tool_input_schema_object");
    assert.match(two.attributes.message!, /\(and 1 more\)$/);
    assert.match(two.text, /^Tool inputSchema is an object schema\n\nerror: inputSchema's root type is "string"/);
    assert.match(two.text, /path: \/result\/tools\/3\/inputSchema\/type/);
    assert.match(two.text, /breaks: sdk-v2, ai-sdk/);
    // what a hostile server sent comes back as text, the characters XML cannot carry spelled out
    assert.ok(
      two.text.includes(HOSTILE.replace("\u0001", "\\u0001").replace("\u001f", "\\u001f").replace("\ud800", "\\ud800")),
      two.text,
    );
    // a warning below --fail-on error is shown, not failed
    assert.equal(child(all[3]!, "failure"), undefined);
    assert.match(child(all[3]!, "system-out")!.text, /warning: tool name "search docs" has a space/);
    assert.equal(
      cases(parseXml(renderJunit(sampleReport(), RULES, { failOn: "warning" }))).filter((c) => child(c, "failure"))
        .length,
      3,
    );
    assert.equal(parseXml(renderJunit(sampleReport(), RULES, { failOn: "never" })).attributes.failures, "0");
  });

  test("no secret reaches the file", () => {
    const xml = renderJunit(sampleReport(), RULES);
    assert.ok(!xml.includes(SECRET) && !xml.includes("user:pw@"), "the target's key and password are redacted");
    assert.match(parseXml(xml).children[0]!.attributes.name!, /api_key=<redacted>/);
  });

  test("a target that could not be checked is one failed case saying why", () => {
    const root = parseXml(renderJunit(uncheckedReport(), RULES));
    const all = cases(root);
    assert.equal(all.length, 1);
    assert.equal(root.attributes.failures, "1");
    const failure = child(all[0]!, "failure")!;
    assert.equal(failure.attributes.type, "auth_required");
    assert.equal(failure.attributes.message, "the server asks for sign-in and no credentials were given (--header)");
    assert.match(failure.text, /detail: http_401/);
  });

  test("accepted findings pass; a stale baseline entry is a failed case of its own", () => {
    const report = sampleReport();
    const baseline = [
      ...report.findings
        .filter((f) => f.id === "tool_input_schema_object")
        .map(({ id, revision, method, path }) => ({ id, revision, method, path })),
      {
        id: "tool_input_schema_object",
        revision: "2025-06-18" as const,
        method: "tools/list",
        path: "/result/tools/9/inputSchema",
      },
    ];
    const root = parseXml(renderJunit(applyBaseline(report, baseline), RULES));
    const failed = cases(root).filter((c) => child(c, "failure"));
    assert.deepEqual(
      failed.map((c) => c.attributes.name),
      ["baseline entry tool_input_schema_object (2025-06-18) tools/list at /result/tools/9/inputSchema"],
    );
    assert.equal(child(failed[0]!, "failure")!.attributes.type, "baseline_stale");
    const accepted = cases(root).find((c) => c.attributes.name === "tool_input_schema_object (2025-11-25)")!;
    assert.match(child(accepted, "system-out")!.text, /accepted by the baseline/);
  });
});
