/**
 * `check --junit FILE`: the run as JUnit XML, the format CI systems show as tests. One test case
 * per check id and revision that ran (docs/check.md lists the ids); a case fails when a finding
 * of it fails the run (see fail-on.ts), and carries the finding; findings that do not fail it
 * (below `--fail-on`, or accepted by the baseline) are in the case's output. A target that could
 * not be checked is one more failed case saying why, and each stale baseline entry one more.
 */
import { redactSecrets } from "../secrets/redact.js";
import { keyWords } from "./baseline.js";
import { failing } from "./fail-on.js";
import { endText, endWords } from "./stdio-end.js";
import type { CheckReport, CheckRule, FailOn, Finding } from "./types.js";

export interface JunitOptions {
  failOn?: FailOn;
  /** The command that rewrites the baseline, named by each stale entry. */
  rewrite?: string;
  /** The mcp-wire command the suite is named after (default `check`); only check's ids have an `explain`. */
  command?: string;
}

/** The JUnit XML document. Pure: everything it shows passes through the one redaction first. */
export function renderJunit(input: CheckReport, rules: readonly CheckRule[], options: JunitOptions = {}): string {
  const report = redactSecrets(input);
  const failOn = options.failOn ?? "error";
  const titles = new Map(rules.map((r) => [r.id, r.title]));

  // every case that ran, and any finding's case the engine did not list, so none is lost
  const cases = new Map<string, { id: string; revision: string | null; findings: Finding[] }>();
  const caseOf = (id: string, revision: string | null) => {
    const key = `${id}\0${revision ?? ""}`;
    let c = cases.get(key);
    if (!c) cases.set(key, (c = { id, revision, findings: [] }));
    return c;
  };
  for (const r of report.ran) caseOf(r.id, r.revision);
  // a finding of several revisions fails the case of each
  for (const f of report.findings)
    for (const revision of f.revisions.length > 0 ? f.revisions : [null]) caseOf(f.id, revision).findings.push(f);

  const command = options.command ?? "check";
  const suite = `mcp-wire ${command} ${report.target}`;
  const parts: string[] = [];
  let failures = 0;
  for (const c of cases.values()) {
    const fails = c.findings.filter((f) => failing(f, failOn));
    const rest = c.findings.filter((f) => !failing(f, failOn));
    const title = titles.get(c.id);
    const name = `${c.id}${c.revision ? ` (${c.revision})` : ""}`;
    let body = "";
    if (fails.length > 0) {
      failures++;
      const first = fails[0]!;
      const message = fails.length === 1 ? first.message : `${first.message} (and ${fails.length - 1} more)`;
      body += `<failure type="${attr(c.id)}" message="${attr(message)}">${text(headed(title, fails, command))}</failure>`;
    }
    if (rest.length > 0) body += `<system-out>${text(headed(title, rest, command))}</system-out>`;
    parts.push(`    <testcase classname="${attr(classname(c.revision))}" name="${attr(name)}">${body}</testcase>`);
  }
  if (report.unchecked) {
    failures++;
    const u = report.unchecked;
    parts.push(
      `    <testcase classname="mcp-wire.check" name="the target can be checked"><failure type="${attr(u.class)}" message="${attr(report.stdio ? `${u.message} (${endWords(report.stdio)})` : u.message)}">${text(
        `${u.message}\nclass: ${u.class}\ndetail: ${u.detail}${report.stdio ? `\n\n${endText(report.stdio)}` : ""}`,
      )}</failure></testcase>`,
    );
  }
  for (const c of report.calls ?? []) {
    const ok = c.outcome === "ok" || c.outcome === "tool error" || c.outcome.startsWith("error ");
    if (!ok && c.outcome !== "not listed") failures++;
    const name = `--${c.kind} ${c.name} (${c.revision})`;
    parts.push(
      `    <testcase classname="mcp-wire.check.${c.revision}" name="${attr(name)}" time="${seconds(c.elapsedMs)}">${
        ok || c.outcome === "not listed"
          ? `<system-out>${text(c.outcome)}</system-out>`
          : `<failure type="opt_in_failed" message="${attr(c.outcome)}">${text(c.outcome)}</failure>`
      }</testcase>`,
    );
  }
  const rewrite = options.rewrite
    ? `rewrite the baseline with: ${options.rewrite}`
    : "remove it from the baseline file, so the baseline only shrinks";
  for (const s of report.stale) {
    failures++;
    parts.push(
      `    <testcase classname="mcp-wire.check.baseline" name="${attr(`baseline entry ${keyWords(s)}`)}"><failure type="baseline_stale" message="${attr(
        `this baseline entry no longer occurs: ${rewrite}`,
      )}">${text(`The baseline accepts ${keyWords(s)}, which this run did not find: ${rewrite}.`)}</failure></testcase>`,
    );
  }
  const tests = parts.length;
  const time = seconds(report.elapsedMs);
  const properties = [
    ["target", report.target],
    ...Object.entries(report.revisions).map(([revision, outcome]) => [`revision ${revision}`, String(outcome)]),
    ["messages checked", String(report.checked.messages)],
    ["pages listed", String(report.checked.pages)],
    ["fail on", failOn],
  ]
    .map(([name, value]) => `      <property name="${attr(name!)}" value="${attr(value!)}"/>`)
    .join("\n");
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!-- generator: mcp-wire -->`,
    `<testsuites name="mcp-wire ${command}" tests="${tests}" failures="${failures}" errors="0" time="${time}">`,
    `  <testsuite name="${attr(suite)}" tests="${tests}" failures="${failures}" errors="0" skipped="0" time="${time}">`,
    `    <properties>`,
    properties,
    `    </properties>`,
    ...parts,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

function classname(revision: string | null): string {
  return revision ? `mcp-wire.check.${revision}` : "mcp-wire.check";
}

function seconds(ms: number): string {
  return Number.isFinite(ms) && ms >= 0 ? (ms / 1000).toFixed(3) : "0";
}

/** The rule's title, then each finding. */
function headed(title: string | undefined, findings: readonly Finding[], command: string): string {
  return [...(title ? [title] : []), ...findings.map((f) => describe(f, command))].join("\n\n");
}

/** A finding in lines a person reads in a CI system's failure view. */
function describe(f: Finding, command: string): string {
  return [
    `${f.severity}: ${f.message}`,
    `subject: ${f.subject}`,
    ...(f.method ? [`method: ${f.method}`] : []),
    ...(f.path ? [`path: ${f.path}`] : []),
    ...(f.revisions.length > 0 ? [`revisions: ${f.revisions.join(", ")}`] : []),
    `fix: ${f.fix}`,
    `spec: ${f.spec}`,
    ...(command === "check" ? [`more: mcp-wire explain ${f.id}`] : []),
    ...(f.breaks.length > 0 ? [`breaks: ${f.breaks.join(", ")}`] : []),
    ...(f.accepted ? ["accepted by the baseline: it does not fail the run"] : []),
  ].join("\n");
}

/**
 * Characters XML 1.0 cannot carry at all, not even as a reference (C0 controls but tab and line
 * breaks, lone surrogates, U+FFFE and U+FFFF), shown as `\uXXXX` so the document stays
 * well-formed whatever a server sent.
 */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function clean(value: string): string {
  return value.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text content. */
function text(value: string): string {
  return clean(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A double-quoted attribute value; line breaks kept as references, not normalised away. */
function attr(value: string): string {
  return text(value).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}
