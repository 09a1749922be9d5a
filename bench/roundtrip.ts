/**
 * Round trips: how many `tools/call` of a trivial `echo` tool a client gets answered per second,
 * mcp-wire client ↔ mcp-wire server against the official SDKs' client ↔ server, in memory and
 * over a real stdio pipe to a child process, in both eras where the stack speaks them.
 *
 * Every contender is one live connection, set up once before timing: a client, a server, and
 * between them either an in-memory pair or the pipes of a child process. A pass is 64 calls,
 * either awaited one after another (the latency a caller waits for) or 16 at a time (what the
 * stack sustains when a caller does not wait). Every echoed text is compared with the text
 * sent and counted in a sink printed at the end, so a contender that stops round-tripping
 * shows, instead of looking fast.
 *
 * Alongside: the heap 100,000 pending requests take in mcp-wire's Peer, measured in a child
 * `node --expose-gc` process (bench/pending-memory.ts).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport as V1InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  McpServer as V2McpServer,
  InMemoryTransport as V2InMemoryTransport,
  fromJsonSchema,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { LATEST_LEGACY_REVISION } from "../src/rules/revisions.js";
import { ChildServer, McpClient } from "../src/entry/client.js";
import { createMemoryPair } from "../src/entry/peer.js";
import { createReferenceServer } from "../src/entry/server.js";
import {
  checkTargets,
  echoed,
  fmtBytes,
  fmtRate,
  fmtRatio,
  formatTargets,
  loadLine,
  measure,
  quantile,
  ratio,
  table,
  within,
  type Benchmark,
  type Contender,
  type Measurement,
  type Profile,
  type Target,
  type TargetOutcome,
} from "./harness.js";

/** Calls per pass. */
const CALLS = 64;
/** Calls in flight in the pipelined passes. */
const IN_FLIGHT = 16;
/** The short texts echoed, one per call of a pass; each call checks it got its own back. */
const TEXTS: readonly string[] = Array.from({ length: CALLS }, (_, i) => `echo ${i}`);
/** The first call of every connection, before any timing: non-ASCII, so encoding slips show. */
const CHECK_TEXT = "round trip ✓ héllo";
const MODERN = "2026-07-28";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const SDK_V1_SERVER = fileURLToPath(new URL("../../bench/fixtures/sdk-v1-server.mjs", import.meta.url));
const SDK_V2_SERVER = fileURLToPath(new URL("../../bench/fixtures/sdk-v2-server.mjs", import.meta.url));
const PENDING_MEMORY = fileURLToPath(new URL("./pending-memory.js", import.meta.url));

// Contender names: stack, era, channel.
const WIRE_MODERN_MEM = "mcp-wire 2026, memory";
const WIRE_LEGACY_MEM = "mcp-wire legacy, memory";
const V1_MEM = "SDK v1 legacy, memory";
const V2_LEGACY_MEM = "SDK v2 legacy, memory";
const V2_MODERN_MEM = "SDK v2 2026, memory";
const WIRE_MODERN_STDIO = "mcp-wire 2026, stdio";
const WIRE_LEGACY_STDIO = "mcp-wire legacy, stdio";
const V1_STDIO = "SDK v1 legacy, stdio";
const V2_LEGACY_STDIO = "SDK v2 legacy, stdio";
const V2_MODERN_STDIO = "SDK v2 2026, stdio";

/** In memory, like for like by era: the targets. Awaited calls, one after another. */
const TARGETS: readonly Target[] = [
  { of: WIRE_LEGACY_MEM, versus: V2_LEGACY_MEM, atLeast: 3 },
  { of: WIRE_MODERN_MEM, versus: V2_MODERN_MEM, atLeast: 5 },
];

/** Ratios reported without a target. */
const REPORTED: readonly [string, string][] = [
  [WIRE_LEGACY_MEM, V2_LEGACY_MEM],
  [WIRE_MODERN_MEM, V2_MODERN_MEM],
  [WIRE_LEGACY_MEM, V1_MEM],
  [WIRE_MODERN_MEM, V1_MEM],
  [WIRE_MODERN_MEM, WIRE_LEGACY_MEM],
  [WIRE_LEGACY_STDIO, V2_LEGACY_STDIO],
  [WIRE_MODERN_STDIO, V2_MODERN_STDIO],
  [WIRE_LEGACY_STDIO, V1_STDIO],
  [WIRE_MODERN_STDIO, V1_STDIO],
  [WIRE_MODERN_STDIO, WIRE_LEGACY_STDIO],
];

