/**
 * The gauntlet's costs, each as a ratio against `serve` measured in the same run:
 *
 * - round trips: sequential echo `tools/call` through the gauntlet server (every client message
 *   judged and recorded) against the reference server, ≥ 5,000 calls a side a round (in slices
 *   each side takes in turn, both servers up), stdio (in-process pipes) and HTTP (loopback)
 *   apart, the median of 5 rounds: target ≥ 0.8×;
 * - per scenario, the model client as fresh processes: the gauntlet's wall time for the scenario,
 *   less its scripted waits, against a bare connect–list–call–close run against a fresh `serve`,
 *   the model client's own idle wait for list changes (which it reports) left out of both:
 *   target ≤ 1.5× (printed as bare / gauntlet ≥ 0.67);
 * - `pagination_stuck` against a client that never stops: it ends at the page cap, and the
 *   server's memory grows ≤ 50 MB over its 1,000 pages.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { SCENARIOS, scenarioOf } from "../src/gauntlet/catalogue.js";
import type { ScenarioDef } from "../src/gauntlet/scenario.js";
import { buildCore, serveHttp, serveStdio } from "../src/gauntlet/server.js";
import { requestTarget } from "../src/gauntlet/http-request.js";
import { Tape } from "../src/gauntlet/tape.js";
import { LiveRecording } from "../src/gauntlet/tape-file.js";
import { Witness } from "../src/gauntlet/witness.js";
import { McpClient } from "../src/mcp/client.js";
import { connectHttp } from "../src/mcp/connect-http.js";
import { createReferenceServer } from "../src/mcp/reference-server.js";
import { createHttpHandler } from "../src/transport/http/server.js";
import { StreamTransport } from "../src/transport/stream.js";
import { VERSION } from "../src/version.js";
import { fmtBytes, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const MODEL = fileURLToPath(new URL("../src/testkit/gauntlet-model-client.js", import.meta.url));
const FLOOD = fileURLToPath(new URL("../src/testkit/gauntlet-clients/flood.js", import.meta.url));

function tape(): Tape {
  return new Tape({ recording: 1, tool: "mcp-wire", version: VERSION, transport: "stdio", scenario: "lifecycle" });
}

/** A client on in-process pipes to a server set up by `serve`. */
async function pipeClient(serve: (input: PassThrough, output: PassThrough) => void): Promise<McpClient> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  serve(toServer, toClient);
  return McpClient.connect(() => new StreamTransport(toClient, toServer), { revision: "2025-11-25" });
}

async function listen(handle: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Milliseconds of `calls` sequential calls of `tool`. */
async function spent(client: McpClient, tool: string, args: Record<string, unknown>, calls: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await client.callTool(tool, args);
  return performance.now() - t0;
}

interface Pair {
  gauntlet: () => Promise<{ client: McpClient; close: () => Promise<void> }>;
  serve: () => Promise<{ client: McpClient; close: () => Promise<void> }>;
}

const STDIO: Pair = {
  gauntlet: async () => {
    const core = buildCore(scenarioOf("lifecycle")!, ["2025-11-25"], "stdio");
    const client = await pipeClient((i, o) => serveStdio(core, i, o, new Witness(tape(), "p1")));
    return { client, close: () => client.close() };
  },
  serve: async () => {
    const client = await pipeClient((i, o) => createReferenceServer().connect(new StreamTransport(i, o)));
    return { client, close: () => client.close() };
  },
};

/**
 * STDIO's gauntlet side as a `--stdio-server` runs it: every record also written to its recording
 * file, held until the server writes to its client (one synchronous write per call). Printed
 * beside the target, not as it: the target is the server's own work, judging included.
 */
function stdioRecorded(dir: string): Pair {
  let n = 0;
  return {
    gauntlet: async () => {
      const core = buildCore(scenarioOf("lifecycle")!, ["2025-11-25"], "stdio");
      const t = tape();
      const file = join(dir, `round-${++n}.ndjson`);
      const recording = new LiveRecording(file, t.header, true);
      recording.follow(t);
      const client = await pipeClient((i, o) => serveStdio(core, i, o, new Witness(t, "p1")));
      return {
        client,
        close: async () => {
          await client.close();
          await recording.close();
          rmSync(file, { force: true });
        },
      };
    },
    serve: STDIO.serve,
  };
}

const HTTP: Pair = {
  gauntlet: async () => {
    const core = buildCore(scenarioOf("lifecycle")!, ["2025-11-25"], "http");
    const front = serveHttp(core, tape(), "/mcp");
    const { url, server } = await listen((req, res) => {
      const u = requestTarget(req.url);
      if (!front.handle(req, res, u.path, u.query)) res.writeHead(404).end();
    });
    const { client } = await connectHttp(url, { revision: "2025-11-25", fresh: true });
    return { client, close: async () => (await client.close(), front.close(), await closeServer(server)) };
  },
  serve: async () => {
    const handler = createHttpHandler(createReferenceServer());
    const { url, server } = await listen((req, res) => handler.node(req, res));
    const { client } = await connectHttp(url, { revision: "2025-11-25", fresh: true });
    return { client, close: async () => (await client.close(), await handler.close(), await closeServer(server)) };
  },
};

/** Slices a round's calls are cut into, taken by each side in turn. */
const SLICES = 10;

/**
 * One round: both servers up at once, `calls` calls to each in slices taken in turn, so that a
 * neighbour's burst on this shared machine slows both sides alike instead of one of them.
 */
async function round(pair: Pair, calls: number, r: number): Promise<{ gauntlet: number; serve: number }> {
  const g = await pair.gauntlet();
  const s = await pair.serve();
  const sides = [
    { ms: 0, call: (n: number) => spent(g.client, "gauntlet_lifecycle", {}, n) },
    { ms: 0, call: (n: number) => spent(s.client, "echo", { text: "hi" }, n) },
  ];
  try {
    for (const side of sides) await side.call(Math.min(200, calls));
    const slice = Math.ceil(calls / SLICES);
    for (let k = 0; k < SLICES; k++)
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(r + k + j) % sides.length]!;
        side.ms += await side.call(slice);
      }
  } finally {
    await g.close();
    await s.close();
  }
  const total = Math.ceil(calls / SLICES) * SLICES;
  return { gauntlet: total / (sides[0]!.ms / 1000), serve: total / (sides[1]!.ms / 1000) };
}

