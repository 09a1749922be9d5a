/**
 * `npm run interop`: recordings of real servers we did not write — server-everything over stdio,
 * Streamable HTTP and HTTP+SSE, in each revision it speaks on each; an SDK v2 server; FastMCP —
 * played by `mock` to the official SDK v1 and v2 clients and the AI SDK's client. Each client
 * gets the same from the mock as from the real server: the listing, a call, a call with progress
 * and a call during which the server asks the client (`elicitation/create`).
 *
 * The recordings are made through `mcp-wire tap --log` by the SDK v1 client (the revision it
 * asks for), and by mcp-wire's own client told to speak exactly one older revision (no official
 * client can be told so). A stdio recording is played by `mcp-wire mock` over stdio and by
 * `mockServer` over HTTP; an HTTP recording by `mockServer` over its own transport, which must
 * leave nothing unmatched.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { JsonObject } from "../src/index.js";
import { ChildServer, McpClient, connectHttp } from "../src/entry/client.js";
import { mockServer } from "../src/entry/testing.js";
import type { Endpoint } from "../src/testkit/interop-clients.js";
import { CLI, NODE, Proc, fixture, freePort, scratch, startListening, within } from "../src/testkit/interop-harness.js";
import { SERVER_EVERYTHING } from "../src/testkit/interop-peers.js";
import { recordedSession, type RecordedClient, type Seen, type SessionPlan } from "../src/testkit/recorded-session.js";
import { throughHttpTap } from "../src/testkit/recordings.js";

const CLIENTS: readonly RecordedClient[] = ["sdk-v1", "sdk-v2", "ai-sdk"];

interface Running {
  endpoint: Endpoint;
  stop(): Promise<void>;
}

interface Source {
  name: string;
  transport: "stdio" | "streamable-http" | "http+sse";
  plan: SessionPlan;
  start(): Promise<Running>;
  /** The older revisions it speaks on this transport, each recorded by mcp-wire's client. */
  revisions: readonly string[];
}

const EVERYTHING_PLAN: SessionPlan = {
  echo: { tool: "echo", args: { message: "héllo, wire" } },
  progress: { tool: "trigger-long-running-operation", args: { duration: 0.3, steps: 3 } },
  ask: { tool: "trigger-elicitation-request", args: {} },
};
const FASTMCP_PLAN: SessionPlan = {
  echo: { tool: "echo", args: { message: "héllo, wire" } },
  progress: { tool: "slow", args: { steps: 3 } },
  ask: { tool: "ask", args: {} },
};
const V2_PLAN: SessionPlan = {
  echo: { tool: "echo", args: { text: "héllo, wire" } },
  progress: { tool: "slow", args: { steps: 3, intervalMs: 50 } },
  ask: { tool: "ask", args: {} },
};

function stdio(args: readonly string[]): () => Promise<Running> {
  return async () => ({ endpoint: { kind: "stdio", command: NODE, args }, stop: async () => undefined });
}

function printing(args: readonly string[], path: string, sse = false): () => Promise<Running> {
  return async () => {
    const { proc, url } = await startListening(NODE, args, path);
    return { endpoint: { kind: "http", url, ...(sse ? { sse } : {}) }, stop: async () => void (await proc.stop()) };
  };
}

/** FastMCP cannot report a port it picked: it is given one, and says so once listening. */
function fastmcpHttp(): Promise<Running> {
  return freePort().then(async (port) => {
    const proc = new Proc(NODE, [fixture("peers/fastmcp-session.mjs"), "httpStream", String(port)]);
    await proc.waitFor(/PORT \d+/, "FastMCP listening");
    return {
      endpoint: { kind: "http", url: `http://127.0.0.1:${port}/mcp` },
      stop: async () => void (await proc.stop()),
    };
  });
}

