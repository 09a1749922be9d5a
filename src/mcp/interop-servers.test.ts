/**
 * Interop: mcp-wire's McpClient against real stdio servers, as child processes on real pipes:
 * server-everything (SDK v1, legacy), a v2 SDK server (dual-era, legacy-only, modern-only),
 * mcp-wire's own `serve --stdio` in both eras, and a server that exits on anything before
 * `initialize`, as servers built on rmcp do.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AbortedError, ConnectionErrorCode, ResponseError } from "../peer/errors.js";
import type { Progress } from "../peer/peer.js";
import { LEGACY_REVISIONS, type Revision } from "../rules/revisions.js";
import { McpClient, type ClientOptions } from "./client.js";
import type { CallToolResult } from "./meta.js";
import { EXIT_BEFORE_INITIALIZE_SERVER, SERVE_ARGS, SERVER_EVERYTHING, Spawner, V2_SDK_SERVER, signal, until, within } from "./interop-support.test.js";

const TIMEOUT = 10_000;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

function isLegacy(revision: Revision): boolean {
  return (LEGACY_REVISIONS as readonly Revision[]).includes(revision);
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, "text");
  return first.text ?? "";
}

function stepNames(client: McpClient): string[] {
  return client.steps.map((s) => s.step);
}

/** How to drive one server's tools. */
interface ServerTools {
  echo: { tool: string; args: (text: string) => Record<string, string>; expect: (text: string) => string };
  /** A tool that reports `steps` progress notifications, quickly. */
  progress: (steps: number) => { tool: string; args: Record<string, number> };
  /** A tool that runs long enough to be cancelled after its first progress notification. */
  long: { tool: string; args: Record<string, number> };
  /** Present when the server says, on stderr, that it stopped a cancelled call. */
  cancelledEvidence?: RegExp;
}

/**
 * A connection opened once for the describe block it is called in, closed with every child it
 * spawned afterwards, whatever happened.
 */
function connection(command: string, args: readonly string[], options: ClientOptions = {}) {
  const spawner = new Spawner(command, args);
  let client: McpClient | undefined;
  before(async () => {
    // These servers all answer the probe, one way or the other: a loaded machine must not turn
    // a slow start into a probe timeout.
    client = await within(McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: TIMEOUT, ...options }), "McpClient.connect");
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await spawner.shutdown();
  });
  return {
    spawner,
    get client(): McpClient {
      assert.ok(client, `McpClient.connect failed; server stderr:\n${spawner.stderr()}`);
      return client;
    },
  };
}

/** tools/list, a call, progress, and cancellation, the same for every server. */
function toolChecks(conn: { client: McpClient; spawner: Spawner }, tools: ServerTools) {
  test(`tools/list finds ${tools.echo.tool} and ${tools.long.tool}`, async () => {
    const names = (await within(conn.client.listTools(), "tools/list")).map((t) => t.name);
    assert.ok(names.includes(tools.echo.tool), `${tools.echo.tool} in ${JSON.stringify(names)}`);
    assert.ok(names.includes(tools.long.tool), `${tools.long.tool} in ${JSON.stringify(names)}`);
  });

  test(`tools/call ${tools.echo.tool} echoes`, async () => {
    const result = await within(conn.client.callTool(tools.echo.tool, tools.echo.args("héllo, wire")), tools.echo.tool);
    assert.equal(result.isError ?? false, false);
    assert.equal(textOf(result), tools.echo.expect("héllo, wire"));
  });

  test("progress notifications reach onProgress, increasing, every one before the result", async () => {
    const seen: Progress[] = [];
    const { tool, args } = tools.progress(4);
    const result = await within(conn.client.callTool(tool, args, { onProgress: (p) => seen.push(p) }), tool);
    assert.equal(result.isError ?? false, false);
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total]),
      [
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ],
    );
  });

  test("aborting a call rejects it with AbortedError, and the connection goes on", async () => {
    const client = conn.client;
    const controller = new AbortController();
    const first = signal();
    const call = client.callTool(tools.long.tool, tools.long.args, { signal: controller.signal, onProgress: () => first.fire() });
    const settled = call.then(
      () => "resolved",
      (e: unknown) => e,
    );
    await within(first.promise, "the first progress notification");
    controller.abort();
    const outcome = await within(settled, "the aborted call");
    assert.ok(outcome instanceof AbortedError, `AbortedError, got ${String(outcome)}`);
    assert.equal(outcome.code, ConnectionErrorCode.Aborted);
    assert.equal(outcome.code, "ERR_MCP_WIRE_ABORTED");
    if (tools.cancelledEvidence) {
      const evidence = tools.cancelledEvidence;
      await until(() => evidence.test(conn.spawner.stderr()), `the server's word that it stopped (${evidence})`);
    }
    const again = await within(client.callTool(tools.echo.tool, tools.echo.args("still here")), `${tools.echo.tool} after the abort`);
    assert.equal(textOf(again), tools.echo.expect("still here"));
    assert.equal(client.closed, false);
  });
}

