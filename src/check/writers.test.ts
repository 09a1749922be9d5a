/**
 * The three writers of a check run (JUnit, SARIF, Markdown), each pinned byte for byte on runs
 * that reach every part of their documents: failing, passing and accepted findings, a finding
 * whose rule the catalogue lacks, every outcome of an opt-in call, stale entries of both key
 * forms, a stdio server's last words, a target not checked, and capped tables. `check`,
 * `gauntlet` and `replay` all write through them, so a change here is a change users see: one
 * that is meant rewrites the file under test/fixtures/writers, and the diff is the review.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { applyBaseline } from "./baseline.js";
import { RULES, sampleReport, uncheckedReport } from "../testkit/check-fixtures.js";
import { renderJunit } from "./junit.js";
import { renderMarkdown } from "./markdown.js";
import { renderSarif } from "./sarif.js";
import type { CheckReport } from "./types.js";

const golden = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/writers/${name}`, import.meta.url), "utf8");

/** What lands in the file: a lone surrogate a server sent is written as U+FFFD. */
const utf8 = (text: string) => Buffer.from(text, "utf8").toString("utf8");

const REWRITE = "mcp-wire check https://x.example/mcp --update-baseline b.json";

/** Every kind of thing a run reports, once. */
function fullReport(): CheckReport {
  const base = sampleReport();
  const [first, second] = base.findings;
  const report = sampleReport({
    findings: [
      ...base.findings,
      // a rule the catalogue passed to the writer does not have
      {
        ...second!,
        id: "ping_failed",
        severity: "warning",
        method: "ping",
        path: null,
        subject: "method:ping",
        subjectPath: null,
        message: 'ping was answered with error -32601 "Method not found" [see](https://evil.example)',
        fix: "Answer ping with an empty result.",
        spec: "mcp-wire explain ping_failed",
        breaks: [],
      },
    ],
    counts: { error: 2, warning: 2, info: 1 },
    calls: [
      { kind: "call", name: "search", revision: "2025-11-25", outcome: "ok", elapsedMs: 12 },
      { kind: "call", name: "fetch", revision: "2025-11-25", outcome: "tool error", elapsedMs: 1500 },
      { kind: "read", name: "file:///a|b", revision: "2025-11-25", outcome: 'error -32602 "bad uri"', elapsedMs: 3 },
      { kind: "get", name: "<greet>", revision: "2025-11-25", outcome: "not listed", elapsedMs: 0 },
      {
        kind: "call",
        name: "slow",
        revision: "2026-07-28",
        outcome: "failed: timed out after 5000 ms",
        elapsedMs: 5000,
      },
    ],
    stdio: { exitCode: null, signal: null, stderrTail: "" },
  });
  return applyBaseline(report, [
    {
      id: first!.id,
      revision: null,
      method: first!.method,
      path: null,
      subject: first!.subject,
      subjectPath: first!.subjectPath,
    },
    { id: "tool_name_format", revision: "2025-11-25", method: "tools/list", path: "/result/tools/9/name" },
    {
      id: "tool_input_schema_object",
      revision: null,
      method: "tools/list",
      path: null,
      subject: "tool:gone",
      subjectPath: "/inputSchema/type",
      revisions: ["2025-11-25"],
    },
  ]);
}

/** A stdio server that died before it answered, its stderr holding backticks and carriage returns. */
function deadReport(): CheckReport {
  return {
    ...uncheckedReport(),
    unchecked: { class: "unreachable", detail: "exit", message: "the server exited before it answered initialize" },
    stdio: { exitCode: 1, signal: null, stderrTail: "Error: ``` no config\r\n  at main (server.js:3)\n`x`" },
  };
}

const CASES = [
  {
    name: "full",
    report: fullReport,
    junit: { failOn: "warning", rewrite: REWRITE },
    sarif: {
      location: "./src/server.ts",
      toolVersion: "1.2.3",
      homepage: "https://mcp-wire.example/",
      rewrite: REWRITE,
    },
    markdown: { failOn: "warning", rewrite: REWRITE },
  },
  {
    name: "defaults",
    report: fullReport,
    junit: { command: "replay" },
    sarif: { location: "server.json" },
    markdown: { command: "gauntlet", failOn: "never", maxRows: 1 },
  },
  {
    name: "dead",
    report: deadReport,
    junit: {},
    sarif: { location: "server.json" },
    markdown: {},
  },
] as const;

describe("the writers, byte for byte", () => {
  for (const c of CASES) {
    test(`${c.name}: JUnit`, () => {
      assert.equal(utf8(renderJunit(c.report(), RULES, c.junit)), golden(`${c.name}.junit.xml`));
    });
    test(`${c.name}: SARIF`, () => {
      assert.equal(utf8(renderSarif(c.report(), RULES, c.sarif)), golden(`${c.name}.sarif.json`));
    });
    test(`${c.name}: Markdown`, () => {
      assert.equal(utf8(renderMarkdown(c.report(), RULES, c.markdown)), golden(`${c.name}.md`));
    });
  }
});
