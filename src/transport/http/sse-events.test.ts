/**
 * The SSE reader: events in any chunking and with every line ending; an event over the cap is
 * dropped, sized and reported, and the events after it are read as usual.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createParser } from "eventsource-parser";
import { SseReader, type SseEvent } from "./sse-events.js";

interface Seen {
  events: SseEvent[];
  tooLarge: number[];
  retries: number[];
}

/** Reads `stream` in chunks of `size` bytes (every size from 1 up, by default all at once). */
function read(stream: string | Buffer, cap: number, size = Infinity): Seen & { reader: SseReader } {
  const seen: Seen = { events: [], tooLarge: [], retries: [] };
  const reader = new SseReader(cap, {
    event: (e) => seen.events.push(e),
    tooLarge: (n) => seen.tooLarge.push(n),
    retry: (ms) => seen.retries.push(ms),
  });
  const bytes = typeof stream === "string" ? Buffer.from(stream, "utf8") : stream;
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
  return { ...seen, reader };
}

const data = (e: SseEvent[]) => e.map((x) => x.data);

describe("SseReader", () => {
  test("events, fields and line endings (LF, CR, CRLF, mixed) come out the same in any chunking", () => {
    const stream =
      '\ufeffid: 1\nevent: message\ndata: {"a":1}\n\n: keep-alive\n\ndata: two\r\ndata: lines\r\n\r\nretry: 250\rdata: crs\r\rdata: é日本\n\nid: 9\ndata: cut off';
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

  test("passedCap: a reader that gives up learns of an event over the cap even when the whole event came in one chunk", () => {
    const whole = read(`data: ${"q".repeat(200)}\n\ndata: next\n\n`, 64);
    assert.deepEqual(whole.tooLarge, [207]);
    assert.equal(whole.reader.passedCap, true);
    assert.equal(read("data: small\n\n", 64).reader.passedCap, false);
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
    assert.equal(over.reader.passedCap, true);
    assert.deepEqual(over.tooLarge, []);
    over.reader.end();
    assert.deepEqual(over.tooLarge, [206]);
    const cut = read("data: half", 64);
    cut.reader.end();
    assert.deepEqual(cut.events, []);
    assert.deepEqual(cut.tooLarge, []);
  });

  test("bytes are cut only at line breaks, so a character split across chunks arrives whole", () => {
    const seen = read(Buffer.from("data: 日本語\n\n", "utf8"), 1024, 1);
    assert.deepEqual(data(seen.events), ["日本語"]);
  });

  test("random streams in random chunkings: the same events as eventsource-parser reading the whole text, and every event over the cap reported with its size", () => {
    // a fixed seed: the same streams on every run
    let seed = 0x2545f491;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const breaks = ["\n", "\r", "\r\n"];
    const words = ["a", "é", "日本", '{"x":1}', " spaced ", ":", "data", ""];
    let kept = 0;
    let over = 0;
    for (let round = 0; round < 300; round++) {
      const cap = 16 + rand(64);
      let stream = "";
      const expected: { kept: string[]; sizes: number[] } = { kept: [], sizes: [] };
      const events = 1 + rand(8);
      for (let e = 0; e < events; e++) {
        let text = "";
        let size = 0;
        let fields = 0;
        const lines = 1 + rand(5);
        for (let l = 0; l < lines; l++) {
          const br = breaks[rand(3)]!;
          let line: string;
          const kind = rand(6);
          if (kind === 0) line = `: ${words[rand(words.length)]}`;
          else if (kind === 1) line = `id: ${rand(100)}`;
          else if (kind === 2) line = `event: ${rand(2) === 0 ? "message" : "other"}`;
          else
            line = `data:${rand(2) === 0 ? " " : ""}${Array.from({ length: rand(12) }, () => words[rand(words.length)]).join("")}`;
          text += line + br;
          if (kind !== 0) {
            size += Buffer.byteLength(line) + 1;
            fields++;
          }
        }
        // the blank line; after a CR, an LF would make one CRLF with it instead
        text += text.endsWith("\r") ? breaks[rand(2) + 1] : breaks[rand(3)];
        stream += text;
        if (fields > 0 && size > cap) expected.sizes.push(size);
        else expected.kept.push(text);
      }
      stream += "\n\n";
      const oracle = (text: string) => {
        const out: SseEvent[] = [];
        createParser({ onEvent: (ev) => out.push(ev) }).feed(text);
        return out;
      };
      const want = oracle(expected.kept.join("") + "\n\n");
      kept += want.length;
      over += expected.sizes.length;
      const bytes = Buffer.from(stream, "utf8");
      for (const size of [1, 1 + rand(7), 1 + rand(64), bytes.length]) {
        const got = read(bytes, cap, size);
        assert.deepEqual(got.events, want, `round ${round}, chunks of ${size}: ${JSON.stringify(stream)}`);
        assert.deepEqual(got.tooLarge, expected.sizes, `round ${round}, chunks of ${size}: ${JSON.stringify(stream)}`);
      }
    }
    assert.ok(kept > 300 && over > 300, `both kinds are tried: ${kept} events read, ${over} over the cap`);
  });
});