/** The memory target: 100,000 pending requests in at most 100 MB of heap. */
const PENDING = 100_000;
const PENDING_BUDGET = 100e6;

// ---------------------------------------------------------------------------------------------
// Connections

/** What one contender's calls came to, over every pass. */
interface Tally {
  sequential: number;
  pipelined: number;
  /** Calls whose result did not carry the text sent. */
  wrong: number;
}

/** One live client ↔ server connection, ready to be timed. */
interface Connection {
  name: string;
  /** What the two ends agreed on, read back from the client after connecting. */
  revision: string;
  /** How the server end is wired, for the setup table. */
  wiring: string;
  setupMs: number;
  /** The server's process, for stdio. */
  pid?: number;
  tally: Tally;
  /** 64 calls awaited one after another. */
  sequential: () => Promise<void>;
  /** 64 calls, 16 in flight. */
  pipelined: () => Promise<void>;
  close: () => Promise<void>;
}

type Loops = Pick<Connection, "sequential" | "pipelined">;

/**
 * The sequential and pipelined loops over one stack's echo call. Each stack passes its own `echo`,
 * which makes the call and reads the text back out of that stack's result, so the stack-specific
 * shapes stay inside it and the loops themselves only ever see strings.
 */
function loopsOver(echo: (text: string) => Promise<unknown>, tally: Tally): Loops {
  // calls first, first + step, … one after another: the whole list with step 1, one of
  // IN_FLIGHT interleaved lanes with step IN_FLIGHT
  const lane = async (first: number, step: number): Promise<number> => {
    let wrong = 0;
    for (let i = first; i < CALLS; i += step) {
      const text = TEXTS[i]!;
      if ((await echo(text)) !== text) wrong++;
    }
    return wrong;
  };
  return {
    sequential: async () => {
      tally.wrong += await lane(0, 1);
      tally.sequential += CALLS;
    },
    pipelined: async () => {
      const lanes: Promise<number>[] = [];
      for (let k = 0; k < IN_FLIGHT; k++) lanes.push(lane(k, IN_FLIGHT));
      for (const wrong of await Promise.all(lanes)) tally.wrong += wrong;
      tally.pipelined += CALLS;
    },
  };
}

const wireLoops = (client: McpClient, tally: Tally): Loops =>
  loopsOver(async (text) => echoed(await client.callTool("echo", { text })), tally);
const v1Loops = (client: V1Client, tally: Tally): Loops =>
  loopsOver(async (text) => echoed(await client.callTool({ name: "echo", arguments: { text } })), tally);
const v2Loops = (client: V2Client, tally: Tally): Loops =>
  loopsOver(async (text) => echoed(await client.callTool({ name: "echo", arguments: { text } })), tally);

function newTally(): Tally {
  return { sequential: 0, pipelined: 0, wrong: 0 };
}

/** The last part of a child's stderr, for error messages. */
function stderrCollector(stream: NodeJS.ReadableStream | null | undefined): () => string {
  let tail = "";
  stream?.on("data", (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-2000);
  });
  return () => tail.trim();
}

/** The server's identity and the text round trip, before any timing. */
async function firstCall(name: string, call: (text: string) => Promise<object>): Promise<void> {
  const result = await within(call(CHECK_TEXT), `${name}: first tools/call echo`);
  const text = echoed(result);
  if (text !== CHECK_TEXT)
    throw new Error(
      `${name}: echo returned ${JSON.stringify(text)} for ${JSON.stringify(CHECK_TEXT)}: ${JSON.stringify(result).slice(0, 300)}`,
    );
}

// mcp-wire ----------------------------------------------------------------------------------

async function wireMemory(name: string, legacy: boolean): Promise<Connection> {
  const t0 = performance.now();
  const server = createReferenceServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  const client = await within(
    McpClient.connect(() => clientEnd, legacy ? { revision: LATEST_LEGACY_REVISION } : {}),
    `${name}: connect`,
  );
  await firstCall(name, (text) => client.callTool("echo", { text }));
  const tally = newTally();
  return {
    name,
    revision: `${client.revision} (${client.era})`,
    wiring: "createMemoryPair; McpServer.connect",
    setupMs: performance.now() - t0,
    tally,
    ...wireLoops(client, tally),
    close: () => client.close(),
  };
}

