/**
 * A status badge a server's README can embed: "mcp | ok 99.8%" in the class's colour, or a grey
 * "unknown" for an id the census does not know. Plain SVG, its text escaped, sized by a fixed
 * width per character (the badge is read, not typeset).
 */
import { colourOf } from "../charts.js";
import { esc } from "../escape.js";
import type { ServerSummary } from "./model.js";

const CHAR_W = 6.6;
const PAD = 6;

export function badge(s: ServerSummary | undefined): string {
  const label = "mcp";
  const value = s
    ? `${s.status}${s.windows["24h"].uptimePct !== null ? ` ${s.windows["24h"].uptimePct}%` : ""}`
    : "unknown";
  const colour = s ? colourOf(s.status) : "#9f9f9f";
  const lw = Math.round(label.length * CHAR_W + 2 * PAD);
  const vw = Math.round(value.length * CHAR_W + 2 * PAD);
  const w = lw + vw;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${esc(`${label}: ${value}`)}"><title>${esc(`${label}: ${value}`)}</title>` +
    `<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${esc(colour)}"/>` +
    `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"><text x="${PAD}" y="14">${esc(label)}</text><text x="${lw + PAD}" y="14">${esc(value)}</text></g></svg>`
  );
}
