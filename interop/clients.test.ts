/**
 * `npm run interop`: clients we did not write against `mcp-wire serve`, each through `mcp-wire
 * tap` so every message is judged: the official SDK v1 and v2 clients, the AI SDK's own client,
 * mcp-wire's client, mcp-remote (a stdio↔HTTP bridge in front of `serve --http`), mcp-proxy (an
 * HTTP front for `serve --stdio`), and several clients at once or one after another through one
 * `tap --listen`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe } from "node:test";
import { assertClean, cell, listAndCall, startedOnce, throughTap } from "../src/testkit/interop-cells.js";
import { connectClient, type ClientName } from "../src/testkit/interop-clients.js";
import {
  CLI,
  NODE,
  Proc,
  freePort,
  modulePath,
  readLog,
  scratch,
  tapSummary,
  untilListening,
} from "../src/testkit/interop-harness.js";
import { MCP_PROXY, SERVE, peer } from "../src/testkit/interop-peers.js";

const CLIENTS: readonly ClientName[] = ["sdk-v1", "sdk-v2", "ai-sdk", "mcp-wire"];
const MCP_REMOTE = modulePath("mcp-remote/dist/proxy.js");

for (const row of SERVE) {
  describe(`clients → tap → ${row.name}`, () => {
    const ctx = startedOnce(row);
    for (const client of CLIENTS) {
      cell(`${client} → tap → ${row.name}: lists and calls, no defects live or in lint`, async () => {
        assertClean(await throughTap([client], ctx.peer, row.call, ctx.dir, { clientErrors: "none" }));
      });
    }
    if (row.transport === "streamable-http") {
      cell(`six clients at once → one tap --listen → ${row.name}: no defects`, async () => {
        assertClean(
          await throughTap(
            ["sdk-v1", "sdk-v2", "mcp-wire", "sdk-v1", "sdk-v2", "mcp-wire"],
            ctx.peer,
            row.call,
            ctx.dir,
            { clientErrors: "none" },
          ),
        );
      });
      cell(`four clients one after another → one tap --listen → ${row.name}: no defects`, async () => {
        assertClean(
          await throughTap(["sdk-v2", "sdk-v1", "mcp-wire", "sdk-v2"], ctx.peer, row.call, ctx.dir, {
            clientErrors: "none",
            oneAfterAnother: true,
          }),
        );
      });
      cell(`SDK v1 → mcp-remote → tap --listen → ${row.name}: no defects`, async () => {
        const bridge = (tapUrl: string) => ({
          kind: "stdio" as const,
          command: NODE,
          args: [MCP_REMOTE, tapUrl, "--transport", "http-only", "--silent"],
          // its token store, never the user's ~/.mcp-auth
          env: { MCP_REMOTE_CONFIG_DIR: join(ctx.dir, "mcp-auth") },
        });
        assertClean(await throughTap(["sdk-v1"], ctx.peer, row.call, ctx.dir, { bridge, clientErrors: "none" }));
      });
    }
  });
}

describe("mcp-proxy → tap → mcp-wire serve --stdio", () => {
  const space = scratch();
  after(() => space.cleanup());
  cell("SDK v1 and v2 → mcp-proxy (stream) → tap → serve --stdio: no defects", async () => {
    const log = join(space.dir, "proxy-tap.ndjson");
    const port = await freePort();
    const proxy = new Proc(NODE, [
      MCP_PROXY,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--server",
      "stream",
      "--",
      NODE,
      CLI,
      "tap",
      "--log",
      log,
      "--",
      NODE,
      CLI,
      "serve",
      "--stdio",
    ]);
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      await untilListening(proxy, url);
      for (const name of ["sdk-v1", "sdk-v2"] as const) {
        const client = await connectClient(name, { kind: "http", url });
        try {
          await listAndCall(client, peer("mcp-wire serve --stdio").call, name);
        } finally {
          await client.close();
        }
        assert.deepEqual(client.errors, [], `${name} reported errors`);
      }
    } finally {
      await proxy.stop();
    }
    const records = readLog(log);
    assertClean([{ summary: tapSummary(proxy.stderr), records, log }]);
  });
});

describe("SDK v2 (auto) then SDK v1 → one tap --listen → server-everything streamableHttp", () => {
  const row = peer("server-everything streamableHttp");
  const ctx = startedOnce(row);
  cell("a refused server/discover (400, id null) leaves the next client's conversation clean", async () => {
    assertClean(await throughTap(["sdk-v2", "sdk-v1"], ctx.peer, row.call, ctx.dir, { oneAfterAnother: true }));
  });
});