async function wireStdio(name: string, legacy: boolean): Promise<Connection> {
  const t0 = performance.now();
  const child = new ChildServer(process.execPath, [CLI, "serve", "--stdio"]);
  try {
    const client = await within(
      McpClient.connect(() => child.transport, legacy ? { revision: LATEST_LEGACY_REVISION } : {}),
      `${name}: connect`,
    );
    await firstCall(name, (text) => client.callTool("echo", { text }));
    const tally = newTally();
    return {
      name,
      revision: `${client.revision} (${client.era})`,
      wiring: "mcp-wire serve --stdio",
      setupMs: performance.now() - t0,
      ...(child.pid !== undefined ? { pid: child.pid } : {}),
      tally,
      ...wireLoops(client, tally),
      close: async () => {
        await client.close().catch(() => undefined);
        await child.shutdown();
      },
    };
  } catch (e) {
    await child.shutdown(500);
    throw new Error(
      `${e instanceof Error ? e.message : String(e)}; server stderr: ${child.stderrTail().slice(-1000) || "(empty)"}`,
    );
  }
}

// SDK v1 ------------------------------------------------------------------------------------

function v1Server(): V1McpServer {
  const server = new V1McpServer({ name: "sdk-v1-bench", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text argument.", inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: "text", text }],
    }),
  );
  return server;
}

/** v1's client tells a transport that can take it which version `initialize` settled on. */
function watchVersion(transport: object): () => string {
  let version = "(not reported)";
  Object.assign(transport, { setProtocolVersion: (v: string) => (version = v) });
  return () => version;
}

