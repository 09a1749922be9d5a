/**
 * `check --markdown FILE`: the run as a summary for a CI job's page (GitHub Actions shows the file
 * named by `$GITHUB_STEP_SUMMARY`): the verdict in a line, each revision's outcome, the findings in
 * a table, what to fix, and the baseline's accepted and stale entries. Everything a server sent is
 * escaped, so it shows as text and never as markup, a link or an image; the tables are capped, so
 * the summary stays within what a CI page takes.
 */
import { printable } from "../codec/printable.js";
import { redactSecrets } from "../secrets/redact.js";
import { keyWords } from "./baseline.js";
import { RuleBook, splitFailing } from "./documents.js";
import { SEVERITY_RANK, failing } from "./fail-on.js";
import { endWords } from "./stdio-end.js";
import type { BaselineKey, CallReport, CheckReport, CheckRule, FailOn, Finding, StdioEnd } from "./types.js";

export interface MarkdownOptions {
  failOn?: FailOn;
  /** The command that rewrites the baseline, named when an entry is stale. */
  rewrite?: string;
  /** Rows of the findings table before the rest are counted instead (default 200). */
  maxRows?: number;
  /** The mcp-wire command the heading names (default `check`). */
  command?: string;
}

const SEVERITY_WORDS = { error: "error", warning: "warning", info: "info" } as const;

export function renderMarkdown(input: CheckReport, rules: readonly CheckRule[], options: MarkdownOptions = {}): string {
  const report = redactSecrets(input);
  const failOn = options.failOn ?? "error";
  const maxRows = options.maxRows ?? 200;
  // failing first, then by severity, as a person fixes them
  const sorted = mostUrgentFirst(report.findings, failOn);
  return [
    "<!-- generator: mcp-wire -->",
    "",
    `## mcp-wire ${options.command ?? "check"}: ${text(report.target)}`,
    "",
    ...verdict(report, failOn),
    ...stdioEnd(report.stdio),
    ...callTable(report.calls ?? [], maxRows),
    ...revisionTable(report),
    ...findingTable(sorted, failOn, maxRows),
    ...whatToFix(sorted, new RuleBook(rules), maxRows),
    ...staleEntries(report.stale, options.rewrite, maxRows),
  ].join("\n");
}

/** The verdict in a line, then the counts. */
function verdict(report: CheckReport, failOn: FailOn): string[] {
  const fails = splitFailing(report.findings, failOn).fails.length;
  const accepted = report.findings.filter((f) => f.accepted).length;
  const c = report.counts;
  const tally = `${c.error} ${c.error === 1 ? "error" : "errors"}, ${c.warning} ${c.warning === 1 ? "warning" : "warnings"}, ${c.info} info`;
  let line: string;
  if (report.unchecked)
    line = `**Not checked:** ${text(report.unchecked.message)} (${code(report.unchecked.class)}, ${code(report.unchecked.detail)})`;
  else if (fails > 0 || report.stale.length > 0) {
    const why = [
      ...(fails > 0 ? [`${fails} ${fails === 1 ? "finding fails" : "findings fail"} it (--fail-on ${failOn})`] : []),
      ...(report.stale.length > 0
        ? [`${report.stale.length} stale baseline ${report.stale.length === 1 ? "entry" : "entries"}`]
        : []),
    ];
    line = `**Failed:** ${why.join("; ")}.`;
  } else line = `**Passed** (--fail-on ${failOn}).`;
  return [
    line,
    "",
    `${tally}${accepted > 0 ? ` (${accepted} accepted by the baseline)` : ""}; ${report.checked.messages} messages checked, ${report.checked.pages} pages listed, in ${seconds(report.elapsedMs)}.`,
    "",
  ];
}

