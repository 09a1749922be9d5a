/**
 * `report --html FILE`: one self-contained page. Styles, script and charts are inline and its
 * Content-Security-Policy allows nothing else (no network, no other script, no fonts), so it
 * reads the same offline, years later, as an attachment. Everything from the data is escaped.
 */
import { createHash } from "node:crypto";
import type { Aggregates, TargetSummary } from "../census/store.js";
import { Bounded } from "./bounded.js";
import { colourOf, latencyChart, revisionsChart, runsChart, swatch } from "./charts.js";
import { esc } from "./escape.js";
import { PAGE_CSS, PAGE_SCRIPT } from "./page-assets.js";
import { chainOf, signinSection, type Chain } from "./signin.js";
import { heading, history, paragraphs } from "./story.js";
import { classRows, errorCodeRows, revisionRows } from "./tables.js";
import { CLASSES, PROTOCOL_ERROR_CLASSES, detailNoun } from "./vocabulary.js";
import { DEFECTS } from "../codec/defects.js";
import { NOT_CLEANLY } from "../probe/advice.js";
import { digits, duration, moment, noun, share } from "./words.js";

export interface HtmlOptions {
  /** When the page was made (default: now). */
  generatedAt?: Date;
  /** Rows each per-target section keeps before it only counts the rest (default MAX_TARGET_ROWS). */
  maxTargets?: number;
}

/** Rows per per-target section: enough to read and search, few enough for any browser. */
export const MAX_TARGET_ROWS = 1000;

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function hash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** The whole page at once, from aggregates that carry every target (`perTarget`). */
export function renderHtml(agg: Aggregates, options: HtmlOptions = {}): string {
  const sections = new TargetSections(options.maxTargets ?? MAX_TARGET_ROWS);
  for (const t of agg.perTarget) sections.add(t);
  return pageTop(agg) + pageRest(agg, sections, options);
}

/**
 * The page in pieces, reading the targets as they stream from the store (`Store.perTarget`):
 * the summary (story, figures, charts, tables) is whole, the per-target sections keep the first
 * `maxTargets` of each kind and say how many more there are, so memory and the page stay bounded
 * however large the census.
 */
export async function* renderHtmlStream(
  agg: Aggregates,
  targets: AsyncIterable<TargetSummary> | Iterable<TargetSummary>,
  options: HtmlOptions = {},
): AsyncGenerator<string> {
  yield pageTop(agg);
  const sections = new TargetSections(options.maxTargets ?? MAX_TARGET_ROWS);
  for await (const t of targets) sections.add(t);
  yield pageRest(agg, sections, options);
}

