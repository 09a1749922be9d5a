/**
 * A stdio server as a real child process: a round trip, the graceful shutdown, a server that
 * dies mid-request, one that ignores stdin closing and SIGTERM, and a command that is not there.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClosedError, ConnectionErrorCode, SpawnError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import { Defects, guardEventLoop, rejection, within } from "../testkit/peer.js";
import { ChildServer } from "./child.js";

guardEventLoop();

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));

function connect(server: ChildServer) {
  const defects = new Defects();
  const peer = new Peer(server.transport, {
    revision: "2025-11-25",
    role: "client",
    timeout: 10_000,
    onDefect: defects.listener,
  });
  return { peer, defects };
}

describe("ChildServer", () => {
  test("a round trip with a real process, then a graceful shutdown by closing its stdin", async () => {
    const server = new ChildServer(process.execPath, [fixture("child-echo.mjs")]);
    const { peer, defects } = connect(server);
    const hello = new Promise((resolve) => peer.onNotification("notifications/message", resolve));
    assert.equal(typeof server.pid, "number");
    assert.deepEqual(await within(peer.request("echo", { a: [1, "two"] })), { a: [1, "two"] });
    const e = await rejection(peer.request("nothing"));
    assert.equal((e as { code?: unknown }).code, -32601);
    assert.deepEqual(await within(hello), { level: "info", data: "hello" });
    const status = await within(server.shutdown(5000), "the promise", 10_000);
    assert.deepEqual(status, { code: 0, signal: null });
    assert.equal(server.status, status);
    assert.ok((await within(peer.ended)) instanceof ClosedError);
    assert.deepEqual(defects.codes(), []);
  });

  test("a server that dies mid-request: the request settles with ClosedError, the stderr tail is kept and capped", async () => {
    const server = new ChildServer(process.execPath, [fixture("child-crash.mjs"), String(200 * 1024)], {
      stderrBytes: 4096,
    });
    const { peer } = connect(server);
    const e = await rejection(peer.request("echo", { x: 1 }), 10_000);
    assert.ok(e instanceof ClosedError);
    const status = await within(server.exited);
    assert.equal(status.code, 3);
    assert.equal(status.signal, null);
    const tail = server.stderrTail();
    assert.ok(Buffer.byteLength(tail) <= 4096, `kept ${Buffer.byteLength(tail)} bytes`);
    assert.ok(tail.length > 1000, "the tail is kept, not emptied");
    assert.ok(tail.endsWith("last words: out of cheese\n"), JSON.stringify(tail.slice(-80)));
    // already gone: shutdown only reports how it ended
    assert.equal(await within(server.shutdown(100)), status);
  });

  test("a short last write after a long one: the tail still holds the cap's worth, cut from the older output", async () => {
    const server = new ChildServer(process.execPath, [fixture("child-crash.mjs"), String(8 * 1024), "150"], {
      stderrBytes: 4096,
    });
    const { peer } = connect(server);
    assert.ok((await rejection(peer.request("echo", { x: 1 }), 10_000)) instanceof ClosedError);
    await within(server.exited);
    const tail = server.stderrTail();
    assert.equal(Buffer.byteLength(tail), 4096);
    assert.ok(tail.endsWith("x\nlast words: out of cheese\n"), JSON.stringify(tail.slice(-80)));
  });

  test("a server that ignores stdin closing and SIGTERM is still ended, by SIGKILL", async () => {
    const server = new ChildServer(process.execPath, [fixture("child-stubborn.mjs")]);
    const { peer } = connect(server);
    await within(
      new Promise((resolve) => peer.onNotification("notifications/message", resolve)),
      "the stubborn server's ready message",
      10_000,
    );
    const pending = rejection(peer.request("echo", {}), 15_000);
    const status = await within(server.shutdown(150), "the promise", 10_000);
    assert.deepEqual(status, { code: null, signal: "SIGKILL" });
    assert.ok((await pending) instanceof ClosedError);
  });

  test("a command that does not exist: ExitStatus.error is set, requests fail, nothing escapes", async () => {
    const server = new ChildServer("/nonexistent/mcp-wire-no-such-server", ["--stdio"]);
    const { peer } = connect(server);
    const pending = rejection(peer.request("echo", {}));
    const status = await within(server.exited);
    assert.equal(status.code, null);
    assert.ok(status.error instanceof Error);
    assert.equal((status.error as NodeJS.ErrnoException).code, "ENOENT");
    const e = await pending;
    assert.ok(e instanceof SpawnError, `${e.name}: ${e.message}`);
    assert.equal(e.code, ConnectionErrorCode.Spawn);
    assert.equal(e.osCode, "ENOENT");
    assert.equal(e.cause, status.error);
    assert.equal(
      e.message,
      "/nonexistent/mcp-wire-no-such-server could not be started: ENOENT (no such file, or not on PATH)",
    );
    assert.equal(await within(server.shutdown(100)), status);
    const later = await rejection(peer.request("again"));
    assert.ok(later instanceof ClosedError && later.cause === e, "a later request is refused, naming the same cause");
  });

  test("a command that does not exist, connected only after its failure: the peer still hears SpawnError at once", async () => {
    const server = new ChildServer("/nonexistent/mcp-wire-no-such-server", []);
    // a busy program (a census) may attach its peer after the spawn has already failed
    await within(server.exited);
    const { peer } = connect(server);
    const e = await rejection(peer.request("echo", {}), 5_000);
    assert.ok(e instanceof SpawnError, `${e.name}: ${e.message}`);
    assert.equal(e.osCode, "ENOENT");
    assert.ok((await within(peer.ended)) instanceof SpawnError);
  });

  test("a file that is not executable: SpawnError with EACCES", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-wire-child-"));
    try {
      const file = join(dir, "server.mjs");
      writeFileSync(file, "process.stdin.pipe(process.stdout);\n", { mode: 0o644 });
      const server = new ChildServer(file);
      const { peer } = connect(server);
      const e = await rejection(peer.request("echo", {}));
      assert.ok(e instanceof SpawnError, `${e.name}: ${e.message}`);
      assert.equal(e.osCode, "EACCES");
      assert.equal(e.command, file);
      await within(server.shutdown(100));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
