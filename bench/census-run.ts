/**
 * One census over the benchmark fleet, run by bench/census.ts in a process of its own so its
 * peak RSS is its own: `node census-run.js <wire|sdk> <port> <count> <concurrency> <timeoutMs> <db>`.
 * Prints one JSON line: `{ mode, ms, maxRssKb, classes }`.
 *
 * `wire` is `runCensus` as `mcp-wire census` runs it (probe per target, SQLite store, one
 * transaction per attempt). `sdk` is the same census driven by the official SDK client: the
 * same limiter and the same store, and per target one Client over its own
 * StreamableHTTPClientTransport that connects (initialize) and lists the tools, within the
 * same overall deadline.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runCensus } from "../src/census/census.js";
import { forEachLimited } from "../src/census/limiter.js";
import { SqliteStore } from "../src/census/sqlite-store.js";
import type { AttemptRecord, TargetRecord } from "../src/census/store.js";

const [mode, port, count, concurrency, timeout, db] = process.argv.slice(2);
if ((mode !== "wire" && mode !== "sdk") || !db) {
  process.stderr.write("usage: census-run <wire|sdk> <port> <count> <concurrency> <timeoutMs> <db>\n");
  process.exit(2);
}
const C = Number(concurrency);
const T = Number(timeout);
const targets: TargetRecord[] = Array.from({ length: Number(count) }, (_, i) => ({ target: `http://127.0.0.1:${port}/t/${i}`, kind: "http", name: null }));

// where the memory goes, sampled: the peak RSS alone does not say whether heap or buffers grew
const peak = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], m[k]);
}, 50);
sampler.unref();

const store = new SqliteStore(db);
const classes: Record<string, number> = {};
const t0 = performance.now();
const runId = await store.startRun("bench", targets, { concurrency: C, perHost: C, timeout: T });

if (mode === "wire") {
  // one host serves the whole fleet, so the per-host limit is raised to the concurrency
  await runCensus(store, runId, targets, { concurrency: C, perHost: C, timeout: T, onAttempt: (a) => (classes[a.class] = (classes[a.class] ?? 0) + 1) });
} else {
  await forEachLimited(targets, () => "127.0.0.1", { concurrency: C, perKey: C }, async (t) => {
    const started = new Date();
    const { cls, detail, tools } = await sdkProbe(t.target);
    classes[cls] = (classes[cls] ?? 0) + 1;
    await store.recordAttempt(sdkAttempt(runId, t.target, started, cls, detail, tools));
  });
  await store.finishRun(runId);
}
const ms = performance.now() - t0;
await store.close();
clearInterval(sampler);
const mb = (n: number) => Math.round(n / 1e6);
process.stdout.write(
  `${JSON.stringify({ mode, ms, maxRssKb: peakRssKb(), cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000, heapMb: { used: mb(peak.heapUsed), total: mb(peak.heapTotal), external: mb(peak.external), arrayBuffers: mb(peak.arrayBuffers) }, classes })}\n`,
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
    const { tools } = await client.listTools(undefined, { timeout: Math.max(1, T - (Date.now() - started)), signal: deadline });
    return { cls: "ok", detail: "legacy", tools: tools.length };
  } catch (e) {
    const err = e as { code?: unknown; name?: string; message?: string };
    if (deadline.aborted || err.code === -32001 && /timed out/i.test(err.message ?? "")) return { cls: "timeout", detail: "sdk", tools: null };
    return { cls: "error", detail: `${err.name ?? "Error"} ${typeof err.code === "number" ? err.code : ""}`.trim(), tools: null };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function sdkAttempt(runId: number, target: string, at: Date, cls: string, detail: string, tools: number | null): AttemptRecord {
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
 * This process's own peak RSS. Not getrusage's maxRSS: on Linux that keeps the high-water mark of
 * the memory a child was forked from, so a child of a large parent reports the parent's size.
 * VmHWM belongs to the address space exec created.
 */
function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}
