/**
 * `report` at scale: how long the SQLite store's `aggregate()` (everything a report prints) takes
 * over a database of 1,000,000 attempts. Target: under 2 s.
 *
 * The database is filled once, in a temporary directory, with synthetic attempts shaped like a
 * long-running census (2,000 targets probed in 500 runs, a seeded mix of classes, revisions,
 * error codes, defects, repro lines and advice), in one transaction through one prepared
 * statement. Then `aggregate()` is timed cold (first call on a fresh connection) and warm, and
 * with the filters a report takes (`--run`, `--since`, `--target`). Every result is checked
 * against what was written, so a fast wrong answer shows.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Defect } from "../src/codec/defects.js";
import { SqliteStore } from "../src/census/sqlite-store.js";
import type { AttemptRecord, TargetRecord } from "../src/census/store.js";
import { fmtBytes, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const TARGETS = 2_000;
const RUNS = 500;
const BUDGET_MS = 2_000;
const START = Date.parse("2026-07-20T00:00:00Z");
const HOUR = 3_600_000;

/** The class mix, with details and what each carries. Weights add up to 100. */
const MIX: readonly {
  weight: number;
  make: (rnd: () => number) => Partial<AttemptRecord> & { class: string; detail: string };
}[] = [
  {
    weight: 40,
    make: (r) => ({
      class: "ok",
      detail: "legacy",
      era: "legacy",
      revision: pick(r, ["2025-06-18", "2025-03-26", "2025-11-25", "2024-11-05"]),
      tools: 1 + Math.floor(r() * 30),
      httpStatus: 200,
      contentType: "application/json",
    }),
  },
  {
    weight: 18,
    make: (r) => ({
      class: "ok",
      detail: "modern",
      era: "modern",
      revision: "2026-07-28",
      tools: 1 + Math.floor(r() * 30),
      httpStatus: 200,
      contentType: "application/json",
    }),
  },
  { weight: 10, make: () => ({ class: "timeout", detail: "initialize" }) },
  {
    weight: 6,
    make: () => ({ class: "auth_required", detail: "http_401", httpStatus: 401, contentType: "application/json" }),
  },
  {
    weight: 2,
    make: () => ({
      class: "auth_required",
      detail: "rpc_error_instead_of_401",
      httpStatus: 200,
      rpcCode: -32001,
      rpcMessage: "Invalid API key",
      rpcRange: "legacy",
    }),
  },
  {
    weight: 6,
    make: (r) => ({
      class: "http_error",
      detail: pick(r, ["http_404", "http_502", "http_500"]),
      httpStatus: pick(r, [404, 502, 500]),
      contentType: "text/html",
    }),
  },
  {
    weight: 5,
    make: () => ({ class: "web_page", detail: "text/html", httpStatus: 200, contentType: "text/html; charset=utf-8" }),
  },
  { weight: 4, make: (r) => ({ class: "unreachable", detail: pick(r, ["dns", "refused", "tls"]) }) },
  {
    weight: 3,
    make: (r) => ({
      class: "rpc_error",
      detail: pick(r, ["method_not_found", "internal_error", "unsupported_version"]),
      httpStatus: 200,
      rpcCode: pick(r, [-32601, -32603, -32602]),
      rpcMessage: pick(r, ["Method not found", "Internal error", "Unsupported protocol version"]),
      rpcRange: "standard",
    }),
  },
  {
    weight: 2,
    make: (r) => ({
      class: "not_jsonrpc",
      detail: pick(r, ["bare_array", "no_envelope"]),
      httpStatus: 200,
      contentType: "application/json",
    }),
  },
  { weight: 2, make: () => ({ class: "not_json", detail: "empty_body", httpStatus: 200, contentType: "" }) },
  {
    weight: 2,
    make: () => ({ class: "protocol_violation", detail: "id_null", httpStatus: 200, contentType: "application/json" }),
  },
];

const DEFECTS: readonly Defect[] = [
  {
    code: "unexpected_member",
    severity: "warning",
    path: "/result/extra",
    message: "a member the revision does not define",
  },
  {
    code: "error_code_legacy",
    severity: "warning",
    path: "/error/code",
    message: "-32001 is in the legacy implementation-defined range",
  },
  { code: "result_type_missing", severity: "warning", path: "/result", message: "no resultType: read as complete" },
] as Defect[];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

/** mulberry32: the same attempts every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const targetUrl = (i: number) => `https://server-${i}.example.net/mcp`;

/** Counts of what was written, to check the aggregate against. */
interface Written {
  attempts: number;
  classes: Map<string, number>;
  run7: number;
}

function* synthetic(written: Written): Generator<AttemptRecord> {
  const rnd = seeded(42);
  const cumulative: number[] = [];
  let sum = 0;
  for (const m of MIX) cumulative.push((sum += m.weight));
  for (let run = 1; run <= RUNS; run++) {
    for (let t = 0; t < TARGETS; t++) {
      const x = rnd() * sum;
      const kind = MIX[cumulative.findIndex((c) => x < c)]!.make(rnd);
      const failing = kind.class !== "ok";
      const elapsedMs =
        kind.class === "timeout" ? 10_000 + Math.floor(rnd() * 50) : Math.floor(20 + rnd() * rnd() * 3000);
      const a: AttemptRecord = {
        runId: run,
        target: targetUrl(t),
        at: new Date(START + (run - 1) * HOUR + t * 50).toISOString(),
        class: kind.class,
        detail: kind.detail,
        era: kind.era ?? null,
        revision: kind.revision ?? null,
        transport: "streamable-http",
        httpStatus: kind.httpStatus ?? null,
        contentType: kind.contentType ?? null,
        rpcCode: kind.rpcCode ?? null,
        rpcMessage: kind.rpcMessage ?? null,
        rpcRange: kind.rpcRange ?? null,
        tools: kind.tools ?? null,
        serverName: failing ? null : `server-${t}`,
        serverVersion: failing ? null : "1.0.0",
        defects: rnd() < 0.2 ? [pick(rnd, DEFECTS)] : [],
        elapsedMs,
        repro: failing
          ? `curl -sS -i -X POST ${targetUrl(t)} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' --data-raw '{"jsonrpc":"2.0","id":1,"method":"initialize"}'`
          : null,
        advice: failing
          ? `The server answered ${kind.class} (${kind.detail}); see the trace for the exchange that failed and fix the endpoint before listing it.`
          : null,
        auth: null,
      };
      written.attempts++;
      written.classes.set(a.class, (written.classes.get(a.class) ?? 0) + 1);
      if (run === 7) written.run7++;
      yield a;
    }
  }
}