/** How a stdio server ended, and its stderr's last lines as they are. */
function stdioEnd(end: StdioEnd | null | undefined): string[] {
  if (!end) return [];
  const tail = end.stderrTail;
  const said = [`${text(endWords(end))}${tail ? "; its stderr ends:" : "; it wrote nothing to stderr."}`, ""];
  if (!tail) return said;
  // a fenced block shows its text as it is, with no markup: the fence outruns any backticks in it
  const shown = tail
    .replace(/\r/g, "")
    .split("\n")
    .map((l) => printable(l))
    .join("\n");
  const fence = "`".repeat(Math.max(3, ...(shown.match(/`+/g) ?? []).map((t) => t.length + 1)));
  return [...said, fence, shown, fence, ""];
}

function callTable(calls: readonly CallReport[], maxRows: number): string[] {
  if (calls.length === 0) return [];
  return [
    "| asked | revision | outcome |",
    "| --- | --- | --- |",
    ...calls
      .slice(0, maxRows)
      .map((c) => `| ${code(`--${c.kind}`)} ${text(c.name)} | ${code(c.revision)} | ${text(c.outcome)} |`),
    "",
  ];
}

function revisionTable(report: CheckReport): string[] {
  const revisions = Object.entries(report.revisions);
  if (revisions.length === 0) return [];
  return [
    "| revision | outcome |",
    "| --- | --- |",
    ...revisions.map(([r, o]) => `| ${code(r)} | ${text(String(o))} |`),
    "",
  ];
}

function mostUrgentFirst(findings: readonly Finding[], failOn: FailOn): Finding[] {
  const rank = (f: Finding) => (failing(f, failOn) ? 0 : 3) + SEVERITY_RANK.error - SEVERITY_RANK[f.severity];
  return [...findings].sort((a, b) => rank(a) - rank(b));
}

/** A row per finding, up to `maxRows`. */
function findingTable(sorted: readonly Finding[], failOn: FailOn, maxRows: number): string[] {
  if (sorted.length === 0) return [];
  const rows = sorted.slice(0, maxRows).map((f) => {
    const mark = f.accepted
      ? `${SEVERITY_WORDS[f.severity]}, accepted`
      : failing(f, failOn)
        ? `**${SEVERITY_WORDS[f.severity]}**`
        : SEVERITY_WORDS[f.severity];
    return `| ${mark} | ${code(f.id)} | ${f.revisions.map(code).join(", ")} | ${text(f.subject)} | ${f.path ? text(f.path) : ""} | ${text(f.message)} |`;
  });
  return [
    "### Findings",
    "",
    "| | check | revisions | subject | path | message |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    ...(sorted.length > maxRows
      ? [
          "",
          `${sorted.length - maxRows} more findings are not shown here: the --json and --sarif outputs have them all.`,
        ]
      : []),
    "",
  ];
}

/** Each check that found something, once, in the order of its most urgent finding. */
function whatToFix(sorted: readonly Finding[], book: RuleBook, maxRows: number): string[] {
  if (sorted.length === 0) return [];
  const byId = new Map<string, Finding>();
  for (const f of sorted) if (!byId.has(f.id)) byId.set(f.id, f);
  const firsts = [...byId.values()];
  const items = firsts.slice(0, maxRows).map((first) => {
    const rule = book.of(first);
    const title = book.known(first.id)?.title;
    const breaks = rule.breaks ?? first.breaks;
    return `- ${code(first.id)}${title !== undefined ? ` — ${text(title)}` : ""}: ${text(rule.fix)}${breaks.length > 0 ? ` Known to break ${breaks.map(code).join(", ")}.` : ""} ${link(rule.spec)}`;
  });
  return [
    "### What to fix",
    "",
    ...items,
    ...(firsts.length > maxRows ? [`- … and ${firsts.length - maxRows} more checks.`] : []),
    "",
  ];
}

function staleEntries(stale: readonly BaselineKey[], rewrite: string | undefined, maxRows: number): string[] {
  if (stale.length === 0) return [];
  return [
    "### Stale baseline entries",
    "",
    rewrite
      ? `These entries no longer occur. Rewrite the baseline with ${code(rewrite)}, so it only shrinks.`
      : "These entries no longer occur: remove them from the baseline file, so it only shrinks.",
    "",
    ...stale.slice(0, maxRows).map((s) => `- ${text(keyWords(s))}`),
    ...(stale.length > maxRows ? [`- … and ${stale.length - maxRows} more.`] : []),
    "",
  ];
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Text from anywhere, shown as itself by every renderer: each character that Markdown, a table or
 * HTML could read as syntax becomes a numeric character reference (a backslash escape is not
 * enough: renderers disagree on `\\|` in a table), so nothing a server sent can split a cell or
 * make a link, an image or markup; a line break cannot end a table row.
 */
export function text(value: string): string {
  return printable(value.replace(/[\r\n]+/g, " ")).replace(
    /[\\`*_{}[\]()#+\-.!|~:<>&"'=^$@]/g,
    (c) => `&#${c.charCodeAt(0)};`,
  );
}

/** A code span for mcp-wire's own words (ids, revisions, commands), never for a server's: no table cell holds one with a pipe. */
export function code(value: string): string {
  const v = value.replace(/[\r\n]+/g, " ");
  const ticks = Math.max(0, ...(v.match(/`+/g) ?? []).map((t) => t.length)) + 1;
  const fence = "`".repeat(ticks);
  const pad = v.startsWith("`") || v.endsWith("`") || v === "" ? " " : "";
  return `${fence}${pad}${v}${pad}${fence}`;
}

/** A specification link; anything but http(s) is shown as text. */
function link(url: string): string {
  return /^https?:\/\/[^\s<>()]+$/.test(url) ? `([spec](${url}))` : `(spec: ${text(url)})`;
}
