/**
 * The pages of `report --serve`, rendered on the server: no script at all (sorting, filtering and
 * paging are links and a GET form), one stylesheet served beside them, and every string a server
 * sent passed through `esc`. The page's policy allows nothing else to run or load.
 */
import type { AuthResult } from "../../auth/types.js";
import { changeLine } from "../changes.js";
import { colourOf, swatch } from "../charts.js";
import { esc } from "../escape.js";
import { PAGE_CSS } from "../page-assets.js";
import { chainDetails } from "../signin.js";
import { counted, digits, moment } from "../words.js";
import { latencyChart } from "./latency-chart.js";
import { queryString, SORTS, type Listed, type ListQuery, type Sort } from "./listing.js";
import type { ServerDetail, ServerSummary, WindowName } from "./model.js";

export const STYLESHEET = `${PAGE_CSS}
nav.pages { display: flex; gap: 12px; align-items: center; margin: 12px 0; flex-wrap: wrap; }
form.filter { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 12px 0; }
form.filter input, form.filter select, form.filter button { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
th a { color: inherit; text-decoration: none; }
th a.on { text-decoration: underline; }
td.target a { overflow-wrap: anywhere; }
svg.timeline { width: 100%; max-width: 720px; height: 36px; display: block; }
svg.points { width: 100%; max-width: 720px; height: auto; display: block; }
.span-labels { display: flex; justify-content: space-between; max-width: 720px; font-size: 12px; color: var(--muted); }
header .class, header .detail { display: inline; margin-right: 6px; }
header h1 { overflow-wrap: anywhere; }
ul.changes, ul.steps, ul.fixes { padding-left: 1.1em; }
ul.changes li { overflow-wrap: anywhere; }
.badge-code { overflow-wrap: anywhere; }
figure.latency { border: 0; margin: 0; padding: 8px 0 0; display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 4px 8px; max-width: 720px; }
.lat-y { display: flex; flex-direction: column; justify-content: space-between; height: 160px; font-size: 12px; color: var(--muted); text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.lat-y span { line-height: 0; }
svg.lat-plot { width: 100%; height: 160px; display: block; overflow: visible; }
svg.lat-plot .grid { stroke: #d8dee4; vector-effect: non-scaling-stroke; }
svg.lat-plot .median { fill: #4263eb; }
svg.lat-plot .p95 { stroke: #1b2a78; stroke-width: 2px; vector-effect: non-scaling-stroke; }
figure.latency .span-labels, figure.latency .legend { grid-column: 2; }
.key { display: inline-block; width: 10px; height: 10px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; background: #4263eb; }
.key.p95 { width: 2px; height: 12px; border-radius: 0; background: #1b2a78; margin: 0 6px 0 4px; }
`;

const WINDOW_NAMES: readonly WindowName[] = ["24h", "7d", "30d"];

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><link rel="icon" href="/assets/icon.svg"><link rel="stylesheet" href="/assets/style.css"></head><body>${body}</body></html>`;
}

/** The tab's icon (a browser asks for /favicon.ico otherwise, and logs its 404 as an error). */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f9e44"/></svg>`;

const pct = (v: number | null) => (v === null ? "—" : `${v}%`);
const ms = (v: number | null) => (v === null ? "—" : `${digits(v)} ms`);

function statusCell(s: ServerSummary): string {
  return `${swatch(colourOf(s.status))}<span class="class">${esc(s.status)}</span><span class="detail">${esc(s.detail)}</span>`;
}

const SORT_LABEL: Record<Sort, string> = {
  target: "Server",
  status: "Status",
  uptime24h: "Uptime 24 h",
  uptime7d: "Uptime 7 d",
  uptime30d: "Uptime 30 d",
  p95: "p95 24 h",
  lastChecked: "Last checked",
};