function pageTop(agg: Aggregates): string {
  const title = heading(agg);
  const csp = [
    "default-src 'none'",
    `style-src ${hash(PAGE_CSS)}`,
    `script-src ${hash(PAGE_SCRIPT)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="mcp-wire">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(`mcp-wire report: ${title}`)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>What the servers speak</h1><p>${esc(title)}</p></header>
<main>
<section class="story">${story(agg)}</section>
${agg.attempts === 0 ? "" : bodyTop(agg)}`;
}

function pageRest(agg: Aggregates, sections: TargetSections, options: HtmlOptions): string {
  const generated = moment((options.generatedAt ?? new Date()).toISOString());
  return `${agg.attempts === 0 ? "" : bodyRest(agg, sections)}
<footer>Made by mcp-wire report on ${esc(generated)}. This page loads nothing from anywhere; its charts are drawn inline.</footer>
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * What the page shows per target, kept within bounds as the targets pass: the first of each
 * kind in the order the page lists them, and how many of each there were.
 */
class TargetSections {
  /** Targets whose latest answer was not clean, the worst first. */
  readonly problems: Bounded<TargetSummary>;
  /** Targets that answered cleanly every time, by address. */
  readonly healthy: Bounded<TargetSummary>;
  healthyMoreThanOnce = false;
  /** Per protocol-error kind, the targets whose latest answer was of it. */
  readonly defectTargets = new Map<string, Bounded<string>>();
  readonly chains: Bounded<Chain>;

  constructor(readonly cap: number) {
    this.problems = new Bounded(cap, problemOrder);
    this.healthy = new Bounded(cap, (a, b) => a.target.localeCompare(b.target));
    this.chains = new Bounded(cap, (a, b) => a.target.localeCompare(b.target));
  }

  add(t: TargetSummary): void {
    if (healthy(t)) {
      this.healthy.add(t);
      if (t.attempts > 1) this.healthyMoreThanOnce = true;
    } else this.problems.add(t);
    if (PROTOCOL_ERROR_CLASSES.includes(t.latest.class)) {
      let kind = this.defectTargets.get(t.latest.detail);
      if (!kind) this.defectTargets.set(t.latest.detail, (kind = new Bounded(this.cap, (a, b) => a.localeCompare(b))));
      kind.add(t.target);
    }
    const chain = chainOf(t);
    if (chain) this.chains.add(chain);
  }
}

const rank = (cls: string) =>
  cls === "ok" ? CLASSES.length + 1 : Math.max(0, (CLASSES as readonly string[]).indexOf(cls));

function problemOrder(a: TargetSummary, b: TargetSummary): number {
  return (
    rank(a.latest.class) - rank(b.latest.class) ||
    a.latest.detail.localeCompare(b.latest.detail) ||
    a.target.localeCompare(b.target)
  );
}

/** The story; a paragraph that counts protocol errors points at the list of them, when there is one. */
function story(agg: Aggregates): string {
  const listed = hasDefectsSection(agg);
  return paragraphs(agg)
    .map((p) => {
      const text = p.join(" ");
      const points = listed && /protocol error/.test(text);
      return `<p>${esc(text)}${points ? ` <a class="see" href="#defects">Which servers, by kind</a>` : ""}</p>`;
    })
    .join("");
}

function bodyTop(agg: Aggregates): string {
  const classes = classRows(agg);
  const ok = classes.find((c) => c.class === "ok")?.count ?? 0;
  const figures = [
    [digits(agg.attempts), agg.attempts === 1 ? "attempt" : "attempts"],
    [digits(agg.targets), agg.targets === 1 ? "target" : "targets"],
    [share(ok, agg.attempts), "answered with their tools"],
    [digits(agg.runs.length), agg.runs.length === 1 ? "run" : "runs"],
  ];
  return [
    `<div class="figures">${figures.map(([n, what]) => `<div class="figure"><b>${esc(n)}</b><span>${esc(what)}</span></div>`).join("")}</div>`,
    `<h2>Charts</h2><div class="charts">${runsFigure(agg)}${revisionsFigure(agg)}${latencyFigure(agg)}</div>`,
    "",
  ].join("\n");
}

function bodyRest(agg: Aggregates, sections: TargetSections): string {
  return [
    signinSection(agg, sections.chains.items, sections.chains.left),
    classTable(classRows(agg), agg.attempts),
    revisionTable(agg),
    errorTable(agg),
    defectsSection(agg, sections),
    targetTable(agg, sections),
  ].join("\n");
}

/** "20 Aug 2026 09:00", for a table cell. */
function shortMoment(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${runLabel(iso, false)} ${d.getUTCFullYear()} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
}

function runLabel(iso: string, sameDay: boolean): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = `${d.getUTCDate()} ${SHORT_MONTHS[d.getUTCMonth()]}`;
  return sameDay
    ? `${date} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`
    : date;
}

/**
 * A label for each run that no other run shares: the day; the time to the minute when a day
 * holds several runs; the second when a minute does; the run's number when even that repeats.
 */
export function runLabels(runs: readonly { id: number; startedAt: string }[]): Map<number, string> {
  const unique = (label: (r: { id: number; startedAt: string }) => string) =>
    new Set(runs.map(label)).size === runs.length;
  const day = (r: { startedAt: string }) => runLabel(r.startedAt, false);
  const minute = (r: { startedAt: string }) => runLabel(r.startedAt, true);
  const second = (r: { startedAt: string }) =>
    `${minute(r)}:${String(new Date(r.startedAt).getUTCSeconds()).padStart(2, "0")}`;
  const numbered = (r: { id: number; startedAt: string }) => `${second(r)} #${r.id}`;
  const pick = [day, minute, second].find((f) => unique(f)) ?? numbered;
  return new Map(runs.map((r) => [r.id, pick(r)]));
}

function runsFigure(agg: Aggregates): string {
  const labels = runLabels(agg.runs);
  const columns = [...agg.runs]
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id - b.id)
    .map((r) => ({
      id: r.id,
      label: labels.get(r.id)!,
      classes: agg.classesPerRun.filter((c) => c.runId === r.id).map((c) => ({ class: c.class, count: c.count })),
    }));
  const seen = new Set(agg.classesPerRun.map((c) => c.class));
  const legend = [
    ...CLASSES.filter((c) => seen.has(c)),
    ...[...seen].filter((c) => !(CLASSES as readonly string[]).includes(c)),
  ]
    .map((c) => `<li>${swatch(colourOf(c))}${esc(c)}</li>`)
    .join("");
  return `<figure id="chart-runs"><figcaption>Classes per run over time</figcaption>${runsChart(columns, CLASSES)}<ul class="legend">${legend}</ul></figure>`;
}

