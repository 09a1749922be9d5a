/**
 * The SSE reader: events in any chunking and with every line ending; an event over the cap is
 * dropped, sized and reported, and the events after it are read as usual.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SseReader, type SseEvent } from "./sse-events.js";

interface Seen {
  events: SseEvent[];
  tooLarge: number[];
  retries: number[];
}

/** Reads `stream` in chunks of `size` bytes (every size from 1 up, by default all at once). */
function read(stream: string | Buffer, cap: number, size = Infinity): Seen & { reader: SseReader } {
  const seen: Seen = { events: [], tooLarge: [], retries: [] };
  const reader = new SseReader(cap, { event: (e) => seen.events.push(e), tooLarge: (n) => seen.tooLarge.push(n), retry: (ms) => seen.retries.push(ms) });
  const bytes = typeof stream === "string" ? Buffer.from(stream, "utf8") : stream;
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
  return { ...seen, reader };
}

const data = (e: SseEvent[]) => e.map((x) => x.data);

describe("SseReader", () => {
  test("events, fields and line endings (LF, CR, CRLF, mixed) come out the same in any chunking", () => {
    const stream = '\ufeffid: 1\nevent: message\ndata: {"a":1}\n\n: keep-alive\n\ndata: two\r\ndata: lines\r\n\r\nretry: 250\rdata: crs\r\rdata: é日本\n\nid: 9\ndata: cut off';
    for (const size of [1, 2, 3, 5, 7, 64, Infinity]) {
      const seen = read(stream, 1024, size);
      assert.deepEqual(data(seen.events), ['{"a":1}', "two\nlines", "crs", "é日本"], `chunks of ${size}`);
      assert.equal(seen.events[0]!.id, "1");
      assert.equal(seen.events[0]!.event, "message");
      assert.deepEqual(seen.retries, [250]);
      assert.deepEqual(seen.tooLarge, []);
    }
  });

  test("a CR at the end of one chunk and an LF at the start of the next are one line break, not a blank line", () => {
    const seen = read("data: a\r\ndata: b\r\n\r\n", 1024, 8);
    assert.deepEqual(data(seen.events), ["a\nb"]);
  });

  test("an event over the cap is reported with its size once it ends, and the next event is read", () => {
    const big = `data: ${"x".repeat(5000)}\ndata: ${"y".repeat(5000)}\n`;
    const stream = `data: before\n\n${big}\ndata: after\n\n`;
    for (const size of [1, 100, 4096, Infinity]) {
      const seen = read(stream, 4096, size);
      assert.deepEqual(data(seen.events), ["before", "after"], `chunks of ${size}`);
      assert.deepEqual(seen.tooLarge, [Buffer.byteLength(big)], `chunks of ${size}`);
    }
  });

  test("an event exactly at the cap is read; one byte more is not", () => {
    const line = (n: number) => `data: ${"z".repeat(n - 7)}\n`; // n bytes with its line break
    assert.deepEqual(read(`${line(64)}\n`, 64).events.length, 1);
    assert.deepEqual(read(`${line(65)}\n`, 64).tooLarge, [65]);
  });

  test("comment lines count toward no event: endless keep-alives are never too large", () => {
    const seen = read(`${": keep-alive\n".repeat(1000)}data: then\n\n`, 64, 7);
    assert.deepEqual(data(seen.events), ["then"]);
    assert.deepEqual(seen.tooLarge, []);
  });

  test("a stream that ends inside an event over the cap still reports it; an ordinary event cut off is dropped", () => {
    const over = read(`data: ${"q".repeat(200)}`, 64, 10);
    assert.equal(over.reader.overflowing, true);
    assert.deepEqual(over.tooLarge, []);
    over.reader.end();
    assert.deepEqual(over.tooLarge, [206]);
    assert.equal(over.reader.overflowing, false);
    const cut = read("data: half", 64);
    cut.reader.end();
    assert.deepEqual(cut.events, []);
    assert.deepEqual(cut.tooLarge, []);
  });

  test("bytes are cut only at line breaks, so a character split across chunks arrives whole", () => {
    const seen = read(Buffer.from("data: 日本語\n\n", "utf8"), 1024, 1);
    assert.deepEqual(data(seen.events), ["日本語"]);
  });
});