function header(q: ListQuery, sort: Sort, numeric = false): string {
  const on = q.sort === sort;
  const desc = on ? !q.desc : sort !== "target" && sort !== "status";
  const arrow = on ? (q.desc ? " ↓" : " ↑") : "";
  return `<th${numeric ? ' class="num"' : ""}${on ? ` aria-sort="${q.desc ? "descending" : "ascending"}"` : ""}><a${on ? ' class="on"' : ""} href="/${esc(queryString(q, { sort, desc, page: 1 }))}">${esc(SORT_LABEL[sort])}${arrow}</a></th>`;
}

export function indexPage(
  listed: Listed,
  q: ListQuery,
  all: readonly ServerSummary[],
  statuses: readonly string[],
): string {
  const up = all.filter((s) => s.up).length;
  const rows = listed.servers
    .map(
      (s) =>
        `<tr><td class="target" data-label="Server"><a href="/server/${esc(s.id)}">${esc(s.target)}</a>${s.serverName ? `<span class="name">${esc(s.serverName)}${s.serverVersion ? ` ${esc(s.serverVersion)}` : ""}</span>` : ""}</td>` +
        `<td data-label="Status">${statusCell(s)}</td>` +
        WINDOW_NAMES.map((w) => `<td class="num" data-label="Uptime ${w}">${pct(s.windows[w].uptimePct)}</td>`).join(
          "",
        ) +
        `<td class="num" data-label="p95 24 h">${ms(s.windows["24h"].p95LatencyMs)}</td>` +
        `<td class="nowrap" data-label="Last checked">${esc(moment(s.lastChecked))}</td>` +
        `<td data-label="Changed">${s.changedInLast24h ? "changed in 24 h" : ""}</td></tr>`,
    )
    .join("");
  const options = ["", ...statuses]
    .map(
      (st) => `<option value="${esc(st)}"${st === q.status ? " selected" : ""}>${st ? esc(st) : "any status"}</option>`,
    )
    .join("");
  const nav =
    listed.pages > 1
      ? `<nav class="pages">${listed.page > 1 ? `<a href="/${esc(queryString(q, { page: listed.page - 1 }))}">← previous</a>` : ""}<span>page ${listed.page} of ${listed.pages}</span>${listed.page < listed.pages ? `<a href="/${esc(queryString(q, { page: listed.page + 1 }))}">next →</a>` : ""}</nav>`
      : "";
  // the column heads sort a wide table; as cards (a narrow screen) they are hidden, and this does it
  const sortBy = SORTS.map(
    (k) => `<option value="${k}"${k === q.sort ? " selected" : ""}>${esc(`sort by ${SORT_LABEL[k]}`)}</option>`,
  ).join("");
  const order = `<option value=""${q.desc ? "" : " selected"}>ascending</option><option value="desc"${q.desc ? " selected" : ""}>descending</option>`;
  const sortControl = `<select name="sort" aria-label="Sort by">${sortBy}</select><select name="dir" aria-label="Order">${order}</select>`;
  return page(
    "MCP servers — mcp-wire",
    `<header><h1>MCP servers</h1><p>${esc(counted(all.length, "server"))} checked in the last 30 days; ${esc(counted(up, "server"))} up at the last check (an answer, or a request to sign in).</p></header><main>` +
      `<form class="filter" method="get" action="/"><input type="search" name="q" value="${esc(q.q)}" placeholder="URL or name" aria-label="Filter by URL or name"><select name="status" aria-label="Status">${options}</select>${sortControl}<button type="submit">Show</button></form>` +
      `<p class="muted">${esc(counted(listed.total, "server"))} match${listed.total === 1 ? "es" : ""}.</p>${nav}` +
      `<table id="servers" class="cards"><thead><tr>${header(q, "target")}${header(q, "status")}${header(q, "uptime24h", true)}${header(q, "uptime7d", true)}${header(q, "uptime30d", true)}${header(q, "p95", true)}${header(q, "lastChecked")}<th>Changed</th></tr></thead><tbody>${rows}</tbody></table>${nav}` +
      `<footer>mcp-wire report --serve · <a href="/api/servers">/api/servers</a></footer></main>`,
  );
}

