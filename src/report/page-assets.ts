/**
 * The report page's stylesheet and script, inline in the page. Neither holds any data: the
 * script only sorts and filters the table the page already has, so nothing from a server ever
 * reaches code, and the page's Content-Security-Policy can allow exactly these two by hash.
 */

export const PAGE_CSS = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: #fff; }
header { padding: 28px 32px 18px; border-bottom: 1px solid var(--line); background: var(--soft); }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 0; color: var(--muted); overflow-wrap: anywhere; }
main { max-width: 1320px; margin: 0 auto; padding: 8px 32px 48px; }
h2 { font-size: 18px; margin: 32px 0 10px; }
.story { font-size: 17px; max-width: 78ch; }
.story p { margin: 14px 0; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 18px 0 6px; }
.figure { border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 140px; }
.figure b { display: block; font-size: 24px; }
.figure span { color: var(--muted); font-size: 13px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(440px, 100%), 1fr)); gap: 18px; align-items: start; }
/* a chart alone keeps the width of a column of the charts above, and so their type size */
.charts.one { grid-template-columns: repeat(auto-fill, minmax(min(440px, 100%), 1fr)); }
figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px 8px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg.chart { width: 100%; height: auto; display: block; }
svg .grid { stroke: #eaeef2; }
svg .tick, svg .value { font-size: 11px; fill: var(--muted); }
svg .axis-label { font-size: 11px; fill: var(--muted); }
svg .bar:hover { opacity: 0.8; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin-top: 6px; padding: 0; list-style: none; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; vertical-align: -1px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); white-space: nowrap; }
#targets th { position: sticky; top: 0; white-space: normal; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.small { width: auto; min-width: 50%; }
#targets th { cursor: pointer; user-select: none; }
#targets th button { all: unset; cursor: pointer; }
#targets th button:focus-visible { outline: 2px solid var(--accent); }
#targets th::after { content: " ↕"; color: #aab3bd; font-weight: 400; }
#targets th[aria-sort="ascending"]::after { content: " ↑"; color: var(--fg); }
#targets th[aria-sort="descending"]::after { content: " ↓"; color: var(--fg); }
/* URLs break at the <wbr> after each / ? & . = -, never mid-word */
td.url, .urls li { overflow-wrap: break-word; }
#targets td.target { min-width: 13em; width: 24%; }
.urls { margin: 0; padding-left: 1.1em; }
td.messages code { overflow-wrap: anywhere; }
details summary { cursor: pointer; }
td details summary { color: inherit; }
#healthy { margin: 8px 0 14px; border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
#healthy > summary { font-weight: 600; }
#healthy table { margin-top: 8px; }
a { color: var(--accent); }
a.see { white-space: nowrap; font-size: 14px; }
#targets td.history { min-width: 9em; }
#targets td.advice { color: var(--muted); font-size: 12.5px; min-width: 12em; }
.name { color: var(--muted); display: block; font-size: 12px; }
.class { white-space: nowrap; font-weight: 600; }
.nowrap { white-space: nowrap; }
.detail { color: var(--muted); display: block; font-size: 12px; }
.tools { margin: 8px 0 10px; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
.tools input { font: inherit; padding: 5px 9px; border: 1px solid var(--line); border-radius: 6px; width: 22em; max-width: 100%; }
.muted { color: var(--muted); }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; }
/* below the width a table of every column needs, each row becomes a card of labelled lines, so
   nothing scrolls sideways */
@media (max-width: 1100px) {
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; min-width: 0; }
  table.cards thead, table.cards tfoot { display: none; }
  table.cards tr { border-bottom: 1px solid var(--line); padding: 8px 0; }
  table.cards td { border: 0; padding: 1px 0; text-align: left; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  table.cards td:empty { display: none; }
  table.cards td.num, table.cards td.nowrap { display: inline-block; width: auto; margin-right: 14px; }
  #targets td.target, #targets td.history, #targets td.advice { min-width: 0; width: 100%; }
  .hint { display: none; }
}
/* a phone: less margin, and text that wraps anywhere it must; a chart keeps the width at which
   its labels read (10 px and more) and scrolls within its frame instead of shrinking them */
@media (max-width: 760px) {
  figure { overflow-x: auto; }
  svg.chart { min-width: 600px; }
  header { padding: 18px 14px 12px; }
  main { padding: 4px 14px 32px; }
  .story { font-size: 16px; }
  .nowrap { white-space: normal; }
}
`;

export const PAGE_SCRIPT = `
(() => {
  "use strict";
  const table = document.getElementById("targets");
  const healthy = document.getElementById("healthy");
  const bodies = ["targets", "healthy-targets"].map((id) => document.getElementById(id)).filter((t) => t && t.tBodies.length > 0).map((t) => t.tBodies[0]);
  if (table && table.tHead && table.tBodies.length > 0) {
    const body = table.tBodies[0];
    const heads = Array.from(table.tHead.rows[0].cells);
    const value = (row, i, numeric) => {
      const cell = row.cells[i];
      const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
      if (!numeric) return raw;
      const n = Number(raw);
      return raw === "" || Number.isNaN(n) ? -Infinity : n;
    };
    heads.forEach((th, i) => {
      th.addEventListener("click", () => {
        const numeric = th.dataset.type === "number";
        const dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        for (const h of heads) h.removeAttribute("aria-sort");
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = value(a, i, numeric);
          const y = value(b, i, numeric);
          return dir * (numeric ? (x < y ? -1 : x > y ? 1 : 0) : String(x).localeCompare(String(y), undefined, { numeric: true, sensitivity: "base" }));
        });
        body.append(...rows);
      });
    });
  }
  const filter = document.getElementById("filter");
  const shown = document.getElementById("shown");
  if (filter) {
    filter.addEventListener("input", () => {
      const q = filter.value.trim().toLowerCase();
      let n = 0;
      let fine = 0;
      for (const body of bodies) {
        for (const row of body.rows) {
          row.hidden = q !== "" && !row.textContent.toLowerCase().includes(q);
          if (!row.hidden) {
            n++;
            if (body.parentElement.id === "healthy-targets") fine++;
          }
        }
      }
      // a match among the healthy servers is shown, not left folded away
      if (healthy && q !== "") healthy.open = fine > 0;
      if (shown) shown.textContent = q === "" ? "" : n + " shown";
    });
  }
})();
`;