async function roundTrips(name: string, pair: Pair, calls: number, rounds: number): Promise<TargetOutcome> {
  const { ratios, rates } = await roundRates(pair, calls, rounds);
  const median = quantile(ratios, 0.5);
  console.log(
    `${name}: gauntlet ${quantile(rates.gauntlet, 0.5).toFixed(0)} calls/s, serve ${quantile(rates.serve, 0.5).toFixed(0)} calls/s (${calls} calls a side a round in ${SLICES} slices taken in turn, median of ${rounds})`,
  );
  return {
    of: "gauntlet server",
    versus: `serve (${name})`,
    atLeast: 0.8,
    benchmark: "gauntlet",
    measurement: `sequential echo tools/call, ${name}`,
    ratio: { median, p25: quantile(ratios, 0.25), p75: quantile(ratios, 0.75) },
    met: median >= 0.8,
  };
}

async function roundRates(
  pair: Pair,
  calls: number,
  rounds: number,
): Promise<{ ratios: number[]; rates: { gauntlet: number[]; serve: number[] } }> {
  const ratios: number[] = [];
  const rates = { gauntlet: [] as number[], serve: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const { gauntlet, serve } = await round(pair, calls, r);
    rates.gauntlet.push(gauntlet);
    rates.serve.push(serve);
    ratios.push(gauntlet / serve);
  }
  return { ratios, rates };
}

/** The recorded stdio server's round trips, printed for what they are: not the target's measure. */
async function recordedRoundTrips(calls: number, rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-bench-gauntlet-"));
  try {
    const { ratios, rates } = await roundRates(stdioRecorded(dir), calls, rounds);
    console.log(
      `stdio with its recording file (as --stdio-server, one synchronous write per call; not the target's measure): gauntlet ${quantile(rates.gauntlet, 0.5).toFixed(0)} calls/s, serve ${quantile(rates.serve, 0.5).toFixed(0)} calls/s, ${quantile(ratios, 0.5).toFixed(2)}× [${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}]`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time of a command, in ms. */
function timed(command: string, args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - t0));
  });
}

/**
 * The model client's own idle time, which the figures leave out: where a server may change its
 * tool list, the client stays a while for a change that may come (a real client stays connected),
 * and that wait is the client's, not the server's. It reports it in `file` (`--waits`).
 */
class ClientWaits {
  readonly file: string;
  constructor(dir: string, name: string) {
    this.file = join(dir, `${name}.waits`);
  }
  /** The milliseconds it waited since the last take. */
  take(): number {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return 0;
    }
    rmSync(this.file, { force: true });
    return text
      .split("\n")
      .filter((l) => l !== "")
      .reduce((n, l) => n + Number(l), 0);
  }
}

/**
 * A bare connect–list–call–close run of the model client against a fresh `serve --http`, less the
 * client's waits: it calls `serve`'s echo, as it calls a scenario's tool in the gauntlet.
 */