/** Every attempt of the window as a coloured mark along the time axis. */
function timeline(samples: readonly { at: number; cls: string }[], from: number, to: number): string {
  const W = 600;
  const span = Math.max(1, to - from);
  // the answers first, so a failure between two of them is drawn over them, never hidden
  const marks = [...samples]
    .sort((a, b) => Number(a.cls !== "ok") - Number(b.cls !== "ok"))
    .map((s) => {
      const x = ((s.at - from) / span) * (W - 4);
      return `<rect x="${x.toFixed(1)}" y="4" width="4" height="26" fill="${esc(colourOf(s.cls))}"><title>${esc(`${moment(new Date(s.at).toISOString())}: ${s.cls}`)}</title></rect>`;
    })
    .join("");
  return `<svg class="timeline" role="img" aria-label="Class of each attempt over 30 days" viewBox="0 0 ${W} 34" preserveAspectRatio="none"><rect x="0" y="15" width="${W}" height="4" fill="#eaeef2"/>${marks}</svg><div class="span-labels"><span>30 days ago</span><span>now</span></div>`;
}

/**
 * The Markdown a server's README embeds: the badge, linking to the server's page. An address of
 * this machine is no use in a README, and the page says how to name the public one.
 */
function badgeSection(id: string, at: { base: string; local: boolean }): string {
  const snippet = `[![MCP status](${at.base}/badge/${id}.svg)](${at.base}/server/${id})`;
  const hint = at.local
    ? `<p class="muted">${esc(`${at.base.replace(/^https?:\/\//, "")} is this machine's own address: start the server with --public-url and the address people reach it at (report --serve --public-url https://status.example.com/) to name that here.`)}</p>`
    : "";
  return `<h2>Badge</h2><p><img src="/badge/${esc(id)}.svg" alt="status badge"></p><p class="badge-code"><code>${esc(snippet)}</code></p>${hint}`;
}

export function serverPage(detail: ServerDetail, now: number, at: { base: string; local: boolean }): string {
  const { summary: s, latest, samples, changes } = detail;
  const from = now - 30 * 86_400_000;
  const stats = WINDOW_NAMES.map(
    (w) =>
      `<tr><td>${w}</td><td class="num">${digits(s.windows[w].attempts)}</td><td class="num">${pct(s.windows[w].uptimePct)}</td><td class="num">${ms(s.windows[w].p95LatencyMs)}</td></tr>`,
  ).join("");
  const auth = latest.auth as AuthResult | null;
  const signin = auth && Array.isArray(auth.steps) ? `<h2>Sign-in</h2>${chainDetails(s.target, auth)}` : "";
  const log =
    changes.length === 0
      ? `<p class="muted">No change in the last 30 days.</p>`
      : `<ul class="changes">${[...changes]
          .reverse()
          .map((c) => `<li>${esc(changeLine(c))}</li>`)
          .join("")}</ul>`;
  return page(
    `${s.target} — mcp-wire`,
    `<header><h1>${esc(s.target)}</h1><p>${statusCell(s)} · last checked ${esc(moment(s.lastChecked))}${s.revision ? ` · speaks ${esc(s.revision)}` : ""}</p></header><main>` +
      `<p><a href="/">← every server</a></p>` +
      (latest.advice ? `<p>${esc(latest.advice)}</p>` : "") +
      `<h2>Uptime and latency</h2><table class="small"><thead><tr><th>Window</th><th class="num">Attempts</th><th class="num">Uptime</th><th class="num">p95</th></tr></thead><tbody>${stats}</tbody></table>` +
      `<h2>Class of each attempt</h2>${timeline(samples, from, now)}` +
      `<h2>Latency</h2>${latencyChart(samples, now)}` +
      signin +
      `<h2>Changes</h2>${log}` +
      badgeSection(s.id, at) +
      `<footer><a href="/api/servers/${esc(s.id)}">/api/servers/${esc(s.id)}</a></footer></main>`,
  );
}

export function notFoundPage(): string {
  return page(
    "Not found — mcp-wire",
    `<header><h1>Not found</h1></header><main><p><a href="/">Every server</a></p></main>`,
  );
}
