/** `report --csv`: one row per target with its latest verdict, for a spreadsheet. */
import type { Aggregates } from "../census/store.js";

export const CSV_COLUMNS = [
  "target",
  "attempts",
  "class",
  "detail",
  "era",
  "revision",
  "at",
  "tools",
  "http_status",
  "elapsed_ms",
  "server_name",
  "server_version",
  "rpc_code",
] as const;

export function renderCsv(agg: Aggregates): string {
  const rows = agg.perTarget.map((t) => {
    const l = t.latest;
    return [
      t.target,
      t.attempts,
      l.class,
      l.detail,
      l.era,
      l.revision,
      l.at,
      l.tools,
      l.httpStatus,
      Math.round(l.elapsedMs),
      l.serverName,
      l.serverVersion,
      l.rpcCode,
    ];
  });
  return [CSV_COLUMNS, ...rows].map((r) => r.map(cell).join(",") + "\r\n").join("");
}

/**
 * RFC 4180 quoting. A text cell a spreadsheet would run as a formula (=, +, -, @ first: a target
 * from a registry is anyone's text) gets a leading apostrophe, the usual defence.
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}
