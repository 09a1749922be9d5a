/**
 * How McpClient opens a server over a stream when the answers are slow: a modern server that
 * starts late is still modern (its late `server/discover` answer wins), a dual-era one that
 * answers the `initialize` sent meanwhile is legacy for that process, a legacy server that
 * ignores discover still opens with `initialize`, and nothing waits past its deadline.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import { ResponseError, SpawnError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import { guardEventLoop, within } from "../testkit/peer.js";
import { ChildServer } from "../transport/child.js";
import { createMemoryPair } from "../transport/memory.js";
import { McpClient } from "./client.js";
import { SERVE_ARGS } from "../testkit/mcp-interop.js";

guardEventLoop();

const SLOW_START = fileURLToPath(new URL("../../../test/fixtures/peers/slow-start.mjs", import.meta.url));
const children: ChildServer[] = [];
after(() => Promise.all(children.map((c) => c.shutdown(1000))));

/** A memory server peer whose handlers the test writes; `seen` lists what reached it, in order. */
function memoryServer(setup: (server: Peer) => void): {
  connector: () => ReturnType<typeof createMemoryPair>[0];
  seen: string[];
} {
  const seen: string[] = [];
  return {
    seen,
    connector: () => {
      const [a, b] = createMemoryPair();
      const server = new Peer(b, { revision: "2025-11-25", role: "server" });
      for (const n of ["notifications/initialized", "notifications/cancelled"])
        server.onNotification(n, (p) => seen.push(`${n} ${JSON.stringify(p ?? {})}`));
      setup(server);
      return a;
    },
  };
}

const LEGACY_INIT = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: {} },
  serverInfo: { name: "legacy", version: "1" },
};

const V2_SERVER = fileURLToPath(new URL("../../../test/fixtures/v2-sdk-server.mjs", import.meta.url));

/** Opens a real server that starts `ms` late, discover answered late and initialize sent beside it. */
async function openLate(ms: number, args: readonly string[]): Promise<McpClient> {
  return within(
    McpClient.connect(
      () => {
        const child = new ChildServer(process.execPath, [SLOW_START, String(ms), ...args]);
        children.push(child);
        return child.transport;
      },
      { probeTimeout: 500, timeout: 15_000 },
    ),
    "connect",
    20_000,
  );
}

test("a real modern-only server (SDK v2) that starts 2 s late (4× the probe's wait) is modern: its late server/discover answer wins", async () => {
  const client = await openLate(2000, [V2_SERVER, "modern"]);
  try {
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.equal(client.discoveredModern, undefined);
    assert.equal((await client.listTools()).length, 2);
    const discover = client.steps.filter((s) => s.step === "server/discover");
    assert.equal(discover[discover.length - 1]!.outcome, "ok", JSON.stringify(client.steps));
  } finally {
    await client.close();
  }
});

test("a real dual-era server that starts 2 s late answers initialize too: its process is legacy, and discover's modern revision is noted for a fresh one", async () => {
  const client = await openLate(2000, [...SERVE_ARGS]);
  try {
    assert.equal(client.era, "legacy", JSON.stringify(client.steps));
    assert.equal(client.revision, "2025-11-25");
    assert.equal(client.discoveredModern, "2026-07-28");
    assert.equal((await client.listTools()).length, 3);
    assert.deepEqual(client.defects, []);
  } finally {
    await client.close();
  }
});

