import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { settlesWhileProgressing, settlesWithin, within } from "./within.js";

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("bounded waits", () => {
  test("settlesWithin: true for work that settles either way in time, false for work that never does", async () => {
    assert.equal(await settlesWithin(Promise.resolve(1), 1000), true);
    assert.equal(await settlesWithin(Promise.reject(new Error("no")), 1000), true);
    assert.equal(await settlesWithin(new Promise(() => {}), 20), false);
  });

  test("within: the outcome, or a rejection naming what did not settle", async () => {
    assert.equal(await within(Promise.resolve(7), "seven", 1000), 7);
    await assert.rejects(within(new Promise(() => {}), "the answer", 20), /the answer did not settle within 20 ms/);
  });

  test("settlesWhileProgressing: waits past the quiet time while progress goes on, not once it stops, and never past the cap", async () => {
    // work that takes ~10 quiet periods but makes progress every few ms: waited for to its end
    let steps = 0;
    const busy = (async () => {
      for (let i = 0; i < 50; i++) {
        await after(4);
        steps++;
      }
    })();
    assert.equal(await settlesWhileProgressing(busy, () => steps, 40, 30_000), true);
    // work that stops making progress: given up once a quiet time passes with none
    let stalled = 0;
    const start = performance.now();
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await after(5);
        stalled++;
      }
    })();
    assert.equal(await settlesWhileProgressing(new Promise(() => {}), () => stalled, 50, 30_000), false);
    assert.ok(performance.now() - start < 10_000);
    // progress forever: given up at the cap
    let forever = 0;
    const ticking = setInterval(() => forever++, 2);
    try {
      assert.equal(await settlesWhileProgressing(new Promise(() => {}), () => forever, 30, 200), false);
    } finally {
      clearInterval(ticking);
    }
  });
});
