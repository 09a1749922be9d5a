/**
 * A report of a large census stays bounded: the summary counts every target, while each
 * per-target section of the page keeps its first rows and says how many it leaves out; the page
 * reads its targets from the store a page at a time and lets go of those it does not show.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { after, before, describe, test } from "node:test";
import { SqliteStore } from "../census/sqlite-store.js";
import type { TargetSummary } from "../census/store.js";
import { attempt, fail, ok } from "../testkit/report-fixtures.js";
import { MAX_TARGET_ROWS, renderHtmlStream } from "./html.js";

const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const TARGETS = 50_000;

/** Every fifth a bare array (a protocol error), every 25th (from the second) a broken sign-in chain, the rest healthy. */
function shape(i: number) {
  if (i % 5 === 0) return fail("not_jsonrpc", "bare_array", { httpStatus: 200 });
  if (i % 25 === 1) {
    const auth = {
      rules: "2025-11-25",
      verdict: "broken",
      brokenAt: "resource_metadata",
      steps: [{ step: "challenge", url: "https://x.example/mcp", status: 401, ms: 3, ok: true }],
      defects: [
        {
          code: "resource_metadata_not_found",
          severity: "error",
          message: "no resource metadata",
          step: "resource_metadata",
          side: "mcp_server",
        },
      ],
      clients: { strict: "fails", lenient: "fails" },
    };
    return { ...fail("auth_required", "http_401", { httpStatus: 401 }), auth };
  }
  return ok("modern", "2026-07-28");
}

const count = (n: number, test: (i: number) => boolean) => Array.from({ length: n }, (_, i) => i).filter(test).length;
const BARE = count(TARGETS, (i) => i % 5 === 0);
const CHAINS = count(TARGETS, (i) => i % 5 !== 0 && i % 25 === 1);
const HEALTHY = TARGETS - BARE - CHAINS;