function revisionsFigure(agg: Aggregates): string {
  const rows = revisionRows(agg).map((r) => ({ label: r.spoken, count: r.count, modern: r.era === "modern" }));
  return `<figure id="chart-revisions"><figcaption>Revisions spoken by the servers that answered</figcaption>${revisionsChart(rows)}</figure>`;
}

function latencyFigure(agg: Aggregates): string {
  let previous = 0;
  const buckets = agg.latency.map((b) => {
    const label = b.upToMs === null ? `> ${duration(previous)}` : `≤ ${duration(b.upToMs)}`;
    if (b.upToMs !== null) previous = b.upToMs;
    return { label, count: b.count };
  });
  return `<figure id="chart-latency"><figcaption>Time to a verdict</figcaption>${latencyChart(buckets)}</figure>`;
}

function classTable(rows: ReturnType<typeof classRows>, total: number): string {
  const body = rows
    .map(
      (r) =>
        `<tr><td>${swatch(colourOf(r.class))}<span class="class">${esc(r.class)}</span></td><td>${esc(r.words)}</td><td class="num" data-label="attempts">${esc(digits(r.count))}</td><td class="num" data-label="share">${esc(r.share)}</td><td class="muted" data-label="details">${esc(
          r.details.map((d) => `${d.detail} ${digits(d.count)}`).join(", "),
        )}</td></tr>`,
    )
    .join("");
  return `<h2>Classes</h2><table class="small cards" id="classes"><thead><tr><th>class</th><th>in plain words</th><th class="num">attempts</th><th class="num">share</th><th>details</th></tr></thead><tbody>${body}</tbody><tfoot><tr><td></td><td>all</td><td class="num">${esc(digits(total))}</td><td></td><td></td></tr></tfoot></table>`;
}

