import assert from "node:assert/strict";
import { test } from "node:test";
import { Peer } from "../peer/peer.js";
import { createMemoryPair } from "../transport/memory.js";
import { McpClient } from "./client.js";

test("a server/discover answered with {} (no DiscoverResult) falls back to initialize", async () => {
  const client = await McpClient.connect(() => {
    const [a, b] = createMemoryPair();
    const server = new Peer(b, { revision: "2025-11-25", role: "server" });
    // a legacy server that answers any method it does not know with an empty result
    server.handle("server/discover", () => ({}));
    server.handle("initialize", () => ({
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "lenient", version: "1" },
    }));
    server.handle("tools/list", () => ({ tools: [] }));
    return a;
  });
  try {
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-06-18");
    assert.deepEqual(
      client.steps.map((s) => [s.step, s.outcome]),
      [
        ["server/discover", "invalid"],
        ["initialize", "ok"],
        ["notifications/initialized", "ok"],
      ],
    );
    assert.deepEqual(await client.listTools(), []);
  } finally {
    await client.close();
  }
});

test("discover: false with a modern revision sends no server/discover: the first request is the caller's, with its _meta", async () => {
  const asked: string[] = [];
  const client = await McpClient.connect(
    () => {
      const [a, b] = createMemoryPair();
      const server = new Peer(b, { revision: "2026-07-28", role: "server" });
      server.handle("tools/list", (params) => {
        asked.push(
          `tools/list ${String((params?._meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"])}`,
        );
        return { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "public" };
      });
      return a;
    },
    { revision: "2026-07-28", discover: false },
  );
  try {
    assert.deepEqual(
      [client.era, client.revision, client.steps, client.capabilities],
      ["modern", "2026-07-28", [], {}],
    );
    assert.deepEqual(await client.listTools(), []);
    assert.deepEqual(asked, ["tools/list 2026-07-28"]);
  } finally {
    await client.close();
  }
});

test("discover: false without a modern revision is refused before anything is opened", async () => {
  let opened = 0;
  const connector = () => {
    opened++;
    return createMemoryPair()[0];
  };
  await assert.rejects(McpClient.connect(connector, { discover: false }), TypeError);
  await assert.rejects(McpClient.connect(connector, { revision: "2025-11-25", discover: false }), TypeError);
  assert.equal(opened, 0);
});
