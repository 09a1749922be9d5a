/**
 * Nesting is measured before JSON.parse builds anything: the text scan agrees with a walk of the
 * parsed value, a too-deep text is told apart from a broken one without being built, and a
 * hostile 4 MiB body costs about its own bytes.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { decode } from "./decode.js";
import { BUILD_LEVELS, DEFAULT_MAX_DEPTH, depthBeforeParse, exceedsDepth, textTooDeep } from "./depth.js";
import { parseJson, TooDeepError } from "./parse.js";
import { jsonSyntaxError } from "./syntax.js";

const parses = (t: string): boolean => {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
};

/** Strings that look like structure: brackets, quotes and backslashes in them must not count. */
const tricky = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("[", "]", "{", "}", '"', "\\", '\\"[', "[[[[", "\\\\", "}}]]"),
  fc.string({ unit: fc.constantFrom("[", "{", '"', "\\", "]", "}", "a"), maxLength: 12 }),
);
const { value: nested } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 12 },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(tricky, tie("value"), { maxKeys: 3 }),
  ),
}));
const spaced = (v: unknown, space: number) => JSON.stringify(v, null, space);

describe("depth of the text, before parsing", () => {
  test("the scan agrees with a walk of the parsed value, brackets and escaped quotes inside strings included", () => {
    fc.assert(
      fc.property(nested, fc.nat(10), fc.constantFrom(0, 1), (v, max, space) => {
        const text = spaced(v, space);
        assert.equal(textTooDeep(text, max), exceedsDepth(JSON.parse(text), max), text);
      }),
      { numRuns: 2000 },
    );
  });

  test("before parsing, a text is called shallow only when it is", () => {
    fc.assert(
      fc.property(nested, fc.nat(12), fc.constantFrom(0, 1), (v, max, space) => {
        const text = spaced(v, space);
        if (depthBeforeParse(text, max) === false) assert.equal(exceedsDepth(JSON.parse(text), max), false, text);
      }),
      { numRuns: 2000 },
    );
    // the tightest texts of each depth: every level as short as an array or an object can be
    const tightest = (kinds: string): string => {
      let text = kinds.endsWith("a") ? "[]" : "{}";
      for (let i = kinds.length - 2; i >= 0; i--) text = kinds[i] === "a" ? `[${text}]` : `{"":${text}}`;
      return text;
    };
    for (let depth = 1; depth <= 40; depth++) {
      for (const kinds of [
        "a".repeat(depth),
        "o".repeat(depth),
        "ao".repeat(depth).slice(0, depth),
        "oa".repeat(depth).slice(0, depth),
        "o".repeat(depth - 1) + "a",
      ]) {
        const text = tightest(kinds);
        for (let max = 0; max <= 41; max++) {
          const deep = exceedsDepth(JSON.parse(text), max);
          assert.equal(deep, depth > max, text);
          if (depthBeforeParse(text, max) === false) assert.equal(deep, false, `${text} at ${max}`);
        }
      }
    }
    // what it is for: an ordinary message a few hundred bytes long needs no walk
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "search", arguments: { query: "x".repeat(300), tags: ["a", "b"] } },
    });
    assert.ok(call.length > 2 * DEFAULT_MAX_DEPTH);
    assert.equal(depthBeforeParse(call, DEFAULT_MAX_DEPTH), false);
  });

  test("around the limit: 128 levels pass, 129 do not, whatever the strings hold", () => {
    const nest = (n: number, inner = "") => "[".repeat(n) + inner + "]".repeat(n);
    assert.equal(textTooDeep(nest(128), 128), false);
    assert.equal(textTooDeep(nest(129), 128), true);
    assert.equal(textTooDeep(nest(128, '"' + "[".repeat(300) + '"'), 128), false);
    assert.equal(textTooDeep(nest(128, '"\\"' + "{".repeat(300) + '"'), 128), false);
    assert.equal(textTooDeep(nest(128, '"\\\\"' + ",[]"), 128), true);
    assert.equal(textTooDeep(`{"a":${nest(127)},"b":${nest(128)}}`, 128), true);
    assert.equal(textTooDeep(`${"[1,".repeat(500)}1${"]".repeat(500)}`, 128), true);
    assert.equal(textTooDeep(`[${"[],".repeat(500)}[]]`, 128), false, "many brackets, little depth");
  });

  test("the syntax check agrees with JSON.parse on any text", () => {
    const token = fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ":",
      ",",
      '"a"',
      '"\\u12g4"',
      '"\\u1234"',
      '"\\x"',
      '"\\n"',
      '"\\/"',
      "null",
      "nul",
      "true",
      "tru",
      "false",
      "fals",
      "1",
      "-",
      "-0",
      "01",
      "1.",
      "1.5",
      "1e",
      "1e+5",
      "1E-2",
      " ",
      "\n",
      "\t",
      "\r",
      "\u00a0",
      '"',
      "\\",
      "\u0001",
      "\ud800",
      "x",
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 30 }),
        (ts) => (jsonSyntaxError(ts.join("")) === undefined) === parses(ts.join("")),
      ),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        (t) => (jsonSyntaxError(t) === undefined) === parses(t),
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), (t) => jsonSyntaxError(t) === undefined),
      { numRuns: 2000 },
    );
  });

  test("decode: deep JSON is too_deep, deep text that is not JSON stays a parse_error, as before", () => {
    const deep = decode("[".repeat(200) + "]".repeat(200), { revision: "2025-06-18" });
    assert.equal(deep.kind, "invalid");
    assert.deepEqual(
      deep.defects.map((d) => [d.code, d.message]),
      [["too_deep", "nests arrays and objects deeper than 128 levels"]],
    );
    for (const broken of [
      "[".repeat(200),
      "[".repeat(300) + "]".repeat(299),
      "[".repeat(300) + "x" + "]".repeat(300),
      `{"a":${"[".repeat(300)}1,]${"]".repeat(299)}}`,
    ]) {
      assert.deepEqual(
        decode(broken, { revision: "2025-06-18" }).defects.map((d) => d.code),
        ["parse_error"],
      );
    }
    // the same for bytes, for a smaller limit, and through the guarded parse
    assert.deepEqual(
      decode(Buffer.from("[".repeat(200) + "]".repeat(200)), { revision: "2025-03-26" }).defects.map((d) => d.code),
      ["too_deep"],
    );
    assert.deepEqual(
      decode('{"a":[[[[1]]]]}', { revision: "2025-03-26", maxDepth: 3 }).defects.map((d) => d.code),
      ["too_deep"],
    );
    assert.throws(() => parseJson("[".repeat(200) + "]".repeat(200)), TooDeepError);
    assert.throws(
      () => parseJson("[".repeat(200)),
      (e: unknown) => e instanceof SyntaxError && !(e instanceof TooDeepError),
    );
    assert.deepEqual(
      parseJson("[".repeat(DEFAULT_MAX_DEPTH) + "]".repeat(DEFAULT_MAX_DEPTH)),
      JSON.parse("[".repeat(DEFAULT_MAX_DEPTH) + "]".repeat(DEFAULT_MAX_DEPTH)),
    );
  });

  test("every depth is judged the same, scanned before parsing or walked after", () => {
    for (const levels of [129, 1_000, BUILD_LEVELS - 1, BUILD_LEVELS, BUILD_LEVELS + 1, 3 * BUILD_LEVELS]) {
      const text = "[".repeat(levels) + "]".repeat(levels);
      assert.deepEqual(
        decode(text, { revision: "2025-06-18" }).defects.map((d) => d.code),
        ["too_deep"],
        `${levels} levels`,
      );
      assert.equal(depthBeforeParse(text, DEFAULT_MAX_DEPTH), levels > BUILD_LEVELS ? true : undefined);
    }
    // a long text with many brackets but little depth is parsed
    const wide = `[${"[1],".repeat(3 * BUILD_LEVELS)}[2]]`;
    assert.equal(depthBeforeParse(wide, DEFAULT_MAX_DEPTH), false);
    assert.equal(decode(wide, { revision: "2025-06-18" }).defects[0]?.code, "bare_array");
  });

  test("a limit deeper than recursion may go: deep text is judged exactly, never with a stack overflow", () => {
    const levels = 100_000;
    const text = "[".repeat(levels) + "]".repeat(levels);
    assert.ok(text.length <= 2 * BUILD_LEVELS, "short enough that the default limit would parse and walk it");
    assert.deepEqual(
      decode(text, { revision: "2025-06-18", maxDepth: levels - 1 }).defects.map((d) => d.code),
      ["too_deep"],
    );
    assert.deepEqual(
      decode(text, { revision: "2025-06-18", maxDepth: levels }).defects.map((d) => d.code),
      ["bare_array"],
    );
    assert.throws(() => parseJson(text, levels - 1), TooDeepError);
    assert.equal((parseJson(text, levels) as unknown[]).length, 1);
  });

  test("a value is walked without recursion when the limit is deeper than recursion may go", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    assert.equal(exceedsDepth(deep, 200_000), false);
    assert.equal(exceedsDepth(deep, 199_999), true);
    // a value that contains itself nests without end, whatever the limit
    const self: Record<string, unknown> = { a: [1, { b: 2 }] };
    self.again = self;
    assert.equal(exceedsDepth(self, 1e9), true);
    assert.equal(exceedsDepth(self, Infinity), true);
    // one object reached twice is not a cycle
    const shared = { x: [1, 2] };
    assert.equal(exceedsDepth({ p: shared, q: [shared, shared] }, 1e9), false);
    // exact around the limit, arrays and objects alike, with and without recursion
    for (const levels of [1, 2, 3, 40, 40_000]) {
      let v: unknown = "leaf";
      for (let i = 0; i < levels; i++) v = i % 2 ? [0, v, "x"] : { k: v, n: null };
      for (const max of [levels - 1, levels, levels + 1])
        assert.equal(exceedsDepth(v, max), levels > max, `${levels} levels, max ${max}`);
    }
  });

  test("text with more braces than BUILD_LEVELS is judged alike, whether its length bounds what it builds or it is scanned", () => {
    // a few `[` and the length show at most BUILD_LEVELS levels get built, so these are parsed
    // rather than scanned: the verdict and its wording stay those of the scan
    const deep = `{"a":`.repeat(200) + "{}" + "}".repeat(200);
    const wide = `[${deep}${",{}".repeat(BUILD_LEVELS + 10)}]`;
    assert.ok(wide.length < 5 * BUILD_LEVELS);
    assert.equal(depthBeforeParse(wide, DEFAULT_MAX_DEPTH), undefined);
    assert.deepEqual(
      decode(wide, { revision: "2025-06-18" }).defects.map((d) => [d.code, d.message]),
      [["too_deep", "nests arrays and objects deeper than 128 levels"]],
    );
    assert.throws(() => parseJson(wide), TooDeepError);
    for (const broken of [
      wide.slice(0, -1),
      `{"":`.repeat(BUILD_LEVELS + 10) + "x",
      `[${deep}${",{}".repeat(BUILD_LEVELS + 10)},]`,
    ]) {
      const fault = jsonSyntaxError(broken);
      assert.ok(fault);
      assert.deepEqual(
        decode(broken, { revision: "2025-06-18" }).defects.map((d) => [d.code, d.message]),
        [["parse_error", `not valid JSON: ${fault.message}`]],
      );
      assert.throws(
        () => parseJson(broken),
        (e: unknown) =>
          e === fault || (e instanceof SyntaxError && e.message === fault.message && !(e instanceof TooDeepError)),
      );
    }
  });

  test("a 4 MiB body of two million [ and ] is too_deep at the cost of its bytes, not of two million arrays", () => {
    const half = 2 * 1024 * 1024;
    const rss = process.memoryUsage().rss;
    const heap = process.memoryUsage().heapUsed;
    let peakRss = rss;
    let peakHeap = heap;
    const sample = () => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    };
    for (const body of [
      Buffer.from("[".repeat(half) + "]".repeat(half)),
      "[".repeat(half) + "]".repeat(half),
      Buffer.from("[".repeat(half - 1) + "}" + "]".repeat(half)),
    ]) {
      sample();
      const d = decode(body, { revision: "2025-03-26" });
      sample();
      assert.equal(d.kind, "invalid");
      assert.equal(d.defects.length, 1);
      assert.ok(d.defects[0]!.code === "too_deep" || d.defects[0]!.code === "parse_error");
    }
    // JSON.parse of one such body alone grows the heap by over 100 MB
    const mb = (n: number) => Math.round(n / 1e6);
    assert.ok(peakHeap - heap < 50e6, `heap grew ${mb(peakHeap - heap)} MB`);
    assert.ok(peakRss - rss < 50e6, `RSS grew ${mb(peakRss - rss)} MB`);
  });
});
