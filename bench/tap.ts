/**
 * What `mcp-wire tap` costs a stdio conversation: the latency it adds to each message, and how
 * many messages a second it passes through each way, against the same server on a direct pipe
 * in the same run.
 *
 * Two connections are opened before any timing, to the same bare server (fixtures/flood-server.mjs,
 * which does next to nothing per message): one straight to it, one through `mcp-wire tap
 * --revision 2025-11-25 -- <it>`. Latency: `echo` requests awaited one after another, each
 * round trip timed; a round trip is two messages through the tap, so the latency it adds per
 * message is half the difference of the medians, taken round by round. Throughput: a pass is
 * 2,000 `notifications/progress` one way (server → client: the server floods them on request;
 * client → server: the client writes them at once), ended by a request that says every one
 * arrived. The tap judges every message as in real use (decode, conversation); its summary at
 * the end must count them all and find no defect, or the run fails.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import {
  fmtRate,
  formatMeasurement,
  formatTargets,
  measure,
  quantile,
  ratio,
  result,
  table,
  within,
  type Benchmark,
  type Profile,
  type TargetOutcome,
} from "./harness.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const FLOOD_SERVER = fileURLToPath(new URL("../../bench/fixtures/flood-server.mjs", import.meta.url));
/** Messages per throughput pass. */
const FLOOD = 2000;
const TARGET_RATE = 50_000;
const TARGET_ADDED_MS = 1;
const DIRECT = "direct pipe";
const TAPPED = "through tap";

/** One connection to the flood server: writes lines, matches answers by id, counts notifications. */
class Conn {
  readonly child: ChildProcessWithoutNullStreams;
  notifications = 0;
  private tail = "";
  private nextId = 1;
  private readonly waiting = new Map<number, (result: Record<string, unknown>) => void>();
  private err = "";
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    args: readonly string[],
  ) {
    this.child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.read(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s: string) => (this.err = (this.err + s).slice(-20_000)));
    this.child.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => this.child.once("close", (code) => resolve(code)));
  }

  get stderr(): string {
    return this.err;
  }

  private read(chunk: string): void {
    const lines = (this.tail + chunk).split("\n");
    this.tail = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('{"jsonrpc":"2.0","method"')) {
        this.notifications++;
        continue;
      }
      const m = JSON.parse(line) as { id: number; result: Record<string, unknown> };
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.(m.result);
    }
  }

  request(method: string, params?: object): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.child.stdin.write(
      `{"jsonrpc":"2.0","id":${id},"method":"${method}"${params ? `,"params":${JSON.stringify(params)}` : ""}}\n`,
    );
    return answer;
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

const NOTES = Array.from(
  { length: FLOOD },
  (_, i) =>
    `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"up","progress":${i + 1},"total":${FLOOD},"message":"step ${i + 1} of ${FLOOD}"}}\n`,
).join("");

/** Sequential echoes for `ms`, each round trip's time in milliseconds. */
async function echoes(conn: Conn, ms: number): Promise<number[]> {
  const times: number[] = [];
  const start = performance.now();
  let now: number;
  do {
    const t0 = performance.now();
    await conn.request("echo");
    now = performance.now();
    times.push(now - t0);
  } while (now - start < ms);
  return times;
}

async function latency(conns: Record<string, Conn>, profile: Profile): Promise<TargetOutcome> {
  const order = [DIRECT, TAPPED];
  for (const name of order) await echoes(conns[name]!, profile.warmupMs);
  const all: Record<string, number[]> = { [DIRECT]: [], [TAPPED]: [] };
  const added: number[] = [];
  for (let r = 0; r < profile.rounds; r++) {
    const medians: Record<string, number> = {};
    for (let j = 0; j < order.length; j++) {
      const name = order[(r + j) % order.length]!;
      const times = await echoes(conns[name]!, profile.roundMs);
      all[name]!.push(...times);
      medians[name] = quantile(times, 0.5);
    }
    added.push((medians[TAPPED]! - medians[DIRECT]!) / 2);
  }
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  const rows = order.map((name) => {
    const t = all[name]!;
    return [name, String(t.length), us(quantile(t, 0.5)), us(quantile(t, 0.9)), us(quantile(t, 0.99))];
  });
  console.log("\nround trip of one echo request, awaited one after another (two messages each)");
  console.log(table(["", "round trips", "p50", "p90", "p99"], rows, [false, true, true, true, true]));
  const a = { median: quantile(added, 0.5), p25: quantile(added, 0.25), p75: quantile(added, 0.75) };
  console.log(
    `\nlatency the tap adds per message (half the round trip's, paired by round): median ${us(a.median)} [p25 ${us(a.p25)} – p75 ${us(a.p75)}]; target < ${TARGET_ADDED_MS} ms`,
  );
  // the summary speaks in ratios: the 1 ms budget over what the tap added, at least 1×
  const over = (ms: number) => TARGET_ADDED_MS / Math.max(ms, 0.001);
  return {
    of: `${TARGET_ADDED_MS} ms budget`,
    versus: "added per message",
    atLeast: 1,
    benchmark: "tap",
    measurement: "tap: latency added per message over stdio",
    ratio: { median: over(a.median), p25: over(a.p75), p75: over(a.p25) },
    met: a.median < TARGET_ADDED_MS,
  };
}

