/**
 * The PostgreSQL work queue: three census workers (processes) share one run of targets spread
 * over many hosts, with verdicts made up at once so only the queue is measured: claims (each
 * under the per-host limit, cluster-wide) and stored attempts per second, against the 2,000 a
 * second that keeps the queue from ever being what limits a census. Beside it, the same run in
 * SQLite by one process (no claims: the one process is the queue).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCensus } from "../src/census/census.js";
import { startPostgres } from "../src/testkit/postgres.js";
import { PostgresStore } from "../src/census/postgres/store.js";
import { SqliteStore } from "../src/census/sqlite-store.js";
import type { TargetRecord } from "../src/census/store.js";
import { instantProbe } from "./instant-probe.js";
import { table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const WORKERS = 3;
const HOSTS = 200;
const PER_HOST = 2;
const CONCURRENCY = 64;
const TARGET_RATE = 2000;
const WORKER = fileURLToPath(new URL("./queue-worker.js", import.meta.url));

const targetsOf = (n: number): TargetRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    target: `https://h${i % HOSTS}.bench.example/mcp/${i}`,
    kind: "http",
    name: null,
  }));

interface WorkerResult {
  recorded: number;
  start: number;
  end: number;
}

function worker(url: string, run: number): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, url, String(run), String(CONCURRENCY), String(PER_HOST)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as WorkerResult) : reject(new Error(`queue worker exited ${code}`)),
    );
  });
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const n = profile.quick ? 1500 : 6000;
  // fsync on, as a real server runs: the figure must hold where a commit reaches the disk
  const server = await startPostgres({ durable: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-queue-bench-"));
  try {
    const rounds = profile.quick ? 1 : 3;
    const rates: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const url = await server.database(`queue${r}`);
      const store = await PostgresStore.open(url);
      const runId = await store.startRun("bench", targetsOf(n), { perHost: PER_HOST });
      await store.close();
      const done = await Promise.all(Array.from({ length: WORKERS }, () => worker(url, runId)));
      // from the first worker's first claim to the last one's last attempt: Node starting up is
      // not the queue's time
      const ms = Math.max(...done.map((d) => d.end)) - Math.min(...done.map((d) => d.start));
      const recorded = done.reduce((s, d) => s + d.recorded, 0);
      if (recorded !== n) throw new Error(`queue bench: ${recorded} attempts stored for ${n} targets`);
      rates.push((2 * n * 1000) / ms);
      console.log(
        `round ${r + 1}: ${n.toLocaleString("en")} targets over ${HOSTS} hosts, ${WORKERS} workers: ${(ms / 1000).toFixed(2)} s (per worker ${done.map((d) => d.recorded).join(" / ")})`,
      );
    }

    const sqliteRates: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const store = new SqliteStore(path.join(dir, `queue${r}.db`));
      const targets = targetsOf(n);
      const runId = await store.startRun("bench", targets, {});
      const t0 = performance.now();
      await runCensus(store, runId, targets, {
        concurrency: CONCURRENCY * WORKERS,
        perHost: PER_HOST,
        probe: instantProbe,
      });
      sqliteRates.push((n * 1000) / (performance.now() - t0));
      await store.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const pgRate = median(rates);
    console.log(
      "\n" +
        table(
          ["store", "per second", `vs ${TARGET_RATE.toLocaleString("en")}/s`],
          [
            [
              `PostgreSQL, ${WORKERS} worker processes: claims + stored attempts`,
              pgRate.toFixed(0),
              pgRate >= TARGET_RATE ? `met (${(pgRate / TARGET_RATE).toFixed(2)}×)` : "MISSED",
            ],
            ["SQLite, one process: stored attempts (no claims)", median(sqliteRates).toFixed(0), ""],
          ],
          [false, true, false],
        ),
    );
    return [
      {
        of: "claims + attempts per second",
        versus: `${TARGET_RATE.toLocaleString("en")}/s`,
        atLeast: 1,
        benchmark: "queue",
        measurement: `PostgreSQL queue, ${WORKERS} workers`,
        ratio: {
          median: pgRate / TARGET_RATE,
          p25: Math.min(...rates) / TARGET_RATE,
          p75: Math.max(...rates) / TARGET_RATE,
        },
        met: pgRate >= TARGET_RATE,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

export const queueBenchmark: Benchmark = {
  name: "queue",
  title: "the PostgreSQL work queue: claims and stored attempts per second with three census workers, beside SQLite",
  run,
};
