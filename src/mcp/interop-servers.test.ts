/**
 * Interop: mcp-wire's McpClient against real stdio servers, as child processes on real pipes:
 * server-everything (SDK v1, legacy), a v2 SDK server (dual-era, legacy-only, modern-only),
 * mcp-wire's own `serve --stdio` in both eras, and a server that exits on anything before
 * `initialize`, as servers built on rmcp do.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ResponseError } from "../peer/errors.js";
import { McpClient, type ClientOptions } from "./client.js";
import {
  EVERYTHING_TOOLS,
  isLegacy,
  textOf,
  toolChecks,
  v2Tools,
  type ServerTools,
} from "../testkit/client-tool-checks.js";
import {
  EXIT_BEFORE_INITIALIZE_SERVER,
  SERVE_ARGS,
  SERVER_EVERYTHING,
  Spawner,
  V2_SDK_SERVER,
  within,
} from "../testkit/mcp-interop.js";

const TIMEOUT = 10_000;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

function stepNames(client: McpClient): string[] {
  return client.steps.map((s) => s.step);
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
    client = await within(
      McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: TIMEOUT, ...options }),
      "McpClient.connect",
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await spawner.shutdown();
  });
  return {
    spawner,
    stderr: () => spawner.stderr(),
    get client(): McpClient {
      assert.ok(client, `McpClient.connect failed; server stderr:\n${spawner.stderr()}`);
      return client;
    },
  };
}

const V2_TOOLS = v2Tools("v2-sdk-fixture");

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
    assert.deepEqual(
      client.defects.filter((d) => d.severity === "error"),
      [],
    );
  });

  toolChecks(conn, EVERYTHING_TOOLS);
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
    assert.deepEqual(
      client.defects.filter((d) => d.severity === "error"),
      [],
    );
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
    assert.deepEqual(
      client.defects.filter((d) => d.severity === "error"),
      [],
    );
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
      const client = await within(
        McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: TIMEOUT }),
        "McpClient.connect",
      );
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
      const client = await within(
        McpClient.connect(spawner.connector, { timeout: TIMEOUT, probeTimeout: 300 }),
        "McpClient.connect",
      );
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
