/**
 * The report page's charts as inline SVG, drawn here so the page needs nothing at view time: no
 * script library, no network. Every label passes through `esc`, since targets, details and
 * messages come from servers nobody vouches for.
 */
import { esc } from "./escape.js";
import { digits } from "./words.js";

/**
 * A colour per class; a class not listed (a newer census) falls back to grey. A server that
 * cannot be reached is down, and red says so; grey is for what is not the server's fault
 * (an invalid target) or not known.
 */
const CLASS_COLOURS: Record<string, string> = {
  ok: "#2f9e44",
  unreachable: "#e03131",
  timeout: "#f59f00",
  auth_required: "#7048e8",
  http_error: "#862e9c",
  web_page: "#1c7ed6",
  not_json: "#a05a2c",
  not_jsonrpc: "#f76707",
  rpc_error: "#d6336c",
  protocol_violation: "#9c1c1c",
  invalid_target: "#ced4da",
};

export function colourOf(cls: string): string {
  return CLASS_COLOURS[cls] ?? "#adb5bd";
}

/**
 * A small square of colour. An SVG fill, not a style attribute: the page's policy allows no
 * inline style beyond its one stylesheet.
 */
export function swatch(colour: string): string {
  return `<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill="${esc(colour)}"/></svg>`;
}

const W = 640;
const H = 260;
const M = { top: 14, right: 12, bottom: 46, left: 52 };

/** Ticks at 1, 2 or 5 × a power of ten, at most about five of them. */
function ticks(max: number): number[] {
  if (max <= 0) return [0];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) ?? 10 * power;
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2 && out.length < 12; v += Math.max(1, step)) out.push(v);
  if (out.at(-1)! < max) out.push(out.at(-1)! + Math.max(1, step));
  return out;
}

function yAxis(top: number, plotH: number, scaleMax: number, tickValues: number[], label: string): string {
  const parts = tickValues.map((v) => {
    const y = top + plotH - (v / scaleMax) * plotH;
    return `<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}"/><text class="tick" x="${M.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${esc(digits(v))}</text>`;
  });
  parts.push(
    `<text class="axis-label" transform="translate(12 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(label)}</text>`,
  );
  return parts.join("");
}