async function throughput(
  conns: Record<string, Conn>,
  direction: "server→client" | "client→server",
  profile: Profile,
): Promise<TargetOutcome> {
  const pass = (conn: Conn) =>
    direction === "server→client"
      ? async () => {
          const before = conn.notifications;
          await conn.request("flood", { n: FLOOD });
          if (conn.notifications - before !== FLOOD)
            throw new Error(`tap bench: ${conn.name} passed ${conn.notifications - before} of ${FLOOD} notifications`);
        }
      : async () => {
          conn.write(NOTES);
          const r = await conn.request("count");
          if (r.count !== FLOOD)
            throw new Error(`tap bench: ${conn.name} delivered ${String(r.count)} of ${FLOOD} notifications`);
        };
  const m = await measure(
    `${direction}: ${FLOOD} notifications per pass`,
    { items: FLOOD, bytes: Buffer.byteLength(NOTES), itemLabel: "msg" },
    [DIRECT, TAPPED].map((name) => ({ name, pass: pass(conns[name]!) })),
    profile,
  );
  console.log(`\n${m.title}`);
  console.log(formatMeasurement(m, DIRECT));
  const rates = result(m, TAPPED).rates.map((r) => (r * FLOOD) / TARGET_RATE);
  const ceiling = (result(m, DIRECT).median * FLOOD) / TARGET_RATE;
  const tapVsDirect = ratio(m, TAPPED, DIRECT);
  console.log(
    `through tap / direct pipe: ${tapVsDirect.median.toFixed(2)}× [${tapVsDirect.p25.toFixed(2)}–${tapVsDirect.p75.toFixed(2)}]; target ≥ ${fmtRate(TARGET_RATE)} msg/s through the tap`,
  );
  return {
    of: `${TAPPED} ${direction}`,
    versus: `${fmtRate(TARGET_RATE)}msg/s`,
    atLeast: 1,
    bound: DIRECT,
    benchmark: "tap",
    measurement: `tap: ${direction} throughput`,
    ratio: { median: quantile(rates, 0.5), p25: quantile(rates, 0.25), p75: quantile(rates, 0.75) },
    ceiling,
    met: quantile(rates, 0.5) >= 1,
  };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const conns: Record<string, Conn> = {
    [DIRECT]: new Conn(DIRECT, [FLOOD_SERVER]),
    [TAPPED]: new Conn(TAPPED, [CLI, "tap", "--revision", "2025-11-25", "--", process.execPath, FLOOD_SERVER]),
  };
  try {
    for (const conn of Object.values(conns)) {
      await within(conn.request("echo"), `${conn.name}: the first echo`);
      const r = await within(conn.request("count"), `${conn.name}: count`);
      if (r.count !== 0) throw new Error(`tap bench: ${conn.name}: count ${String(r.count)}`);
    }
    console.log(
      `server: ${FLOOD_SERVER} (node); tap: mcp-wire tap --revision 2025-11-25 -- node <server>; the client is this process`,
    );
    const outcomes = [await latency(conns, profile)];
    for (const direction of ["server→client", "client→server"] as const)
      outcomes.push(await throughput(conns, direction, profile));
    console.log("\n" + formatTargets(outcomes));
    return outcomes;
  } finally {
    const tapped = conns[TAPPED]!;
    await Promise.all(Object.values(conns).map((c) => c.close()));
    const summary = tapped.stderr
      .split("\n")
      .filter((l) => l.startsWith("tap: "))
      .join("\n");
    console.log(`\nthe tap's own summary:\n${summary}`);
    if (!/^tap: no defects$/m.test(summary))
      throw new Error("tap bench: the tap reported defects, or no summary: its output skews the timing");
  }
}

export const tapBenchmark: Benchmark = {
  name: "tap",
  title:
    "mcp-wire tap over stdio: latency added per message and messages per second passed through, against a direct pipe",
  run,
};
