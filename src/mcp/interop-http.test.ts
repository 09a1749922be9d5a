/**
 * Interop over HTTP: mcp-wire's McpClient, through connectHttp, against real servers as child
 * processes bound to 127.0.0.1: server-everything (SDK v1) on Streamable HTTP and on the
 * deprecated HTTP+SSE transport, and a v2 SDK server in each era (dual, legacy-only,
 * modern-only). Era, revision and transport; tools/list, a call, progress, cancellation.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ResponseError } from "../peer/errors.js";
import type { McpClient } from "./client.js";
import { probeHttp } from "../probe/probe.js";
import { connectHttp, forgetHttpEras, type HttpConnectOptions, type HttpTransportName } from "./connect-http.js";
import { within } from "../testkit/mcp-interop.js";
import { HttpFixture } from "../testkit/http-fixture.js";
import { EVERYTHING_TOOLS, isLegacy, textOf, toolChecks, v2Tools } from "../testkit/client-tool-checks.js";

const EVERYTHING_HTTP = fileURLToPath(new URL("../../../test/fixtures/everything-http.mjs", import.meta.url));
const V2_SDK_HTTP = fileURLToPath(new URL("../../../test/fixtures/v2-sdk-http-server.mjs", import.meta.url));
const TIMEOUT = 10_000;

const V2_TOOLS = v2Tools("v2-sdk-http-fixture");

/** A fixture and one connection to it, for the describe block it is called in. */
function connection(script: string, args: readonly string[], path: string, options: HttpConnectOptions = {}) {
  const fixture = new HttpFixture(script, args);
  let client: McpClient | undefined;
  let transport: HttpTransportName | undefined;
  before(async () => {
    await fixture.start();
    forgetHttpEras();
    const opened = await within(connectHttp(fixture.url(path), { timeout: TIMEOUT, ...options }), "connectHttp");
    client = opened.client;
    transport = opened.transport;
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await fixture.stop();
  });
  return {
    fixture,
    stderr: () => fixture.stderr(),
    get client(): McpClient {
      assert.ok(client, `connectHttp failed; server stderr:\n${fixture.stderr()}`);
      return client;
    },
    get transport(): HttpTransportName {
      assert.ok(transport);
      return transport;
    },
  };
}

describe("McpClient over HTTP → server-everything, Streamable HTTP (SDK v1, legacy, sessions)", () => {
  const conn = connection(EVERYTHING_HTTP, ["streamable"], "/mcp");

  test("server/discover is refused with 400, so initialize, legacy, on Streamable HTTP", () => {
    const client = conn.client;
    assert.equal(conn.transport, "streamable-http");
    assert.equal(client.era, "legacy");
    assert.ok(isLegacy(client.revision), `a legacy revision, got ${client.revision}`);
    assert.deepEqual(
      client.steps.map((s) => s.step),
      ["server/discover", "initialize", "notifications/initialized"],
    );
    assert.notEqual(client.steps[0]!.outcome, "ok");
    assert.equal(client.serverInfo?.name, "mcp-servers/everything");
  });

  toolChecks(conn, EVERYTHING_TOOLS);
});

describe("server-everything over Streamable HTTP: its own requests reach a client that declares roots; its refusal of server/discover is no defect", () => {
  const ROOT = { uri: "file:///tmp/mcp-wire-roots-check", name: "roots-check" };
  const conn = connection(EVERYTHING_HTTP, ["streamable"], "/mcp", {
    inputHandlers: { "roots/list": () => ({ roots: [ROOT] }) },
  });

  test("get-roots-list: the server's roots/list arrives on the GET stream the client opened, and the answer goes back", async () => {
    const result = await within(conn.client.callTool("get-roots-list", {}, { timeout: TIMEOUT }), "get-roots-list");
    assert.match(JSON.stringify(result.content), /mcp-wire-roots-check/);
  });

  test('probe: ok (legacy), and the SDK\'s 400 {"id":null} refusal of server/discover, the expected signal to fall back, costs no defect', async () => {
    const r = await within(probeHttp(conn.fixture.url("/mcp"), { timeout: TIMEOUT }), "the probe");
    assert.equal(r.class, "ok");
    assert.equal(r.detail, "legacy");
    assert.equal(r.trace[0]?.status, 400, "server/discover was refused");
    assert.deepEqual(r.defects, []);
    assert.doesNotMatch(r.advice, /not cleanly/);
  });
});