function revisionTable(agg: Aggregates): string {
  const rows = revisionRows(agg);
  if (rows.length === 0) return "";
  const body = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.revision ?? "unknown")}</td><td data-label="era">${esc(r.era ?? "")}</td><td class="num" data-label="answered">${esc(digits(r.count))}</td><td class="num" data-label="share">${esc(r.share)}</td></tr>`,
    )
    .join("");
  return `<h2>Revisions spoken</h2><table class="small cards" id="revisions"><thead><tr><th>revision</th><th>era</th><th class="num">answered</th><th class="num">share</th></tr></thead><tbody>${body}</tbody></table>`;
}

function errorTable(agg: Aggregates): string {
  const rows = errorCodeRows(agg);
  if (rows.length === 0) return "";
  const body = rows
    .map(
      (r) =>
        `<tr><td><code>${esc(r.code)}</code></td><td data-label="range">${esc(r.range)}</td><td data-label="name">${esc(r.name)}</td><td class="num" data-label="count">${esc(digits(r.count))}</td><td data-label="verdicts">${esc(r.verdicts.join(", "))}</td><td class="messages">${r.messages
          .slice(0, 5)
          .map((m) => `<code>${esc(JSON.stringify(m.length > 120 ? `${m.slice(0, 119)}…` : m))}</code>`)
          .join("<br>")}</td></tr>`,
    )
    .join("");
  return `<h2>JSON-RPC error codes seen</h2><table class="cards" id="errors"><thead><tr><th>code</th><th>range</th><th>name</th><th class="num">count</th><th>verdicts</th><th>messages</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** Every attempt answered with tools, cleanly: one collapsed group instead of a row each. */
function healthy(t: TargetSummary): boolean {
  return (
    t.latest.class === "ok" && (t.classes.ok ?? 0) === t.attempts && !(t.latest.advice ?? "").includes(NOT_CLEANLY)
  );
}

/**
 * A URL with a place to break after each `/`, `?`, `&`, `.`, `=` and `-`, so a long one wraps
 * between its parts rather than mid-word, and within a part only when it is very long (a key).
 */
