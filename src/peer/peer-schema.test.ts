import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Defect } from "../codec/defects.js";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { createMemoryPair } from "../transport/memory.js";
import { Peer } from "./peer.js";

/** A client peer (schema validation as asked) and a server peer answering tools/list with `result`. */
function pair(schema: boolean | undefined, result: unknown, revision: "2025-11-25" | "2026-07-28" = "2025-11-25") {
  const [a, b] = createMemoryPair();
  const defects: Defect[] = [];
  const client = new Peer(a, {
    revision,
    role: "client",
    onDefect: (r) => defects.push(r.defect),
    ...(schema === undefined ? {} : { schema }),
  });
  const server = new Peer(b, { revision: "2025-11-25", role: "server" });
  server.handle("tools/list", () => result);
  server.handle("initialize", () => result);
  return { client, defects };
}

describe("Peer with schema validation", () => {
  test("an answer that breaks its method's result definition is reported, and still delivered", async () => {
    const { client, defects } = pair(true, { tools: [{ name: "a", inputSchema: {} }] });
    const result = await client.request("tools/list", {});
    assert.deepEqual(result, { tools: [{ name: "a", inputSchema: {} }] });
    assert.deepEqual(
      defects.map((d) => [d.code, d.path, d.definition]),
      [["schema_invalid", "/result/tools/0/inputSchema", "ListToolsResult"]],
    );
  });

  test("a sound answer, or validation off (the default), reports nothing", async () => {
    const sound = pair(true, { tools: [{ name: "a", inputSchema: { type: "object" } }] });
    await sound.client.request("tools/list", {});
    assert.deepEqual(sound.defects, []);
    const off = pair(undefined, { tools: [{ name: "a", inputSchema: {} }] });
    await off.client.request("tools/list", {});
    assert.deepEqual(off.defects, []);
  });

  test("an initialize answer is judged by the revision it settles on, not the one the peer was on", async () => {
    // a dual-era client still on 2026-07-28, whose results need resultType, gets a legacy answer
    const _meta = { [META_PROTOCOL_VERSION]: "2026-07-28", [META_CLIENT_CAPABILITIES]: {} };
    const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" }, _meta };
    const sound = pair(
      true,
      { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } },
      "2026-07-28",
    );
    await sound.client.request("initialize", params);
    // (the codec, decoding as 2026-07-28, still names the missing resultType: a receiver's rule)
    assert.deepEqual(
      sound.defects.filter((d) => d.code === "schema_invalid"),
      [],
    );
    const broken = pair(
      true,
      { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s" } },
      "2026-07-28",
    );
    await broken.client.request("initialize", params);
    assert.deepEqual(
      broken.defects.filter((d) => d.code === "schema_invalid").map((d) => [d.path, d.definition]),
      [["/result/serverInfo", "InitializeResult"]],
    );
  });
});