let dir: string;
let html: string;
let page: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-big-"));
  const db = join(dir, "census.db");
  const store = new SqliteStore(db);
  const targets = Array.from({ length: TARGETS }, (_, i) => ({
    target: `https://mcp${String(i).padStart(6, "0")}.example.com/mcp`,
    kind: "http" as const,
    name: null,
  }));
  const run = await store.startRun("registry.json", targets, {});
  // many at once, as a census records them: they share commits
  let pending: Promise<void>[] = [];
  for (let i = 0; i < TARGETS; i++) {
    pending.push(
      store.recordAttempt(
        attempt(run, targets[i]!.target, new Date(Date.parse("2026-08-20T09:00:00Z") + i * 10).toISOString(), shape(i)),
      ),
    );
    if (pending.length >= 2000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await store.finishRun(run);
  await store.close();
  page = join(dir, "report.html");
  const r = spawnSync(process.execPath, [MAIN, "report", "--db", db, "--html", page], {
    encoding: "utf8",
    timeout: 300_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Wrote .*report\.html: Census run 1 \(registry\.json\)/);
  html = readFileSync(page, "utf8");
});
after(() => rmSync(dir, { recursive: true, force: true }));

const rows = (id: string) =>
  (new RegExp(`<table[^>]* id="${id}">.*?<tbody>(.*?)</tbody>`, "s").exec(html)?.[1]?.match(/<tr[ >]/g) ?? []).length;

describe(`report --html over ${TARGETS.toLocaleString("en")} targets`, () => {
  test("the summary is whole: every target counted", () => {
    assert.match(
      html,
      /<section class="story"><p>Called 50,000 servers once each\. 38,000 answered and listed their tools, all on 2026-07-28 \(stateless\)\.<\/p>/,
    );
    assert.match(html, /<div class="figure"><b>50,000<\/b><span>targets<\/span><\/div>/);
    assert.match(html, /<tfoot><tr><td><\/td><td>all<\/td><td class="num">50,000<\/td>/);
    assert.equal(HEALTHY, 38_000);
  });

  test("each per-target section keeps its first rows and says how many it leaves out", () => {
    assert.equal(rows("targets"), MAX_TARGET_ROWS);
    const problems = BARE + CHAINS;
    assert.match(
      html,
      new RegExp(
        `<p class="left-out" id="targets-left-out">${(problems - MAX_TARGET_ROWS).toLocaleString("en")} more other targets are not listed: this page keeps the first rows \\(the worst first\\)`,
      ),
    );
    // the first in the page's order of classes: the 2,000 sign-in refusals come before the protocol errors
    const shown = [
      .../<table[^>]* id="targets">.*?<tbody>(.*?)<\/tbody>/s
        .exec(html)![1]!
        .matchAll(/<span class="class">([a-z_]+)<\/span>/g),
    ].map((m) => m[1]);
    assert.ok(CHAINS > MAX_TARGET_ROWS);
    assert.deepEqual([...new Set(shown)], ["auth_required"]);

    assert.equal(rows("healthy-targets"), MAX_TARGET_ROWS);
    assert.match(
      html,
      /<details id="healthy"><summary>38,000 servers answered cleanly and listed their tools<\/summary>/,
    );
    assert.match(
      html,
      new RegExp(
        `id="healthy-left-out">${(HEALTHY - MAX_TARGET_ROWS).toLocaleString("en")} more clean servers are not listed`,
      ),
    );

    assert.equal(html.match(/<details class="signin-chain">/g)?.length, MAX_TARGET_ROWS);
    assert.match(html, new RegExp(`${(CHAINS - MAX_TARGET_ROWS).toLocaleString("en")} more chains are not shown here`));

    const kinds = /<table class="cards" id="defect-kinds">(.*?)<\/table>/s.exec(html)![1]!;
    assert.equal(kinds.match(/<li>/g)?.length, MAX_TARGET_ROWS);
    assert.match(kinds, new RegExp(`<summary>${(BARE - 12).toLocaleString("en")} more</summary>`));
    assert.match(kinds, new RegExp(`and ${(BARE - MAX_TARGET_ROWS).toLocaleString("en")} more not listed here`));
  });

  test("the page is a size a browser opens", () => {
    const size = statSync(page).size;
    assert.ok(size < 4 * 1024 * 1024, `${size} bytes`);
  });
});

describe("renderHtmlStream", () => {
  // gc() in a test, to see which targets the page still holds: a count, not a time
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;

  /**
   * Streams `n` targets and, as the last one is made, counts how many of those made before are
   * still alive somewhere: what the consumer holds on to.
   */
  async function* watched(n: number, alive: { count: number }): AsyncGenerator<TargetSummary> {
    const refs: WeakRef<TargetSummary>[] = [];
    for (let i = 0; i < n; i++) {
      if (i === n - 1) {
        // a new macrotask, so nothing is kept alive by the job that made the references
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        alive.count = refs.filter((r) => r.deref() !== undefined).length;
      }
      const bad = i % 3 === 0;
      const t: TargetSummary = {
        target: `https://s${String(i).padStart(6, "0")}.example.com/mcp`,
        name: null,
        attempts: 1,
        firstAt: "2026-08-20T09:00:00.000Z",
        lastAt: "2026-08-20T09:00:00.000Z",
        classes: { [bad ? "not_jsonrpc" : "ok"]: 1 },
        latest: {
          class: bad ? "not_jsonrpc" : "ok",
          detail: bad ? "bare_array" : "modern",
          era: bad ? null : "modern",
          revision: bad ? null : "2026-07-28",
          at: "2026-08-20T09:00:00.000Z",
          advice: null,
          tools: bad ? null : 2,
          elapsedMs: 40,
          auth: null,
          defects: [],
          httpStatus: 200,
          rpcCode: null,
          serverName: null,
          serverVersion: null,
        },
      };
      refs.push(new WeakRef(t));
      yield t;
    }
  }

  const agg = { ...new SqliteStore(":memory:").aggregateNow(), attempts: 20_000, targets: 20_000 };

  test("holds no more targets than it shows, however many stream past", async () => {
    const alive = { count: -1 };
    let bytes = 0;
    for await (const chunk of renderHtmlStream(agg, watched(20_000, alive), { maxTargets: 100 })) bytes += chunk.length;
    assert.ok(bytes > 0);
    assert.ok(alive.count >= 0, "the count was taken");
    // the first 100 of each kind it shows, the one just handed over, and nothing else
    assert.ok(alive.count <= 201, `${alive.count} of 19,999 targets still held`);
  });

  test("the count sees what a consumer holds: one that keeps every target keeps them all alive", async () => {
    const alive = { count: -1 };
    const kept: TargetSummary[] = [];
    for await (const t of watched(20_000, alive)) kept.push(t);
    assert.equal(alive.count, 19_999);
    assert.equal(kept.length, 20_000);
  });
});
