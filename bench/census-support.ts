/**
 * What the census benchmarks share: the fleet in a child process (and its counters), a census
 * or client in another child process that prints one JSON line, the loop that takes targets in
 * turn, the ideal schedule of a mix of probe times over so many slots, and the peak RSS a child
 * reports of itself.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { MIX, type FleetStats } from "./census-fleet.js";
import { quantile, table, type RatioStats } from "./harness.js";

const FLEET = fileURLToPath(new URL("./census-fleet.js", import.meta.url));

export interface FleetProcess {
  port: number;
  /** The fleet's counters now (its CPU time, requests, connections, bytes). */
  stats(): Promise<FleetStats>;
  stop(): Promise<void>;
}

/** Starts bench/census-fleet.ts in a child process with `args` (its delay options). */
async function startFleetProcess(args: readonly string[] = []): Promise<FleetProcess> {
  const child = spawn(process.execPath, [FLEET, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((s: FleetStats) => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the bench fleet did not start within 15 s")), 15_000);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(Number(line.split(" ")[1]));
    });
    child.once("exit", (code) => reject(new Error(`the bench fleet exited (${code}) before listening`)));
  });
  lines.on("line", (line) => {
    if (line.startsWith("stats ")) waiting.shift()?.(JSON.parse(line.slice(6)) as FleetStats);
  });
  return {
    port,
    stats: () =>
      new Promise<FleetStats>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the bench fleet did not answer `stats` within 10 s")), 10_000);
        waiting.push((s) => {
          clearTimeout(timer);
          resolve(s);
        });
        child.stdin!.write("stats\n");
      }),
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs `work` with the fleet started with `args` and a temporary folder for its databases; both
 * are gone afterwards, also when it fails.
 */
export async function withFleet<T>(
  args: readonly string[],
  work: (fleet: FleetProcess, dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-bench-"));
  let fleet: FleetProcess | undefined;
  try {
    fleet = await startFleetProcess(args);
    return await work(fleet, dir);
  } finally {
    await fleet?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A census benchmark's closing table: each row a target, what was measured, the target, and met (undefined: a figure only). */
export function targetTable(
  rows: readonly (readonly [string, string, string, boolean | undefined])[],
  measured = "measured",
): string {
  const cells = rows.map(([what, value, target, met]) => [
    what,
    value,
    target,
    met === undefined ? "" : met ? "met" : "MISSED",
  ]);
  return `\n${table(["target", measured, "target", ""], cells, [false, true, true, false])}`;
}

/**
 * Runs `node [nodeFlags] script args…` and resolves with the last line it prints, parsed as
 * JSON; rejects when it exits non-zero or outlives `timeoutMs` (it is then killed).
 */
export function runJsonChild<T>(
  script: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
  timeoutMs = 600_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, fileURLToPath(new URL(script, import.meta.url)), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${script} exited with ${code ?? signal}: ${out.slice(-2000)}`));
      resolve(JSON.parse(out.trim().split("\n").pop()!) as T);
    });
  });
}

/**
 * The makespan of `count` probes taken in order, each into the slot that frees first, probe `i`
 * taking `soloMs(i)`: what a census at that concurrency would take if running many probes at
 * once cost nothing beyond running each alone.
 */
export function idealMs(count: number, slots: number, soloMs: (i: number) => number): number {
  // a binary heap of the slots' end times: 5,000 probes over 500 slots stay cheap
  const heap = new Array<number>(slots).fill(0);
  const down = (k: number) => {
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let m = k;
      if (l < heap.length && heap[l]! < heap[m]!) m = l;
      if (r < heap.length && heap[r]! < heap[m]!) m = r;
      if (m === k) return;
      [heap[k], heap[m]] = [heap[m]!, heap[k]!];
      k = m;
    }
  };
  for (let i = 0; i < count; i++) {
    heap[0]! += soloMs(i);
    down(0);
  }
  return Math.max(...heap);
}

/** Median and quartiles of per-round ratios, as the summary prints them. */
export function ratioStats(xs: readonly number[]): RatioStats {
  return { median: quantile(xs, 0.5), p25: quantile(xs, 0.25), p75: quantile(xs, 0.75) };
}

/**
 * This process's own peak RSS. Not getrusage's maxRSS: on Linux that keeps the high-water mark of
 * the memory a child was forked from, so a child of a large parent reports the parent's size.
 * VmHWM belongs to the address space exec created.
 */
export function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

/** This process's CPU time so far, or since `from`, in ms (user + system, all threads). */
export function cpuMs(from?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

/**
 * CPU time in ms of this process's threads other than its main one (V8's compiler and collector
 * helpers, libuv's pool), from Linux's per-thread accounting; undefined elsewhere. It shows how
 * much of a short run's CPU is the JIT warming up.
 */
export function helperThreadsCpuMs(): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return undefined;
  }
  // the fields count clock ticks (USER_HZ), 100 a second wherever node runs on Linux
  const tick = 10;
  let ms = 0;
  for (const task of tasks) {
    if (task === String(process.pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
    } catch {
      // the thread ended since the listing
      continue;
    }
    // the fields after the command name, which may itself hold spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ms += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return ms;
}

/**
 * When each tenth of a run's targets was done (ms from its start), for the pace line of
 * census-latency: a census that falls behind its floor shows in which tenths it did.
 */
export class Pace {
  readonly marks: number[] = [];
  #done = 0;
  #t0 = performance.now();
  constructor(private readonly count: number) {}

  start(): void {
    this.marks.length = 0;
    this.#done = 0;
    this.#t0 = performance.now();
  }

  done(): void {
    this.#done++;
    while (this.marks.length < 10 && this.#done * 10 >= (this.marks.length + 1) * this.count)
      this.marks.push(performance.now() - this.#t0);
  }
}

/** Counts by name, most first: `ok 1800, rpc_error 600, …`. */
export function mostFirst(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
}

/** `concurrency` loops taking the next of `targets` in turn, as a census takes its targets. */
export async function inTurn(
  targets: readonly number[],
  concurrency: number,
  work: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < targets.length) await work(targets[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, loop));
}

/** The first `n` fleet indices whose behaviour answers (every one but `hang`), in order. */
export function answeringIndices(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; out.length < n; i++) if (MIX[i % MIX.length] !== "hang") out.push(i);
  return out;
}
