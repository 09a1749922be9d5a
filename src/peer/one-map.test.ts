import assert from "node:assert/strict";
import { test } from "node:test";
import { OneMap } from "./one-map.js";

/** Applies the same operations to a OneMap and a Map and compares everything they show. */
function same(
  ops: readonly (readonly ["set", unknown, number] | readonly ["delete", unknown] | readonly ["clear"])[],
): void {
  const one = new OneMap<unknown, number>();
  const map = new Map<unknown, number>();
  const keys = [0, -0, 1, "1", NaN, "a", 2];
  for (const op of ops) {
    if (op[0] === "set") {
      assert.equal(one.set(op[1], op[2]), one);
      map.set(op[1], op[2]);
    } else if (op[0] === "delete") assert.equal(one.delete(op[1]), map.delete(op[1]), `delete ${String(op[1])}`);
    else {
      one.clear();
      map.clear();
    }
    assert.equal(one.size, map.size);
    assert.deepEqual([...one.values()], [...map.values()]);
    for (const k of keys) {
      assert.equal(one.has(k), map.has(k), `has ${String(k)}`);
      assert.equal(one.get(k), map.get(k), `get ${String(k)}`);
    }
  }
}

test("one entry: set, overwrite, get, delete, as a Map (SameValueZero keys)", () => {
  same([
    ["set", 1, 10],
    ["set", 1, 11],
    ["delete", "1"],
    ["delete", 1],
    ["delete", 1],
    ["set", NaN, 3],
    ["delete", NaN],
    ["set", -0, 4],
    ["set", 0, 5],
    ["delete", -0],
  ]);
});

test("several entries keep insertion order, and it goes back to one and none", () => {
  same([
    ["set", "a", 1],
    ["set", 2, 2],
    ["set", 0, 3],
    ["delete", "a"],
    ["set", "a", 4],
    ["delete", 2],
    ["delete", 0],
    ["delete", "a"],
    ["set", 1, 5],
    ["set", 2, 6],
    ["clear"],
    ["set", 2, 7],
  ]);
});

test("a long run of one-at-a-time entries, interleaved with pairs, matches a Map", () => {
  const ops: (["set", unknown, number] | ["delete", unknown])[] = [];
  for (let i = 0; i < 200; i++) {
    ops.push(["set", i % 3, i]);
    if (i % 7 === 0) ops.push(["set", "a", i]);
    ops.push(["delete", i % 3]);
    if (i % 11 === 0) ops.push(["delete", "a"]);
  }
  same(ops);
});
