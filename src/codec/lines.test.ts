import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { LineSplitter, type Line } from "./lines.js";

function collect(max: number) {
  const lines: Line[] = [];
  const s = new LineSplitter(max, (l) => lines.push({ ...l, bytes: Buffer.from(l.bytes) }));
  return { s, lines, texts: () => lines.map((l) => (l.overflow ? `<overflow ${l.size}>` : l.bytes.toString("utf8"))) };
}

/** What the splitter holds for the unfinished line, read from its private fields. */
function heldBytes(s: LineSplitter): { held: number; retained: number; parts: number } {
  const inner = s as unknown as { parts: Buffer[]; held: number };
  return {
    held: inner.held,
    parts: inner.parts.length,
    retained: inner.parts.reduce((n, p) => n + p.buffer.byteLength, 0),
  };
}

describe("LineSplitter", () => {
  test("one chunk with several lines", () => {
    const { s, texts, lines } = collect(1024);
    s.push(Buffer.from('{"a":1}\n{"b":2}\n\n{"c":3}\n'));
    s.end();
    assert.deepEqual(texts(), ['{"a":1}', '{"b":2}', "", '{"c":3}']);
    assert.ok(lines.every((l) => !l.crlf && !l.overflow && l.size === l.bytes.length));
  });

  test("a line split across chunks, down to single bytes and inside a UTF-8 sequence", () => {
    const text = '{"s":"é漢😀"}\n{"t":2}\n';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { s, texts } = collect(1024);
      s.push(bytes.subarray(0, cut));
      s.push(bytes.subarray(cut));
      s.end();
      assert.deepEqual(texts(), ['{"s":"é漢😀"}', '{"t":2}'], `cut at ${cut}`);
    }
    const { s, texts } = collect(1024);
    for (const b of bytes) s.push(Buffer.from([b]));
    s.end();
    assert.deepEqual(texts(), ['{"s":"é漢😀"}', '{"t":2}']);
  });

  test("\\r\\n endings are stripped and reported, also when \\r and \\n arrive apart", () => {
    const { s, lines, texts } = collect(1024);
    s.push(Buffer.from("a\r\nb\r"));
    s.push(Buffer.from("\nc\n\r\n"));
    s.end();
    assert.deepEqual(texts(), ["a", "b", "c", ""]);
    assert.deepEqual(
      lines.map((l) => l.crlf),
      [true, true, false, true],
    );
    assert.deepEqual(
      lines.map((l) => l.size),
      [1, 1, 1, 0],
    );
  });

  test("a \\r inside a line is kept", () => {
    const { s, texts } = collect(1024);
    s.push(Buffer.from("a\rb\n"));
    assert.deepEqual(texts(), ["a\rb"]);
  });

  test("a last line without a newline still counts; end() emits nothing more otherwise", () => {
    const { s, texts } = collect(1024);
    s.push(Buffer.from("one\ntwo"));
    assert.deepEqual(texts(), ["one"]);
    s.end();
    assert.deepEqual(texts(), ["one", "two"]);
    const other = collect(1024);
    other.s.push(Buffer.from("one\n"));
    other.s.end();
    assert.deepEqual(other.texts(), ["one"]);
    const empty = collect(1024);
    empty.s.end();
    assert.deepEqual(empty.lines, []);
  });

  test("an over-long line is one overflow with its size; the lines after it come through", () => {
    const { s, lines, texts } = collect(10);
    s.push(Buffer.from("short\n" + "x".repeat(25)));
    s.push(Buffer.from("y".repeat(30)));
    s.push(Buffer.from("zz\nafter\n0123456789\n01234567890\nlast"));
    s.end();
    assert.deepEqual(texts(), ["short", "<overflow 57>", "after", "0123456789", "<overflow 11>", "last"]);
    const o = lines[1]!;
    assert.equal(o.overflow, true);
    assert.equal(o.bytes.length, 0);
    assert.equal(o.size, 57);
  });

  test("an overflow at the end of the stream is still reported", () => {
    const { s, texts } = collect(4);
    s.push(Buffer.from("ok\nabcdefgh"));
    s.end();
    assert.deepEqual(texts(), ["ok", "<overflow 8>"]);
  });

  test("an overflow keeps the line's first bytes and its last bytes, whatever the chunking, without its \\r", () => {
    const line = "HEAD" + "m".repeat(5000) + "TAIL";
    for (const size of [1, 7, 1000, 6000]) {
      const { s, lines } = collect(100);
      const bytes = Buffer.from(line + "\r\nnext\n");
      for (let at = 0; at < bytes.length; at += size) s.push(bytes.subarray(at, at + size));
      const o = lines[0]!;
      assert.equal(o.overflow, true);
      assert.ok(
        o.prefix!.length >= 100 && line.startsWith(o.prefix!.toString()),
        `chunks of ${size}: the line's start (as far as it had come when it passed the cap)`,
      );
      // 1 KiB kept, less the \r it ended with
      assert.equal(o.suffix!.toString(), line.slice(-1023), `chunks of ${size}`);
      assert.equal(lines[1]!.bytes.toString(), "next");
    }
  });

  test("memory: the kept last bytes of an over-long line are a copy, not the chunk they came in", () => {
    const { s, lines } = collect(100);
    s.push(Buffer.alloc(4 << 20, 0x78));
    s.push(Buffer.from("\n"));
    assert.equal(lines[0]!.suffix!.length, 1024);
    assert.ok(
      lines[0]!.suffix!.buffer.byteLength < 64 * 1024,
      `the suffix retains ${lines[0]!.suffix!.buffer.byteLength} bytes`,
    );
  });

  test("memory: the dropped bytes of an over-long line are not held", () => {
    const { s, texts } = collect(100);
    s.push(Buffer.from("a".repeat(60)));
    assert.equal(heldBytes(s).held, 60);
    s.push(Buffer.alloc(1 << 20, 0x62)); // passes the cap: everything held so far is let go
    assert.deepEqual(heldBytes(s), { held: 0, parts: 0, retained: 0 });
    s.push(Buffer.alloc(1 << 20, 0x62));
    assert.deepEqual(heldBytes(s), { held: 0, parts: 0, retained: 0 });
    s.push(Buffer.from("\n"));
    assert.deepEqual(texts(), [`<overflow ${60 + 2 * (1 << 20)}>`]);
  });

  test("memory: a short tail after a big chunk does not keep that chunk alive", () => {
    const { s, texts } = collect(100);
    const big = Buffer.concat([Buffer.alloc(4 << 20, 0x78), Buffer.from("\nok\npartial")]);
    s.push(big);
    assert.deepEqual(texts(), ["<overflow 4194304>", "ok"]);
    const h = heldBytes(s);
    assert.equal(h.held, "partial".length);
    assert.ok(h.retained < 64 * 1024, `the held tail retains ${h.retained} bytes`);
    s.push(Buffer.from(" line\n"));
    assert.deepEqual(texts().slice(2), ["partial line"]);
  });

  test("property: any chunking of any lines gives back the same lines", () => {
    const line = fc.string({ unit: "binary", maxLength: 40 }).filter((t) => !t.includes("\n"));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (ls, cuts, trailing) => {
          const bytes = Buffer.from(ls.join("\n") + (trailing && ls.length > 0 ? "\n" : ""));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const { s, lines } = collect(1 << 16);
          let at = 0;
          for (const p of [...points, bytes.length]) {
            s.push(bytes.subarray(at, p));
            at = p;
          }
          s.end();
          // without a trailing newline, an empty last "line" is no line at all
          const expected = !trailing && ls.at(-1) === "" ? ls.slice(0, -1) : ls;
          assert.deepEqual(
            lines.map((l) => l.bytes.toString("utf8") + (l.crlf ? "\r" : "")),
            expected,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
