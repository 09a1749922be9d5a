/**
 * `mcp-wire serve --http` as a real child process on 127.0.0.1: what it prints, how it stops,
 * and the official TypeScript SDK clients against it: v1 (`Client` + Streamable HTTP), v2 in
 * its default (legacy) negotiation and pinned to 2026-07-28. Tools, a call, progress, cancel.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { LEGACY_REVISIONS } from "../rules/revisions.js";
import { CLI, within } from "../testkit/mcp-interop.js";
import { negotiatedLegacy, negotiatedModern, sameChecks, type SdkClient } from "../testkit/sdk-client-checks.js";

const TIMEOUT = 10_000;

/** `mcp-wire serve --http 0 …`, with the URL it printed. */
class Served {
  readonly child: ChildProcess;
  private err = "";
  readonly url: Promise<string>;
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[] = []) {
    this.child = spawn(process.execPath, [CLI, "serve", "--http", "0", ...args], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.child.stderr!.setEncoding("utf8");
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
    this.url = within(
      new Promise<string>((resolve, reject) => {
        this.child.stderr!.on("data", (d: string) => {
          this.err += d;
          const found = /listening on (http:\/\/\S+)/.exec(this.err);
          if (found) resolve(found[1]!);
        });
        this.child.once("exit", (code) => reject(new Error(`serve exited (${code}) before listening:\n${this.err}`)));
      }),
      "serve --http printing its URL",
    );
  }

  get stderr(): string {
    return this.err;
  }

  async stop(sig: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
    return within(this.exited, "serve --http exiting");
  }
}

async function connectV1(url: string): Promise<SdkClient & { transport: V1HttpTransport }> {
  const transport = new V1HttpTransport(new URL(url));
  const client = new V1Client({ name: "interop-v1-http", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v1 connect");
  assert.equal(client.getServerVersion()?.name, "mcp-wire-reference");
  return {
    transport,
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) =>
      client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT, ...options }) as ReturnType<
        SdkClient["callTool"]
      >,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
    errors,
  };
}

async function connectV2(url: string, mode: "legacy" | { pin: string }): Promise<SdkClient & { v2: V2Client }> {
  const transport = new V2HttpTransport(new URL(url));
  const client = new V2Client(
    { name: "interop-v2-http", version: "1.0.0" },
    { versionNegotiation: { mode, probe: { timeoutMs: TIMEOUT } } },
  );
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v2 connect");
  return {
    v2: client,
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) =>
      client.callTool({ name, arguments: args }, { timeout: TIMEOUT, ...options }) as ReturnType<SdkClient["callTool"]>,
    close: () => client.close(),
    errors,
  };
}

describe("mcp-wire serve --http", () => {
  test("prints its URL on stderr, serves /mcp only, and stops cleanly on SIGTERM and on SIGINT", async () => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      const served = new Served();
      const url = await served.url;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const other = await within(fetch(url.replace(/\/mcp$/, "/elsewhere")), "GET /elsewhere");
      assert.equal(other.status, 404);
      await other.text();
      const discover = await within(
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "server/discover",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "server/discover",
            params: {
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          }),
        }),
        "server/discover",
      );
      assert.equal(discover.status, 200);
      await discover.text();
      assert.equal(await served.stop(sig), 0, `exit status after ${sig}:\n${served.stderr}`);
    }
  });

  test("an open SSE stream does not keep it from stopping", async () => {
    const served = new Served();
    const url = await served.url;
    const init = await within(
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      }),
      "initialize",
    );
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const stream = await within(
      fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session } }),
      "GET stream",
    );
    assert.equal(stream.status, 200);
    const ended = stream
      .body!.getReader()
      .read()
      .catch(() => ({ done: true }));
    assert.equal(await served.stop(), 0);
    assert.equal((await within(ended, "the stream ending")).done, true);
  });

  test("a bad port is a usage error (exit 2); --conformance lists the suite's fixtures first", async () => {
    const bad = spawn(process.execPath, [CLI, "serve", "--http", "eighty"], { stdio: "ignore" });
    assert.equal(await within(new Promise((resolve) => bad.once("exit", resolve)), "serve --http eighty"), 2);
    const served = new Served(["--conformance"]);
    try {
      const client = await connectV2(await served.url, { pin: "2026-07-28" });
      const { tools } = await within(client.listTools(), "tools/list");
      assert.equal(tools[0]?.name, "test_simple_text");
      assert.ok(tools.some((t) => t.name === "test_input_required_result_elicitation"));
      assert.ok(tools.some((t) => t.name === "echo"));
      await client.close();
    } finally {
      await served.stop();
    }
  });
});

describe("SDK v1 Client + StreamableHTTPClientTransport → mcp-wire serve --http", () => {
  let served: Served | undefined;
  let client: (SdkClient & { transport: V1HttpTransport }) | undefined;
  before(async () => {
    served = new Served();
    client = await connectV1(await served.url);
  });
  after(async () => {
    await client?.close();
    await served?.stop();
  });

  test("works in a legacy session the server opened", () => {
    assert.ok(client!.transport.sessionId, "the server gave a session id");
    assert.ok(LEGACY_REVISIONS.includes(client!.transport.protocolVersion as (typeof LEGACY_REVISIONS)[number]));
  });
  sameChecks(() => client!, "http");
});

describe("SDK v2 Client, default (legacy) negotiation → mcp-wire serve --http", () => {
  let served: Served | undefined;
  let client: (SdkClient & { v2: V2Client }) | undefined;
  before(async () => {
    served = new Served();
    client = await connectV2(await served.url, "legacy");
  });
  after(async () => {
    await client?.close();
    await served?.stop();
  });

  test("negotiates a legacy revision through initialize", () => negotiatedLegacy(client!.v2));
  sameChecks(() => client!, "http");
});

describe("SDK v2 Client pinned to 2026-07-28 → mcp-wire serve --http", () => {
  let served: Served | undefined;
  let client: (SdkClient & { v2: V2Client }) | undefined;
  before(async () => {
    served = new Served();
    client = await connectV2(await served.url, { pin: "2026-07-28" });
  });
  after(async () => {
    await client?.close();
    await served?.stop();
  });

  test("ends up modern at 2026-07-28, from server/discover", () => negotiatedModern(client!.v2));
  sameChecks(() => client!, "http");
});
