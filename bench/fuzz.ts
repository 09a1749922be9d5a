/**
 * Not a benchmark: a million fuzzed inputs through `decode`, too many for `npm test` (which runs
 * 50,000 of the same). `node dist/bench/fuzz.js [count] [seed]` after `npm run build`; exit 1
 * with fast-check's shrunk counterexample on the first failure.
 */
import { fuzzCodec } from "../src/testkit/fuzz.js";

const count = Number(process.argv[2] ?? 1_000_000);
const seed = process.argv[3] === undefined ? Date.now() % 2 ** 31 : Number(process.argv[3]);
if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(seed)) {
  console.error("usage: node dist/bench/fuzz.js [count] [seed]");
  process.exit(2);
}
const started = Date.now();
console.log(`fuzzing decode with ${count} inputs, seed ${seed}`);
try {
  fuzzCodec(count, seed);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
}
console.log(
  `${count} inputs: no throw, sound verdicts, no value deeper than the limit, no prototype pollution (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