export function breakableUrl(url: string): string {
  return url
    .split(/(?<=[/?&.=#-])(?!\/)/)
    .map((part) => (part.match(/.{1,24}/gsu) ?? [part]).map(esc).join("<wbr>"))
    .join("<wbr>");
}

/** A code such as `rpc_error_instead_of_401`, with a place to break after each underscore. */
function breakable(code: string): string {
  return code
    .split(/(?<=_)/)
    .map(esc)
    .join("<wbr>");
}

/**
 * A long text as its first sentence, with the rest a click away. Only a full stop ends a
 * sentence: a colon introduces what follows, and the summary must not leave it hanging.
 */
export function collapsed(text: string, link = false): string {
  const html = (t: string) => (link ? linkDefects(esc(t)) : esc(t));
  const cut = /^(.{20,160}?\.)\s+(.{40,})$/s.exec(text);
  if (!cut) return html(text);
  return `<details><summary>${html(cut[1]!)}</summary>${html(cut[2]!)}</details>`;
}

/** "see the defects" in advice points at the list of them. */
function linkDefects(escaped: string): string {
  return escaped.replace(/see the defects/g, `<a href="#defects">see the defects</a>`);
}

/** What the protocol-error sentences count: each kind, with how many attempts were of it. */
function defectKinds(agg: Aggregates): { detail: string; count: number }[] {
  const rows = new Map<string, { detail: string; count: number }>();
  for (const c of agg.classes) {
    if (!PROTOCOL_ERROR_CLASSES.includes(c.class) || c.count <= 0) continue;
    const row = rows.get(c.detail) ?? { detail: c.detail, count: 0 };
    row.count += c.count;
    rows.set(c.detail, row);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count || a.detail.localeCompare(b.detail));
}

/** Each kind listed with the servers whose latest answer was of that kind, and the defect codes recorded in any answer. */
/** The defect codes recorded in the answers, each seen at least once. */
function recordedDefects(agg: Aggregates): Aggregates["defects"] {
  return agg.defects.filter((d) => d.count > 0);
}

/** Whether the page has a list of protocol errors and defects: never a heading over nothing. */
function hasDefectsSection(agg: Aggregates): boolean {
  return defectKinds(agg).length > 0 || recordedDefects(agg).length > 0;
}

function defectsSection(agg: Aggregates, sections: TargetSections): string {
  if (!hasDefectsSection(agg)) return "";
  const rows = defectKinds(agg);
  const kinds = rows
    .map((r, i) => {
      const targets = sections.defectTargets.get(r.detail);
      return (
        `<tr id="defect-${i + 1}"><td><span class="class">${esc(r.detail)}</span><span class="detail">${esc(noun(r.count, ...detailNoun(r.detail)))}</span></td>` +
        `<td class="num" data-label="attempts">${esc(digits(r.count))}</td>` +
        `<td class="url" data-label="latest at">${!targets || targets.items.length === 0 ? `<span class="muted">none in its latest answer</span>` : list(targets.items, targets.left)}</td></tr>`
      );
    })
    .join("");
  const codes = recordedDefects(agg)
    .map((d) => {
      const severity = (DEFECTS as Record<string, { severity: string } | undefined>)[d.code]?.severity ?? "";
      return `<tr><td><code>${esc(d.code)}</code></td><td data-label="severity">${esc(severity)}</td><td class="num" data-label="times">${esc(digits(d.count))}</td></tr>`;
    })
    .join("");
  return (
    `<h2 id="defects">Protocol errors and defects</h2>` +
    (kinds
      ? `<table class="cards" id="defect-kinds"><thead><tr><th>kind</th><th class="num">attempts</th><th>servers whose latest answer was this</th></tr></thead><tbody>${kinds}</tbody></table>`
      : "") +
    (codes
      ? `<h3>Defects recorded in the answers</h3><table class="small cards" id="defect-codes"><thead><tr><th>defect</th><th>severity</th><th class="num">times</th></tr></thead><tbody>${codes}</tbody></table>`
      : "")
  );
}

/** Up to a dozen URLs, then the rest a click away, then how many more the page leaves out. */
function list(urls: readonly string[], left: number): string {
  const items = (xs: readonly string[]) => xs.map((u) => `<li>${breakableUrl(u)}</li>`).join("");
  const more = left > 0 ? `<p class="muted">${esc(`and ${digits(left)} more not listed here`)}</p>` : "";
  if (urls.length <= 12) return `<ul class="urls">${items(urls)}</ul>${more}`;
  return `<ul class="urls">${items(urls.slice(0, 12))}</ul><details><summary>${esc(digits(urls.length - 12 + left))} more</summary><ul class="urls">${items(urls.slice(12))}</ul>${more}</details>`;
}

/**
 * The targets: those whose latest answer was not clean in a sortable table, the worst first; the
 * clean ones folded into one group. Each keeps its first `cap` and says how many it leaves out.
 */
/** The problem table's optional columns: each shown only when some row has something in it. */
interface Columns {
  readonly eras: boolean;
  readonly tools: boolean;
  readonly histories: boolean;
  readonly times: boolean;
}

function targetTable(agg: Aggregates, sections: TargetSections): string {
  const targets = sections.problems.items;
  // a history column only when there is a history to tell, a time only when runs differ in it;
  // columns every row would leave empty are left out, so the rest have room
  const columns: Columns = {
    eras: targets.some((t) => t.latest.era !== null),
    tools: targets.some((t) => t.latest.tools !== null),
    histories: targets.some((t) => t.attempts > 1),
    times: agg.runs.length > 1,
  };
  return (
    `<h2>Targets</h2>` +
    `<div class="tools"><input id="filter" type="search" placeholder="Filter targets, verdicts, advice…" aria-label="Filter the targets"><span id="shown" class="muted"></span><span class="muted hint">Click a column's name to sort by it.</span></div>` +
    healthyGroup(sections) +
    (targets.length === 0
      ? ""
      : `<table class="cards" id="targets"><thead><tr>${problemHead(columns)}</tr></thead><tbody>${targets.map((t) => problemRow(t, columns)).join("")}</tbody></table>${leftOut(sections.problems.left, "other target", "the worst first")}`)
  );
}

/** The target's address, breakable, and its name when the targets file gave one. */
function targetCell(t: TargetSummary): string {
  return `<td class="target url" data-sort="${esc(t.target)}">${breakableUrl(t.target)}${t.name ? `<span class="name">${esc(t.name)}</span>` : ""}</td>`;
}

function problemHead(c: Columns): string {
  return [
    ["target", ""],
    ["latest verdict", ""],
    ...(c.eras ? [["era, revision", ""]] : []),
    ...(c.tools ? [["tools", "number"]] : []),
    ["time (ms)", "number"],
    ...(c.histories
      ? [
          ["attempts", "number"],
          ["history", ""],
        ]
      : []),
    ...(c.times ? [["latest at", ""]] : []),
    ["advice", ""],
  ]
    .map(
      ([label, type]) =>
        `<th${type ? ` data-type="${type}" class="num"` : ""}><button type="button">${esc(label)}</button></th>`,
    )
    .join("");
}

function problemRow(t: TargetSummary, c: Columns): string {
  const l = t.latest;
  const spoken = l.era ? `${l.era}${l.revision ? ` ${l.revision}` : ""}` : "";
  return (
    `<tr>` +
    targetCell(t) +
    `<td data-sort="${esc(`${l.class} ${l.detail}`)}">${swatch(colourOf(l.class))}<span class="class">${esc(l.class)}</span><span class="detail">${breakable(l.detail)}</span></td>` +
    (c.eras ? `<td class="nowrap" data-label="era">${esc(spoken)}</td>` : "") +
    (c.tools
      ? `<td class="num" data-sort="${l.tools ?? ""}" data-label="tools">${l.tools === null ? "" : esc(digits(l.tools))}</td>`
      : "") +
    `<td class="num" data-sort="${l.elapsedMs}" data-label="ms">${esc(digits(Math.round(l.elapsedMs)))}</td>` +
    (c.histories
      ? `<td class="num" data-sort="${t.attempts}" data-label="attempts">${esc(digits(t.attempts))}</td>` +
        `<td class="history" data-label="history">${t.attempts > 1 ? collapsed(history(t)) : ""}</td>`
      : "") +
    (c.times ? `<td class="nowrap" data-sort="${esc(l.at)}" data-label="latest">${esc(shortMoment(l.at))}</td>` : "") +
    `<td class="advice">${collapsed(l.advice ?? "", true)}</td>` +
    `</tr>`
  );
}

/** The servers that answered cleanly, folded into one group: what a reader looks past. */
function healthyGroup(sections: TargetSections): string {
  const seen = sections.healthy.seen;
  if (seen === 0) return "";
  const rows = sections.healthy.items
    .map((t) => {
      const l = t.latest;
      return (
        `<tr>${targetCell(t)}` +
        `<td class="nowrap" data-label="era">${esc(`${l.era ?? l.detail}${l.revision ? ` ${l.revision}` : ""}`)}</td>` +
        `<td class="num" data-label="tools">${l.tools === null ? "" : esc(digits(l.tools))}</td>` +
        `<td class="num" data-label="ms">${esc(digits(Math.round(l.elapsedMs)))}</td>` +
        `<td class="num" data-label="attempts">${esc(digits(t.attempts))}</td></tr>`
      );
    })
    .join("");
  return (
    `<details id="healthy"><summary>${esc(`${digits(seen)} ${noun(seen, "server")} answered cleanly and listed ${seen === 1 ? "its" : "their"} tools${sections.healthyMoreThanOnce ? " every time" : ""}`)}</summary>` +
    `<table class="cards" id="healthy-targets"><thead><tr><th>target</th><th>era, revision</th><th class="num">tools</th><th class="num">time (ms)</th><th class="num">attempts</th></tr></thead><tbody>${rows}</tbody></table>${leftOut(sections.healthy.left, "clean server", "by address")}</details>`
  );
}

/** How many rows a capped table leaves out, and where to find them all. */
function leftOut(n: number, what: string, order: string): string {
  if (n === 0) return "";
  return `<p class="left-out" id="${what === "clean server" ? "healthy-left-out" : "targets-left-out"}">${esc(
    `${digits(n)} more ${noun(n, what)} ${n === 1 ? "is" : "are"} not listed: this page keeps the first rows (${order}) so it stays small. \`mcp-wire report --csv\` lists every target; \`mcp-wire report --target URL\` tells one target's history.`,
  )}</p>`;
}
