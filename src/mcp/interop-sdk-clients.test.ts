/**
 * Interop: the official TypeScript SDK clients (v1, and v2 in both eras) against
 * `mcp-wire serve --stdio`, a real child process on real stdio pipes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { decode } from "../codec/decode.js";
import { SERVE_ARGS, within } from "../testkit/mcp-interop.js";
import { negotiatedLegacy, negotiatedModern, sameChecks, type SdkClient } from "../testkit/sdk-client-checks.js";

const TIMEOUT = 10_000;

function serverParams(stderr: string[]) {
  return {
    command: process.execPath,
    args: [...SERVE_ARGS],
    stderr: "pipe" as const,
    collect: (chunk: Buffer) => stderr.push(chunk.toString("utf8")),
  };
}

async function connectV1(): Promise<SdkClient> {
  const stderr: string[] = [];
  const { collect, ...params } = serverParams(stderr);
  const transport = new V1StdioClientTransport(params);
  transport.stderr?.on("data", collect);
  const client = new V1Client({ name: "interop-v1", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v1 connect");
  const server = client.getServerVersion();
  assert.equal(server?.name, "mcp-wire-reference");
  return {
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) =>
      client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT, ...options }) as ReturnType<
        SdkClient["callTool"]
      >,
    close: () => client.close(),
    errors,
    stderr: () => stderr.join(""),
  };
}

async function connectV2(
  mode: "legacy" | { pin: string },
): Promise<SdkClient & { v2: V2Client; sent: Record<string, unknown>[] }> {
  const stderr: string[] = [];
  const { collect, ...params } = serverParams(stderr);
  const transport = new V2StdioClientTransport(params);
  transport.stderr?.on("data", collect);
  // what the SDK puts on the wire, to be judged by the codec as a peer would judge it
  const sent: Record<string, unknown>[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    sent.push(JSON.parse(JSON.stringify(message)) as Record<string, unknown>);
    return send(message);
  };
  const client = new V2Client(
    { name: "interop-v2", version: "1.0.0" },
    { versionNegotiation: { mode, probe: { timeoutMs: TIMEOUT } } },
  );
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v2 connect");
  return {
    v2: client,
    sent,
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) =>
      client.callTool({ name, arguments: args }, { timeout: TIMEOUT, ...options }) as ReturnType<SdkClient["callTool"]>,
    close: () => client.close(),
    errors,
    stderr: () => stderr.join(""),
  };
}

describe("SDK v1 Client → mcp-wire serve --stdio", () => {
  let client: SdkClient | undefined;
  before(async () => {
    client = await connectV1();
  });
  after(async () => {
    await client?.close();
  });
  sameChecks(() => client!, "stdio");
});

describe("SDK v2 Client, default (legacy) negotiation → mcp-wire serve --stdio", () => {
  let client: (SdkClient & { v2: V2Client }) | undefined;
  before(async () => {
    client = await connectV2("legacy");
  });
  after(async () => {
    await client?.close();
  });

  test("negotiates a legacy revision through initialize", () => negotiatedLegacy(client!.v2));
  sameChecks(() => client!, "stdio");
});

describe("SDK v2 Client pinned to 2026-07-28 → mcp-wire serve --stdio", () => {
  let client: (SdkClient & { v2: V2Client; sent: Record<string, unknown>[] }) | undefined;
  before(async () => {
    client = await connectV2({ pin: "2026-07-28" });
  });
  after(async () => {
    await client?.close();
  });

  test("ends up modern at 2026-07-28, from server/discover", () => negotiatedModern(client!.v2));
  sameChecks(() => client!, "stdio");

  test("the SDK's own requests are clean on 2026-07-28: its per-request _meta values pass the checks (no meta_invalid)", () => {
    const requests = client!.sent.filter((m) => m.method !== undefined && m.id !== undefined);
    assert.ok(requests.length >= 4, `requests seen: ${requests.length}`);
    assert.ok(
      requests.some((m) => JSON.stringify(m).includes("io.modelcontextprotocol/clientInfo")),
      "the SDK sends clientInfo, so its check ran",
    );
    for (const m of requests)
      assert.deepEqual(
        decode(JSON.stringify(m), { revision: "2026-07-28", role: "client" }).defects,
        [],
        JSON.stringify(m),
      );
    assert.equal(client!.errors.filter((e) => /invalid|-32602/i.test(e.message)).length, 0);
  });
});
