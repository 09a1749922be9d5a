/**
 * A record's time is made from the last one's where only its milliseconds changed: it must be
 * exactly what `toISOString` says, across millisecond, second, day and year boundaries.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { isoOf } from "./tape.js";

const LAST_MS_OF_9999 = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

test("isoOf is toISOString, whatever time came before", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: LAST_MS_OF_9999 }), { minLength: 1, maxLength: 20 }), (times) => {
      for (const ms of times) assert.equal(isoOf(ms), new Date(ms).toISOString());
    }),
  );
});

test("isoOf across the boundaries where the cached part changes", () => {
  const edges = [0, 9, 10, 99, 100, 999, 1000, 1001, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1)];
  for (const ms of [...edges, ...edges.slice().reverse()]) assert.equal(isoOf(ms), new Date(ms).toISOString());
  const start = Date.UTC(2026, 11, 6, 12, 0, 59, 990);
  for (let ms = start; ms < start + 30; ms++) assert.equal(isoOf(ms), new Date(ms).toISOString());
});
