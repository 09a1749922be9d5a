/**
 * A peer judges what arrives with the extensions in force: under a negotiated tasks extension a
 * 2026-07-28 answer `resultType: "task"` is sound; without it, the codec's error.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Defect } from "../codec/defects.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { createMemoryPair } from "../transport/memory.js";
import { StreamTransport } from "../transport/stream.js";
import { PassThrough } from "node:stream";
import { Peer } from "./peer.js";
import type { Transport } from "./transport.js";

// the extension's own example (ext-tasks specification, Task Creation)
const CREATED = {
  resultType: "task",
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:40:00Z",
  ttlMs: 60000,
  pollIntervalMs: 5000,
};

const CALL = {
  name: "t",
  _meta: {
    [META_PROTOCOL_VERSION]: "2026-07-28",
    [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION]: {} } },
  },
};

async function rejectionOf(p: Promise<unknown>): Promise<{ code?: unknown }> {
  return p.then(
    () => assert.fail("it resolved"),
    (e: { code?: unknown }) => e,
  );
}

function streamPair(): [Transport, Transport] {
  const up = new PassThrough();
  const down = new PassThrough();
  return [new StreamTransport(down, up), new StreamTransport(up, down)];
}

function pair(make: () => [Transport, Transport], extensions?: readonly string[]) {
  const [a, b] = make();
  const defects: Defect[] = [];
  const client = new Peer(a, {
    revision: "2026-07-28",
    role: "client",
    onDefect: (r) => defects.push(r.defect),
    ...(extensions ? { extensions } : {}),
  });
  // the server sends it only where the extension is in force: it would not encode it otherwise
  const server = new Peer(b, { revision: "2026-07-28", role: "server", extensions: [TASKS_EXTENSION] });
  server.handle("tools/call", () => CREATED);
  return { client, server, defects };
}

describe("Peer: the extensions in force", () => {
  for (const [name, make] of [
    ["memory pair", createMemoryPair],
    ["streams", streamPair],
  ] as const) {
    test(`${name}: resultType "task" is sound under the tasks extension, result_type_unknown without it`, async () => {
      const withIt = pair(make, [TASKS_EXTENSION]);
      assert.deepEqual(withIt.client.extensions, [TASKS_EXTENSION]);
      assert.deepEqual(await withIt.client.request("tools/call", CALL), CREATED);
      assert.deepEqual(withIt.defects, []);

      const without = pair(make);
      assert.deepEqual(without.client.extensions, []);
      await without.client.request("tools/call", CALL);
      assert.deepEqual(
        without.defects.map((d) => [d.code, d.severity]),
        [["result_type_unknown", "error"]],
      );
      // learnt later, as a negotiation does: from then on it is judged with it
      without.client.extensions = [TASKS_EXTENSION];
      await without.client.request("tools/call", CALL);
      assert.equal(without.defects.length, 1);
      const lone = pair(make);
      lone.server.extensions = [];
      assert.equal((await rejectionOf(lone.client.request("tools/call", CALL))).code, -32603);
      for (const p of [withIt, without, lone]) {
        await p.client.close();
        await p.server.close();
      }
    });
  }
});
