/**
 * The bounded map behind every remembered id: it forgets exactly the oldest entries, and a
 * conversation of a few million ids goes through it in bounded memory (finishing is the test;
 * `npm run bench` measures the time per message).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BoundedMap, BoundedSet } from "./bounded.js";
import type { Checked } from "./check.js";
import { Conversation } from "./conversation.js";

describe("BoundedMap", () => {
  test("past its limit it forgets the oldest entry still present, whatever was deleted or re-added meanwhile", () => {
    const forgotten: number[] = [];
    const m = new BoundedMap<number, string>(3, (k) => forgotten.push(k));
    m.set(1, "a");
    m.set(2, "b");
    m.set(3, "c");
    m.delete(2);
    m.set(4, "d"); // room: 2 was deleted
    assert.deepEqual(forgotten, []);
    m.set(5, "e"); // 1 is the oldest
    assert.deepEqual(forgotten, [1]);
    m.delete(3);
    m.set(3, "c again"); // re-added: now the newest
    m.set(6, "f"); // 4 is the oldest
    assert.deepEqual(forgotten, [1, 4]);
    m.set(7, "g");
    m.set(8, "h");
    assert.deepEqual(forgotten, [1, 4, 5, 3]);
    assert.equal(m.size, 3);
    assert.deepEqual([...m.values()], ["f", "g", "h"]);
    m.set(8, "h2"); // a new value for a present key is no arrival
    assert.deepEqual(forgotten, [1, 4, 5, 3]);
    assert.equal(m.get(8), "h2");
    // cleared, it starts over: nothing reported, and the oldest is again the first set after
    m.clear();
    assert.equal(m.size, 0);
    for (const k of [10, 11, 12, 13]) m.set(k, String(k));
    assert.deepEqual(forgotten, [1, 4, 5, 3, 10]);
    assert.deepEqual([...m.values()], ["11", "12", "13"]);
  });

  test("a set keeps at most its limit, the newest", () => {
    const s = new BoundedSet<number>(1000);
    for (let i = 0; i < 10_000; i++) s.add(i);
    assert.equal(s.size, 1000);
    assert.ok(s.has(9999) && s.has(9000) && !s.has(8999));
    assert.throws(() => new BoundedSet(0), RangeError);
  });

  test("three million ids through a conversation that remembers one million: it finishes, and memory stays bounded", () => {
    const c = new Conversation({ revision: "2025-11-25" });
    const request = (id: number): Checked =>
      ({ kind: "request", message: { jsonrpc: "2.0", id, method: "ping" }, defects: [] }) as unknown as Checked;
    const answer = (id: number): Checked =>
      ({ kind: "result", message: { jsonrpc: "2.0", id, result: {} }, defects: [] }) as unknown as Checked;
    let found = 0;
    let heapAtOneMillion = 0;
    for (let i = 0; i < 3_000_000; i++) {
      found += c.observe(request(i), "client").length;
      // two in three are answered: the rest stay pending until forgotten
      if (i % 3 !== 0) found += c.observe(answer(i), "server").length;
      if (i === 1_000_000) heapAtOneMillion = process.memoryUsage().heapUsed;
    }
    assert.equal(found, 0);
    // ids older than the memory are forgotten: an answer to one is a stranger now
    assert.deepEqual(
      c.observe(answer(0), "server").map((d) => d.code),
      ["unknown_response_id"],
    );
    // past the first million the sets only turn over: no growth beyond noise (the garbage of the loop)
    const heap = process.memoryUsage().heapUsed;
    assert.ok(
      heap < heapAtOneMillion * 2 + 64 * 1024 * 1024,
      `heap ${Math.round(heap / 1e6)} MB after 3M ids, ${Math.round(heapAtOneMillion / 1e6)} MB after 1M`,
    );
  });
});
