/**
 * A server's latency over the last 30 days, one column a day: a bar to the day's median and a
 * line on up to its p95, so a census that calls a server every few minutes still draws thirty
 * marks, not thousands of points on top of each other. The marks are SVG stretched to the width;
 * every word and number is HTML beside them, so it reads at the page's type size on any screen
 * (text inside a scaled SVG shrinks with it).
 */
import { esc } from "../escape.js";
import { digits, moment } from "../words.js";
import { answered, nearestRank } from "./model.js";

const DAY_MS = 86_400_000;
const DAYS = 30;
/** Each day's slot in the drawing's own units; the drawing is 100 high. */
const SLOT = 10;

export interface DayLatency {
  /** Index from the oldest day (0) to today (DAYS - 1). */
  day: number;
  /** When the day starts, ms. */
  from: number;
  attempts: number;
  medianMs: number;
  p95Ms: number;
}

/** The answered attempts since `now - 30 days`, a summary per day that has any. */
function dailyLatency(samples: readonly { at: number; cls: string; elapsedMs: number }[], now: number): DayLatency[] {
  const start = now - DAYS * DAY_MS;
  const days = new Map<number, number[]>();
  for (const s of samples) {
    if (!answered(s.cls) || s.at < start || s.at > now) continue;
    const day = Math.min(DAYS - 1, Math.floor((s.at - start) / DAY_MS));
    let list = days.get(day);
    if (!list) days.set(day, (list = []));
    list.push(s.elapsedMs);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a - b)
    .map(([day, list]) => {
      list.sort((a, b) => a - b);
      return {
        day,
        from: start + day * DAY_MS,
        attempts: list.length,
        medianMs: nearestRank(list, 0.5)!,
        p95Ms: nearestRank(list, 0.95)!,
      };
    });
}

/** The top of the scale and its step: four steps of a round number, the top at most 1.25 × `max` or so. */
function scale(max: number): { top: number; step: number } {
  const raw = Math.max(1, max) / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((f) => f * power).find((s) => s >= raw) ?? 10 * power;
  return { top: step * 4, step };
}

export function latencyChart(samples: readonly { at: number; cls: string; elapsedMs: number }[], now: number): string {
  const days = dailyLatency(samples, now);
  if (days.length === 0) return `<p class="muted">No attempt answered in the last 30 days.</p>`;
  const { top, step } = scale(Math.max(...days.map((d) => d.p95Ms)));
  const y = (ms: number) => (100 - (ms / top) * 100).toFixed(2);
  const grid = [0, 1, 2, 3, 4]
    .map((i) => `<line class="grid" x1="0" x2="${DAYS * SLOT}" y1="${i * 25}" y2="${i * 25}"/>`)
    .join("");
  const marks = days
    .map((d) => {
      const x = d.day * SLOT;
      const said = `${moment(new Date(d.from).toISOString()).replace(/ \d\d:\d\d.*$/, "")}: median ${digits(Math.round(d.medianMs))} ms, p95 ${digits(Math.round(d.p95Ms))} ms, ${digits(d.attempts)} answered`;
      return (
        `<g class="day"><title>${esc(said)}</title>` +
        `<rect class="median" x="${x + 2}" y="${y(d.medianMs)}" width="${SLOT - 4}" height="${((d.medianMs / top) * 100).toFixed(2)}"/>` +
        (d.p95Ms > d.medianMs
          ? `<line class="p95" x1="${x + SLOT / 2}" x2="${x + SLOT / 2}" y1="${y(d.p95Ms)}" y2="${y(d.medianMs)}"/>`
          : "") +
        `</g>`
      );
    })
    .join("");
  const ticks = [4, 3, 2, 1, 0].map((i) => `<span>${esc(i === 0 ? "0" : `${digits(i * step)} ms`)}</span>`).join("");
  return (
    `<figure class="latency"><div class="lat-y" aria-hidden="true">${ticks}</div>` +
    `<svg class="lat-plot" role="img" aria-label="Median and p95 latency of each day's answered attempts, over 30 days" viewBox="0 0 ${DAYS * SLOT} 100" preserveAspectRatio="none">${grid}${marks}</svg>` +
    `<div class="span-labels"><span>30 days ago</span><span>today</span></div>` +
    `<ul class="legend"><li><span class="key median"></span>the day's median</li><li><span class="key p95"></span>up to its p95</li></ul></figure>`
  );
}