const SOURCES: readonly Source[] = [
  {
    name: "server-everything stdio",
    transport: "stdio",
    plan: EVERYTHING_PLAN,
    start: stdio([SERVER_EVERYTHING, "stdio"]),
    revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"],
  },
  {
    name: "server-everything streamableHttp",
    transport: "streamable-http",
    plan: EVERYTHING_PLAN,
    start: printing([fixture("everything-http.mjs"), "streamable"], "/mcp"),
    revisions: ["2025-03-26", "2025-06-18", "2025-11-25"],
  },
  {
    name: "server-everything sse",
    transport: "http+sse",
    plan: EVERYTHING_PLAN,
    start: printing([fixture("everything-http.mjs"), "sse"], "/sse", true),
    revisions: ["2024-11-05"],
  },
  {
    name: "SDK v2 server stdio",
    transport: "stdio",
    plan: V2_PLAN,
    start: stdio([fixture("v2-sdk-server.mjs"), "dual", "ask"]),
    revisions: [],
  },
  {
    name: "SDK v2 server http",
    transport: "streamable-http",
    plan: V2_PLAN,
    start: printing([fixture("v2-sdk-http-server.mjs"), "legacy", "ask"], "/mcp"),
    revisions: [],
  },
  {
    name: "FastMCP stdio",
    transport: "stdio",
    plan: FASTMCP_PLAN,
    start: stdio([fixture("peers/fastmcp-session.mjs"), "stdio"]),
    revisions: [],
  },
  { name: "FastMCP httpStream", transport: "streamable-http", plan: FASTMCP_PLAN, start: fastmcpHttp, revisions: [] },
];

/** The session of mcp-wire's own client, in exactly `revision`, as the SDK clients' session goes. */
async function wireSession(endpoint: Endpoint, plan: SessionPlan, revision: string): Promise<void> {
  const options = {
    clientInfo: { name: "mcp-wire-recordings", version: "1.0.0" },
    capabilities: { elicitation: {} },
    inputHandlers: { "elicitation/create": async () => ({ action: "decline" }) },
    revision: revision as "2025-11-25",
    timeout: 20_000,
  };
  let child: ChildServer | undefined;
  const client =
    endpoint.kind === "stdio"
      ? await McpClient.connect(() => {
          child = new ChildServer(endpoint.command, endpoint.args);
          return child.transport;
        }, options)
      : (
          await connectHttp(endpoint.url, {
            ...options,
            fresh: true,
            transport: endpoint.sse ? ("http+sse" as const) : ("streamable-http" as const),
          })
        ).client;
  try {
    await client.listTools();
    await client.callTool(plan.echo.tool, plan.echo.args as JsonObject);
    let progress = 0;
    await client.callTool(plan.progress.tool, plan.progress.args as JsonObject, { onProgress: () => void progress++ });
    assert.ok(progress >= 1, "the server reported progress to mcp-wire's client");
    await client.callTool(plan.ask.tool, plan.ask.args as JsonObject);
  } finally {
    await client.close();
    await child?.shutdown(2000);
  }
}

/** Records one session against `real` into `file`: the SDK v1 client's, or mcp-wire's in `revision`. */
async function record(source: Source, real: Endpoint, file: string, revision?: string): Promise<void> {
  const session = (endpoint: Endpoint) =>
    revision === undefined
      ? recordedSession("sdk-v1", endpoint, source.plan).then(() => undefined)
      : wireSession(endpoint, source.plan, revision);
  if (real.kind === "stdio")
    return within(
      session({ kind: "stdio", command: NODE, args: [CLI, "tap", "--log", file, "--", real.command, ...real.args] }),
      `recording ${source.name}`,
      60_000,
    );
  const sse = real.sse === true;
  await within(
    throughHttpTap(real.url, file, (url) => session({ kind: "http", url, ...(sse ? { sse } : {}) })),
    `recording ${source.name}`,
    60_000,
  );
}

/** The revision the recorded server answered `initialize` with. */
function recordedRevision(file: string): unknown {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes('"from":"server"')) continue;
    const record = JSON.parse(line) as { line?: string };
    const result = (JSON.parse(record.line ?? "null") as { result?: { protocolVersion?: unknown } } | null)?.result;
    if (result?.protocolVersion !== undefined) return result.protocolVersion;
  }
  return undefined;
}

