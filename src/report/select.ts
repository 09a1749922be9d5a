/**
 * Which attempts a report covers. The latest run, unless `--run` names runs or `--since` opens
 * a window across runs; `--target` alone is one target's whole history, which is what a person
 * asking about one server wants.
 */
import type { AttemptQuery, RunRecord } from "../census/store.js";

export interface SelectOptions {
  runs?: readonly number[];
  /** ISO 8601 instant (see `parseSince`). */
  since?: string;
  target?: string;
}

export type Selected = { query: AttemptQuery; runIds: number[] | null } | { error: string };

export function select(runs: readonly RunRecord[], opts: SelectOptions): Selected {
  const query: AttemptQuery = {};
  if (opts.since !== undefined) query.since = opts.since;
  if (opts.target !== undefined) query.target = opts.target;
  if (opts.runs && opts.runs.length > 0) {
    const known = new Set(runs.map((r) => r.id));
    const unknown = opts.runs.filter((id) => !known.has(id));
    if (unknown.length > 0)
      return { error: `no run ${unknown.join(", ")} in this database (runs: ${describeIds(runs)})` };
    query.runIds = [...new Set(opts.runs)].sort((a, b) => a - b);
    return { query, runIds: query.runIds };
  }
  if (opts.since !== undefined || opts.target !== undefined) return { query, runIds: null };
  const latest = runs.reduce<RunRecord | undefined>((a, r) => (!a || r.id > a.id ? r : a), undefined);
  query.runIds = latest ? [latest.id] : [];
  return { query, runIds: query.runIds };
}

function describeIds(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return "none";
  const ids = runs.map((r) => r.id).sort((a, b) => a - b);
  return ids.length <= 6 ? ids.join(", ") : `${ids[0]}…${ids.at(-1)}`;
}

/** `--run 3`, `--run 3,4`, repeated: run ids, or a message saying what is wrong. */
export function parseRuns(values: readonly string[]): number[] | string {
  const ids: number[] = [];
  for (const part of values.flatMap((v) => v.split(","))) {
    const id = Number(part.trim());
    if (!Number.isSafeInteger(id) || id <= 0)
      return `--run takes run numbers (as \`report --json\` lists them), not ${JSON.stringify(part)}`;
    ids.push(id);
  }
  return ids;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const RELATIVE = /^(\d+)\s*(m|h|d|w)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/**
 * `--since`: a date (2026-07-20, the start of that day in UTC), a date and time (2026-07-20T14:00,
 * UTC unless it names a zone), or a span back from now (30m, 12h, 7d, 2w). The instant as an ISO
 * string, or a message saying what is wrong.
 */
export function parseSince(text: string, now: Date = new Date()): string | { error: string } {
  const t = text.trim();
  const rel = RELATIVE.exec(t);
  if (rel) return new Date(now.getTime() - Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS]).toISOString();
  const m = ISO.exec(t);
  if (m) {
    const withZone =
      m[4] === undefined
        ? `${t.slice(0, 10)}T00:00:00Z`
        : m[7] === undefined
          ? `${t.replace(" ", "T")}Z`
          : t.replace(" ", "T");
    const ms = Date.parse(withZone);
    // Date.parse rolls 2026-02-31 over to March; a date that does not exist is a typo
    const back = new Date(ms);
    if (
      Number.isFinite(ms) &&
      (m[7] !== undefined || (back.getUTCMonth() + 1 === Number(m[2]) && back.getUTCDate() === Number(m[3])))
    )
      return back.toISOString();
  }
  return {
    error: `--since takes a date (2026-07-20), a date and time (2026-07-20T14:00, UTC unless it says), or a span back from now (12h, 7d, 2w), not ${JSON.stringify(text)}`,
  };
}
