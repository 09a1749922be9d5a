/**
 * Numbers, dates and lists the way a person writes them in prose: 1,100 not 1100, "one" not
 * "1" for a lone thing, "20 July" not 2026-07-20. Dates are read in UTC, so a report says the
 * same whatever machine prints it.
 */

const SMALL = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"] as const;

/** 1100 → "1,100". */
export function digits(n: number): string {
  const [whole, fraction] = String(Math.abs(n)).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${n < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

/** A count in words below ten ("three"), in digits above ("1,100"). */
export function spelled(n: number): string {
  return Number.isInteger(n) && n >= 0 && n < SMALL.length ? SMALL[n]! : digits(n);
}

/**
 * A count as it stands in a sentence: "one" for a lone thing (it reads better than "1"), digits
 * for the rest, as the report's sentences have them ("6 rejected", "3 sent"; docs/report.md).
 */
export function count(n: number): string {
  return n === 1 ? "one" : digits(n);
}

/** `count` at the start of a sentence. */
export function Count(n: number): string {
  return capitalize(count(n));
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "1 server", "2 servers"; `plural` for words that do not just take an s. */
export function noun(n: number, singular: string, plural = `${singular}s`): string {
  return n === 1 ? singular : plural;
}

/** `count` followed by the noun: "one attempt", "82 attempts". */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${count(n)} ${noun(n, singular, plural)}`;
}

/** "a", "a and b", "a, b and c". */
export function list(items: readonly string[], last = "and"): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}`;
}

/** A share of a whole: "93.0%", "<0.1%" for a few among very many. */
export function share(part: number, whole: number): string {
  if (whole === 0) return "–";
  const p = (part / whole) * 100;
  if (part > 0 && p < 0.1) return "<0.1%";
  return `${p.toFixed(1)}%`;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** "20 July 2026", or "20 July" without the year. */
export function day(iso: string, withYear = true): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${withYear ? ` ${d.getUTCFullYear()}` : ""}`;
}

/** "20 August 2026 14:05 UTC": when a run started, to the minute. */
export function moment(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${day(iso)} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")} UTC`;
}

/**
 * The span between two instants in the words of a sentence that goes on after it: "on 20
 * August 2026", "between 3 and 5 August 2026", "between 20 July and 5 August 2026", "between
 * 30 December 2025 and 2 January 2026". Without the year when `withYear` is false and both
 * instants fall in one year.
 */
export function span(firstIso: string, lastIso: string, withYear = true): string {
  const a = new Date(firstIso);
  const b = new Date(lastIso);
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return `between ${firstIso} and ${lastIso}`;
  const sameYear = a.getUTCFullYear() === b.getUTCFullYear();
  const year = withYear || !sameYear;
  if (sameYear && a.getUTCMonth() === b.getUTCMonth() && a.getUTCDate() === b.getUTCDate())
    return `on ${day(firstIso, year)}`;
  if (!sameYear) return `between ${day(firstIso)} and ${day(lastIso)}`;
  if (a.getUTCMonth() === b.getUTCMonth()) return `between ${a.getUTCDate()} and ${day(lastIso, year)}`;
  return `between ${day(firstIso, false)} and ${day(lastIso, year)}`;
}

/** 1234 → "1.2 s", 85 → "85 ms". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0).replace(/\.0$/, "")} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/**
 * Text from a server, quoted for a sentence: JSON-style quotes and escapes, with the controls a
 * terminal would act on (C1, DEL) and the bidirectional overrides that could reorder a line
 * escaped too, and cut to a length a sentence can carry.
 */
export function quote(text: string, max = 80): string {
  const cut = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
