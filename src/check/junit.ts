/**
 * `check --junit FILE`: the run as JUnit XML, the format CI systems show as tests. One test case
 * per check id and revision that ran (docs/check.md lists the ids); a case fails when a finding
 * of it fails the run (see fail-on.ts), and carries the finding; findings that do not fail it
 * (below `--fail-on`, or accepted by the baseline) are in the case's output. A target that could
 * not be checked is one more failed case saying why, and each stale baseline entry one more.
 */
import { redactSecrets } from "../secrets/redact.js";
import { keyWords } from "./baseline.js";
import { RuleBook, rewriteAdvice, splitFailing, staleSentence } from "./documents.js";
import { endText, endWords } from "./stdio-end.js";
import type { BaselineKey, CallReport, CheckReport, CheckRule, FailOn, Finding } from "./types.js";

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
  const command = options.command ?? "check";
  const cases = [
    ...checkCases(report, new RuleBook(rules), failOn, command),
    ...uncheckedCases(report),
    ...callCases(report.calls ?? []),
    ...staleCases(report.stale, options.rewrite),
  ];
  const tests = cases.length;
  const failures = cases.filter((c) => c.failed).length;
  const time = seconds(report.elapsedMs);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!-- generator: mcp-wire -->`,
    `<testsuites name="mcp-wire ${command}" tests="${tests}" failures="${failures}" errors="0" time="${time}">`,
    `  <testsuite name="${attr(`mcp-wire ${command} ${report.target}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="0" time="${time}">`,
    `    <properties>`,
    properties(report, failOn),
    `    </properties>`,
    ...cases.map((c) => c.xml),
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

/** One `<testcase>` element, and whether it counts as a failure. */
interface Case {
  readonly xml: string;
  readonly failed: boolean;
}

/**
 * A case per check id and revision that ran, and per any finding's pair the engine did not list,
 * so none is lost; a finding of several revisions is in the case of each.
 */
function checkCases(report: CheckReport, book: RuleBook, failOn: FailOn, command: string): Case[] {
  const cases = new Map<string, { id: string; revision: string | null; findings: Finding[] }>();
  const caseOf = (id: string, revision: string | null) => {
    const key = `${id}\0${revision ?? ""}`;
    let c = cases.get(key);
    if (!c) cases.set(key, (c = { id, revision, findings: [] }));
    return c;
  };
  for (const r of report.ran) caseOf(r.id, r.revision);
  for (const f of report.findings)
    for (const revision of f.revisions.length > 0 ? f.revisions : [null]) caseOf(f.id, revision).findings.push(f);
  return [...cases.values()].map((c) => {
    const { fails, rest } = splitFailing(c.findings, failOn);
    const title = book.known(c.id)?.title;
    const name = `${c.id}${c.revision ? ` (${c.revision})` : ""}`;
    let body = "";
    if (fails.length > 0) {
      const first = fails[0]!;
      const message = fails.length === 1 ? first.message : `${first.message} (and ${fails.length - 1} more)`;
      body += `<failure type="${attr(c.id)}" message="${attr(message)}">${text(headed(title, fails, command))}</failure>`;
    }
    if (rest.length > 0) body += `<system-out>${text(headed(title, rest, command))}</system-out>`;
    return {
      xml: `    <testcase classname="${attr(classname(c.revision))}" name="${attr(name)}">${body}</testcase>`,
      failed: fails.length > 0,
    };
  });
}

/** A target that could not be checked: one failed case saying why. */
function uncheckedCases(report: CheckReport): Case[] {
  const u = report.unchecked;
  if (!u) return [];
  const message = report.stdio ? `${u.message} (${endWords(report.stdio)})` : u.message;
  const detail = `${u.message}\nclass: ${u.class}\ndetail: ${u.detail}${report.stdio ? `\n\n${endText(report.stdio)}` : ""}`;
  return [
    {
      xml: `    <testcase classname="mcp-wire.check" name="the target can be checked"><failure type="${attr(u.class)}" message="${attr(message)}">${text(detail)}</failure></testcase>`,
      failed: true,
    },
  ];
}

/** Each `--call`, `--read` and `--get`: the server's own error answer passes, a name not listed is only shown. */
function callCases(calls: readonly CallReport[]): Case[] {
  return calls.map((c) => {
    const answered = c.outcome === "ok" || c.outcome === "tool error" || c.outcome.startsWith("error ");
    const failed = !answered && c.outcome !== "not listed";
    const name = `--${c.kind} ${c.name} (${c.revision})`;
    const body = failed
      ? `<failure type="opt_in_failed" message="${attr(c.outcome)}">${text(c.outcome)}</failure>`
      : `<system-out>${text(c.outcome)}</system-out>`;
    return {
      xml: `    <testcase classname="mcp-wire.check.${c.revision}" name="${attr(name)}" time="${seconds(c.elapsedMs)}">${body}</testcase>`,
      failed,
    };
  });
}

/** Each stale baseline entry: a failed case, as it fails the run. */
function staleCases(stale: readonly BaselineKey[], rewrite: string | undefined): Case[] {
  const advice = rewriteAdvice(rewrite, "remove it from the baseline file, so the baseline only shrinks");
  return stale.map((s) => ({
    xml: `    <testcase classname="mcp-wire.check.baseline" name="${attr(`baseline entry ${keyWords(s)}`)}"><failure type="baseline_stale" message="${attr(
      `this baseline entry no longer occurs: ${advice}`,
    )}">${text(staleSentence(s, advice))}</failure></testcase>`,
    failed: true,
  }));
}

/** The run's target, each revision's outcome, what was checked, and the threshold. */
function properties(report: CheckReport, failOn: FailOn): string {
  return [
    ["target", report.target],
    ...Object.entries(report.revisions).map(([revision, outcome]) => [`revision ${revision}`, String(outcome)]),
    ["messages checked", String(report.checked.messages)],
    ["pages listed", String(report.checked.pages)],
    ["fail on", failOn],
  ]
    .map(([name, value]) => `      <property name="${attr(name!)}" value="${attr(value!)}"/>`)
    .join("\n");
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
