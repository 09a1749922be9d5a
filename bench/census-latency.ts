/**
 * A census under network-like latency: 5,000 local endpoints whose every answer waits 50–150 ms
 * (a seeded delay per target, as if each server were that far away), 10% that never answer,
 * 500 probes at a time. Targets: done within 1.15× the ideal schedule for that concurrency and
 * timeout, with peak RSS under 250 MB.
 *
 * The timeout is 2 s: the slowest healthy probe alone is the sign-in walk of a server that
 * refuses with -32001 (seven answers one after another, about 1.1 s at 150 ms each), so 2 s
 * leaves a healthy server nearly twice its time before it could be called `timeout`; and no
 * longer, because every hanging target costs a slot the whole timeout, and a schedule made mostly
 * of waiting on hangs would say little about what the census itself costs.
 *
 * The ideal: each target's fastest probe alone (on the fleet without delay) plus, for each wave
 * of requests the probe sends one after another (recorded through a proxy), the longest delay
 * the fleet puts on an answer of that wave; a hang costs the timeout. Laid out in target order
 * over 500 slots. A few targets are also probed alone on the delayed fleet, to show the model
 * matches what a probe really waits.
 *
 * The floor, in the same rounds: a bare node:http client sending every target the requests its
 * probe sends (bench/census-bare.ts), 500 at a time under the same deadline. What it takes over
 * the ideal is this machine's share, and ideal / its time is the census's ceiling.
 *
 * The fleet is one process on 127.0.0.1, one host to the census: --per-host is raised to the
 * concurrency (a census of real servers keeps the default of one per host). Its CPU time is
 * printed, so a fleet that could not keep up would show.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { probeHttp } from "../src/probe/probe.js";
import { captureProbes, soloTimes } from "./census-capture.js";
import { MIX, delayOf, type DelaySpec } from "./census-fleet.js";
import { idealMs, mostFirst, ratioStats, runJsonChild, targetTable, withFleet } from "./census-support.js";
import { loadLine, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const TIMEOUT_MS = 2_000;
const RSS_BUDGET_MB = 250;
const WITHIN = 1.15;
const DELAY: DelaySpec = { minMs: 50, maxMs: 150, seed: 20_260_728 };

/** What bench/census-bare.ts prints. */
interface BareRun {
  ms: number;
  cpuMs: number;
  requests: number;
  statuses: Record<string, number>;
  pace: number[];
}

interface RunResult {
  probes: number;
  ms: number;
  censusCpuMs: number;
  /** The part of censusCpuMs on threads other than the main one (Linux only). */
  helpersCpuMs?: number;
  maxRssKb: number;
  heapMb: { used: number; total: number };
  classes: Record<string, number>;
  admission: { lowest: number; reason?: string; reprobed: number };
  pace: number[];
}