describe("McpClient over HTTP → server-everything, HTTP+SSE (the deprecated transport)", () => {
  const conn = connection(EVERYTHING_HTTP, ["sse"], "/sse");

  test("POSTs to /sse are 404s, so the event stream: http+sse, legacy", () => {
    const client = conn.client;
    assert.equal(conn.transport, "http+sse");
    assert.equal(client.era, "legacy");
    assert.ok(isLegacy(client.revision), `a legacy revision, got ${client.revision}`);
    assert.equal(client.serverInfo?.name, "mcp-servers/everything");
  });

  toolChecks(conn, EVERYTHING_TOOLS);
});

describe("McpClient over HTTP → v2 SDK server, dual-era (createMcpHandler)", () => {
  const conn = connection(V2_SDK_HTTP, ["dual"], "/mcp");

  test("server/discover answers: modern at 2026-07-28, no initialize", () => {
    const client = conn.client;
    assert.equal(conn.transport, "streamable-http");
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.deepEqual(
      client.steps.map((s) => `${s.step}:${s.outcome}`),
      ["server/discover:ok"],
    );
    assert.equal(client.serverInfo?.name, "v2-sdk-http-fixture");
    assert.deepEqual(
      client.defects.filter((d) => d.severity === "error"),
      [],
    );
  });

  toolChecks(conn, V2_TOOLS);
});

describe("McpClient over HTTP → v2 SDK server, dual-era, forced to 2025-11-25 (the stateless legacy fallback)", () => {
  const conn = connection(V2_SDK_HTTP, ["dual"], "/mcp", { revision: "2025-11-25" });

  test("initialize at 2025-11-25, no probe", () => {
    const client = conn.client;
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-11-25");
    assert.deepEqual(
      client.steps.map((s) => s.step),
      ["initialize", "notifications/initialized"],
    );
  });

  test("tools/list and tools/call work, each request served by a fresh instance", async () => {
    const names = (await within(conn.client.listTools(), "tools/list")).map((t) => t.name);
    assert.ok(names.includes("echo"));
    const result = await within(conn.client.callTool("echo", { text: "stateless" }), "echo");
    assert.equal(textOf(result), "stateless");
  });
});

describe("McpClient over HTTP → v2 SDK server, legacy only (sessionful, 2025 revisions)", () => {
  const conn = connection(V2_SDK_HTTP, ["legacy"], "/mcp");

  test("server/discover is refused, so initialize: legacy, with a session", () => {
    const client = conn.client;
    assert.equal(conn.transport, "streamable-http");
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-11-25");
    assert.deepEqual(
      client.steps.map((s) => s.step),
      ["server/discover", "initialize", "notifications/initialized"],
    );
    assert.equal(client.serverInfo?.name, "v2-sdk-http-fixture");
  });

  toolChecks(conn, V2_TOOLS);
});

describe("McpClient over HTTP → v2 SDK server, modern only (createMcpHandler, legacy: reject)", () => {
  const conn = connection(V2_SDK_HTTP, ["modern"], "/mcp");

  test("modern at 2026-07-28", () => {
    assert.equal(conn.client.era, "modern");
    assert.equal(conn.client.revision, "2026-07-28");
  });

  test("a client forced to a legacy revision gets the server's -32022 naming what it supports", async () => {
    const outcome = await within(
      connectHttp(conn.fixture.url("/mcp"), { timeout: TIMEOUT, revision: "2025-06-18" }).then(
        (c) => c.client.close().then(() => "connected"),
        (e: unknown) => e,
      ),
      "connectHttp",
    );
    assert.ok(outcome instanceof ResponseError, `a JSON-RPC error from the server, got ${String(outcome)}`);
    assert.equal(outcome.code, -32022);
    assert.deepEqual((outcome.data as { supported?: unknown }).supported, ["2026-07-28"]);
  });
});
