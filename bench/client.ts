/**
 * The client alone: sequential `tools/call` round trips of mcp-wire's McpClient against the
 * official SDK v2 Client, both talking to the same server (the v2 SDK's own, as a process), over
 * stdio and over Streamable HTTP, measured apart; and the memory a walk of 10,000 resources over
 * 100 pages takes with `pages()` (the target: flat, at most 20 MB of heap growth).
 */
import { fileURLToPath } from "node:url";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport as V2HttpClientTransport } from "@modelcontextprotocol/client";
import { LATEST_LEGACY_REVISION } from "../src/rules/revisions.js";
import { ChildServer, McpClient, connectHttp } from "../src/entry/client.js";
import { startListening, startServeHttp, type Proc } from "../src/testkit/interop-harness.js";
import { SERVE_ARGS } from "../src/testkit/mcp-interop.js";
import { FloorHttp, FloorStdio } from "./floor.js";
import {
  checkTargets,
  echoed,
  fmtBytes,
  formatMeasurement,
  formatTargets,
  gcExposed,
  measure,
  within,
  type Benchmark,
  type Contender,
  type Profile,
  type Target,
  type TargetOutcome,
} from "./harness.js";

const CALLS = 64;
const TEXT = "héllo, bench";
const V2_STDIO = fileURLToPath(new URL("../../test/fixtures/v2-sdk-server.mjs", import.meta.url));
const V2_HTTP = fileURLToPath(new URL("../../test/fixtures/v2-sdk-http-server.mjs", import.meta.url));
const PAGES = fileURLToPath(new URL("../../test/fixtures/client-faults-server.mjs", import.meta.url));
// the floor (bench/floor.ts) bounds what any client can reach against the same server
const TARGETS: readonly Target[] = [{ of: "mcp-wire", versus: "sdk-v2", atLeast: 5, bound: "floor" }];
const MAX_GROWTH = 20 * 1024 * 1024;

type Call = () => Promise<unknown>;

/** A pass: CALLS echo calls, one after another, each answer checked. */
function sequential(call: Call): () => Promise<void> {
  return async () => {
    for (let i = 0; i < CALLS; i++) {
      const text = echoed((await call()) as object);
      if (text !== TEXT) throw new Error(`echo answered ${JSON.stringify(text)}`);
    }
  };
}

interface Server {
  label: string;
  stdio: readonly string[];
  http: () => Promise<{ proc: Proc; url: string }>;
  /** Whether the floor runs beside the clients (where the target is checked). */
  floor: boolean;
}

/** mcp-wire's own `serve`, whose cost per call is small enough for the clients' own to show; and the SDK v2 server. */
const SERVERS: readonly Server[] = [
  { label: "mcp-wire serve", stdio: SERVE_ARGS, http: startServeHttp, floor: true },
  {
    label: "the SDK v2 server",
    stdio: [V2_STDIO, "legacy"],
    http: () => startListening(process.execPath, [V2_HTTP, "legacy"]),
    floor: false,
  },
];

async function stdioContenders(server: Server): Promise<{ contenders: Contender[]; close: () => Promise<void> }> {
  const child = new ChildServer(process.execPath, server.stdio);
  const ours = await within(
    McpClient.connect(() => child.transport, { revision: LATEST_LEGACY_REVISION }),
    "McpClient over stdio",
  );
  const theirs = new V2Client({ name: "bench-v2", version: "1.0.0" });
  await within(
    theirs.connect(new V2StdioClientTransport({ command: process.execPath, args: [...server.stdio] })),
    "SDK v2 over stdio",
  );
  const floor = server.floor
    ? await within(FloorStdio.open(process.execPath, server.stdio), "the floor over stdio")
    : undefined;
  return {
    contenders: [
      { name: "mcp-wire", pass: sequential(() => ours.callTool("echo", { text: TEXT })) },
      { name: "sdk-v2", pass: sequential(() => theirs.callTool({ name: "echo", arguments: { text: TEXT } })) },
      ...(floor ? [{ name: "floor", pass: sequential(() => floor.callTool("echo", { text: TEXT })) }] : []),
    ],
    close: async () => {
      await ours.close();
      await child.shutdown(1000);
      await theirs.close();
      floor?.close();
    },
  };
}

async function httpContenders(server: Server): Promise<{ contenders: Contender[]; close: () => Promise<void> }> {
  const { proc, url } = await server.http();
  const { client: ours } = await within(
    connectHttp(url, { transport: "streamable-http", revision: LATEST_LEGACY_REVISION, fresh: true }),
    "McpClient over HTTP",
  );
  const theirs = new V2Client({ name: "bench-v2", version: "1.0.0" });
  await within(theirs.connect(new V2HttpClientTransport(new URL(url))), "SDK v2 over HTTP");
  const floor = server.floor ? await within(FloorHttp.open(url), "the floor over HTTP") : undefined;
  return {
    contenders: [
      { name: "mcp-wire", pass: sequential(() => ours.callTool("echo", { text: TEXT })) },
      { name: "sdk-v2", pass: sequential(() => theirs.callTool({ name: "echo", arguments: { text: TEXT } })) },
      ...(floor ? [{ name: "floor", pass: sequential(() => floor.callTool("echo", { text: TEXT })) }] : []),
    ],
    close: async () => {
      await ours.close();
      await theirs.close();
      floor?.close();
      await (proc as Proc).stop(1000);
    },
  };
}

/** Heap growth while `pages()` walks 10,000 resources in 100 pages from a stdio server. */
async function pageWalkGrowth(): Promise<{ growth: number; items: number }> {
  const child = new ChildServer(process.execPath, [PAGES, "--pages", "100", "--per", "100"]);
  const client = await within(
    McpClient.connect(() => child.transport, { revision: LATEST_LEGACY_REVISION }),
    "pages",
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  let items = 0;
  for await (const page of client.pages("resources/list", { maxPages: 100 })) {
    items += page.resources.length;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  gc?.();
  const after = process.memoryUsage().heapUsed;
  await client.close();
  await child.shutdown(1000);
  return { growth: Math.max(peak, after) - before, items };
}

export const clientBenchmark: Benchmark = {
  name: "client",
  title: "McpClient against the SDK v2 Client, same server, stdio and Streamable HTTP apart",
  async run(profile: Profile): Promise<TargetOutcome[]> {
    const outcomes: TargetOutcome[] = [];
    const work = { items: CALLS, bytes: 0, itemLabel: "call" };
    for (const server of SERVERS) {
      for (const [label, open] of [
        ["stdio", stdioContenders],
        ["Streamable HTTP", httpContenders],
      ] as const) {
        const { contenders, close } = await open(server);
        try {
          const m = await measure(`sequential tools/call over ${label}, ${server.label}`, work, contenders, profile);
          console.log(`\n${m.title}\n${formatMeasurement(m, "sdk-v2")}`);
          // the target is set against the fast server: against a slow one its cost caps any client's ratio
          if (server === SERVERS[0]) outcomes.push(...checkTargets("client", m, TARGETS));
          else console.log(`(against ${server.label}, no target: the server's own cost bounds the ratio)`);
        } finally {
          await close();
        }
      }
    }
    console.log("\n" + formatTargets(outcomes));
    const { growth, items } = await pageWalkGrowth();
    console.log(
      `\npages(): ${items} resources over 100 pages, heap growth ${fmtBytes(growth)} (target ≤ ${fmtBytes(MAX_GROWTH)}${gcExposed ? "" : "; without --expose-gc the figure includes uncollected garbage"}): ${growth <= MAX_GROWTH ? "MET" : "MISSED"}`,
    );
    return outcomes;
  },
};
