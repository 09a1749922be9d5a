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
