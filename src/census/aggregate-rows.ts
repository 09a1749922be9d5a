/**
 * Turns the rows of an engine's GROUP BY queries into the report's Aggregates. Every engine runs
 * the same groupings in its own SQL and hands the rows here, so SQLite and PostgreSQL give the
 * same report for the same attempts, ties and sort orders included.
 */
import { LATENCY_BOUNDS_MS, type Aggregates, type RunRecord } from "./store.js";

/** How many distinct messages an error code keeps as examples (as the memory store does). */
const MESSAGES_PER_CODE = 5;

/** How many attempts of one run share a class, detail, era, revision and latency bucket. */
export interface AttemptGroup {
  runId: number;
  class: string;
  detail: string;
  era: string | null;
  revision: string | null;
  bucket: number;
  n: number;
}

export interface AggregateRows {
  runs: RunRecord[];
  /** Attempts per run, class, detail, era, revision and latency bucket. */
  groups: AttemptGroup[];
  firstAt: string | null;
  lastAt: string | null;
  /** Per code, range, class, detail and message, in the order each was first seen. */
  rpcGroups: { code: number; range: string | null; class: string; detail: string; message: string | null; n: number }[];
  httpStatuses: { status: number; count: number }[];
  defects: { code: string; count: number }[];
  perTarget: Aggregates["perTarget"];
  /** How many targets, when `perTarget` was left out. */
  targets?: number;
  /** Sign-in diagnoses per verdict, first error code and TypeScript SDK outcome. */
  signin: SigninGroup[];
}

export interface SigninGroup {
  verdict: string;
  firstError: string | null;
  lenient: string | null;
  n: number;
}

/** The sign-in aggregate from its groups: the same for every engine. */
export function signinOf(groups: readonly SigninGroup[]): Aggregates["signin"] {
  const verdicts = new Map<string, { verdict: string; count: number }>();
  const broken = new Map<string, { code: string; count: number }>();
  let asked = 0;
  let lenientOk = 0;
  for (const g of groups) {
    asked += g.n;
    add(verdicts, g.verdict, g.n, () => ({ verdict: g.verdict }));
    if (g.verdict === "broken") add(broken, g.firstError ?? "", g.n, () => ({ code: g.firstError ?? "" }));
    if (g.verdict !== "ready" && g.verdict !== "not_oauth" && g.lenient === "ok") lenientOk += g.n;
  }
  return {
    asked,
    verdicts: [...verdicts.values()].sort((a, b) => b.count - a.count || cmp(a.verdict, b.verdict)),
    broken: [...broken.values()].sort((a, b) => b.count - a.count || cmp(a.code, b.code)),
    lenientOk,
  };
}

export function assemble(rows: AggregateRows): Aggregates {
  const perRun = new Map<number, number>();
  const classes = new Map<string, { class: string; detail: string; count: number }>();
  const classesPerRun = new Map<string, { runId: number; class: string; count: number }>();
  const revisions = new Map<string, { era: string | null; revision: string | null; count: number }>();
  const latency = [...LATENCY_BOUNDS_MS, null].map((upToMs) => ({ upToMs, count: 0 }));
  let attempts = 0;
  for (const g of rows.groups) {
    attempts += g.n;
    perRun.set(g.runId, (perRun.get(g.runId) ?? 0) + g.n);
    add(classes, `${g.class}\0${g.detail}`, g.n, () => ({ class: g.class, detail: g.detail }));
    add(classesPerRun, `${g.runId}\0${g.class}`, g.n, () => ({ runId: g.runId, class: g.class }));
    if (g.class === "ok") add(revisions, `${g.era}\0${g.revision}`, g.n, () => ({ era: g.era, revision: g.revision }));
    latency[g.bucket]!.count += g.n;
  }

  const rpcErrors = new Map<string, Aggregates["rpcErrors"][number]>();
  for (const g of rows.rpcGroups) {
    const e = add(rpcErrors, `${g.code}\0${g.range}\0${g.class}\0${g.detail}`, g.n, () => ({
      code: g.code,
      range: g.range,
      class: g.class,
      detail: g.detail,
      messages: [] as string[],
    }));
    if (g.message !== null && e.messages.length < MESSAGES_PER_CODE) e.messages.push(g.message);
  }

  return {
    runs: rows.runs.filter((r) => perRun.has(r.id)).map((r) => ({ ...r, attempts: perRun.get(r.id)! })),
    attempts,
    targets: rows.targets ?? rows.perTarget.length,
    firstAt: rows.firstAt,
    lastAt: rows.lastAt,
    classes: [...classes.values()].sort(
      (a, b) => b.count - a.count || cmp(a.class, b.class) || cmp(a.detail, b.detail),
    ),
    classesPerRun: [...classesPerRun.values()].sort((a, b) => a.runId - b.runId || cmp(a.class, b.class)),
    revisions: [...revisions.values()].sort(
      (a, b) => b.count - a.count || cmp(String(a.revision), String(b.revision)) || cmp(String(a.era), String(b.era)),
    ),
    rpcErrors: [...rpcErrors.values()].sort(
      (a, b) =>
        b.count - a.count ||
        b.code - a.code ||
        cmp(a.class, b.class) ||
        cmp(a.detail, b.detail) ||
        cmp(String(a.range), String(b.range)),
    ),
    httpStatuses: [...rows.httpStatuses].sort((a, b) => b.count - a.count || a.status - b.status),
    latency,
    defects: [...rows.defects].sort((a, b) => b.count - a.count || cmp(a.code, b.code)),
    signin: signinOf(rows.signin),
    perTarget: [...rows.perTarget].sort((a, b) => cmp(a.target, b.target)),
  };
}

/** Computed here, not in SQL, so every engine's rows sort alike whatever its collation. */
function cmp(a: string, b: string): number {
  return a.localeCompare(b);
}

function add<T extends { count: number }>(
  map: Map<string, T>,
  key: string,
  n: number,
  make: () => Omit<T, "count">,
): T {
  let entry = map.get(key);
  if (!entry) map.set(key, (entry = { ...make(), count: 0 } as T));
  entry.count += n;
  return entry;
}