const V2_TOOLS: ServerTools = {
  echo: { tool: "echo", args: (text) => ({ text }), expect: (text) => text },
  progress: (steps) => ({ tool: "slow", args: { steps, intervalMs: 5 } }),
  long: { tool: "slow", args: { steps: 200, intervalMs: 50 } },
  cancelledEvidence: /v2-sdk-fixture: slow cancelled at step \d+/,
};

const REFERENCE_TOOLS: ServerTools = {
  echo: { tool: "echo", args: (text) => ({ text }), expect: (text) => text },
  progress: (steps) => ({ tool: "progress", args: { steps, intervalMs: 5 } }),
  long: { tool: "progress", args: { steps: 200, intervalMs: 50 } },
};

describe("McpClient → server-everything (SDK v1, legacy)", () => {
  const conn = connection(process.execPath, [SERVER_EVERYTHING, "stdio"]);

  test("server/discover fails, so it falls back to initialize and a legacy revision", () => {
    const client = conn.client;
    assert.equal(client.era, "legacy");
    assert.ok(isLegacy(client.revision), `a legacy revision, got ${client.revision}`);
    assert.deepEqual(stepNames(client), ["server/discover", "initialize", "notifications/initialized"]);
    assert.equal(client.steps[0]!.outcome, "error", "server/discover: a JSON-RPC error, not silence");
    assert.equal(client.steps[1]!.detail, `protocolVersion ${client.revision}`);
    assert.equal(client.serverInfo?.name, "mcp-servers/everything");
    assert.equal(conn.spawner.children.length, 1, "the server survived the probe: no restart");
    assert.deepEqual(client.defects.filter((d) => d.severity === "error"), []);
  });

  toolChecks(conn, {
    echo: { tool: "echo", args: (message) => ({ message }), expect: (message) => `Echo: ${message}` },
    // `duration` is in seconds, split evenly over the steps
    progress: (steps) => ({ tool: "trigger-long-running-operation", args: { duration: 0.02 * steps, steps } }),
    // it never looks at cancellation; the SDK only withholds the answer: keep the run short
    long: { tool: "trigger-long-running-operation", args: { duration: 1, steps: 5 } },
  });
});

describe("McpClient → v2 SDK server, dual-era (serveStdio)", () => {
  const conn = connection(process.execPath, [V2_SDK_SERVER, "dual"]);

  test("server/discover answers, so it stays modern at 2026-07-28", () => {
    const client = conn.client;
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.deepEqual(stepNames(client), ["server/discover"]);
    assert.equal(client.steps[0]!.outcome, "ok");
    assert.ok(client.supportedVersions.includes("2026-07-28"));
    assert.equal(client.serverInfo?.name, "v2-sdk-fixture");
    assert.deepEqual(client.defects.filter((d) => d.severity === "error"), []);
  });

  toolChecks(conn, V2_TOOLS);
});

describe("McpClient → v2 SDK server, legacy only (McpServer.connect, 2025 revisions)", () => {
  const conn = connection(process.execPath, [V2_SDK_SERVER, "legacy"]);

  test("server/discover fails, so it falls back to initialize and a legacy revision", () => {
    const client = conn.client;
    assert.equal(client.era, "legacy");
    assert.ok(isLegacy(client.revision), `a legacy revision, got ${client.revision}`);
    assert.deepEqual(stepNames(client), ["server/discover", "initialize", "notifications/initialized"]);
    assert.equal(client.steps[0]!.outcome, "error");
    assert.equal(client.serverInfo?.name, "v2-sdk-fixture");
    assert.equal(conn.spawner.children.length, 1);
    assert.deepEqual(client.defects.filter((d) => d.severity === "error"), []);
  });

  toolChecks(conn, V2_TOOLS);
});

describe("McpClient → v2 SDK server, modern only (serveStdio, legacy: reject)", () => {
  test("auto detection ends up modern", async () => {
    const spawner = new Spawner(process.execPath, [V2_SDK_SERVER, "modern"]);
    try {
      const client = await within(McpClient.connect(spawner.connector, { timeout: TIMEOUT }), "McpClient.connect");
      assert.equal(client.era, "modern");
      assert.equal(client.revision, "2026-07-28");
      const result = await within(client.callTool("echo", { text: "modern" }), "echo");
      assert.equal(textOf(result), "modern");
      await client.close();
    } finally {
      await spawner.shutdown();
    }
  });

  test("a client forced to a legacy revision gets the server's error, naming the versions it supports", async () => {
    const spawner = new Spawner(process.execPath, [V2_SDK_SERVER, "modern"]);
    try {
      const outcome = await within(
        McpClient.connect(spawner.connector, { timeout: TIMEOUT, revision: "2025-06-18" }).then(
          () => "connected",
          (e: unknown) => e,
        ),
        "McpClient.connect",
      );
      assert.ok(outcome instanceof ResponseError, `a JSON-RPC error from the server, got ${String(outcome)}`);
      assert.equal(outcome.code, UNSUPPORTED_PROTOCOL_VERSION);
      assert.deepEqual((outcome.data as { supported?: unknown }).supported, ["2026-07-28"]);
    } finally {
      await spawner.shutdown();
    }
  });
});