test("a legacy server that ignores server/discover opens with initialize, and the unanswered discover is withdrawn after the session opens", async () => {
  const { connector, seen } = memoryServer((server) => {
    server.handle("server/discover", () => new Promise(() => undefined));
    server.handle("initialize", () => LEGACY_INIT);
    server.handle("tools/list", () => ({ tools: [] }));
  });
  const client = await within(McpClient.connect(connector, { probeTimeout: 100, timeout: 10_000 }), "connect", 10_000);
  try {
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-06-18");
    assert.deepEqual(await client.listTools(), []);
    await within(
      (async () => {
        while (seen.length < 2) await new Promise((r) => setTimeout(r, 5));
      })(),
      "the notifications",
      5000,
    );
    assert.equal(seen[0], "notifications/initialized {}");
    assert.match(seen[1]!, /^notifications\/cancelled \{"requestId":1,/);
  } finally {
    await client.close();
  }
});

test("a modern-only server that refuses initialize (-32601) before its late discover answer: modern", async () => {
  const { connector } = memoryServer((server) => {
    server.handle(
      "server/discover",
      () =>
        new Promise<JsonObject>((resolve) =>
          setTimeout(
            () => resolve({ resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }),
            400,
          ),
        ),
    );
    server.handle("initialize", () => {
      throw new ResponseError(-32601, "Method not found: initialize");
    });
  });
  const client = await within(McpClient.connect(connector, { probeTimeout: 100, timeout: 10_000 }), "connect", 10_000);
  try {
    assert.equal(client.era, "modern");
  } finally {
    await client.close();
  }
});

test("a legacy server that refuses initialize and ignores discover: the refusal, at once, not the deadline", async () => {
  const { connector } = memoryServer((server) => {
    server.handle("server/discover", () => new Promise(() => undefined));
    server.handle("initialize", () => {
      throw new ResponseError(-32603, "Internal error: no API key");
    });
  });
  // a deadline far beyond the test's own: only an answer at once passes
  const e = await within(
    McpClient.connect(connector, { probeTimeout: 100, timeout: 600_000 }).then(
      () => undefined,
      (x: unknown) => x,
    ),
    "connect",
    10_000,
  );
  assert.ok(e instanceof ResponseError && e.code === -32603, String(e));
});

test("a server silent to both: the whole deadline, then a timeout naming initialize", async () => {
  const { connector } = memoryServer((server) => {
    server.handle("server/discover", () => new Promise(() => undefined));
    server.handle("initialize", () => new Promise(() => undefined));
  });
  const e = await within(
    McpClient.connect(connector, { probeTimeout: 50, timeout: 300 }).then(
      () => undefined,
      (x: unknown) => x,
    ),
    "connect",
    10_000,
  );
  assert.match(String(e), /initialize: no answer within 300 ms/);
});

test("initialize answered with an older version than the newest the server listed: initialize_version_not_latest, a warning; the latest, nothing", async () => {
  for (const [chosen, expected] of [
    ["2025-03-26", ["initialize_version_not_latest"]],
    ["2025-11-25", []],
  ] as const) {
    const { connector } = memoryServer((server) => {
      server.handle("server/discover", () => {
        throw new ResponseError(-32022, "Unsupported protocol version", {
          supported: ["2025-03-26", "2025-11-25"],
          requested: "2026-07-28",
        });
      });
      server.handle("initialize", () => ({ ...LEGACY_INIT, protocolVersion: chosen }));
    });
    const codes: string[] = [];
    const client = await within(
      McpClient.connect(connector, { probeTimeout: 5000, timeout: 10_000, onDefect: (r) => codes.push(r.defect.code) }),
      "connect",
      10_000,
    );
    try {
      assert.equal(client.revision, chosen);
      assert.deepEqual(codes, expected);
      assert.deepEqual(
        client.defects.map((d) => [d.code, d.severity]),
        expected.map((c) => [c, "warning"]),
      );
    } finally {
      await client.close();
    }
  }
});

test("a stdio server that cannot be started fails the opening at once with its SpawnError, and is not started again", async () => {
  const started: ChildServer[] = [];
  const connecting = McpClient.connect(() => {
    const child = new ChildServer("/nonexistent/mcp-wire-no-such-server");
    started.push(child);
    children.push(child);
    return child.transport;
  });
  const e = await within(
    connecting.then(
      () => undefined,
      (error: unknown) => error,
    ),
    "the promise",
    10_000,
  );
  assert.ok(e instanceof SpawnError, String(e));
  assert.equal(e.osCode, "ENOENT");
  assert.equal(started.length, 1);
});
