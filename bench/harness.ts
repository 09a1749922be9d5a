/**
 * Shared measuring code for every benchmark in bench/.
 *
 * The machines this runs on are shared and noisy: a neighbour's job can halve our speed for a
 * second. So contenders are never timed one after the other in long blocks. Each round runs
 * every contender once, for a fixed slice of time, in a rotated order; a slowdown then hits all
 * contenders of that round alike, and the ratio between two contenders *within* a round stays
 * meaningful even when the absolute numbers drift. Ratios are therefore computed round by round
 * and summarised by their median, and absolute rates are reported as medians over rounds.
 */
import os from "node:os";
import { within as settled } from "../src/testkit/within.js";
import { performance } from "node:perf_hooks";

/** What one pass of a contender processes. Every contender of a measurement does the same work. */
export interface Work {
  /** Items per pass (messages, requests, ...). */
  items: number;
  /** Bytes per pass, for MB/s. Zero when bytes mean nothing for the benchmark. */
  bytes: number;
  /** What an item is called in the table, e.g. "msg". */
  itemLabel: string;
}

export interface Contender {
  name: string;
  /** One pass over the work. A returned promise is awaited, so I/O-bound contenders fit too. */
  pass: () => void | Promise<void>;
}

export interface Profile {
  /** Measured rounds per contender. */
  rounds: number;
  /** Length of one contender's slice of a round, in ms. */
  roundMs: number;
  /** Time each contender runs before measuring, so every one is measured at its JIT steady state. */
  warmupMs: number;
  quick: boolean;
  /**
   * What a rate is divided by. `wall`: elapsed time, the usual. `cpu`: this process's CPU time
   * (user + system, all its threads, so GC and JIT helper threads count): on a crowded machine
   * the time spent descheduled then drops out, at the price of ignoring time spent waiting,
   * so it suits CPU-bound benchmarks only.
   */
  clock: "wall" | "cpu";
}

/**
 * The default profile, or the short smoke-test one with BENCH_QUICK=1. BENCH_ROUNDS,
 * BENCH_ROUND_MS and BENCH_CLOCK (wall or cpu) override.
 */
export function profileFromEnv(env: NodeJS.ProcessEnv = process.env): Profile {
  const quick = env.BENCH_QUICK !== undefined && env.BENCH_QUICK !== "" && env.BENCH_QUICK !== "0";
  const clock = env.BENCH_CLOCK === "cpu" ? "cpu" : "wall";
  const base: Profile = quick
    ? { rounds: 3, roundMs: 40, warmupMs: 60, quick, clock }
    : { rounds: 15, roundMs: 200, warmupMs: 400, quick, clock };
  const rounds = positiveInt(env.BENCH_ROUNDS);
  const roundMs = positiveInt(env.BENCH_ROUND_MS);
  return { ...base, ...(rounds ? { rounds } : {}), ...(roundMs ? { roundMs } : {}) };
}

