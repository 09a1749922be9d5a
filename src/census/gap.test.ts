/**
 * The per-host gap in a one-process census: each host (two here, servers on 127.0.0.2 and
 * 127.0.0.3) rests at least `gapMs` between the end of one of its probes and the start of the
 * next, as the server itself sees it (each request's arrival and the end of its answer, on the
 * server's clock). Only a lower bound is checked: a slow machine makes
 * rests longer, never shorter.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startHosts, type Fleet } from "../testkit/census-fleet.js";
import { runCensus } from "./census.js";
import { forEachLimited } from "./limiter.js";
import { SqliteStore } from "./sqlite-store.js";
import type { TargetRecord } from "./store.js";

/** Timers may fire up to a millisecond early against performance.now. */
const CLOCK_SLACK_MS = 2;

/** Per probe (the requests of one target path): its first arrival and its last answer's end. */
function probeSpans(
  requests: Fleet["requests"],
  paths: readonly string[],
): { path: string; start: number; end: number }[] {
  return paths
    .map((p) => {
      const mine = requests.filter((r) => r.path === p);
      assert.ok(mine.length > 0 && mine.every((r) => r.end !== undefined), `every request of ${p} was answered`);
      return { path: p, start: Math.min(...mine.map((r) => r.start)), end: Math.max(...mine.map((r) => r.end!)) };
    })
    .sort((a, b) => a.start - b.start);
}

describe("--per-host-gap in one process", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-gap-"));
  let hosts: Fleet[] = [];
  before(async () => {
    hosts = await startHosts(2);
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  test("each host rests at least the gap between the end of one of its probes and the start of the next", async () => {
    const GAP = 150;
    const list: TargetRecord[] = Array.from({ length: 8 }, (_, i) => ({
      target: hosts[i % hosts.length]!.url("ok", `gap-${i}`),
      kind: "http",
      name: null,
    }));
    const store = new SqliteStore(path.join(dir, "gap.db"));
    try {
      const runId = await store.startRun("gap", list, {});
      const outcome = await runCensus(store, runId, list, { concurrency: 8, perHost: 1, gapMs: GAP, timeout: 10_000 });
      assert.equal(outcome.recorded, list.length);
    } finally {
      await store.close();
    }
    for (const host of hosts) {
      const spans = probeSpans(
        host.requests,
        list.filter((t) => new URL(t.target).hostname === host.address).map((t) => new URL(t.target).pathname),
      );
      assert.equal(spans.length, 4);
      for (let i = 1; i < spans.length; i++) {
        const rest = spans[i]!.start - spans[i - 1]!.end;
        assert.ok(
          rest >= GAP - CLOCK_SLACK_MS,
          `on ${host.address}, ${spans[i]!.path} started ${rest.toFixed(1)} ms after ${spans[i - 1]!.path} ended; the gap is ${GAP} ms`,
        );
      }
    }
  });

  test("the limiter rests a key between items, keeps other keys going meanwhile, and ends only when every item is done", async () => {
    const started: { key: string; at: number }[] = [];
    const ended = new Map<string, number>();
    const items = ["a1", "a2", "a3", "b1", "b2"];
    await forEachLimited(items, {
      keyOf: (s) => s[0]!,
      limits: { concurrency: 4, perKey: 1, gapMs: 80 },
      work: async (s) => {
        started.push({ key: s, at: performance.now() });
        await new Promise((r) => setTimeout(r, 5));
        ended.set(s, performance.now());
      },
    });
    assert.deepEqual(
      started.map((s) => s.key),
      ["a1", "b1", "a2", "b2", "a3"],
    );
    const at = new Map(started.map((s) => [s.key, s.at]));
    for (const [prev, next] of [
      ["a1", "a2"],
      ["a2", "a3"],
      ["b1", "b2"],
    ] as const) {
      assert.ok(at.get(next)! - ended.get(prev)! >= 80 - CLOCK_SLACK_MS, `${next} waited out the gap after ${prev}`);
    }
  });
});
