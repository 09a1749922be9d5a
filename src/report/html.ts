/**
 * `report --html FILE`: one self-contained page. Styles, script and charts are inline and its
 * Content-Security-Policy allows nothing else (no network, no other script, no fonts), so it
 * reads the same offline, years later, as an attachment. Everything from the data is escaped.
 */
import { createHash } from "node:crypto";
import type { Aggregates } from "../census/store.js";
import { colourOf, latencyChart, revisionsChart, runsChart, swatch } from "./charts.js";
import { esc } from "./escape.js";
import { PAGE_CSS, PAGE_SCRIPT } from "./page-assets.js";
import { heading, history, paragraphs } from "./story.js";
import { classRows, errorCodeRows, revisionRows } from "./tables.js";
import { CLASSES } from "./vocabulary.js";
import { digits, duration, moment, share } from "./words.js";

export interface HtmlOptions {
  /** When the page was made (default: now). */
  generatedAt?: Date;
}

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function hash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

export function renderHtml(agg: Aggregates, options: HtmlOptions = {}): string {
  const title = heading(agg);
  const csp = [
    "default-src 'none'",
    `style-src ${hash(PAGE_CSS)}`,
    `script-src ${hash(PAGE_SCRIPT)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const generated = moment((options.generatedAt ?? new Date()).toISOString());
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
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
${agg.attempts === 0 ? "" : body(agg)}
<footer>Made by mcp-wire report on ${esc(generated)}. This page loads nothing from anywhere; its charts are drawn inline.</footer>
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function story(agg: Aggregates): string {
  return paragraphs(agg)
    .map((p) => `<p>${esc(p.join(" "))}</p>`)
    .join("");
}

function body(agg: Aggregates): string {
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
    classTable(classes, agg.attempts),
    revisionTable(agg),
    errorTable(agg),
    targetTable(agg),
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
  return sameDay ? `${date} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}` : date;
}

function runsFigure(agg: Aggregates): string {
  const days = new Set(agg.runs.map((r) => r.startedAt.slice(0, 10)));
  const repeatDays = days.size < agg.runs.length;
  const columns = [...agg.runs]
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id - b.id)
    .map((r) => ({
      id: r.id,
      label: runLabel(r.startedAt, repeatDays),
      classes: agg.classesPerRun.filter((c) => c.runId === r.id).map((c) => ({ class: c.class, count: c.count })),
    }));
  const seen = new Set(agg.classesPerRun.map((c) => c.class));
  const legend = [...CLASSES.filter((c) => seen.has(c)), ...[...seen].filter((c) => !(CLASSES as readonly string[]).includes(c))]
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
        `<tr><td>${swatch(colourOf(r.class))}<span class="class">${esc(r.class)}</span></td><td>${esc(r.words)}</td><td class="num">${esc(digits(r.count))}</td><td class="num">${esc(r.share)}</td><td class="muted">${esc(
          r.details.map((d) => `${d.detail} ${digits(d.count)}`).join(", "),
        )}</td></tr>`,
    )
    .join("");
  return `<h2>Classes</h2><table class="small" id="classes"><thead><tr><th>class</th><th>in plain words</th><th class="num">attempts</th><th class="num">share</th><th>details</th></tr></thead><tbody>${body}</tbody><tfoot><tr><td></td><td>all</td><td class="num">${esc(digits(total))}</td><td></td><td></td></tr></tfoot></table>`;
}

function revisionTable(agg: Aggregates): string {
  const rows = revisionRows(agg);
  if (rows.length === 0) return "";
  const body = rows.map((r) => `<tr><td>${esc(r.revision ?? "unknown")}</td><td>${esc(r.era ?? "")}</td><td class="num">${esc(digits(r.count))}</td><td class="num">${esc(r.share)}</td></tr>`).join("");
  return `<h2>Revisions spoken</h2><table class="small" id="revisions"><thead><tr><th>revision</th><th>era</th><th class="num">answered</th><th class="num">share</th></tr></thead><tbody>${body}</tbody></table>`;
}

function errorTable(agg: Aggregates): string {
  const rows = errorCodeRows(agg);
  if (rows.length === 0) return "";
  const body = rows
    .map(
      (r) =>
        `<tr><td><code>${esc(r.code)}</code></td><td>${esc(r.range)}</td><td>${esc(r.name)}</td><td class="num">${esc(digits(r.count))}</td><td>${esc(r.verdicts.join(", "))}</td><td>${r.messages
          .slice(0, 5)
          .map((m) => `<code>${esc(JSON.stringify(m.length > 120 ? `${m.slice(0, 119)}…` : m))}</code>`)
          .join("<br>")}</td></tr>`,
    )
    .join("");
  return `<h2>JSON-RPC error codes seen</h2><table id="errors"><thead><tr><th>code</th><th>range</th><th>name</th><th class="num">count</th><th>verdicts</th><th>messages</th></tr></thead><tbody>${body}</tbody></table>`;
}

function targetTable(agg: Aggregates): string {
  const rank = (cls: string) => (cls === "ok" ? CLASSES.length + 1 : Math.max(0, (CLASSES as readonly string[]).indexOf(cls)));
  const targets = [...agg.perTarget].sort((a, b) => rank(a.latest.class) - rank(b.latest.class) || a.latest.detail.localeCompare(b.latest.detail) || a.target.localeCompare(b.target));
  // a history column only when there is a history to tell
  const histories = targets.some((t) => t.attempts > 1);
  const rows = targets
    .map((t) => {
      const l = t.latest;
      const spoken = l.era ? `${l.era}${l.revision ? ` ${l.revision}` : ""}` : "";
      return (
        `<tr>` +
        `<td class="target" data-sort="${esc(t.target)}">${esc(t.target)}${t.name ? `<span class="name">${esc(t.name)}</span>` : ""}</td>` +
        `<td data-sort="${esc(`${l.class} ${l.detail}`)}">${swatch(colourOf(l.class))}<span class="class">${esc(l.class)}</span><span class="detail">${esc(l.detail)}</span></td>` +
        `<td class="nowrap">${esc(spoken)}</td>` +
        `<td class="num" data-sort="${l.tools ?? ""}">${l.tools === null ? "" : esc(digits(l.tools))}</td>` +
        `<td class="num" data-sort="${l.elapsedMs}">${esc(digits(Math.round(l.elapsedMs)))}</td>` +
        `<td class="num" data-sort="${t.attempts}">${esc(digits(t.attempts))}</td>` +
        (histories ? `<td class="history">${t.attempts > 1 ? esc(history(t)) : ""}</td>` : "") +
        `<td class="nowrap" data-sort="${esc(l.at)}">${esc(shortMoment(l.at))}</td>` +
        `<td class="advice">${esc(l.advice ?? "")}</td>` +
        `</tr>`
      );
    })
    .join("");
  const head = [
    ["target", ""],
    ["latest verdict", ""],
    ["era, revision", ""],
    ["tools", "number"],
    ["time (ms)", "number"],
    ["attempts", "number"],
    ...(histories ? [["history", ""]] : []),
    ["latest at", ""],
    ["advice", ""],
  ]
    .map(([label, type]) => `<th${type ? ` data-type="${type}" class="num"` : ""}><button type="button">${esc(label)}</button></th>`)
    .join("");
  return (
    `<h2>Targets</h2>` +
    `<div class="tools"><input id="filter" type="search" placeholder="Filter targets, verdicts, advice…" aria-label="Filter the targets"><span id="shown" class="muted"></span><span class="muted">Click a column's name to sort by it.</span></div>` +
    `<table id="targets"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`
  );
}