async function v1Memory(name: string): Promise<Connection> {
  const t0 = performance.now();
  const server = v1Server();
  const [clientEnd, serverEnd] = V1InMemoryTransport.createLinkedPair();
  const version = watchVersion(clientEnd);
  await server.connect(serverEnd);
  const client = new V1Client({ name: "bench-v1", version: "1.0.0" });
  await within(client.connect(clientEnd), `${name}: connect`);
  await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  const tally = newTally();
  return {
    name,
    revision: `${version()} (legacy)`,
    wiring: "InMemoryTransport; McpServer.connect",
    setupMs: performance.now() - t0,
    tally,
    ...v1Loops(client, tally),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function v1Stdio(name: string): Promise<Connection> {
  const t0 = performance.now();
  const transport = new V1StdioClientTransport({ command: process.execPath, args: [SDK_V1_SERVER], stderr: "pipe" });
  const stderr = stderrCollector(transport.stderr as NodeJS.ReadableStream | null);
  const version = watchVersion(transport);
  const client = new V1Client({ name: "bench-v1", version: "1.0.0" });
  try {
    await within(client.connect(transport), `${name}: connect`);
    await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  } catch (e) {
    await client.close().catch(() => undefined);
    throw new Error(`${e instanceof Error ? e.message : String(e)}; server stderr: ${stderr() || "(empty)"}`);
  }
  const tally = newTally();
  const pid = transport.pid;
  return {
    name,
    revision: `${version()} (legacy)`,
    wiring: "bench/fixtures/sdk-v1-server.mjs (StdioServerTransport)",
    setupMs: performance.now() - t0,
    ...(pid !== null ? { pid } : {}),
    tally,
    ...v1Loops(client, tally),
    close: () => client.close(),
  };
}

// SDK v2 ------------------------------------------------------------------------------------

function v2Server(): V2McpServer {
  const server = new V2McpServer({ name: "sdk-v2-bench", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "echo",
    {
      description: "Returns its text argument.",
      inputSchema: fromJsonSchema<{ text: string }>({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      }),
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

function v2Client(modern: boolean): V2Client {
  return new V2Client(
    { name: "bench-v2", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
}

/**
 * In memory. Legacy: the plain wiring, `McpServer.connect(InMemoryTransport)`. A v2 McpServer
 * connected that way answers only the 2025 era (`server/discover` gets -32601), so the 2026
 * era goes through `serveStdio` with the in-memory transport as its "bring your own
 * transport" wire: the entry point that classifies the opening and pins a modern instance.
 */
async function v2Memory(name: string, modern: boolean): Promise<Connection> {
  const t0 = performance.now();
  const [clientEnd, serverEnd] = V2InMemoryTransport.createLinkedPair();
  let closeServer: () => Promise<void>;
  if (modern) {
    const handle = serveStdio(() => v2Server(), {
      transport: serverEnd,
      onerror: (e) => console.error(`${name}: server: ${e.message}`),
    });
    closeServer = () => handle.close();
  } else {
    const server = v2Server();
    await server.connect(serverEnd);
    closeServer = () => server.close();
  }
  const client = v2Client(modern);
  await within(client.connect(clientEnd), `${name}: connect`);
  await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  const tally = newTally();
  return {
    name,
    revision: `${client.getNegotiatedProtocolVersion() ?? "(unknown)"} (${modern ? "modern" : "legacy"})`,
    wiring: modern ? "InMemoryTransport; serveStdio({ transport })" : "InMemoryTransport; McpServer.connect",
    setupMs: performance.now() - t0,
    tally,
    ...v2Loops(client, tally),
    close: async () => {
      await client.close();
      await closeServer();
    },
  };
}

/** Over stdio: the fixture in `legacy` mode (McpServer.connect) or `dual` mode (serveStdio). */
async function v2Stdio(name: string, modern: boolean): Promise<Connection> {
  const t0 = performance.now();
  const mode = modern ? "dual" : "legacy";
  const transport = new V2StdioClientTransport({
    command: process.execPath,
    args: [SDK_V2_SERVER, mode],
    stderr: "pipe",
  });
  const stderr = stderrCollector(transport.stderr as NodeJS.ReadableStream | null);
  const client = v2Client(modern);
  try {
    await within(client.connect(transport), `${name}: connect`);
    await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  } catch (e) {
    await client.close().catch(() => undefined);
    throw new Error(`${e instanceof Error ? e.message : String(e)}; server stderr: ${stderr() || "(empty)"}`);
  }
  const tally = newTally();
  const pid = transport.pid;
  return {
    name,
    revision: `${client.getNegotiatedProtocolVersion() ?? "(unknown)"} (${modern ? "modern" : "legacy"})`,
    wiring: modern
      ? "bench/fixtures/sdk-v2-server.mjs dual (serveStdio)"
      : "bench/fixtures/sdk-v2-server.mjs legacy (StdioServerTransport)",
    setupMs: performance.now() - t0,
    ...(pid !== null ? { pid } : {}),
    tally,
    ...v2Loops(client, tally),
    close: () => client.close(),
  };
}

/** Every connection, in table order. */
const OPENERS: readonly [string, (name: string) => Promise<Connection>][] = [
  [WIRE_MODERN_MEM, (n) => wireMemory(n, false)],
  [WIRE_LEGACY_MEM, (n) => wireMemory(n, true)],
  [V1_MEM, (n) => v1Memory(n)],
  [V2_LEGACY_MEM, (n) => v2Memory(n, false)],
  [V2_MODERN_MEM, (n) => v2Memory(n, true)],
  [WIRE_MODERN_STDIO, (n) => wireStdio(n, false)],
  [WIRE_LEGACY_STDIO, (n) => wireStdio(n, true)],
  [V1_STDIO, (n) => v1Stdio(n)],
  [V2_LEGACY_STDIO, (n) => v2Stdio(n, false)],
  [V2_MODERN_STDIO, (n) => v2Stdio(n, true)],
];

/** Is the process still there? (Signal 0 checks without sending anything.) */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Closes every connection (each with a deadline), then makes sure no server process outlives
 * the benchmark: anything still there after its graceful shutdown gets SIGKILL.
 */
async function closeAll(connections: readonly Connection[]): Promise<string> {
  const problems: string[] = [];
  await Promise.all(
    connections.map(async (c) => {
      try {
        await within(c.close(), `${c.name}: close`, 6000);
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }),
  );
  const pids = connections.flatMap((c) => (c.pid !== undefined ? [c.pid] : []));
  const left = pids.filter(alive);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone in the meantime
    }
  }
  const gone = pids.length - left.length;
  return `server processes: ${pids.length} started, ${gone} exited when their connection closed${left.length > 0 ? `, ${left.length} still running and killed (${left.join(", ")})` : ""}${problems.length > 0 ? `; close problems: ${problems.join("; ")}` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Printing

/** Rates per contender: calls (round trips), messages, time per call, noise, vs a baseline. */
function formatRoundTrips(m: Measurement, baseline: string): string {
  const rows = m.results.map((r) => {
    const calls = r.median * m.work.items;
    const vs = r.name === baseline ? "1.00× (baseline)" : fmtRatio(ratio(m, r.name, baseline));
    return [
      r.name,
      fmtRate(calls),
      fmtRate(2 * calls),
      (1e6 / calls).toFixed(1),
      `±${((r.spread * 100) / 2).toFixed(1)}%`,
      vs,
    ];
  });
  return table(["contender", "round trips/s", "msg/s", "µs per call", "noise ±½IQR", `vs ${baseline}`], rows, [
    false,
    true,
    true,
    true,
    true,
    false,
  ]);
}

/** The ratios reported without a target (those with one are in the targets table). */
function formatRatios(m: Measurement, pairs: readonly [string, string][], targets: readonly Target[]): string {
  const rows = pairs
    .filter(([a, b]) => !targets.some((t) => t.of === a && t.versus === b))
    .map(([a, b]) => [`${a} / ${b}`, fmtRatio(ratio(m, a, b))]);
  return table(["ratio, no target (median of per-round ratios [p25–p75])", "measured"], rows, [false, true]);
}

function formatSink(connections: readonly Connection[]): string {
  const rows = connections.map((c) => [
    c.name,
    String(c.tally.sequential),
    String(c.tally.pipelined),
    String(c.tally.wrong),
  ]);
  return table(["contender", "awaited calls", "pipelined calls", "wrong echoes"], rows, [false, true, true, true]);
}

// ---------------------------------------------------------------------------------------------
// Heap per pending request

interface PendingRun {
  n: number;
  inFlight: number;
  heapGrowth: number;
  closedErrors: number;
  inFlightAfterClose: number;
}

const execFileAsync = promisify(execFile);

async function pendingRun(): Promise<PendingRun> {
  const { stdout } = await execFileAsync(process.execPath, ["--expose-gc", PENDING_MEMORY, String(PENDING)], {
    timeout: 60_000,
  });
  return JSON.parse(stdout) as PendingRun;
}

/**
 * The pending-request runs, all at once: they take a second or so each, their heap figures do
 * not depend on how busy the machine is, and they all end before any timing starts.
 */
function pendingRuns(profile: Profile): Promise<PendingRun[]> {
  return Promise.all(Array.from({ length: profile.quick ? 1 : 3 }, () => pendingRun()));
}

function pendingMemory(runs: readonly PendingRun[]): TargetOutcome {
  const growth = runs.map((r) => r.heapGrowth);
  const median = quantile(growth, 0.5);
  console.log(`\n## heap per pending request (mcp-wire Peer, memory pair that never answers)\n`);
  console.log(
    `${PENDING.toLocaleString("en-US")} requests pending, in a child node --expose-gc process, ${runs.length} run${runs.length > 1 ? "s" : ""}; heap growth after a full GC: ${growth.map(fmtBytes).join(", ")}`,
  );
  const sane = runs.every(
    (r) => r.n === PENDING && r.inFlight === PENDING && r.closedErrors === PENDING && r.inFlightAfterClose === 0,
  );
  console.log(
    `median ${fmtBytes(median)} = ${(median / PENDING).toFixed(0)} bytes per pending request (its params, the Peer's entry and timer, the caller's promise); ` +
      `target: ${PENDING.toLocaleString("en-US")} pending fit in ${fmtBytes(PENDING_BUDGET)}, i.e. ≤ ${(PENDING_BUDGET / PENDING).toFixed(0)} bytes each: ${median <= PENDING_BUDGET ? "met" : "MISSED"}`,
  );
  console.log(
    sane
      ? `every run: all ${PENDING.toLocaleString("en-US")} in flight while measured, all rejected with ClosedError by close(), none left in flight`
      : `WARNING: a run did not hold or release what it should: ${JSON.stringify(runs)}`,
  );
  const headroom = growth.map((g) => PENDING_BUDGET / g);
  return {
    benchmark: "roundtrip",
    measurement: `heap, ${PENDING.toLocaleString("en-US")} pending requests`,
    of: `${fmtBytes(PENDING_BUDGET)} budget`,
    versus: "heap growth",
    atLeast: 1,
    ratio: { median: quantile(headroom, 0.5), p25: quantile(headroom, 0.25), p75: quantile(headroom, 0.75) },
    met: median <= PENDING_BUDGET,
  };
}

// ---------------------------------------------------------------------------------------------

async function roundTrips(profile: Profile, pending: Promise<unknown>): Promise<TargetOutcome[]> {
  const connections: Connection[] = [];
  // the last resort, should the benchmark die between here and closeAll
  const killLeft = () => {
    for (const c of connections) {
      try {
        if (c.pid !== undefined && alive(c.pid)) process.kill(c.pid, "SIGKILL");
      } catch {
        // gone in the meantime
      }
    }
  };
  process.once("exit", killLeft);
  try {
    // in memory one by one, then the stdio ones together, since starting a node process takes
    // a while; kept in table order
    for (const [name, open] of OPENERS.filter(([n]) => n.endsWith("memory"))) connections.push(await open(name));
    const opened = await Promise.allSettled(
      OPENERS.filter(([n]) => n.endsWith("stdio")).map(([name, open]) => open(name)),
    );
    for (const o of opened) if (o.status === "fulfilled") connections.push(o.value);
    const failed = opened.flatMap((o) =>
      o.status === "rejected" ? [o.reason instanceof Error ? o.reason.message : String(o.reason)] : [],
    );
    if (failed.length > 0) throw new Error(`could not open every connection:\n  ${failed.join("\n  ")}`);
    // the pending-request runs started with the connections: nothing else runs while timing
    await pending;
    console.log(`\n## connections\n`);
    console.log(
      table(
        ["contender", "negotiated", "server", "connect ms"],
        connections.map((c) => [c.name, c.revision, c.wiring, c.setupMs.toFixed(0)]),
        [false, false, false, true],
      ),
    );
    console.log(
      `\nclients: McpClient.connect (2026 auto-detected; legacy forced with revision ${LATEST_LEGACY_REVISION}), SDK v1 Client, SDK v2 Client (default legacy era, or versionNegotiation pinned to ${MODERN}); every connection answered echo ${JSON.stringify(CHECK_TEXT)} before timing; connect ms includes that call, and for stdio the spawn (the five started together)`,
    );
    console.log(
      `SDK v2, 2026 era in memory: a v2 McpServer.connect(InMemoryTransport) serves only the 2025 era, so the 2026 contender runs serveStdio over the in-memory transport (its "bring your own transport" option)`,
    );

    const work = { items: CALLS, bytes: 0, itemLabel: "call" };
    const sequential = await measure(
      "round trips, awaited one by one",
      work,
      connections.map((c): Contender => ({ name: c.name, pass: c.sequential })),
      profile,
    );
    console.log(`\n## tools/call echo, awaited one after another (${CALLS} per pass)\n`);
    console.log(
      `${profile.rounds} interleaved rounds of ${profile.roundMs} ms per contender, ${loadLine()}; medians; one round trip = 2 messages:\n`,
    );
    console.log(formatRoundTrips(sequential, V2_LEGACY_MEM));
    const outcomes = checkTargets("roundtrip", sequential, TARGETS);
    console.log("\n" + formatTargets(outcomes));
    console.log("\n" + formatRatios(sequential, REPORTED, TARGETS));

    // the secondary figure: fewer rounds, to keep the whole benchmark near a minute and a half
    const p: Profile = { ...profile, rounds: Math.max(2, Math.round((profile.rounds * 2) / 3)) };
    const pipelined = await measure(
      `round trips, ${IN_FLIGHT} in flight`,
      work,
      connections.map((c): Contender => ({ name: c.name, pass: c.pipelined })),
      p,
    );
    console.log(`\n## tools/call echo, ${IN_FLIGHT} in flight (${CALLS} per pass)\n`);
    console.log(
      `${p.rounds} interleaved rounds of ${p.roundMs} ms per contender, ${loadLine()}; medians; no targets:\n`,
    );
    console.log(formatRoundTrips(pipelined, V2_LEGACY_MEM));
    console.log("\n" + formatRatios(pipelined, REPORTED, []));

    console.log(
      `\nsink, over every pass above (warm-up included); every call's echoed text compared with the text sent:\n`,
    );
    console.log(formatSink(connections));
    const wrong = connections.reduce((n, c) => n + c.tally.wrong, 0);
    if (wrong > 0)
      console.log(`WARNING: ${wrong} calls did not echo their text: those contenders did not really round-trip`);
    return outcomes;
  } finally {
    console.log("\n" + (await closeAll(connections)));
    process.off("exit", killLeft);
  }
}

export const roundtripBenchmark: Benchmark = {
  name: "roundtrip",
  title: "tools/call round trips, mcp-wire against the SDKs, in memory and over stdio",
  run: async (profile) => {
    const pending = pendingRuns(profile);
    // awaited here, and before any timing in roundTrips: never an unhandled rejection
    const settled = pending.then(
      () => undefined,
      () => undefined,
    );
    let outcomes: TargetOutcome[];
    try {
      outcomes = await roundTrips(profile, settled);
    } finally {
      await settled;
    }
    outcomes.push(pendingMemory(await pending));
    return outcomes;
  },
};
