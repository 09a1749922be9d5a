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
import { queryString, type Listed, type ListQuery, type Sort } from "./listing.js";
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
  const sortKeep =
    q.sort !== "target"
      ? `<input type="hidden" name="sort" value="${esc(q.sort)}">${q.desc ? '<input type="hidden" name="dir" value="desc">' : ""}`
      : "";
  return page(
    "MCP servers — mcp-wire",
    `<header><h1>MCP servers</h1><p>${esc(counted(all.length, "server"))} checked in the last 30 days; ${esc(counted(up, "server"))} up at the last check (an answer, or a request to sign in).</p></header><main>` +
      `<form class="filter" method="get" action="/"><input type="search" name="q" value="${esc(q.q)}" placeholder="URL or name" aria-label="Filter by URL or name"><select name="status" aria-label="Status">${options}</select>${sortKeep}<button type="submit">Filter</button></form>` +
      `<p class="muted">${esc(counted(listed.total, "server"))} match${listed.total === 1 ? "es" : ""}.</p>${nav}` +
      `<table id="servers" class="cards"><thead><tr>${header(q, "target")}${header(q, "status")}${header(q, "uptime24h", true)}${header(q, "uptime7d", true)}${header(q, "uptime30d", true)}${header(q, "p95", true)}${header(q, "lastChecked")}<th>Changed</th></tr></thead><tbody>${rows}</tbody></table>${nav}` +
      `<footer>mcp-wire report --serve · <a href="/api/servers">/api/servers</a></footer></main>`,
  );
}

/** Every attempt of the window as a coloured mark along the time axis. */
function timeline(samples: readonly { at: number; cls: string }[], from: number, to: number): string {
  const W = 600;
  const span = Math.max(1, to - from);
  const marks = samples
    .map((s) => {
      const x = ((s.at - from) / span) * (W - 4);
      return `<rect x="${x.toFixed(1)}" y="4" width="4" height="26" fill="${esc(colourOf(s.cls))}"><title>${esc(`${moment(new Date(s.at).toISOString())}: ${s.cls}`)}</title></rect>`;
    })
    .join("");
  return `<svg class="timeline" role="img" aria-label="Class of each attempt over 30 days" viewBox="0 0 ${W} 34" preserveAspectRatio="none"><rect x="0" y="15" width="${W}" height="4" fill="#eaeef2"/>${marks}</svg><div class="span-labels"><span>30 days ago</span><span>now</span></div>`;
}

/** Elapsed time of each attempt that answered, as points over the window. */
function latencyPoints(
  samples: readonly { at: number; cls: string; elapsedMs: number }[],
  from: number,
  to: number,
): string {
  const W = 600;
  const H = 160;
  const answered = samples.filter((s) => s.cls !== "unreachable" && s.cls !== "timeout" && s.cls !== "invalid_target");
  if (answered.length === 0) return `<p class="muted">No attempt answered in the last 30 days.</p>`;
  const max = Math.max(1, ...answered.map((s) => s.elapsedMs));
  const span = Math.max(1, to - from);
  const points = answered
    .map((s) => {
      const x = 30 + ((s.at - from) / span) * (W - 40);
      const y = H - 16 - (s.elapsedMs / max) * (H - 30);
      return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5" fill="#4263eb"><title>${esc(`${moment(new Date(s.at).toISOString())}: ${digits(Math.round(s.elapsedMs))} ms`)}</title></circle>`;
    })
    .join("");
  return `<svg class="points" role="img" aria-label="Latency of each answered attempt" viewBox="0 0 ${W} ${H}"><text font-size="11" fill="#59636e" x="2" y="12">${esc(digits(Math.round(max)))} ms</text><line class="grid" x1="30" x2="${W - 10}" y1="${H - 16}" y2="${H - 16}"/>${points}</svg>`;
}

export function serverPage(detail: ServerDetail, now: number, origin: string): string {
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
  const badge = `${origin}/badge/${s.id}.svg`;
  return page(
    `${s.target} — mcp-wire`,
    `<header><h1>${esc(s.target)}</h1><p>${statusCell(s)} · last checked ${esc(moment(s.lastChecked))}${s.revision ? ` · speaks ${esc(s.revision)}` : ""}</p></header><main>` +
      `<p><a href="/">← every server</a></p>` +
      (latest.advice ? `<p>${esc(latest.advice)}</p>` : "") +
      `<h2>Uptime and latency</h2><table class="small"><thead><tr><th>Window</th><th class="num">Attempts</th><th class="num">Uptime</th><th class="num">p95</th></tr></thead><tbody>${stats}</tbody></table>` +
      `<h2>Class of each attempt</h2>${timeline(samples, from, now)}` +
      `<h2>Latency</h2>${latencyPoints(samples, from, now)}` +
      signin +
      `<h2>Changes</h2>${log}` +
      `<h2>Badge</h2><p><img src="/badge/${esc(s.id)}.svg" alt="status badge"></p><p class="badge-code"><code>${esc(`![MCP status](${badge})`)}</code></p>` +
      `<footer><a href="/api/servers/${esc(s.id)}">/api/servers/${esc(s.id)}</a></footer></main>`,
  );
}

export function notFoundPage(): string {
  return page(
    "Not found — mcp-wire",
    `<header><h1>Not found</h1></header><main><p><a href="/">Every server</a></p></main>`,
  );
}
