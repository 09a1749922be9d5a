/**
 * `npm run bench`: runs every benchmark in turn and ends with a summary of the targets.
 *
 *   npm run bench                       all benchmarks
 *   npm run bench -- decode             only the ones named (also BENCH_FILTER=decode)
 *   BENCH_QUICK=1 npm run bench         a few short rounds: a smoke test, not a measurement
 *   BENCH_ROUNDS=25 BENCH_ROUND_MS=300  longer runs on a quiet machine
 *   BENCH_CLOCK=cpu                     rates per CPU second: steadier on a crowded machine
 *
 * Timings are reported, never asserted: the exit status says whether the benchmarks ran, not
 * whether a target was met, because on a shared machine a slow run is not a regression.
 */
import os from "node:os";
import { censusBenchmark } from "./census.js";
import { checkBenchmark } from "./check.js";
import { surfaceBenchmark } from "./surface.js";
import { clientBenchmark } from "./client.js";
import { censusCpuBenchmark } from "./census-cpu.js";
import { censusContentionBenchmark } from "./census-contention.js";
import { censusLatencyBenchmark } from "./census-latency.js";
import { decodeBenchmark } from "./decode.js";
import { gauntletBenchmark } from "./gauntlet.js";
import { httpBenchmark } from "./http.js";
import { lintBenchmark } from "./lint.js";
import { mockBenchmark } from "./mock.js";
import { queueBenchmark } from "./queue.js";
import { reportBenchmark } from "./report.js";
import { roundtripBenchmark } from "./roundtrip.js";
import { serveBenchmark } from "./serve.js";
import { schemaBenchmark } from "./schema.js";
import { hostileSchemaBenchmark } from "./hostile-schema.js";
import { tapBenchmark } from "./tap.js";
import { tapHostileBenchmark } from "./tap-hostile.js";
import { tasksBenchmark } from "./tasks.js";
import {
  fmtRatio,
  fmtTarget,
  gcExposed,
  loadLine,
  profileFromEnv,
  table,
  type Benchmark,
  type TargetOutcome,
} from "./harness.js";

/** Every benchmark, in the order they run. New benchmark files add themselves here. */
const BENCHMARKS: readonly Benchmark[] = [
  decodeBenchmark,
  roundtripBenchmark,
  clientBenchmark,
  httpBenchmark,
  reportBenchmark,
  serveBenchmark,
  queueBenchmark,
  tapBenchmark,
  lintBenchmark,
  schemaBenchmark,
  hostileSchemaBenchmark,
  tapHostileBenchmark,
  censusBenchmark,
  censusCpuBenchmark,
  censusLatencyBenchmark,
  censusContentionBenchmark,
  checkBenchmark,
  surfaceBenchmark,
  gauntletBenchmark,
  tasksBenchmark,
  mockBenchmark,
];

function selected(): Benchmark[] {
  const names = [...process.argv.slice(2), ...(process.env.BENCH_FILTER ?? "").split(",")]
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) return [...BENCHMARKS];
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark ${unknown.map((n) => JSON.stringify(n)).join(", ")}; there are: ${BENCHMARKS.map((b) => b.name).join(", ")}`,
    );
    process.exit(2);
  }
  return BENCHMARKS.filter((b) => names.includes(b.name));
}

async function main(): Promise<void> {
  const profile = profileFromEnv();
  const benchmarks = selected();
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  console.log(`# mcp-wire benchmarks${profile.quick ? " (BENCH_QUICK: smoke test, numbers are not meaningful)" : ""}`);
  console.log(`node ${process.version}, ${cpu}, ${loadLine()}`);
  console.log(
    `${profile.rounds} rounds × ${profile.roundMs} ms per contender after ${profile.warmupMs} ms warm-up; rates per ${profile.clock === "cpu" ? "second of process CPU time (BENCH_CLOCK=cpu)" : "second of wall time"}; gc between slices: ${gcExposed ? "yes" : "no (run with --expose-gc)"}`,
  );
  console.log(
    "Absolute rates depend on the machine and its neighbours; the ratios, taken round by round in the same run, are what counts.",
  );

  const started = Date.now();
  const outcomes: TargetOutcome[] = [];
  for (const b of benchmarks) {
    console.log(`\n# ${b.name}: ${b.title}`);
    const t0 = Date.now();
    outcomes.push(...(await b.run(profile)));
    console.log(`\n(${b.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }

  console.log(`\n# summary (${((Date.now() - started) / 1000).toFixed(1)} s, ${loadLine()} at the end)\n`);
  if (outcomes.length === 0) {
    console.log("no targets checked");
    return;
  }
  const rows = outcomes.map((o) => [
    o.measurement,
    `${o.of} / ${o.versus}`,
    fmtRatio(o.ratio),
    `≥ ${fmtTarget(o.atLeast)}×`,
    o.ceiling === undefined ? "" : `${o.ceiling.toFixed(2)}×`,
    o.met ? "met" : "MISSED",
  ]);
  console.log(
    table(["measurement", "ratio", "measured [p25–p75]", "target", "ceiling", ""], rows, [
      false,
      false,
      true,
      true,
      true,
      false,
    ]),
  );
  const missed = outcomes.filter((o) => !o.met).length;
  console.log(
    `\n${outcomes.length - missed} of ${outcomes.length} targets met${profile.quick ? " (quick run: do not read anything into this)" : ""}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