/** The open-file limit this process (and so its children) runs under, when Linux says. */
function openFileLimit(): string {
  try {
    return /^Max open files\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const count = profile.quick ? 1_000 : 5_000;
  const concurrency = profile.quick ? 100 : 500;
  const rounds = profile.quick ? 1 : 2;

  // what each behaviour costs with no delay, and the waves of requests its probe sends
  const { base, captured } = await withFleet([], async (plain) => ({
    base: await soloTimes(plain.port, TIMEOUT_MS),
    captured: await captureProbes(plain.port),
  }));
  const soloMs = (i: number): number => {
    const slot = i % MIX.length;
    const probe = captured.get(slot);
    if (!probe) return TIMEOUT_MS;
    let waited = 0;
    for (const wave of probe.waves)
      waited += Math.max(...wave.map((r) => delayOf(r.path.replace("{i}", String(i)), DELAY)));
    return Math.min(TIMEOUT_MS, base.get(slot)! + waited);
  };
  const ideal = idealMs(count, concurrency, soloMs);

  return withFleet(
    ["--delay-min", String(DELAY.minMs), "--delay-max", String(DELAY.maxMs), "--seed", String(DELAY.seed)],
    async (fleet, dir) => {
      // the model against real probes alone, one target of each answering behaviour
      const checks: string[] = [];
      let worst = 0;
      for (const slot of captured.keys()) {
        const t0 = performance.now();
        await probeHttp(`http://127.0.0.1:${fleet.port}/t/${slot}`, { timeout: TIMEOUT_MS });
        const took = performance.now() - t0;
        worst = Math.max(worst, Math.abs(took - soloMs(slot)) / soloMs(slot));
        if (checks.length < 6) checks.push(`${MIX[slot]} ${soloMs(slot).toFixed(0)}/${took.toFixed(0)}`);
      }
      const healthy = Array.from({ length: count }, (_, i) => i).filter((i) => captured.has(i % MIX.length));
      const slowest = Math.max(...healthy.map(soloMs));
      console.log(
        `${count.toLocaleString("en")} endpoints on one local server (a separate process), every answer delayed ${DELAY.minMs}–${DELAY.maxMs} ms per target (seed ${DELAY.seed}), ` +
          `${MIX.filter((b) => b === "hang").length * 5}% hanging; ${concurrency} probes at a time, ${TIMEOUT_MS} ms timeout; the fleet is one host, so --per-host is raised to ${concurrency}; open-file limit ${openFileLimit()}`,
      );
      console.log(
        `slowest healthy probe alone: ${slowest.toFixed(0)} ms; ideal schedule over ${concurrency} slots: ${ideal.toFixed(0)} ms`,
      );
      console.log(
        `the model (expected/measured ms, one probe alone on the delayed fleet): ${checks.join(", ")}, …; worst gap ${(worst * 100).toFixed(1)}% over ${captured.size} behaviours\n`,
      );

      // the floor (see above) replays what the probes sent, recorded on the plain fleet
      const scriptFile = path.join(dir, "script.json");
      writeFileSync(scriptFile, JSON.stringify([...captured]));
      const fleetShare = (cpuMs: number, ms: number) =>
        `${(cpuMs / 1000).toFixed(2)} s (${((100 * cpuMs) / ms).toFixed(0)}%)`;
      const results: (RunResult & { fleetCpuMs: number })[] = [];
      const bare: (BareRun & { fleetCpuMs: number })[] = [];
      for (let r = 0; r < rounds; r++) {
        // alternate who goes first: the first to run meets a fleet process not yet warmed up
        for (const who of r % 2 === 0 ? (["census", "bare"] as const) : (["bare", "census"] as const)) {
          const before = await fleet.stats();
          if (who === "census") {
            const x = await runJsonChild<RunResult>("./census-run.js", [
              "wire",
              String(fleet.port),
              String(count),
              String(concurrency),
              String(TIMEOUT_MS),
              path.join(dir, `latency-${r}.db`),
            ]);
            results.push({ ...x, fleetCpuMs: (await fleet.stats()).cpuMs - before.cpuMs });
          } else {
            const x = await runJsonChild<BareRun>("./census-bare.js", [
              String(fleet.port),
              scriptFile,
              "0",
              String(count),
              String(concurrency),
              String(TIMEOUT_MS),
              "all",
            ]);
            bare.push({ ...x, fleetCpuMs: (await fleet.stats()).cpuMs - before.cpuMs });
          }
        }
      }
      console.log(
        table(
          [
            "contender",
            "s",
            "× ideal",
            "CPU s",
            "of it, other threads",
            "peak RSS MB",
            "heap MB used/total",
            "fleet CPU (share of a core)",
            "admission",
            "outcome",
          ],
          [
            ...results.map((x, k) => [
              `mcp-wire census #${k + 1}`,
              (x.ms / 1000).toFixed(2),
              `${(x.ms / ideal).toFixed(2)}×`,
              (x.censusCpuMs / 1000).toFixed(2),
              x.helpersCpuMs === undefined ? "" : (x.helpersCpuMs / 1000).toFixed(2),
              (x.maxRssKb / 1024).toFixed(0),
              `${x.heapMb.used}/${x.heapMb.total}`,
              fleetShare(x.fleetCpuMs, x.ms),
              x.admission.lowest < concurrency
                ? `lowered to ${x.admission.lowest}, ${x.admission.reprobed} re-probed`
                : "never lowered",
              mostFirst(x.classes),
            ]),
            ...bare.map((x, k) => [
              `bare node:http client #${k + 1}`,
              (x.ms / 1000).toFixed(2),
              `${(x.ms / ideal).toFixed(2)}×`,
              (x.cpuMs / 1000).toFixed(2),
              "",
              "",
              "",
              fleetShare(x.fleetCpuMs, x.ms),
              "",
              `HTTP ${Object.entries(x.statuses)
                .map(([s, k]) => `${s}: ${k}`)
                .join(", ")}; the rest given up at the deadline`,
            ]),
          ],
          [false, true, true, true, true, true, true, true, false, false],
        ),
      );
      console.log("other threads: V8's compiler and collector helpers, and libuv's pool (Linux only)\n");
      console.log(paceTable(results, bare));
      const reasons = [...new Set(results.map((x) => x.admission.reason).filter((r) => r !== undefined))];
      if (reasons.length > 0) console.log(`admission lowered the limit because ${reasons.join("; ")}`);
      console.log(`\n(${loadLine()}: wall time on a shared machine moves with the neighbours' load)`);

      const over = results.map((x) => x.ms / ideal);
      const floor = bare.map((x) => x.ms / ideal);
      const rss = Math.max(...results.map((x) => x.maxRssKb / 1024));
      const outcomes: TargetOutcome[] = [
        {
          of: "ideal schedule",
          versus: "mcp-wire census time",
          // within 1.15× the ideal, as a ratio the summary can print
          atLeast: Number((1 / WITHIN).toFixed(2)),
          benchmark: "census-latency",
          measurement: `census of ${count.toLocaleString("en")} delayed endpoints`,
          ratio: ratioStats(results.map((x) => ideal / x.ms)),
          // the bare client's pace is the most a census can reach on this machine
          ceiling: quantile(
            bare.map((x) => ideal / x.ms),
            0.5,
          ),
          met: quantile(over, 0.5) <= WITHIN,
        },
        {
          of: `${RSS_BUDGET_MB} MB`,
          versus: "mcp-wire census peak RSS",
          atLeast: 1,
          benchmark: "census-latency",
          measurement: `census of ${count.toLocaleString("en")} delayed endpoints`,
          ratio: ratioStats(results.map((x) => RSS_BUDGET_MB / (x.maxRssKb / 1024))),
          met: rss < RSS_BUDGET_MB,
        },
      ];
      console.log(
        targetTable([
          [
            "time / ideal",
            `${quantile(over, 0.5).toFixed(2)}× [${quantile(over, 0.25).toFixed(2)}–${quantile(over, 0.75).toFixed(2)}]`,
            `≤ ${WITHIN}×`,
            outcomes[0]!.met,
          ],
          [
            "the floor: bare node:http client's time / ideal",
            `${quantile(floor, 0.5).toFixed(2)}× [${quantile(floor, 0.25).toFixed(2)}–${quantile(floor, 0.75).toFixed(2)}]`,
            "",
            undefined,
          ],
          ["peak RSS", `${rss.toFixed(0)} MB`, `< ${RSS_BUDGET_MB} MB`, outcomes[1]!.met],
        ]),
      );
      return outcomes;
    },
  );
}

/**
 * Where the census loses time to its floor: the seconds each run took over each tenth of its
 * targets, and how far behind the floor the census was once each tenth was done (medians).
 * A process starts with no compiled code and no connections, and that cost lands on the first
 * tenths; a census slower per probe falls behind all along.
 */
function paceTable(census: readonly { pace: number[] }[], floor: readonly { pace: number[] }[]): string {
  const tenths = (marks: number[]) => marks.map((m, k) => ((m - (k === 0 ? 0 : marks[k - 1]!)) / 1000).toFixed(2));
  const header = ["seconds per tenth of the targets", ...Array.from({ length: 10 }, (_, k) => `${k + 1}`)];
  const rows = [
    ...census.map((x, k) => [`mcp-wire census #${k + 1}`, ...tenths(x.pace)]),
    ...floor.map((x, k) => [`bare node:http client #${k + 1}`, ...tenths(x.pace)]),
  ];
  const at = (runs: readonly { pace: number[] }[], k: number) =>
    quantile(
      runs.map((x) => x.pace[k] ?? NaN).filter((v) => !Number.isNaN(v)),
      0.5,
    );
  // a tenth a run never reached (it failed part-way) leaves its cell empty
  const behind = (k: number) => at(census, k) - at(floor, k);
  rows.push([
    "census behind its floor, cumulative",
    ...Array.from({ length: 10 }, (_, k) => (Number.isNaN(behind(k)) ? "" : (behind(k) / 1000).toFixed(2))),
  ]);
  return table(header, rows, [false, ...Array.from({ length: 10 }, () => true)]);
}

export const censusLatencyBenchmark: Benchmark = {
  name: "census-latency",
  title:
    "a census of 5,000 endpoints 50–150 ms away (10% hanging, 2 s timeout, 500 at a time) against the ideal schedule and a 250 MB peak RSS",
  run,
};