async function bareRun(waits: ClientWaits): Promise<number> {
  const t0 = performance.now();
  const serve = spawn(process.execPath, [MAIN, "serve", "--http", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise<string>((resolve) => {
    let err = "";
    serve.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
  });
  await timed(process.execPath, [MODEL, "--waits", waits.file, "--also-call", 'echo:{"text":"hi"}', url]);
  serve.kill("SIGTERM");
  await new Promise((resolve) => serve.once("exit", resolve));
  return performance.now() - t0 - waits.take();
}

interface ScenarioTimes {
  wall: number;
  scripted: number;
  idle: number;
  net: number;
  bare: number;
}

/** One scenario, `rounds` times each way: the medians. */
async function scenarioTimes(s: ScenarioDef, rounds: number, waits: ClientWaits): Promise<ScenarioTimes> {
  const walls: number[] = [];
  const idles: number[] = [];
  const nets: number[] = [];
  const bares: number[] = [];
  const scripted = s.scriptedMs ?? 0;
  for (let r = 0; r < rounds; r++) {
    bares.push(await bareRun(waits));
    const args = [MAIN, "gauntlet", "--scenario", s.id, "--", process.execPath, MODEL, "--waits", waits.file];
    const wall = await timed(process.execPath, args);
    const idle = waits.take();
    walls.push(wall);
    idles.push(idle);
    nets.push(wall - scripted - idle);
  }
  const med = (xs: number[]) => quantile(xs, 0.5);
  return { wall: med(walls), scripted, idle: med(idles), net: med(nets), bare: med(bares) };
}

async function perScenario(quick: boolean): Promise<TargetOutcome[]> {
  const rows: string[][] = [];
  const out: TargetOutcome[] = [];
  const scenarios = SCENARIOS.filter((s) => !s.flag && (!s.transports || s.transports.includes("http")));
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-bench-gauntlet-"));
  const waits = new ClientWaits(dir, "model");
  try {
    for (const s of quick ? scenarios.slice(0, 3) : scenarios) {
      const t = await scenarioTimes(s, quick ? 1 : 3, waits);
      const met = t.net <= 1.5 * t.bare;
      rows.push([
        s.id,
        t.wall.toFixed(0),
        String(t.scripted),
        t.idle.toFixed(0),
        t.net.toFixed(0),
        t.bare.toFixed(0),
        (t.net / t.bare).toFixed(2),
        met ? "MET" : "MISSED",
      ]);
      out.push({
        of: `gauntlet ${s.id}`,
        versus: "bare run against serve",
        atLeast: 1 / 1.5,
        benchmark: "gauntlet",
        measurement:
          "model client, fresh processes: bare / (gauntlet − scripted waits), the client's idle waits left out of both",
        ratio: { median: t.bare / t.net, p25: t.bare / t.net, p75: t.bare / t.net },
        met,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    "\nper scenario (medians; net = wall − scripted − the client's idle wait; bare also without it; target net ≤ 1.5× bare)\n" +
      table(
        ["scenario (model client)", "gauntlet ms", "scripted ms", "client idle ms", "net ms", "bare ms", "× bare", ""],
        rows,
        [false, true, true, true, true, true, true, false],
      ),
  );
  return out;
}

async function stuckMemory(): Promise<TargetOutcome> {
  const core = buildCore(scenarioOf("pagination_stuck")!, ["2025-11-25"], "http");
  const t = tape();
  const front = serveHttp(core, t, "/mcp");
  const { url, server } = await listen((req, res) => {
    const u = requestTarget(req.url);
    if (!front.handle(req, res, u.path, u.query)) res.writeHead(404).end();
  });
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  await timed(process.execPath, [FLOOD, url]);
  const ms = performance.now() - t0;
  (globalThis as { gc?: () => void }).gc?.();
  const growth = process.memoryUsage().rss - before;
  const pages = t.entries.filter((e) => e.record.from === "client" && e.record.line?.includes('"tools/list"')).length;
  front.close();
  await closeServer(server);
  console.log(
    `\npagination_stuck against a client that never stops: ${pages} pages in ${ms.toFixed(0)} ms, the server's RSS grew ${fmtBytes(Math.max(0, growth))}`,
  );
  const budget = 50 * 1024 * 1024;
  return {
    of: "50 MB budget",
    versus: "RSS growth over 1,000 stuck pages",
    atLeast: 1,
    benchmark: "gauntlet",
    measurement: "pagination_stuck, memory",
    ratio: {
      median: budget / Math.max(growth, 1),
      p25: budget / Math.max(growth, 1),
      p75: budget / Math.max(growth, 1),
    },
    met: growth <= budget && pages >= 1000,
  };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const calls = profile.quick ? 300 : 5_000;
  const rounds = profile.quick ? 2 : 5;
  const outcomes: TargetOutcome[] = [];
  outcomes.push(await roundTrips("stdio", STDIO, calls, rounds));
  await recordedRoundTrips(calls, rounds);
  outcomes.push(await roundTrips("HTTP", HTTP, profile.quick ? 200 : 5_000, rounds));
  outcomes.push(await stuckMemory());
  outcomes.push(...(await perScenario(profile.quick)));
  return outcomes;
}

export const gauntletBenchmark: Benchmark = {
  name: "gauntlet",
  title: "the gauntlet server's round trips, scenario runs and a client that never stops paging",
  run,
};
