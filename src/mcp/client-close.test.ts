/**
 * `McpClient.close()` over stdio ends the server's process as every revision's stdio transport
 * says: stdin closed, a wait, SIGTERM, a wait, SIGKILL; it resolves once the process is gone.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { ChildServer } from "../transport/child.js";
import { within } from "../testkit/within.js";
import { McpClient } from "./client.js";

const FAULTS = fileURLToPath(new URL("../../../test/fixtures/client-faults-server.mjs", import.meta.url));

describe("McpClient.close() over stdio", () => {
  test("a server that ignores stdin closing and SIGTERM is ended by SIGKILL, within the graces", async () => {
    const child = new ChildServer(process.execPath, [FAULTS, "--stubborn"], { graceMs: 300 });
    const client = await within(
      McpClient.connect(() => child.transport, { revision: "2025-11-25" }),
      "connect",
      20_000,
    );
    assert.equal((await within(client.listResources(), "resources/list", 20_000)).length, 3);
    await within(client.close(), "close()", 20_000);
    assert.deepEqual(child.status, { code: null, signal: "SIGKILL" });
    // both graceful ends were tried first, in order (stderr is read to its end once `exited` settles)
    await within(child.exited, "the exit", 20_000);
    assert.match(child.stderrTail(), /ignoring the end of stdin\n[^]*ignoring SIGTERM\n/);
  });

  test("a server that ends when its stdin closes is gone when close() resolves, and no signal was sent", async () => {
    const child = new ChildServer(process.execPath, [FAULTS], { graceMs: 10_000 });
    const client = await within(
      McpClient.connect(() => child.transport, { revision: "2025-11-25" }),
      "connect",
      20_000,
    );
    await within(client.close(), "close()", 20_000);
    assert.deepEqual(child.status, { code: 0, signal: null });
    // closing again is harmless
    await within(client.close(), "close() again", 5_000);
  });
});
