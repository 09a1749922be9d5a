/**
 * The codec's fuzz, shared by `fuzz.test.ts` (50,000 inputs, in `npm test`) and `bench/fuzz.ts`
 * (a million, outside it). A test helper: src/testkit/ is left out of the package, and it declares no tests.
 *
 * Every input, on every revision and as text or bytes: decode does not throw, its verdict is
 * sound, no parsed value nests deeper than the limit, and nothing reaches Object.prototype.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { decode } from "../codec/decode.js";
import { exceedsDepth } from "../codec/depth.js";
import { assertSound } from "./codec.js";

const token = fc.constantFrom(
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
  '"jsonrpc"',
  '"2.0"',
  '"id"',
  '"method"',
  '"params"',
  '"result"',
  '"error"',
  '"code"',
  '"message"',
  '"_meta"',
  '"__proto__"',
  '"constructor"',
  '"prototype"',
  '"toString"',
  '"io.modelcontextprotocol/clientInfo"',
  '"io.modelcontextprotocol/protocolVersion"',
  "null",
  "true",
  "false",
  "1",
  "-32601",
  "1.5",
  "1e400",
  "-0",
  '"x"',
  '""',
  " ",
  "\n",
  "\ufeff",
  '"\\u0000"',
  '"\\ud800"',
  '"\\"',
  "\\",
  '"[{"',
);
const soup = fc.array(token, { maxLength: 60 }).map((ts) => ts.join(""));

/** A JSON value wrapped in many levels of arrays and objects, around the depth limit and past it. */
const deep = fc
  .tuple(fc.json({ maxDepth: 2 }), fc.integer({ min: 100, max: 400 }), fc.constantFrom("[", '{"a":'), fc.boolean())
  .map(([inner, n, open, close]) => {
    const shut = open === "[" ? "]" : "}";
    return open.repeat(n) + inner + (close ? shut.repeat(n) : shut.repeat(n - 1));
  });

const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "hasOwnProperty",
    "_meta",
    "jsonrpc",
    "id",
    "method",
    "result",
    "error",
  ),
);
const envelope = fc
  .dictionary(
    key,
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })),
    { maxKeys: 7 },
  )
  .map((o) => JSON.stringify({ jsonrpc: "2.0", ...o }));

const input: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 120 }),
  fc.uint8Array({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  soup,
  deep,
  envelope,
  envelope.map((t) => `[${t},${t}]`),
);

/** Runs `numRuns` inputs; throws (with fast-check's shrunk counterexample) on the first failure. */
export function fuzzCodec(numRuns: number, seed?: number): void {
  fc.assert(
    fc.property(input, fc.constantFrom<Revision>(...REVISIONS), fc.boolean(), (text, revision, asBytes) => {
      const bytes = typeof text === "string" && asBytes ? Buffer.from(text) : text;
      const d = decode(bytes, { revision });
      assertSound(d);
      const parsed = d.message ?? d.value;
      if (parsed !== undefined)
        assert.equal(exceedsDepth(parsed, 128), false, "a value deeper than the limit was handed out");
      assert.deepEqual(Object.keys(Object.prototype), []);
      assert.equal(({} as Record<string, unknown>).jsonrpc, undefined);
      assert.equal(Object.getPrototypeOf({}), Object.prototype);
    }),
    { numRuns, ...(seed !== undefined ? { seed } : {}) },
  );
}
