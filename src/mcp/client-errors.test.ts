/**
 * Errors a person can act on, from real stdio servers run as processes: one that exits at once
 * with a message on stderr (its status and the end of its stderr, secrets redacted; started a
 * second time only by the documented fallback, which then says so), one that never writes a
 * byte, and one that writes only notifications (each failing at the opening deadline with what
 * was sent and what came back).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { ServerExitedError } from "../peer/errors.js";
import { McpClient } from "./client.js";
import { OpeningTimeoutError } from "./opening.js";
import { Spawner, within } from "../testkit/mcp-interop.js";

const FAULTS = fileURLToPath(new URL("../../../test/fixtures/client-faults-server.mjs", import.meta.url));
const COMMAND = `${process.execPath} ${FAULTS}`;
const STDERR = [
  "  starting…",
  "  Error: OPENAI_API_KEY is not set",
  "    (the cache at postgres://app:<redacted>@127.0.0.1/db was not tried)",
].join("\n");

describe("a stdio server that exits before it opens", () => {
  const spawners: Spawner[] = [];
  after(() => Promise.all(spawners.map((s) => s.shutdown())));
  const spawner = (...args: string[]) => {
    const s = new Spawner(process.execPath, [FAULTS, ...args]);
    spawners.push(s);
    return s;
  };

  test("its exit status and stderr tail, redacted; one start when the revision is given", async () => {
    const s = spawner("--die");
    await assert.rejects(
      within(McpClient.connect(s.connector, { revision: "2025-11-25" }), "connect"),
      (e: unknown) => {
        assert.ok(e instanceof ServerExitedError, String(e));
        assert.equal(e.code, "ERR_MCP_WIRE_SERVER_EXITED");
        assert.equal(e.exitCode, 1);
        assert.equal(e.signal, null);
        assert.equal(e.message, `the server (${COMMAND} --die) exited with status 1; its stderr ends:\n${STDERR}`);
        assert.doesNotMatch(e.message, /hunter2/);
        return true;
      },
    );
    assert.equal(s.children.length, 1);
  });

  test("a dual-era opening starts it a second time, for the documented fallback, and says so", async () => {
    const s = spawner("--die");
    let steps: string[] = [];
    await assert.rejects(
      within(McpClient.connect(s.connector, { onStep: (st) => steps.push(`${st.step} ${st.outcome}`) }), "connect"),
      (e: unknown) => {
        assert.ok(e instanceof ServerExitedError, String(e));
        assert.equal(
          e.message,
          `the server (${COMMAND} --die) exited with status 1; it was started twice: the first ended after server/discover, and a server that exits on anything before initialize is started again for it; its stderr ends:\n${STDERR}`,
        );
        return true;
      },
    );
    assert.equal(s.children.length, 2);
    steps = steps.filter((st) => st.startsWith("reconnect"));
    assert.deepEqual(steps, ["reconnect ok"]);
  });

  test("one that dies on the first request it reads fails the same way", async () => {
    const s = spawner("--die-on-request");
    await assert.rejects(
      within(McpClient.connect(s.connector, { revision: "2025-11-25" }), "connect"),
      (e: unknown) => e instanceof ServerExitedError && e.exitCode === 1 && e.stderrTail.endsWith("was not tried)"),
    );
  });
});

describe("a server that never answers", () => {
  const spawners: Spawner[] = [];
  after(() => Promise.all(spawners.map((s) => s.shutdown())));

  test("silent: fails at openTimeout, naming what was sent and that nothing came back", async () => {
    const s = new Spawner(process.execPath, [FAULTS, "--silent"]);
    spawners.push(s);
    const started = Date.now();
    await assert.rejects(
      within(McpClient.connect(s.connector, { openTimeout: 1500, probeTimeout: 200 }), "connect"),
      (e: unknown) => {
        assert.ok(e instanceof OpeningTimeoutError, String(e));
        assert.equal(e.code, "ERR_MCP_WIRE_OPENING_TIMEOUT");
        assert.deepEqual(
          e.sent.map((r) => r.method),
          ["server/discover", "initialize"],
        );
        assert.equal(e.received, 0);
        assert.match(
          e.message,
          /^the server did not open within 1500 ms: sent server\/discover at \d+ ms, initialize at \d+ ms; nothing came back; it wrote nothing to stderr$/,
        );
        return true;
      },
    );
    assert.ok(Date.now() - started < 10_000);
    assert.equal(s.children.length, 1, "nothing more is started once the opening is given up");
  });

  test("chattering: what came back is counted, and the last of it shown", async () => {
    const s = new Spawner(process.execPath, [FAULTS, "--chatter"]);
    spawners.push(s);
    await assert.rejects(
      within(McpClient.connect(s.connector, { openTimeout: 1500, probeTimeout: 200 }), "connect"),
      (e: unknown) => {
        assert.ok(e instanceof OpeningTimeoutError, String(e));
        assert.equal(e.received, 2);
        assert.equal(
          e.lastReceived,
          '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"busy with initialize"}}',
        );
        assert.match(e.message, /; 2 message\(s\) came back, none an answer to them; the last: \{"jsonrpc"/);
        return true;
      },
    );
  });
});