/**
 * The same results; progress reaches a client that asks for it (how many of a burst a client
 * counts is its own affair: the SDK v2 client drops one that comes with the answer, from the real
 * server too), and none reaches one that does not.
 */
function assertSame(client: RecordedClient, mocked: Seen, real: Seen): void {
  assert.deepEqual({ ...mocked, progress: 0 }, { ...real, progress: 0 });
  if (client === "ai-sdk") assert.equal(mocked.progress, 0);
  else
    assert.ok(mocked.progress >= 1 && real.progress >= 1, `progress: mock ${mocked.progress}, real ${real.progress}`);
  assert.equal(mocked.asked, 1, "the mock asked the client as the server did");
}

/** One play of `file` by `mockServer` over HTTP (its own transport for an HTTP recording): nothing may go unmatched. */
async function playOverHttp(file: string, client: RecordedClient, plan: SessionPlan, sse: boolean): Promise<Seen> {
  const mock = await mockServer(file, { http: true });
  let seen: Seen;
  try {
    seen = await recordedSession(client, { kind: "http", url: mock.url!, ...(sse ? { sse } : {}) }, plan);
  } finally {
    const { unmatched } = await mock.close();
    assert.deepEqual(unmatched, [], `${client}: every request had a recorded answer`);
  }
  return seen;
}

for (const source of SOURCES) {
  describe(`recordings of ${source.name}, played by mock`, () => {
    const space = scratch();
    let running: Running | undefined;
    const real = new Map<RecordedClient, Seen>();
    const recordings: { by: string; file: string }[] = [
      { by: "the SDK v1 client", file: join(space.dir, "sdk-v1.ndjson") },
      ...source.revisions.map((r) => ({ by: `mcp-wire's client in ${r}`, file: join(space.dir, `${r}.ndjson`) })),
    ];
    before(async () => {
      running = await within(source.start(), `starting ${source.name}`, 30_000);
      for (const client of CLIENTS)
        real.set(client, await within(recordedSession(client, running.endpoint, source.plan), client, 60_000));
      await record(source, running.endpoint, recordings[0]!.file);
      for (const [i, revision] of source.revisions.entries()) {
        await record(source, running.endpoint, recordings[i + 1]!.file, revision);
        assert.equal(recordedRevision(recordings[i + 1]!.file), revision, "the recording is in the revision asked for");
      }
    });
    after(async () => {
      await running?.stop();
      space.cleanup();
    });
    test("replay of each recording against the server it was made of: every answer as recorded, exit 0", async () => {
      const target =
        running!.endpoint.kind === "stdio"
          ? [running!.endpoint.command, ...running!.endpoint.args]
          : [running!.endpoint.url];
      for (const { by, file } of recordings) {
        const replayed = new Proc(NODE, [CLI, "replay", file, "--", ...target]);
        const { code } = await within(replayed.exited, `replay of ${by}'s recording`, 60_000);
        assert.equal(code, 0, `${by}: ${replayed.stdout}${replayed.stderr}`);
        assert.match(replayed.stdout, /every answer as recorded/);
      }
    });
    for (const recording of recordings)
      for (const client of CLIENTS) {
        if (source.transport === "stdio")
          test(`${client} ← mock over stdio of ${recording.by}'s recording: as the server answered`, async () => {
            const mocked = await within(
              recordedSession(
                client,
                { kind: "stdio", command: NODE, args: [CLI, "mock", recording.file] },
                source.plan,
              ),
              `${client} against mock`,
              60_000,
            );
            assertSame(client, mocked, real.get(client)!);
          });
        test(`${client} ← mockServer over HTTP${source.transport === "http+sse" ? "+SSE" : ""} of ${recording.by}'s recording: as the server answered, nothing unmatched`, async () => {
          const mocked = await within(
            playOverHttp(recording.file, client, source.plan, source.transport === "http+sse"),
            `${client} against mockServer`,
            60_000,
          );
          assertSame(client, mocked, real.get(client)!);
        });
      }
  });
}
