/**
 * `check --sarif`: valid against the published SARIF 2.1.0 schema (vendored under
 * test/fixtures/sarif, validated with ajv), every result located at the `--sarif-location` file,
 * rules with their whole documentation, and fingerprints that stay put while a finding does.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import Ajv04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import { applyBaseline } from "./baseline.js";
import { RULES, SECRET, sampleReport, uncheckedReport } from "../testkit/check-fixtures.js";
import { FINGERPRINT, renderSarif, sarifLocation, sarifLog } from "./sarif.js";

const SCHEMA = fileURLToPath(new URL("../../../test/fixtures/sarif/sarif-schema-2.1.0.json", import.meta.url));
// CommonJS packages: their default export is the module object under NodeNext
const Ajv04 = Ajv04Module.default;
const addFormats = addFormatsModule.default;
// the schema is draft-04, which ajv 8 reads only through ajv-draft-04
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA, "utf8")) as object);

interface Log {
  runs: {
    tool: {
      driver: {
        rules: {
          id: string;
          help: { text: string; markdown: string };
          helpUri?: string;
          shortDescription: { text: string };
          defaultConfiguration: { level: string };
        }[];
      };
    };
    invocations: { executionSuccessful: boolean }[];
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
      partialFingerprints: Record<string, string>;
      suppressions?: { kind: string; status: string }[];
    }[];
  }[];
}

function valid(text: string): Log {
  const log = JSON.parse(text) as unknown;
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 1));
  return log as Log;
}

describe("renderSarif", () => {
  test("the schema itself rejects what code scanning would", () => {
    const bad = sarifLog(sampleReport(), RULES, { location: "src/server.ts" }) as unknown as {
      runs: { results: { level: string }[] }[];
    };
    bad.runs[0]!.results[0]!.level = "fatal";
    assert.equal(validate(bad), false);
  });

  test("valid SARIF 2.1.0; every result at the repository file, its rule at its index", () => {
    const log = valid(renderSarif(sampleReport(), RULES, { location: "./src/server.ts", toolVersion: "0.1.0" }));
    const run = log.runs[0]!;
    assert.equal(run.results.length, 4, "one result per finding, however many revisions it occurs in");
    for (const r of run.results) {
      assert.deepEqual(r.locations, [
        { physicalLocation: { artifactLocation: { uri: "src/server.ts" }, region: { startLine: 1 } } },
      ]);
      assert.equal(run.tool.driver.rules[r.ruleIndex]!.id, r.ruleId);
    }
    assert.deepEqual(
      run.results.map((r) => r.level),
      ["error", "error", "warning", "note"],
    );
    assert.equal(run.invocations[0]!.executionSuccessful, true);
  });

  test("rules carry their whole documentation", () => {
    const rule = valid(renderSarif(sampleReport(), RULES, { location: "server.json" })).runs[0]!.tool.driver.rules[0]!;
    const source = RULES[0]!;
    assert.equal(rule.shortDescription.text, source.title);
    for (const part of [
      source.rule,
      source.fix,
      source.example!,
      "2025-06-18, 2025-11-25, 2026-07-28",
      "sdk-v2, ai-sdk",
      source.spec,
    ]) {
      assert.ok(rule.help.text.includes(part), `help has ${part}`);
    }
    assert.match(rule.help.markdown, /\*\*Fix:\*\* Give the tool/);
    assert.ok(rule.help.text.includes("mcp-wire explain tool_input_schema_object"));
    assert.ok(!/docs\/check\.md/.test(JSON.stringify(rule)), "no repository path");
    // a link only where mcp-wire's package.json names a homepage
    assert.equal(rule.helpUri, undefined);
    const linked = sarifLog(sampleReport(), RULES, { location: "server.json", homepage: "https://mcp-wire.example/" });
    const driver = (linked as unknown as Log).runs[0]!.tool.driver as Log["runs"][0]["tool"]["driver"] & {
      informationUri?: string;
    };
    assert.equal(driver.informationUri, "https://mcp-wire.example/");
    assert.equal(driver.rules[0]!.helpUri, "https://mcp-wire.example/");
    assert.equal(rule.defaultConfiguration.level, "error");
  });

  test("fingerprints are stable across runs and messages, and tell findings apart", () => {
    const fp = (log: Log) => log.runs[0]!.results.map((r) => r.partialFingerprints[FINGERPRINT]!);
    const first = fp(valid(renderSarif(sampleReport(), RULES, { location: "server.json" })));
    const report = sampleReport();
    const reworded = {
      ...report,
      elapsedMs: 99,
      findings: report.findings.map((f) => ({ ...f, message: `${f.message} (reworded)` })),
    };
    assert.deepEqual(fp(valid(renderSarif(reworded, RULES, { location: "server.json" }))), first);
    assert.equal(new Set(first).size, first.length);
    // the same finding twice is two alerts, told apart by its occurrence
    const twice = { ...report, findings: [report.findings[0]!, report.findings[0]!] };
    const [a, b] = fp(valid(renderSarif(twice, RULES, { location: "server.json" })));
    assert.equal(a!.replace(/:\d+$/, ""), b!.replace(/:\d+$/, ""));
    assert.notEqual(a, b);
  });

  test("a target that could not be checked is a located result too, and the run says it did not succeed", () => {
    const log = valid(renderSarif(uncheckedReport(), RULES, { location: "server.json" }));
    const run = log.runs[0]!;
    assert.equal(run.invocations[0]!.executionSuccessful, false);
    assert.equal(run.results.length, 1);
    assert.equal(run.results[0]!.ruleId, "unchecked");
    assert.equal(run.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri, "server.json");
    assert.match(run.results[0]!.message.text, /could not be checked: the server asks for sign-in/);
  });

  test("accepted findings are suppressed, stale entries are notes naming the command that rewrites the baseline", () => {
    const report = sampleReport();
    const f = report.findings[2]!;
    const log = valid(
      renderSarif(
        applyBaseline(report, [
          { id: f.id, revision: f.revision, method: f.method, path: f.path },
          { id: "tool_name_format", revision: "2025-11-25", method: "tools/list", path: "/result/tools/9/name" },
        ]),
        RULES,
        { location: "server.json", rewrite: "mcp-wire check https://x.example/mcp --update-baseline b.json" },
      ),
    );
    const results = log.runs[0]!.results;
    assert.deepEqual(results[2]!.suppressions, [
      { kind: "external", status: "accepted", justification: "accepted by the mcp-wire check --baseline file" },
    ]);
    assert.equal(results.filter((r) => r.suppressions).length, 1);
    const stale = results.at(-1)!;
    assert.equal(stale.ruleId, "baseline_stale");
    assert.equal(stale.level, "note", "a fixed finding is not an alert");
    assert.match(
      stale.message.text,
      /The baseline accepts tool_name_format \(2025-11-25\) tools\/list at \/result\/tools\/9\/name, which this run did not find: rewrite the baseline with: mcp-wire check https:\/\/x\.example\/mcp --update-baseline b\.json\./,
    );
  });

  test("a server's brackets cannot make a link in a viewer: [ and ] are escaped (SARIF §3.11.6)", () => {
    const report = sampleReport();
    const hostile = { ...report.findings[0]!, message: "see [click](https://evil.example) \\[x\\]" };
    const log = valid(renderSarif({ ...report, findings: [hostile] }, RULES, { location: "server.json" }));
    const text = log.runs[0]!.results[0]!.message.text;
    assert.ok(text.startsWith("see \\[click\\](https://evil.example) \\\\\\[x\\\\\\]"), text);
    assert.ok(!/(^|[^\\])\[/.test(text), "every [ is escaped");
  });

  test("no secret reaches the file", () => {
    const text = renderSarif(sampleReport(), RULES, { location: "server.json" });
    assert.ok(!text.includes(SECRET) && !text.includes("user:pw@"));
  });

  test("--sarif-location is a path inside the repository", () => {
    assert.equal(sarifLocation("./src\\server.ts"), "src/server.ts");
    for (const bad of [
      "",
      "/etc/passwd",
      "../other/x.ts",
      "src/../../x",
      "C:/x.ts",
      "https://example.com/x.ts",
      "src/",
    ]) {
      assert.equal(typeof sarifLocation(bad), "object", bad);
    }
    assert.throws(
      () => sarifLog(sampleReport(), RULES, { location: "/abs" }),
      /--sarif-location takes a file path relative to the repository's root/,
    );
  });
});
