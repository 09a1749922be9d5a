import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemoryStore } from "../testkit/memory-store.js";
import { attempt, fail, ok } from "../testkit/report-fixtures.js";
import { reportObject } from "./json.js";
import { parseRuns, parseSince, select } from "./select.js";

/** Three runs, on 1, 2 and 3 August 2026, over two targets; b breaks in the last one. */
function threeRuns() {
  let clock = Date.parse("2026-08-01T10:00:00Z");
  const store = new MemoryStore(() => new Date(clock));
  const targets = ["https://a.example/mcp", "https://b.example/mcp"].map((target) => ({
    target,
    kind: "http" as const,
    name: null,
  }));
  for (const day of ["01", "02", "03"]) {
    clock = Date.parse(`2026-08-${day}T10:00:00Z`);
    const run = store.startRun("list.txt", targets, {});
    store.recordAttempt(attempt(run, targets[0]!.target, `2026-08-${day}T10:00:01Z`, ok("modern", "2026-07-28")));
    store.recordAttempt(
      attempt(
        run,
        targets[1]!.target,
        `2026-08-${day}T10:00:02Z`,
        day === "03" ? fail("web_page", "text/html") : ok("legacy", "2025-11-25"),
      ),
    );
    store.finishRun(run);
  }
  return store;
}

function report(store: MemoryStore, opts: Parameters<typeof select>[1]) {
  const s = select(store.runs(), opts);
  if ("error" in s) throw new Error(s.error);
  return reportObject(
    store.aggregate(s.query),
    { runs: s.runIds, since: opts.since ?? null, target: opts.target ?? null },
    store.runs().filter((r) => s.runIds?.includes(r.id)),
  );
}

describe("report: which attempts", () => {
  test("the latest run by default", () => {
    const r = report(threeRuns(), {});
    assert.deepEqual(
      r.runs.map((x) => x.id),
      [3],
    );
    assert.deepEqual(r.classes, { ok: 1, web_page: 1 });
    assert.deepEqual(
      r.targets.map((t) => [t.target, t.attempts, t.latest.class]),
      [
        ["https://a.example/mcp", 1, "ok"],
        ["https://b.example/mcp", 1, "web_page"],
      ],
    );
  });

  test("--run names runs, even one with no attempt yet", () => {
    const store = threeRuns();
    assert.deepEqual(
      report(store, { runs: [1, 2] }).runs.map((x) => [x.id, x.attempts]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    const empty = store.startRun("list.txt", [], {});
    const r = report(store, {});
    assert.deepEqual(
      r.runs.map((x) => [x.id, x.attempts]),
      [[empty, 0]],
    );
    assert.deepEqual(r.targets, []);
    assert.deepEqual(select(store.runs(), { runs: [9] }), { error: "no run 9 in this database (runs: 1, 2, 3, 4)" });
  });

  test("--since opens a window across runs", () => {
    const r = report(threeRuns(), { since: "2026-08-02T00:00:00.000Z" });
    assert.deepEqual(
      r.runs.map((x) => x.id),
      [2, 3],
    );
    assert.deepEqual(r.classes, { ok: 3, web_page: 1 });
    const b = r.targets.find((t) => t.target === "https://b.example/mcp")!;
    assert.equal(b.attempts, 2);
    assert.equal(b.history, "2 attempts between 2 and 3 August: 1 web page.");
    assert.deepEqual(b.latest, {
      class: "web_page",
      detail: "text/html",
      era: null,
      revision: null,
      at: "2026-08-03T10:00:02Z",
      tools: null,
      elapsedMs: 120,
      advice: b.latest.advice,
      httpStatus: null,
      rpcCode: null,
      serverName: null,
      serverVersion: null,
      defects: [],
    });
  });

  test("--target alone is that target's whole history; with --run, only those runs", () => {
    const store = threeRuns();
    const all = report(store, { target: "https://b.example/mcp" });
    assert.deepEqual(
      all.runs.map((x) => x.id),
      [1, 2, 3],
    );
    assert.deepEqual(
      all.targets.map((t) => [t.target, t.attempts, t.classes]),
      [["https://b.example/mcp", 3, { ok: 2, web_page: 1 }]],
    );
    assert.deepEqual(all.selection, { runs: null, since: null, target: "https://b.example/mcp" });
    const one = report(store, { target: "https://b.example/mcp", runs: [2] });
    assert.deepEqual(
      one.targets.map((t) => [t.attempts, t.latest.class]),
      [[1, "ok"]],
    );
  });

  test("an empty database selects nothing, without failing", () => {
    assert.deepEqual(select([], {}), { query: { runIds: [] }, runIds: [] });
  });
});

describe("report: --since and --run as typed", () => {
  const now = new Date("2026-08-20T12:00:00Z");
  test("dates, times, zones and spans back from now", () => {
    assert.equal(parseSince("2026-07-20", now), "2026-07-20T00:00:00.000Z");
    assert.equal(parseSince("2026-07-20T14:30", now), "2026-07-20T14:30:00.000Z");
    assert.equal(parseSince("2026-07-20 14:30:15", now), "2026-07-20T14:30:15.000Z");
    assert.equal(parseSince("2026-07-20T14:30+02:00", now), "2026-07-20T12:30:00.000Z");
    assert.equal(parseSince("7d", now), "2026-08-13T12:00:00.000Z");
    assert.equal(parseSince("12h", now), "2026-08-20T00:00:00.000Z");
    assert.equal(parseSince("2w", now), "2026-08-06T12:00:00.000Z");
  });

  test("anything else is refused with what would do", () => {
    for (const bad of ["yesterday", "2026-02-31", "20/07/2026", "", "7 days"]) {
      const r = parseSince(bad, now);
      assert.equal(typeof r, "object", bad);
      assert.match((r as { error: string }).error, /--since takes a date \(2026-07-20\)/);
    }
  });

  test("run numbers, repeated or with commas", () => {
    assert.deepEqual(parseRuns(["3", "4,5"]), [3, 4, 5]);
    assert.match(parseRuns(["x"]) as string, /--run takes run numbers/);
    assert.match(parseRuns(["0"]) as string, /--run takes run numbers/);
  });
});
