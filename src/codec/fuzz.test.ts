/** 50,000 fuzzed inputs through decode (a million: `node dist/bench/fuzz.js`). */
import { test } from "node:test";
import { fuzzCodec } from "../testkit/fuzz.js";

test("fuzz: 50,000 inputs, no throw, sound verdicts, no deep value, no prototype pollution", () => {
  fuzzCodec(50_000);
});