describe("McpClient → mcp-wire serve --stdio, auto", () => {
  const conn = connection(process.execPath, SERVE_ARGS);

  test("server/discover answers, so it stays modern at 2026-07-28", () => {
    const client = conn.client;
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.deepEqual(stepNames(client), ["server/discover"]);
    assert.deepEqual(client.supportedVersions, ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
    assert.equal(client.serverInfo?.name, "mcp-wire-reference");
    assert.deepEqual(client.defects, []);
  });

  test("add returns the sum as text and structured content", async () => {
    const result = await within(conn.client.callTool("add", { a: 2, b: 40 }), "add");
    assert.equal(textOf(result), "42");
    assert.deepEqual(result.structuredContent, { sum: 42 });
  });

  toolChecks(conn, REFERENCE_TOOLS);
});

describe("McpClient → mcp-wire serve --stdio, forced to revision 2025-06-18", () => {
  const conn = connection(process.execPath, SERVE_ARGS, { revision: "2025-06-18" });

  test("opens with initialize at exactly 2025-06-18, no probe", () => {
    const client = conn.client;
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-06-18");
    assert.deepEqual(stepNames(client), ["initialize", "notifications/initialized"]);
    assert.equal(client.steps[0]!.detail, "protocolVersion 2025-06-18");
    assert.equal(client.serverInfo?.name, "mcp-wire-reference");
    assert.deepEqual(client.defects, []);
  });

  toolChecks(conn, REFERENCE_TOOLS);
});

describe("McpClient → a server that exits on anything before initialize (like rmcp)", () => {
  const conn = connection(process.execPath, [EXIT_BEFORE_INITIALIZE_SERVER]);

  test("the probe kills the first process; a second one is started and opened with initialize", async () => {
    const client = conn.client;
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-06-18");
    assert.deepEqual(stepNames(client), ["server/discover", "reconnect", "initialize", "notifications/initialized"]);
    assert.equal(client.steps[0]!.outcome, "closed");
    assert.equal(client.steps[1]!.outcome, "ok");
    assert.equal(client.serverInfo?.name, "exit-before-initialize");
    const [first, second] = conn.spawner.children;
    assert.equal(conn.spawner.children.length, 2);
    assert.deepEqual(await within(first!.exited, "the first server's exit"), { code: 1, signal: null });
    assert.match(first!.stderrTail(), /expected initialize, got "server\/discover"/);
    assert.equal(second!.status, undefined, "the second server is still running");
  });

  test("the restarted server serves tools/list and tools/call", async () => {
    const tools = await within(conn.client.listTools(), "tools/list");
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo"],
    );
    const result = await within(conn.client.callTool("echo", { text: "second life" }), "echo");
    assert.equal(textOf(result), "second life");
  });
});

describe("McpClient → a server that answers the probe with an error, then exits", () => {
  test("the error comes before the end of the pipe; the dead process is still replaced", async () => {
    const spawner = new Spawner(process.execPath, [EXIT_BEFORE_INITIALIZE_SERVER, "--answer-then-exit"]);
    try {
      const client = await within(McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: TIMEOUT }), "McpClient.connect");
      assert.equal(client.era, "legacy");
      assert.equal(client.revision, "2025-06-18");
      assert.equal(client.steps[0]!.step, "server/discover");
      assert.equal(client.steps[0]!.outcome, "error");
      assert.ok(stepNames(client).includes("reconnect"), `a reconnect in ${JSON.stringify(client.steps)}`);
      assert.deepEqual(stepNames(client).slice(-2), ["initialize", "notifications/initialized"]);
      assert.equal(spawner.children.length, 2);
      assert.deepEqual(await within(spawner.children[0]!.exited, "the first server's exit"), { code: 1, signal: null });
      const result = await within(client.callTool("echo", { text: "third time lucky" }), "echo");
      assert.equal(textOf(result), "third time lucky");
      await client.close();
    } finally {
      await spawner.shutdown();
    }
  });
});

describe("McpClient → a legacy server that never answers before initialize", () => {
  test("the probe times out, and initialize follows on the same process", async () => {
    const spawner = new Spawner(process.execPath, [EXIT_BEFORE_INITIALIZE_SERVER, "--silent"]);
    try {
      const client = await within(McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: 300 }), "McpClient.connect");
      assert.equal(client.era, "legacy");
      assert.equal(client.revision, "2025-06-18");
      assert.deepEqual(stepNames(client), ["server/discover", "initialize", "notifications/initialized"]);
      assert.equal(client.steps[0]!.outcome, "timeout");
      assert.equal(spawner.children.length, 1);
      assert.match(spawner.stderr(), /ignoring "server\/discover" before initialize/);
      const result = await within(client.callTool("echo", { text: "patient" }), "echo");
      assert.equal(textOf(result), "patient");
      await client.close();
    } finally {
      await spawner.shutdown();
    }
  });
});
