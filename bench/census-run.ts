/**
 * One census over the benchmark fleet, run by the census benchmarks in a process of its own so
 * its CPU time and peak RSS are its own:
 *
 *   node census-run.js <wire|sdk> <port> <count> <concurrency> <timeoutMs> <db|memory> [warmup] [answering]
 *
 * Prints one JSON line: `{ mode, probes, ms, cpuMs, censusCpuMs, helpersCpuMs, maxRssKb, heapMb, classes, admission, pace }`.
 * The targets are `/t/0` … `/t/<count-1>`, or with `answering` the first `count` that answer
 * (no hang: the CPU benchmark). With `warmup` > 0 a census of that many other targets runs first,
 * into its own run of the same store, so the census timed runs at the JIT's steady state.
 * `censusCpuMs` and `ms` cover the timed census alone, from creating its run to finishing it, as
 * do `helpersCpuMs` (the part of `censusCpuMs` on threads other than the main one, on Linux) and
 * `pace` (when each tenth of its targets was done).
 *
 * `wire` is `runCensus` as `mcp-wire census` runs it (probe per target, SQLite store behind the
 * wrapper that keeps secrets out of it, each attempt committed before it counts as done). With `memory` for the database, the attempts go
 * to a list in memory instead (`listStore`): the same census less what SQLite costs it.
 *
 * `sdk` is the same census driven by the official SDK client: the same limiter and the same
 * store, and per target one Client over its own StreamableHTTPClientTransport that connects
 * (initialize) and lists the tools, within the same overall deadline.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runCensus } from "../src/census/census.js";
import { forEachLimited } from "../src/census/limiter.js";
import { SecretSafeStore } from "../src/census/secret-safe-store.js";
import { SqliteStore } from "../src/census/sqlite-store.js";
import type { AttemptRecord, Store, TargetRecord } from "../src/census/store.js";
import type { AdmissionState } from "../src/census/admission.js";
import { answeringIndices, cpuMs, helperThreadsCpuMs, Pace, peakRssKb } from "./census-support.js";

const [mode, port, count, concurrency, timeout, db, warmupArg, which] = process.argv.slice(2);
if ((mode !== "wire" && mode !== "sdk") || !db) {
  process.stderr.write(
    "usage: census-run <wire|sdk> <port> <count> <concurrency> <timeoutMs> <db|memory> [warmup] [answering]\n",
  );
  process.exit(2);
}
const C = Number(concurrency);
const T = Number(timeout);
const warmup = Number(warmupArg ?? 0);
const indices =
  which === "answering"
    ? answeringIndices(warmup + Number(count))
    : Array.from({ length: warmup + Number(count) }, (_, i) => i);
const targetOf = (i: number): TargetRecord => ({ target: `http://127.0.0.1:${port}/t/${i}`, kind: "http", name: null });
const warmTargets = indices.slice(0, warmup).map(targetOf);
const targets = indices.slice(warmup).map(targetOf);

// where the memory goes, sampled: the peak RSS alone does not say whether heap or buffers grew
const peak = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], m[k]);
}, 50);
sampler.unref();

// as `mcp-wire census` opens it: whatever the engine, behind the wrapper that keeps secrets out
const store: Store = new SecretSafeStore(db === "memory" ? listStore() : new SqliteStore(db));
let classes: Record<string, number> = {};
const pace = new Pace(targets.length);
// the lowest limit the census's admission set, and why: a census that throttles itself shows it
const admission = { lowest: C, reason: undefined as string | undefined, reprobed: 0 };
const onAdmission = (s: AdmissionState) => {
  if (s.limit < admission.lowest) admission.lowest = s.limit;
  admission.reason ??= s.reason;
  admission.reprobed = s.reprobed;
};

async function census(list: TargetRecord[]): Promise<void> {
  const runId = await store.startRun("bench", list, { concurrency: C, perHost: C, timeout: T });
  if (mode === "wire") {
    // one host serves the whole fleet, so the per-host limit is raised to the concurrency
    const onAttempt = (a: AttemptRecord) => {
      classes[a.class] = (classes[a.class] ?? 0) + 1;
      pace.done();
    };
    await runCensus(store, runId, list, { concurrency: C, perHost: C, timeout: T, onAdmission, onAttempt });
  } else {
    await forEachLimited(list, {
      keyOf: () => "127.0.0.1",
      limits: { concurrency: C, perKey: C },
      work: async (t) => {
        const started = new Date();
        const { cls, detail, tools } = await sdkProbe(t.target);
        classes[cls] = (classes[cls] ?? 0) + 1;
        await store.recordAttempt(sdkAttempt(runId, t.target, started, cls, detail, tools));
        pace.done();
      },
    });
    await store.finishRun(runId);
  }
}

if (warmTargets.length > 0) {
  await census(warmTargets);
  classes = {};
  admission.lowest = C;
  admission.reason = undefined;
}
const helpers0 = helperThreadsCpuMs();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
pace.start();
await census(targets);
const ms = performance.now() - t0;
const censusCpuMs = cpuMs(cpu0);
const helpers1 = helperThreadsCpuMs();
const helpersCpuMs = helpers0 !== undefined && helpers1 !== undefined ? helpers1 - helpers0 : undefined;
await store.close();
clearInterval(sampler);
const mb = (n: number) => Math.round(n / 1e6);
process.stdout.write(
  `${JSON.stringify({ mode, probes: targets.length, ms, cpuMs: cpuMs(), censusCpuMs, helpersCpuMs, maxRssKb: peakRssKb(), heapMb: { used: mb(peak.heapUsed), total: mb(peak.heapTotal), external: mb(peak.external), arrayBuffers: mb(peak.arrayBuffers) }, classes, admission, pace: pace.marks })}\n`,
);
process.exit(0);

/** Connect and list tools with the SDK, as a census built on it would; the verdict is as fine as the SDK's errors allow. */
async function sdkProbe(url: string): Promise<{ cls: string; detail: string; tools: number | null }> {
  const deadline = AbortSignal.timeout(T);
  const started = Date.now();
  const client = new Client({ name: "sdk-census", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    await client.connect(transport, { timeout: T, signal: deadline });
    const { tools } = await client.listTools(undefined, {
      timeout: Math.max(1, T - (Date.now() - started)),
      signal: deadline,
    });
    return { cls: "ok", detail: "legacy", tools: tools.length };
  } catch (e) {
    const err = e as { code?: unknown; name?: string; message?: string };
    if (deadline.aborted || (err.code === -32001 && /timed out/i.test(err.message ?? "")))
      return { cls: "timeout", detail: "sdk", tools: null };
    return {
      cls: "error",
      detail: `${err.name ?? "Error"} ${typeof err.code === "number" ? err.code : ""}`.trim(),
      tools: null,
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function sdkAttempt(
  runId: number,
  target: string,
  at: Date,
  cls: string,
  detail: string,
  tools: number | null,
): AttemptRecord {
  return {
    runId,
    target,
    at: at.toISOString(),
    class: cls,
    detail,
    era: cls === "ok" ? "legacy" : null,
    revision: null,
    transport: "streamable-http",
    httpStatus: null,
    contentType: null,
    rpcCode: null,
    rpcMessage: null,
    rpcRange: null,
    tools,
    serverName: null,
    serverVersion: null,
    defects: [],
    elapsedMs: Date.now() - at.getTime(),
    repro: null,
    advice: null,
    auth: null,
  };
}

/**
 * The least a store can do for a census: keep each attempt in a list, refuse a second one for
 * the same target (as every engine does), and know which targets are still pending. Not the
 * library's MemoryStore, the report's model, which checks each new attempt against every
 * stored one and so costs a census of thousands more than SQLite does.
 */
function listStore(): Store {
  const targetsOf = new Map<number, readonly TargetRecord[]>();
  const done = new Set<string>();
  const attempts: AttemptRecord[] = [];
  // what a census never asks of its store
  const unused = (what: string) => (): never => {
    throw new Error(`census-run's list store does not ${what}`);
  };
  return {
    where: "memory",
    startRun: async (_source, targets) => {
      targetsOf.set(targetsOf.size + 1, targets);
      return targetsOf.size;
    },
    finishRun: async () => undefined,
    recordAttempt: async (a) => {
      const key = `${a.runId} ${a.target}`;
      if (done.has(key)) throw new Error(`${a.target} already has an attempt in run ${a.runId}`);
      done.add(key);
      attempts.push(a);
    },
    pendingTargets: async (runId) => (targetsOf.get(runId) ?? []).filter((t) => !done.has(`${runId} ${t.target}`)),
    unfinishedRun: unused("look for unfinished runs"),
    runs: unused("list runs"),
    attempts: unused("read attempts back"),
    history: unused("read its history back"),
    toolDefinitions: unused("read tool definitions back"),
    prune: unused("prune"),
    aggregate: unused("aggregate"),
    perTarget: unused("list targets"),
    close: async () => undefined,
  };
}