function timeIt(f: () => unknown): { ms: number; value: unknown } {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-report-bench-"));
  const file = path.join(dir, "census.db");
  try {
    const fill0 = performance.now();
    const store = new SqliteStore(file);
    // the fill writes every index out of order: a large page cache keeps that in memory
    store.db.pragma("cache_size = -262144");
    const targets: TargetRecord[] = Array.from({ length: TARGETS }, (_, i) => ({
      target: targetUrl(i),
      kind: "http",
      name: `example/server-${i}`,
    }));
    store.db.transaction(() => {
      // the store answers at once (SQLite): each call has done its work before the transaction ends
      for (let r = 1; r <= RUNS; r++) void store.startRun("bench", targets, { timeout: 10_000 });
    })();
    const written: Written = { attempts: 0, classes: new Map(), run7: 0 };
    await store.recordAttempts(synthetic(written));
    store.db.transaction(() => {
      for (let r = 1; r <= RUNS; r++) void store.finishRun(r);
    })();
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    await store.close();
    const fillMs = performance.now() - fill0;
    console.log(
      `filled ${written.attempts.toLocaleString("en")} attempts (${TARGETS.toLocaleString("en")} targets × ${RUNS} runs) in ${(fillMs / 1000).toFixed(1)} s; database ${fmtBytes(statSync(file).size)}`,
    );

    // cold: a fresh connection, as `mcp-wire report` opens one
    const reader = new SqliteStore(file, { readonly: true });
    const cold = timeIt(() => reader.aggregateNow());
    const agg = cold.value as ReturnType<SqliteStore["aggregateNow"]>;
    check(
      agg.attempts === written.attempts,
      `aggregate counted ${agg.attempts} attempts, ${written.attempts} were written`,
    );
    check(agg.targets === TARGETS && agg.perTarget.length === TARGETS, `aggregate saw ${agg.targets} targets`);
    check(agg.runs.length === RUNS, `aggregate saw ${agg.runs.length} runs`);
    for (const [cls, n] of written.classes) {
      const got = agg.classes.filter((c) => c.class === cls).reduce((s, c) => s + c.count, 0);
      check(got === n, `class ${cls}: ${got} in the aggregate, ${n} written`);
    }

    const rounds = profile.quick ? 3 : 7;
    const warm: number[] = [];
    for (let i = 0; i < rounds; i++) warm.push(timeIt(() => reader.aggregateNow()).ms);
    const oneRun = timeIt(() => reader.aggregateNow({ runIds: [7] }));
    check((oneRun.value as typeof agg).attempts === written.run7, "the --run 7 aggregate counted the wrong attempts");
    const since = timeIt(() => reader.aggregateNow({ since: new Date(START + (RUNS - 50) * HOUR).toISOString() }));
    check((since.value as typeof agg).attempts === 50 * TARGETS, "the --since aggregate counted the wrong attempts");
    const oneTarget = timeIt(() => reader.aggregateNow({ target: targetUrl(123) }));
    check((oneTarget.value as typeof agg).attempts === RUNS, "the --target aggregate counted the wrong attempts");
    await reader.close();

    const median = quantile(warm, 0.5);
    console.log(
      "\n" +
        table(
          ["aggregate() over 1,000,000 attempts", "ms", `vs ${BUDGET_MS.toLocaleString("en")} ms budget`],
          [
            ["cold (fresh connection, first call)", cold.ms.toFixed(0), verdict(cold.ms)],
            [`warm (median of ${rounds})`, median.toFixed(0), verdict(median)],
            ["--run (one run of 2,000)", oneRun.ms.toFixed(0), verdict(oneRun.ms)],
            ["--since (the last 50 runs)", since.ms.toFixed(0), verdict(since.ms)],
            ["--target (one target's 500)", oneTarget.ms.toFixed(0), verdict(oneTarget.ms)],
          ],
          [false, true, false],
        ),
    );
    const worst = Math.max(cold.ms, ...warm);
    // the summary table speaks in ratios: the budget over the time taken, at least 1×
    return [
      {
        of: `${BUDGET_MS} ms budget`,
        versus: "aggregate() of 1M attempts",
        atLeast: 1,
        benchmark: "report",
        measurement: "report over 1,000,000 attempts",
        ratio: { median: BUDGET_MS / median, p25: BUDGET_MS / worst, p75: BUDGET_MS / Math.min(...warm) },
        met: cold.ms < BUDGET_MS && median < BUDGET_MS,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function verdict(ms: number): string {
  return ms < BUDGET_MS ? `met (${(BUDGET_MS / ms).toFixed(1)}× under)` : `MISSED by ${(ms - BUDGET_MS).toFixed(0)} ms`;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`report bench: ${message}`);
}

export const reportBenchmark: Benchmark = {
  name: "report",
  title: "aggregate() (everything `report` prints) over 1,000,000 stored attempts, against a 2 s budget",
  run,
};
