/**
 * `npm run interop`: the behaviours a wire checker gets wrong only against real peers, each on
 * the peer that shows it: a server's own request (`roots/list`) in a tap and in a plain capture,
 * a server that reaches the client over legacy Streamable HTTP, a slow starter, a line over the
 * stdio cap, and `probe -r` speaking exactly one revision.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ChildServer, McpClient, connectHttp } from "../src/entry/client.js";
import { assertClean, cell, startedOnce } from "../src/testkit/interop-cells.js";
import {
  NODE,
  STEP_MS,
  fixture,
  lint,
  listDefects,
  probe,
  readLog,
  scratch,
  tapStdioCommand,
  tapSummary,
  within,
} from "../src/testkit/interop-harness.js";
import { SERVER_EVERYTHING, SERVER_FILESYSTEM, peer } from "../src/testkit/interop-peers.js";

const ROOT = { uri: "file:///interop-root", name: "interop root" };
const rootsHandler = () => ({ roots: [ROOT] });

describe("a server's own request: server-everything asks the client for roots/list", () => {
  const space = scratch();
  after(() => space.cleanup());
  let log = "";
  let stderr = "";
  let rootsText = "";

  before(async () => {
    log = join(space.dir, "roots.ndjson");
    const { command, args } = tapStdioCommand(log, NODE, [SERVER_EVERYTHING, "stdio"]);
    const transport = new V1Stdio({ command, args, stderr: "pipe" });
    transport.stderr?.on("data", (b: Buffer) => (stderr += b.toString("utf8")));
    const client = new V1Client({ name: "mcp-wire-interop", version: "1.0.0" }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, rootsHandler);
    try {
      await within(client.connect(transport, { timeout: STEP_MS }), "SDK v1 connect");
      const result = await client.callTool({ name: "get-roots-list", arguments: {} }, undefined, { timeout: STEP_MS });
      rootsText = JSON.stringify(result.content);
    } finally {
      await client.close();
    }
  });

  cell("through tap: the SDK client answers roots/list, no defects live or in lint", async () => {
    assert.match(rootsText, /interop-root/);
    assertClean([{ summary: tapSummary(stderr), records: readLog(log), log }]);
  });

  cell("lint of the plain capture (no directions): roots/list id 0 after initialize id 0 is the server's", async () => {
    const records = readLog(log);
    assert.ok(
      records.some((r) => r.from === "server" && /"method":"roots\/list"/.test(r.line)),
      "the server sent roots/list",
    );
    const plain = join(space.dir, "roots-plain.ndjson");
    writeFileSync(plain, records.map((r) => r.line).join("\n") + "\n");
    const linted = lint(plain);
    assert.deepEqual(
      linted.defects,
      [],
      `lint of the plain capture (exit ${linted.status}):\n${listDefects(linted.defects)}`,
    );
    assert.equal(linted.status, 0);
  });
});

describe("mcp-wire's client answers a legacy server's roots/list on every transport", () => {
  for (const name of ["server-everything stdio", "server-everything streamableHttp", "server-everything sse"]) {
    const row = peer(name);
    const ctx = startedOnce(row);
    cell(`${name}: get-roots-list reaches the client's roots handler and returns`, async () => {
      const endpoint = ctx.peer.endpoint;
      const options = {
        clientInfo: { name: "mcp-wire-interop", version: "1.0.0" },
        timeout: STEP_MS,
        inputHandlers: { "roots/list": rootsHandler },
      };
      let child: ChildServer | undefined;
      const client =
        endpoint.kind === "stdio"
          ? await McpClient.connect(() => (child = new ChildServer(endpoint.command, endpoint.args)).transport, options)
          : (
              await connectHttp(endpoint.url, {
                ...options,
                fresh: true,
                ...(endpoint.sse ? { transport: "http+sse" as const } : {}),
              })
            ).client;
      try {
        const result = await within(client.callTool("get-roots-list", {}, { timeout: STEP_MS }), "get-roots-list");
        assert.match(JSON.stringify(result.content), /interop-root/);
      } finally {
        await client.close().catch(() => undefined);
        await child?.shutdown(2000);
      }
    });
  }
});

// tmcp speaks both eras: probe confirms 2026-07-28 in a fresh process, while a client whose
// initialize (sent beside the unanswered discover) was answered keeps that process legacy, as
// the 2026-07-28 versioning page scopes it, and notes what discover named
describe("a dual-era server that takes 4 s to start", () => {
  const slowTmcp = [fixture("peers/slow-start.mjs"), "4000", fixture("peers/tmcp.mjs"), "stdio"];
  cell("probe --stdio: ok (modern), 2026-07-28", async () => {
    const { status, verdict, raw } = await probe(["--stdio", "--", NODE, ...slowTmcp]);
    assert.equal(verdict.class, "ok", raw.slice(0, 2000));
    assert.equal(verdict.detail, "modern", raw.slice(0, 2000));
    assert.equal(verdict.revision, "2026-07-28");
    assert.equal(status, 0);
  });
  cell("McpClient.connect: the legacy revision its initialize opened, 2026-07-28 noted", async () => {
    let child: ChildServer | undefined;
    const client = await within(
      McpClient.connect(() => (child = new ChildServer(NODE, slowTmcp)).transport, { timeout: STEP_MS }),
      "McpClient.connect to a slow starter",
    );
    try {
      assert.equal(client.era, "legacy", JSON.stringify(client.steps));
      assert.equal(client.discoveredModern, "2026-07-28");
      assert.equal((await client.listTools()).length > 0, true);
    } finally {
      await client.close().catch(() => undefined);
      await child?.shutdown(2000);
    }
  });
});

describe("a file tool's answer over 4 MiB (server-filesystem read_text_file)", () => {
  const space = scratch();
  after(() => space.cleanup());
  cell("mcp-wire's client reads a 5 MiB file whole with its default limits", async () => {
    const file = join(space.dir, "big.txt");
    const text = "0123456789abcdef".repeat((5 * 1024 * 1024) / 16);
    writeFileSync(file, text);
    let child: ChildServer | undefined;
    const client = await within(
      McpClient.connect(() => (child = new ChildServer(NODE, [SERVER_FILESYSTEM, space.dir])).transport, {
        timeout: STEP_MS,
      }),
      "connect",
    );
    try {
      const result = await within(
        client.callTool("read_text_file", { path: file }, { timeout: STEP_MS }),
        "read_text_file",
      );
      const first = result.content[0];
      assert.equal(first?.type, "text");
      assert.equal(first.text?.length, text.length);
    } finally {
      await client.close().catch(() => undefined);
      await child?.shutdown(2000);
    }
  });
});

describe("probe -r speaks exactly one revision", () => {
  const lite = peer("mcp-lite stateless");
  const liteCtx = startedOnce(lite);
  const everything = peer("server-everything streamableHttp");
  const everythingCtx = startedOnce(everything);
  const unsupported = async (target: string[], revision: string, speaks: RegExp) => {
    const { status, verdict, raw } = await probe(target, ["-r", revision]);
    assert.equal(verdict.class, "rpc_error", raw.slice(0, 2000));
    assert.equal(verdict.detail, "unsupported_version", raw.slice(0, 2000));
    assert.match(verdict.advice, speaks, "the verdict names what the server speaks instead");
    assert.equal(status, 1);
  };
  cell("mcp-lite (2025-03-26, 2025-06-18) with -r 2024-11-05: rpc_error unsupported_version", () =>
    unsupported(liteCtx.peer.target, "2024-11-05", /2025-03-26|2025-06-18/),
  );
  cell("mcp-lite with -r 2025-06-18: ok 2025-06-18", async () => {
    const { verdict, raw } = await probe(liteCtx.peer.target, ["-r", "2025-06-18"]);
    assert.equal(verdict.class, "ok", raw.slice(0, 2000));
    assert.equal(verdict.revision, "2025-06-18");
  });
  cell("server-everything streamableHttp (legacy only) with -r 2026-07-28: rpc_error unsupported_version", () =>
    unsupported(everythingCtx.peer.target, "2026-07-28", /2025/),
  );
  cell("FastMCP stdio (legacy only) with -r 2026-07-28: rpc_error unsupported_version", () =>
    unsupported(["--stdio", "--", NODE, fixture("peers/fastmcp.mjs"), "stdio"], "2026-07-28", /2025/),
  );
  cell("tmcp stdio with -r 2026-07-28: ok (modern)", async () => {
    const { verdict, raw } = await probe(
      ["--stdio", "--", NODE, fixture("peers/tmcp.mjs"), "stdio"],
      ["-r", "2026-07-28"],
    );
    assert.equal(verdict.class, "ok", raw.slice(0, 2000));
    assert.equal(verdict.revision, "2026-07-28");
  });
});