function svg(kind: string, title: string, body: string, height = H): string {
  return `<svg class="chart ${kind}" viewBox="0 0 ${W} ${height}" role="img" aria-label="${esc(title)}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;
}

export interface RunColumn {
  id: number;
  label: string;
  /** Attempts per class in this run. */
  classes: { class: string; count: number }[];
}

/** Classes per run over time: one stacked bar a run, oldest on the left. */
export function runsChart(columns: readonly RunColumn[], classOrder: readonly string[]): string {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const totals = columns.map((c) => c.classes.reduce((n, x) => n + x.count, 0));
  const t = ticks(Math.max(1, ...totals));
  const scaleMax = t.at(-1)!;
  const slot = plotW / Math.max(1, columns.length);
  const barW = Math.max(1, Math.min(48, slot * 0.72));
  const labelEvery = Math.ceil(columns.length / Math.max(1, Math.floor(plotW / 70)));
  const order = (cls: string) => {
    const i = classOrder.indexOf(cls);
    return i < 0 ? classOrder.length : i;
  };
  const bars = columns.map((c, i) => {
    const x = M.left + slot * i + (slot - barW) / 2;
    let y = M.top + plotH;
    const segs = [...c.classes]
      .filter((s) => s.count > 0)
      .sort((a, b) => order(a.class) - order(b.class))
      .map((s) => {
        const h = (s.count / scaleMax) * plotH;
        y -= h;
        return `<rect class="bar" data-class="${esc(s.class)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, h).toFixed(1)}" fill="${colourOf(s.class)}"><title>${esc(`run ${c.id}, ${c.label}: ${s.class} ${digits(s.count)} of ${digits(totals[i]!)}`)}</title></rect>`;
      });
    const label =
      i % labelEvery === 0
        ? `<text class="tick" x="${(x + barW / 2).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle">${esc(c.label)}</text>`
        : "";
    return `<g class="run">${segs.join("")}${label}</g>`;
  });
  return svg(
    "runs",
    "Classes per run over time",
    yAxis(M.top, plotH, scaleMax, t, "attempts") +
      bars.join("") +
      `<text class="axis-label" x="${M.left + plotW / 2}" y="${H - 6}" text-anchor="middle">run, by start</text>`,
  );
}

/** One bar of a horizontal bar chart: its label, its length, and the words after it. */
export interface Bar {
  label: string;
  count: number;
  colour: string;
  /** Shown after the bar and in its tooltip, e.g. "1,023 · 93.0%". */
  value: string;
}

/**
 * Horizontal bars, in the order given, on the same canvas and in the same type as every other
 * chart of the page, so all of them read at one size side by side.
 */
export function barChart(
  kind: string,
  title: string,
  rows: readonly Bar[],
  options: { labelWidth?: number; empty?: string } = {},
): string {
  const rowH = 30;
  const height = M.top + Math.max(1, rows.length) * rowH + 30;
  const labelW = options.labelWidth ?? 190;
  const plotW = W - labelW - M.right - 60;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const bars = rows.map((r, i) => {
    const y = M.top + i * rowH;
    const w = Math.max(1, (r.count / max) * plotW);
    return (
      `<text class="tick" x="${labelW - 8}" y="${y + 19}" text-anchor="end">${esc(r.label)}</text>` +
      `<rect class="bar" x="${labelW}" y="${y + 5}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="${esc(r.colour)}"><title>${esc(`${r.label}: ${r.value}`)}</title></rect>` +
      `<text class="value" x="${(labelW + w + 6).toFixed(1)}" y="${y + 19}">${esc(r.value)}</text>`
    );
  });
  const empty =
    rows.length === 0 && options.empty
      ? `<text class="tick" x="${W / 2}" y="${M.top + 20}" text-anchor="middle">${esc(options.empty)}</text>`
      : "";
  return svg(kind, title, bars.join("") + empty, height);
}

/** Revisions spoken: a horizontal bar each, longest first. */
export function revisionsChart(rows: readonly { label: string; count: number; modern: boolean }[]): string {
  const total = rows.reduce((n, r) => n + r.count, 0);
  const bars = rows.map((r) => ({
    label: r.label,
    count: r.count,
    colour: r.modern ? "#2f9e44" : "#74b816",
    value: `${digits(r.count)} · ${total > 0 ? `${((r.count / total) * 100).toFixed(1)}%` : ""}`,
  }));
  return barChart("revisions", "Revisions spoken", bars, { empty: "no server answered" });
}

/** Latency distribution: attempts per elapsed-time bucket. */
export function latencyChart(buckets: readonly { label: string; count: number }[]): string {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const t = ticks(Math.max(1, ...buckets.map((b) => b.count)));
  const scaleMax = t.at(-1)!;
  const slot = plotW / Math.max(1, buckets.length);
  const barW = slot * 0.8;
  const bars = buckets.map((b, i) => {
    const x = M.left + slot * i + (slot - barW) / 2;
    const h = (b.count / scaleMax) * plotH;
    const y = M.top + plotH - h;
    return (
      `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(b.count > 0 ? 0.5 : 0, h).toFixed(1)}" fill="#4263eb"><title>${esc(`${b.label}: ${digits(b.count)}`)}</title></rect>` +
      `<text class="tick" x="${(x + barW / 2).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle">${esc(b.label)}</text>`
    );
  });
  return svg(
    "latency",
    "Latency distribution",
    yAxis(M.top, plotH, scaleMax, t, "attempts") +
      bars.join("") +
      `<text class="axis-label" x="${M.left + plotW / 2}" y="${H - 6}" text-anchor="middle">time to verdict</text>`,
  );
}
