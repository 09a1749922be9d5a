import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  Progress,
  classList,
  clock,
  effectiveParallelism,
  renderBar,
  renderLine,
  type ProgressState,
} from "./progress.js";
import { until } from "../testkit/census-fleet.js";

const state = (over: Partial<ProgressState> = {}): ProgressState => ({
  total: 2000,
  done: 1234,
  doneHere: 1234,
  elapsedMs: 30_000,
  classes: new Map([
    ["timeout", 120],
    ["ok", 1000],
    ["web_page", 114],
  ]),
  ...over,
});

/** Collects what a Progress writes, as a terminal or a log would get it. */
function sink(tty: boolean) {
  const writes: string[] = [];
  const stream = {
    isTTY: tty,
    columns: 200,
    write: (s: string) => (writes.push(s), true),
  } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe("census progress", () => {
  test("the bar shows done/total, share, rate, ETA and classes by count", () => {
    assert.equal(
      renderBar(state()),
      "[████████████░░░░░░░░] 1,234/2,000 61% · 41.1/s · ETA 0:19 · ok 1,000 · timeout 120 · web_page 114",
    );
  });

  test("the plain line says the same in words", () => {
    assert.equal(
      renderLine(state()),
      "census: 1,234 of 2,000 done (61%), 41.1/s, about 0:19 left; ok 1,000, timeout 120, web_page 114",
    );
  });

  test("a resumed run's rate counts only this process's attempts; no rate yet means no ETA", () => {
    assert.match(
      renderBar(state({ done: 1500, doneHere: 300, elapsedMs: 10_000 })),
      /1,500\/2,000 75% · 30\.0\/s · ETA 0:17/,
    );
    assert.match(renderLine(state({ done: 0, doneHere: 0, classes: new Map() })), /0\.0\/s, about \? left$/);
  });

  test("clock and class list", () => {
    assert.equal(clock(5), "0:05");
    assert.equal(clock(3725), "1:02:05");
    assert.equal(clock(undefined), "?");
    assert.equal(
      classList(
        new Map([
          ["b", 1],
          ["a", 1],
          ["ok", 5],
        ]),
        ", ",
      ),
      "ok 5, a 1, b 1",
    );
  });

  test("on a terminal the bar is redrawn in place and cleared when done; a note is not drawn over", async () => {
    const { stream, writes } = sink(true);
    const p = new Progress({ total: 3, stream });
    p.add("ok");
    await until(() => writes.some((w) => w.includes("1/3")), "a redraw showing 1/3");
    assert.ok(writes.every((w) => w.startsWith("\r\x1b[2K")));
    p.note("census: a message");
    assert.deepEqual(writes.slice(-2), ["\r\x1b[2K", "census: a message\n"]);
    await until(() => writes.at(-1)?.includes("1/3") === true, "the bar back under the note");
    p.stop();
    assert.equal(writes.at(-1), "\r\x1b[2K");
  });

  test("off a terminal it writes whole lines, and nothing to clear", async () => {
    const { stream, writes } = sink(false);
    const p = new Progress({ total: 2, stream, everyMs: 10 });
    p.add("timeout");
    await until(() => writes.length > 0, "a progress line");
    assert.match(writes[0]!, /^census: 1 of 2 done \(50%\), .*; timeout 1\n$/);
    p.stop();
    assert.ok(writes.every((w) => w.endsWith("\n") && !w.includes("\x1b")));
  });

  test("the parallelism that really runs: the concurrency, unless few hosts and the per-host limit allow fewer", () => {
    const oneHost = new Map([["api.example", 120]]);
    assert.equal(effectiveParallelism({ hosts: oneHost, perHost: 1, concurrency: 32 }), 1);
    assert.equal(effectiveParallelism({ hosts: oneHost, perHost: 4, concurrency: 32 }), 4);
    const many = new Map(Array.from({ length: 50 }, (_, i) => [`h${i}.example`, 3] as const));
    assert.equal(effectiveParallelism({ hosts: many, perHost: 1, concurrency: 32 }), 32);
    assert.equal(
      effectiveParallelism({
        hosts: new Map([
          ["a", 1],
          ["b", 5],
        ]),
        perHost: 2,
        concurrency: 32,
      }),
      3,
    );
  });

  test("targets piled on one host: the ETA counts their turns, not the rate of the first round", () => {
    let now = 0;
    // 31 hosts with one target each, and one with 69: 32 may run at once, 1 per host
    const hosts = new Map<string, number>([
      ["big.example", 69],
      ...Array.from({ length: 31 }, (_, i) => [`h${i}.example`, 1] as const),
    ]);
    const p = new Progress({
      total: 100,
      stream: sink(false).stream,
      everyMs: 1 << 30,
      now: () => now,
      lanes: { hosts, perHost: 1, concurrency: 32 },
    });
    now = 1000;
    p.add("ok", { host: "big.example", ms: 1000 });
    for (let i = 0; i < 31; i++) p.add("ok", { host: `h${i}.example`, ms: 1000 });
    // 32 done in a second is 32/s, which says 2 s for the 68 left; the big host's 68 turns take 68 s
    assert.equal(renderLine(p.state).match(/about (\S+) left/)?.[1], "1:08");
    // between attempts it counts down rather than sitting still
    now = 11_000;
    assert.equal(renderLine(p.state).match(/about (\S+) left/)?.[1], "0:58");
    p.stop();
  });

  test("one target a host: the ETA is the rate's, as without lanes", () => {
    let now = 0;
    const hosts = new Map(Array.from({ length: 64 }, (_, i) => [`h${i}.example`, 1] as const));
    const p = new Progress({
      total: 64,
      stream: sink(false).stream,
      everyMs: 1 << 30,
      now: () => now,
      lanes: { hosts, perHost: 1, concurrency: 32 },
    });
    now = 2000;
    for (let i = 0; i < 32; i++) p.add("ok", { host: `h${i}.example`, ms: 2000 });
    // 16/s, 32 left: 2 s either way
    assert.equal(renderLine(p.state).match(/about (\S+) left/)?.[1], "0:02");
    p.stop();
  });

  test("on a terminal the bar is redrawn while no attempt finishes, the ETA counting down", async () => {
    let now = 0;
    const { stream, writes } = sink(true);
    const p = new Progress({
      total: 11,
      stream,
      now: () => now,
      lanes: { hosts: new Map([["one.example", 11]]), perHost: 1, concurrency: 32 },
    });
    now = 10_000;
    p.add("timeout", { host: "one.example", ms: 10_000 });
    await until(() => writes.some((w) => w.includes("ETA 1:40")), "the bar with 100 s left");
    now = 15_000;
    await until(
      () => writes.some((w) => w.includes("ETA 1:35")),
      "the bar redrawn with 95 s left, no attempt having finished",
    );
    p.stop();
  });
});
