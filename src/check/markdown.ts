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
import { failing } from "./fail-on.js";
import { endWords } from "./stdio-end.js";
import type { CheckReport, CheckRule, FailOn, Finding } from "./types.js";

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
  const byId = new Map(rules.map((r) => [r.id, r]));
  const fails = report.findings.filter((f) => failing(f, failOn));
  const accepted = report.findings.filter((f) => f.accepted);
  const out: string[] = [
    "<!-- generator: mcp-wire -->",
    "",
    `## mcp-wire ${options.command ?? "check"}: ${text(report.target)}`,
    "",
  ];

  const c = report.counts;
  const tally = `${c.error} ${c.error === 1 ? "error" : "errors"}, ${c.warning} ${c.warning === 1 ? "warning" : "warnings"}, ${c.info} info`;
  let verdict: string;
  if (report.unchecked)
    verdict = `**Not checked:** ${text(report.unchecked.message)} (${code(report.unchecked.class)}, ${code(report.unchecked.detail)})`;
  else if (fails.length > 0 || report.stale.length > 0) {
    const why = [
      ...(fails.length > 0
        ? [`${fails.length} ${fails.length === 1 ? "finding fails" : "findings fail"} it (--fail-on ${failOn})`]
        : []),
      ...(report.stale.length > 0
        ? [`${report.stale.length} stale baseline ${report.stale.length === 1 ? "entry" : "entries"}`]
        : []),
    ];
    verdict = `**Failed:** ${why.join("; ")}.`;
  } else verdict = `**Passed** (--fail-on ${failOn}).`;
  out.push(
    verdict,
    "",
    `${tally}${accepted.length > 0 ? ` (${accepted.length} accepted by the baseline)` : ""}; ${report.checked.messages} messages checked, ${report.checked.pages} pages listed, in ${seconds(report.elapsedMs)}.`,
    "",
  );

  if (report.stdio) {
    const tail = report.stdio.stderrTail;
    out.push(`${text(endWords(report.stdio))}${tail ? "; its stderr ends:" : "; it wrote nothing to stderr."}`, "");
    if (tail) {
      // a fenced block shows its text as it is, with no markup: the fence outruns any backticks in it
      const shown = tail
        .replace(/\r/g, "")
        .split("\n")
        .map((l) => printable(l))
        .join("\n");
      const fence = "`".repeat(Math.max(3, ...(shown.match(/`+/g) ?? []).map((t) => t.length + 1)));
      out.push(fence, shown, fence, "");
    }
  }
  if (report.calls && report.calls.length > 0) {
    out.push("| asked | revision | outcome |", "| --- | --- | --- |");
    for (const c of report.calls.slice(0, maxRows))
      out.push(`| ${code(`--${c.kind}`)} ${text(c.name)} | ${code(c.revision)} | ${text(c.outcome)} |`);
    out.push("");
  }

  const revisions = Object.entries(report.revisions);
  if (revisions.length > 0) {
    out.push(
      "| revision | outcome |",
      "| --- | --- |",
      ...revisions.map(([r, o]) => `| ${code(r)} | ${text(String(o))} |`),
      "",
    );
  }

  if (report.findings.length > 0) {
    // failing first, then by severity, as a person fixes them
    const rank = (f: Finding) =>
      (failing(f, failOn) ? 0 : 3) + (f.severity === "error" ? 0 : f.severity === "warning" ? 1 : 2);
    const sorted = [...report.findings].sort((a, b) => rank(a) - rank(b));
    out.push(
      "### Findings",
      "",
      "| | check | revisions | subject | path | message |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const f of sorted.slice(0, maxRows)) {
      const mark = f.accepted
        ? `${SEVERITY_WORDS[f.severity]}, accepted`
        : failing(f, failOn)
          ? `**${SEVERITY_WORDS[f.severity]}**`
          : SEVERITY_WORDS[f.severity];
      out.push(
        `| ${mark} | ${code(f.id)} | ${f.revisions.map(code).join(", ")} | ${text(f.subject)} | ${f.path ? text(f.path) : ""} | ${text(f.message)} |`,
      );
    }
    if (sorted.length > maxRows)
      out.push(
        "",
        `${sorted.length - maxRows} more findings are not shown here: the --json and --sarif outputs have them all.`,
      );
    out.push("");

    const ids = [...new Set(sorted.map((f) => f.id))];
    out.push("### What to fix", "");
    for (const id of ids.slice(0, maxRows)) {
      const rule = byId.get(id);
      const first = sorted.find((f) => f.id === id)!;
      const breaks = rule?.breaks ?? first.breaks;
      out.push(
        `- ${code(id)}${rule ? ` — ${text(rule.title)}` : ""}: ${text(rule?.fix ?? first.fix)}${breaks.length > 0 ? ` Known to break ${breaks.map(code).join(", ")}.` : ""} ${link(rule?.spec ?? first.spec)}`,
      );
    }
    if (ids.length > maxRows) out.push(`- … and ${ids.length - maxRows} more checks.`);
    out.push("");
  }

  if (report.stale.length > 0) {
    out.push(
      "### Stale baseline entries",
      "",
      options.rewrite
        ? `These entries no longer occur. Rewrite the baseline with ${code(options.rewrite)}, so it only shrinks.`
        : "These entries no longer occur: remove them from the baseline file, so it only shrinks.",
      "",
    );
    for (const s of report.stale.slice(0, maxRows)) out.push(`- ${text(keyWords(s))}`);
    if (report.stale.length > maxRows) out.push(`- … and ${report.stale.length - maxRows} more.`);
    out.push("");
  }
  return out.join("\n");
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
