/**
 * Newline-delimited JSON-RPC over real stream pipes (node:stream PassThrough): framing in any
 * chunking, `\r\n`, the line cap, back-pressure, and the ends of a stream.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, test } from "node:test";
import fc from "fast-check";
import { ClosedError, MessageTooLargeError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import type { TransportSink } from "../peer/transport.js";
import { Defects, guardEventLoop, rejection, ticks, until, within } from "../testkit/peer.js";
import { StreamTransport } from "./stream.js";

guardEventLoop();

/** A sink that records what arrives: messages as text, defects by code, and closes. */
function recorder(): TransportSink & { messages: string[]; defects: string[]; closes: (Error | undefined)[] } {
  const r = {
    messages: [] as string[],
    defects: [] as string[],
    closes: [] as (Error | undefined)[],
    message: (data: string | Uint8Array) =>
      void r.messages.push(typeof data === "string" ? data : Buffer.from(data).toString("utf8")),
    defect: (d: { code: string }) => void r.defects.push(d.code),
    closed: (error?: Error) => void r.closes.push(error),
  };
  return r;
}

/** A transport on fresh pipes, started with a recorder. */
function piped(options: { maxLineBytes?: number; highWaterMark?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough(options.highWaterMark === undefined ? {} : { highWaterMark: options.highWaterMark });
  const transport = new StreamTransport(
    input,
    output,
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
  );
  const sink = recorder();
  transport.start(sink);
  return { input, output, transport, sink };
}

/** Writes to a stream as a well-behaved producer: waits for drain when told to. */
async function write(stream: PassThrough, chunk: Buffer | string): Promise<void> {
  if (!stream.write(chunk)) await within(new Promise((resolve) => stream.once("drain", resolve)), "drain", 5000);
}

describe("StreamTransport", () => {
  test("messages split across chunks, or joined in one, arrive whole, with or without \\r", async () => {
    const text = fc
      .string({ unit: "binary", maxLength: 30 })
      .map((s) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: s } }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(text, fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (lines, cuts) => {
          const { input, sink, transport } = piped();
          const bytes = Buffer.from(lines.map(([t, crlf]) => t + (crlf ? "\r\n" : "\n")).join(""));
          const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((x, y) => x - y);
          let from = 0;
          for (const p of [...points, bytes.length]) {
            if (p > from) input.write(bytes.subarray(from, p));
            from = p;
          }
          await until(() => sink.messages.length >= lines.length, 5000, "every line delivered");
          assert.deepEqual(
            sink.messages,
            lines.map(([t]) => t),
          );
          assert.deepEqual(sink.defects, []);
          await transport.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  test("\\r\\n endings reach the peer as sound messages", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const defects = new Defects();
    const peer = new Peer(new StreamTransport(input, output), {
      revision: "2025-11-25",
      role: "client",
      onDefect: defects.listener,
    });
    const pending = peer.request("x");
    input.write(
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\r\n',
    );
    assert.deepEqual(await within(pending), { ok: true });
    assert.deepEqual(defects.codes(), []);
    await peer.close();
  });

  test("blank lines are skipped; a last line without a newline still counts when the input ends", async () => {
    const { input, sink } = piped();
    input.write('\n\r\n{"a":1}\n\n');
    input.end('{"b":2}');
    await until(() => sink.closes.length > 0);
    assert.deepEqual(sink.messages, ['{"a":1}', '{"b":2}']);
    assert.deepEqual(sink.closes, [undefined]);
  });

  test("a line of exactly maxLineBytes passes; one byte more is dropped as too_large, and the next line is fine", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4096 }),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: 1, max: 997 }),
        async (limit, delta, chunk) => {
          const size = Math.max(1, limit + delta);
          const { input, sink, transport } = piped({ maxLineBytes: limit });
          const line = Buffer.alloc(size, "x");
          for (let at = 0; at < size; at += chunk) input.write(line.subarray(at, at + chunk));
          // the next line is one byte: it fits any limit
          input.write("\nk\n");
          await until(() => sink.messages.includes("k"));
          if (size <= limit) {
            assert.deepEqual(sink.messages, ["x".repeat(size), "k"]);
            assert.deepEqual(sink.defects, []);
          } else {
            assert.deepEqual(sink.messages, ["k"]);
            assert.deepEqual(sink.defects, ["too_large"]);
          }
          await transport.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  test("a 100 MB line is dropped as too_large without holding it in memory, and the conversation goes on", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const defects = new Defects();
    const peer = new Peer(new StreamTransport(input, output), {
      revision: "2025-11-25",
      role: "client",
      onDefect: defects.listener,
    });
    const pending = rejection(peer.request("x"), 20_000);
    const next = peer.request("y");
    const before = process.memoryUsage();
    const mib = Buffer.alloc(2 ** 20, "x");
    await write(input, '{"jsonrpc":"2.0","id":1,"result":{"data":"');
    for (let i = 0; i < 100; i++) await write(input, mib);
    await write(input, '"}}\n{"jsonrpc":"2.0","id":2,"result":{"small":true}}\n');
    // the request the line answered fails at once (its id is in the line's first bytes)
    assert.ok((await pending) instanceof MessageTooLargeError);
    assert.deepEqual(await within(next, "the promise", 20_000), { small: true });
    const after = process.memoryUsage();
    assert.deepEqual(defects.codes(), ["too_large"]);
    assert.match(
      defects.reports[0]!.defect.message,
      /^a line of 104857\d\d\d bytes, over the 4194304-byte limit: dropped$/,
    );
    const grew = (n: number) => `${(n / 2 ** 20) | 0} MB`;
    assert.ok(after.rss - before.rss < 60 * 2 ** 20, `rss grew by ${grew(after.rss - before.rss)}`);
    assert.ok(
      after.heapUsed - before.heapUsed < 60 * 2 ** 20,
      `heap grew by ${grew(after.heapUsed - before.heapUsed)}`,
    );
    await peer.close();
  });

  test("back-pressure: send returns a promise while the output is full, resolved once it drains", async () => {
    const { output, transport } = piped({ highWaterMark: 64 });
    const big = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "y".repeat(500) } });
    assert.equal(transport.send('{"jsonrpc":"2.0","method":"a"}'), undefined);
    const first = transport.send(big);
    assert.ok(first instanceof Promise, "a full output makes send return a promise");
    const second = transport.send(big);
    assert.ok(second instanceof Promise);
    let drained = false;
    void Promise.all([first, second]).then(() => (drained = true));
    await ticks(5);
    assert.equal(drained, false, "nothing drains while nobody reads");
    const read: Buffer[] = [];
    output.on("data", (chunk: Buffer) => read.push(chunk));
    await within(Promise.all([first, second]));
    assert.deepEqual(Buffer.concat(read).toString("utf8").split("\n"), [
      '{"jsonrpc":"2.0","method":"a"}',
      big,
      big,
      "",
    ]);
    await transport.close();
  });

  test("a peer's notify waits for the drain", async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const peer = new Peer(new StreamTransport(input, output), { revision: "2025-11-25", role: "server" });
    let sent = false;
    const notified = peer
      .notify("notifications/message", { level: "info", data: "z".repeat(200) })
      .then(() => (sent = true));
    await ticks(5);
    assert.equal(sent, false);
    output.resume();
    await within(notified);
    await peer.close();
  });

  test("a wait for drain ends when the output is destroyed instead", async () => {
    const { output, transport, sink } = piped({ highWaterMark: 16 });
    const waiting = transport.send(JSON.stringify({ jsonrpc: "2.0", method: "m", params: { data: "w".repeat(100) } }));
    assert.ok(waiting instanceof Promise);
    output.destroy();
    await within(waiting);
    await until(() => sink.closes.length === 1);
    assert.throws(() => transport.send("{}"), ClosedError);
  });

  test("close() ends the output, closes once, and later sends throw ClosedError", async () => {
    const { input, output, transport, sink } = piped();
    let ended = false;
    output.on("end", () => (ended = true)).resume();
    await transport.close();
    await transport.close();
    input.end();
    await until(() => ended);
    await ticks();
    assert.deepEqual(sink.closes, [undefined]);
    assert.throws(() => transport.send("{}"), ClosedError);
  });

  test("an input that fails ends the peer: pending requests reject with ClosedError, nothing escapes", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const peer = new Peer(new StreamTransport(input, output), { revision: "2025-11-25", role: "client" });
    const pending = peer.request("x");
    input.destroy(new Error("EIO: the pipe broke"));
    const e = await rejection(pending);
    assert.ok(e instanceof ClosedError);
    assert.match(e.message, /EIO/);
    assert.ok((await within(peer.ended)) instanceof Error);
  });

  test("an output that fails ends the peer too", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const peer = new Peer(new StreamTransport(input, output), { revision: "2025-11-25", role: "client" });
    const pending = peer.request("x");
    output.destroy(new Error("EPIPE: nobody reads"));
    assert.ok((await rejection(pending)) instanceof ClosedError);
    assert.ok((await rejection(peer.request("y"))) instanceof ClosedError);
  });
});
