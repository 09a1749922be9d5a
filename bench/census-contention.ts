/**
 * A census beside CPU-burning neighbours: 1,000 local endpoints whose answers wait 50–150 ms (as
 * over a network), 10% that never answer, 100 probes at a time, a 2 s timeout; run on the idle
 * machine and beside one process per core that spins, alternately, in fresh processes.
 * Targets: no answering target recorded as `timeout` beside the burners, and the census done
 * within 1.5× of its time on the idle machine.
 *
 * A census is bound by waiting (network latency, silent servers), not by CPU, so the burners
 * should cost it little: what they take away is CPU, which only matters when the census lets its
 * own event loop fall behind. The census's admission is what keeps it from doing so (it admits
 * fewer probes while its loop is late or saturated) and what probes a target again when its
 * timeout fell in a stall of the census's own; the lowest limit it set and the re-probes are
 * printed beside each run.
 *
 * The fleet is one process on 127.0.0.1, one host to the census: --per-host is raised to the
 * concurrency. It runs beside the burners too, as a real census's far servers would not: its
 * answers may come later under the burners, which the 2 s timeout leaves room for (the slowest
 * healthy probe needs about 1.1 s at 150 ms an answer).
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { MIX } from "./census-fleet.js";
import { ratioStats, runJsonChild, targetTable, withFleet } from "./census-support.js";
import { loadLine, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const COUNT = 1_000;
const CONCURRENCY = 100;
const TIMEOUT_MS = 2_000;
const WITHIN = 1.5;
const DELAY = ["--delay-min", "50", "--delay-max", "150", "--seed", "20260728"];

interface RunResult {
  ms: number;
  censusCpuMs: number;
  classes: Record<string, number>;
  admission: { lowest: number; reason: string | undefined; reprobed: number };
}

/** Targets that never answer, by the fleet's mix. */
const HANGING = Array.from({ length: COUNT }, (_, i) => MIX[i % MIX.length]).filter((b) => b === "hang").length;

/** Spins until killed, or until its parent is gone: a benchmark that dies leaves nothing burning. */
const BURN =
  "const parent = process.ppid; let i = 0; for (;;) { if (++i % 1e7 === 0 && process.ppid !== parent) process.exit(0); }";

function burners(): ChildProcess[] {
  return Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ["-e", BURN], { stdio: "ignore" }),
  );
}

function runCensusChild(port: number, db: string): Promise<RunResult> {
  return runJsonChild<RunResult>(
    "./census-run.js",
    ["wire", String(port), String(COUNT), String(CONCURRENCY), String(TIMEOUT_MS), db],
    [],
    300_000,
  );
}

function run(profile: Profile): Promise<TargetOutcome[]> {
  return withFleet(DELAY, async (fleet, dir) => {
    console.log(
      `${COUNT.toLocaleString("en")} endpoints on one local server (a separate process), answers delayed 50–150 ms, ${HANGING} never answering, ` +
        `${CONCURRENCY} probes at a time, ${TIMEOUT_MS} ms timeout; beside ${os.availableParallelism()} CPU-burning processes (one per core) or none`,
    );
    const rounds = profile.quick ? 1 : 3;
    const idle: RunResult[] = [];
    const busy: RunResult[] = [];
    const rows: string[][] = [];
    for (let r = 0; r < rounds; r++) {
      // alternate which goes first, so neither always meets a fresher machine
      for (const beside of r % 2 === 0 ? [false, true] : [true, false]) {
        const spinning = beside ? burners() : [];
        let x: RunResult;
        try {
          x = await runCensusChild(fleet.port, path.join(dir, `contention-${r}-${beside ? "busy" : "idle"}.db`));
        } finally {
          for (const b of spinning) b.kill("SIGKILL");
        }
        (beside ? busy : idle).push(x);
        const healthyTimeouts = (x.classes.timeout ?? 0) - HANGING;
        rows.push([
          `${beside ? "beside burners" : "idle"} #${r + 1}`,
          (x.ms / 1000).toFixed(2),
          (x.censusCpuMs / 1000).toFixed(2),
          String(healthyTimeouts),
          `${x.admission.lowest}/${CONCURRENCY}`,
          String(x.admission.reprobed),
          x.admission.reason ?? "",
        ]);
      }
    }
    console.log(
      table(["census", "s", "CPU s", "answering → timeout", "lowest limit", "re-probed", "first reason"], rows, [
        false,
        true,
        true,
        true,
        true,
        true,
        false,
      ]),
    );
    console.log(`\n(${loadLine()})`);

    const answering = COUNT - HANGING;
    const falseTimeouts = busy.map((x) => Math.max(0, (x.classes.timeout ?? 0) - HANGING));
    const kept = busy.map((_, i) => (answering - falseTimeouts[i]!) / answering);
    // paired by round: each busy census against the idle one of the same round
    const speed = busy.map((x, i) => idle[i]!.ms / x.ms);
    const worst = Math.max(...falseTimeouts);
    const wall = 1 / quantile(speed, 0.5);
    const outcomes: TargetOutcome[] = [
      {
        of: "answering targets not called timeout",
        versus: "answering targets",
        atLeast: 1,
        benchmark: "census-contention",
        measurement: "census beside CPU burners",
        ratio: ratioStats(kept),
        met: worst === 0,
      },
      {
        of: "idle census time",
        versus: "census time beside burners",
        // within 1.5× of the idle time, as a ratio the summary can print
        atLeast: Number((1 / WITHIN).toFixed(2)),
        benchmark: "census-contention",
        measurement: "census beside CPU burners",
        ratio: ratioStats(speed),
        met: wall <= WITHIN,
      },
    ];
    console.log(
      targetTable([
        ["answering targets recorded as timeout beside burners", `${worst} (worst run)`, "0", worst === 0],
        ["time beside burners / idle time", `${wall.toFixed(2)}× (median)`, `≤ ${WITHIN}×`, wall <= WITHIN],
      ]),
    );
    return outcomes;
  });
}

export const censusContentionBenchmark: Benchmark = {
  name: "census-contention",
  title:
    "a census of 1,000 endpoints (50–150 ms answers, 10% hanging, 2 s timeout, 100 at a time) beside one CPU-burning process per core, against the same census on the idle machine",
  run,
};
