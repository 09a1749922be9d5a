/**
 * The in-memory pair: delivery order and timing, early messages, closing, and what 100,000
 * requests awaiting an answer cost.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, test } from "node:test";
import { ClosedError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import type { TransportSink } from "../peer/transport.js";
import { guardEventLoop, rejection, ticks, within } from "../testkit/peer.js";
import { createMemoryPair } from "./memory.js";

guardEventLoop();

/** A sink that records what arrives, closes included, in order. */
function recorder(): TransportSink & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    message: (data) => events.push(typeof data === "string" ? data : `bytes:${Buffer.from(data).toString("utf8")}`),
    defect: (d) => events.push(`defect:${d.code}`),
    closed: (error) => events.push(error ? `closed:${error.message}` : "closed"),
  };
}

describe("memory pair", () => {
  test("what one side sends, the other receives, in order, never inside send()", async () => {
    const [a, b] = createMemoryPair();
    const atA = recorder();
    const atB = recorder();
    a.start(atA);
    b.start(atB);
    for (const text of ["1", "2", "3"]) a.send(text);
    b.send("back");
    assert.deepEqual(atB.events, []);
    await ticks(1);
    assert.deepEqual(atB.events, ["1", "2", "3"]);
    assert.deepEqual(atA.events, ["back"]);
    await a.close();
  });

  test("messages that arrive before start() are held and delivered on start", async () => {
    const [a, b] = createMemoryPair();
    const atB = recorder();
    a.start(recorder());
    a.send("early 1");
    a.send("early 2");
    await ticks(1);
    b.start(atB);
    a.send("later");
    await ticks(1);
    assert.deepEqual(atB.events, ["early 1", "early 2", "later"]);
    await b.close();
  });

  test("closing one side closes both, once each; sending afterwards throws ClosedError", async () => {
    const [a, b] = createMemoryPair();
    const atA = recorder();
    const atB = recorder();
    a.start(atA);
    b.start(atB);
    await a.close();
    await a.close();
    await b.close();
    assert.deepEqual(atA.events, ["closed"]);
    assert.deepEqual(atB.events, ["closed"]);
    assert.throws(() => a.send("x"), ClosedError);
    assert.throws(() => b.send("x"), ClosedError);
  });

  test("what was sent before close() still arrives, before the close", async () => {
    const [a, b] = createMemoryPair();
    const atB = recorder();
    a.start(recorder());
    b.start(atB);
    a.send("last words");
    await within(a.close());
    assert.deepEqual(atB.events, ["last words", "closed"]);
  });

  test("an answer sent just before the server closes reaches the client", async () => {
    const [a, b] = createMemoryPair();
    const client = new Peer(a, { revision: "2025-11-25", role: "client" });
    const server = new Peer(b, { revision: "2025-11-25", role: "server" });
    server.handle("goodbye", () => {
      queueMicrotask(() => void server.close());
      return { bye: true };
    });
    assert.deepEqual(await within(client.request("goodbye")), { bye: true });
    await within(client.ended);
    assert.ok((await rejection(client.request("again"))) instanceof ClosedError);
  });

  test("100,000 requests awaiting an answer hold under 100 MB of heap, and close() rejects them all with ClosedError", async () => {
    // measured in a child with --expose-gc, apart from this process's own heap, by the very
    // script the round-trip benchmark runs, so the test and the bench cannot drift apart
    const script = fileURLToPath(new URL("../../bench/pending-memory.js", import.meta.url));
    const { stdout } = await within(
      promisify(execFile)(process.execPath, ["--expose-gc", script, "100000"], { timeout: 60_000 }),
      "the measuring child",
      65_000,
    );
    const r = JSON.parse(stdout) as {
      n: number;
      inFlight: number;
      heapGrowth: number;
      closedErrors: number;
      inFlightAfterClose: number;
    };
    assert.equal(r.inFlight, 100_000);
    assert.ok(
      r.heapGrowth < 100 * 2 ** 20,
      `heap grew by ${(r.heapGrowth / 2 ** 20).toFixed(1)} MB (${Math.round(r.heapGrowth / r.n)} bytes a request)`,
    );
    assert.equal(r.closedErrors, 100_000);
    assert.equal(r.inFlightAfterClose, 0);
  });
});