function positiveInt(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export interface ContenderResult {
  name: string;
  /** Passes per second in each round, in round order (not sorted), so rounds can be paired. */
  rates: number[];
  /** Median passes per second. */
  median: number;
  /** Interquartile range over the median: how noisy this contender's rounds were. */
  spread: number;
}

export interface Measurement {
  title: string;
  work: Work;
  profile: Profile;
  results: ContenderResult[];
}

export interface RatioStats {
  /** Median over rounds of (a's rate / b's rate) in the same round. */
  median: number;
  p25: number;
  p75: number;
}

/** Ask V8 for a full collection, so one contender's garbage is not collected on the next one's time. */
const collect: () => void = typeof globalThis.gc === "function" ? globalThis.gc.bind(globalThis) : () => {};

export const gcExposed = typeof globalThis.gc === "function";

async function timeSlice(c: Contender, ms: number, clock: Profile["clock"]): Promise<number> {
  collect();
  let passes = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let now: number;
  // Whole passes only, then divide by the time actually spent: a pass that overruns the slice
  // is counted, not cut, so the rate is exact whatever the pass length. The slice always lasts
  // `ms` of wall time, whichever clock the rate is divided by.
  do {
    const r = c.pass();
    if (r !== undefined) await r;
    passes++;
    now = performance.now();
  } while (now - start < ms);
  if (clock === "cpu") {
    const used = process.cpuUsage(cpu);
    return passes / ((used.user + used.system) / 1e6);
  }
  return passes / ((now - start) / 1000);
}

/**
 * Warm every contender up, then run `profile.rounds` interleaved rounds. Round r starts with
 * contender r mod n, so no contender always runs right after the same other one (and pays for
 * its leftover garbage or cache state).
 */
export async function measure(
  title: string,
  work: Work,
  contenders: readonly Contender[],
  profile: Profile,
): Promise<Measurement> {
  if (contenders.length === 0) throw new Error("measure: no contenders");
  // Two warm-up slices each, interleaved, so the JIT has seen every contender's code before the
  // first measured round and inline caches have seen the whole mix.
  for (let k = 0; k < 2; k++) for (const c of contenders) await timeSlice(c, profile.warmupMs / 2, profile.clock);

  const rates: number[][] = contenders.map(() => []);
  for (let r = 0; r < profile.rounds; r++) {
    for (let j = 0; j < contenders.length; j++) {
      const i = (r + j) % contenders.length;
      rates[i]![r] = await timeSlice(contenders[i]!, profile.roundMs, profile.clock);
    }
  }
  const results = contenders.map((c, i): ContenderResult => {
    const rs = rates[i]!;
    const m = quantile(rs, 0.5);
    return { name: c.name, rates: rs, median: m, spread: (quantile(rs, 0.75) - quantile(rs, 0.25)) / m };
  });
  return { title, work, profile, results };
}

/** Linear-interpolated quantile of unsorted values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export function result(m: Measurement, name: string): ContenderResult {
  const r = m.results.find((x) => x.name === name);
  if (!r) throw new Error(`no contender named ${JSON.stringify(name)} in ${JSON.stringify(m.title)}`);
  return r;
}

/** a / b, paired round by round. */
export function ratio(m: Measurement, a: string, b: string): RatioStats {
  const ra = result(m, a).rates;
  const rb = result(m, b).rates;
  const per = ra.map((x, i) => x / rb[i]!);
  return { median: quantile(per, 0.5), p25: quantile(per, 0.25), p75: quantile(per, 0.75) };
}

/** A ratio the project aims for, e.g. decode at least 0.85× JSON.parse. */
export interface Target {
  of: string;
  versus: string;
  atLeast: number;
  /**
   * A contender whose work `of` includes (decode calls JSON.parse), so `of` cannot outrun it:
   * `bound / versus` is the most `of / versus` can ever reach, printed so a target beyond that
   * ceiling shows as unreachable rather than as slow code.
   */
  bound?: string;
}

export interface TargetOutcome extends Target {
  benchmark: string;
  measurement: string;
  ratio: RatioStats;
  /** Median of `bound / versus`, when the target names a bound. */
  ceiling?: number;
  met: boolean;
}

export function checkTargets(benchmark: string, m: Measurement, targets: readonly Target[]): TargetOutcome[] {
  return targets.map((t) => {
    const r = ratio(m, t.of, t.versus);
    const ceiling = t.bound !== undefined && t.bound !== t.versus ? ratio(m, t.bound, t.versus).median : undefined;
    return {
      ...t,
      benchmark,
      measurement: m.title,
      ratio: r,
      ...(ceiling !== undefined ? { ceiling } : {}),
      met: r.median >= t.atLeast,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Printing

export function fmtRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return "-";
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k`;
  return perSecond.toFixed(1);
}

export function fmtBytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

export function fmtRatio(r: RatioStats): string {
  return `${r.median.toFixed(2)}× [${r.p25.toFixed(2)}–${r.p75.toFixed(2)}]`;
}

export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  alignRight: readonly boolean[] = [],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (alignRight[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** The per-contender table: median rates, noise, and the paired ratio to the baseline. */
export function formatMeasurement(m: Measurement, baseline: string): string {
  const w = m.work;
  const rows = m.results.map((r) => {
    const items = r.median * w.items;
    const mbs = w.bytes > 0 ? ((r.median * w.bytes) / 1e6).toFixed(1) : "-";
    const vs = r.name === baseline ? "1.00× (baseline)" : fmtRatio(ratio(m, r.name, baseline));
    return [r.name, fmtRate(items), mbs, `±${((r.spread * 100) / 2).toFixed(1)}%`, vs];
  });
  return table(["contender", `${w.itemLabel}/s`, "MB/s", "noise ±½IQR", `vs ${baseline}`], rows, [
    false,
    true,
    true,
    true,
    false,
  ]);
}

export function formatTargets(outcomes: readonly TargetOutcome[]): string {
  const rows = outcomes.map((o) => [
    `${o.of} / ${o.versus}`,
    fmtRatio(o.ratio),
    `≥ ${fmtTarget(o.atLeast)}×`,
    o.ceiling === undefined ? "" : `${o.ceiling.toFixed(2)}×`,
    o.met
      ? "met"
      : `MISSED: ${(((o.atLeast - o.ratio.median) / o.atLeast) * 100).toFixed(0)}% short${o.ceiling !== undefined && o.ceiling < o.atLeast ? "; target beyond the ceiling" : ""}`,
  ]);
  return table(["ratio (median of per-round ratios [p25–p75])", "measured", "target", "ceiling", ""], rows, [
    false,
    true,
    true,
    true,
    false,
  ]);
}

/** One line on how busy the machine is, since neighbours move absolute numbers (and some ratios). */
export function loadLine(): string {
  return `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} on ${os.cpus().length} CPUs`;
}

// ---------------------------------------------------------------------------------------------
// Peers

/** How long opening or closing one connection may take before a benchmark gives up on it. */
const SETUP_MS = 15_000;

/** `promise`, or a rejection naming `what` once `ms` have passed: a peer that hangs ends the run, not the machine. */
export function within<T>(promise: Promise<T>, what: string, ms = SETUP_MS): Promise<T> {
  return settled(promise, what, ms);
}

/** The text of a result's first content block, whatever the stack's result type. */
export function echoed(result: object): unknown {
  const content = (result as { content?: unknown }).content;
  return Array.isArray(content) ? (content[0] as { text?: unknown } | undefined)?.text : undefined;
}

// ---------------------------------------------------------------------------------------------
// Benchmarks

/** One benchmark file's entry point, run by bench/run.ts. */
export interface Benchmark {
  /** Short name for BENCH_FILTER and the command line, e.g. "decode". */
  name: string;
  title: string;
  /** Runs everything, prints as it goes, returns the targets it checked for the final summary. */
  run: (profile: Profile) => Promise<TargetOutcome[]>;
}

/** A target ratio as printed: 0.8 stays 0.8, a fraction such as 1/1.5 is shown to two places. */
export function fmtTarget(ratio: number): string {
  return String(Number(ratio.toFixed(2)));
}
