/**
 * The census under contention for CPU: it watches its own event loop, admits fewer probes while
 * the loop is behind, and probes again a target whose timeout fell in a stall of its own, so a
 * busy machine does not turn healthy servers into `timeout`s.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Admission, type AdmissionState } from "./admission.js";
import { startFleet, type Fleet } from "./census-fleet.test.js";
import { runCensus } from "./census.js";
import { SqliteStore } from "./sqlite-store.js";
import type { AttemptRecord, TargetRecord } from "./store.js";

/** Keeps the thread busy for `ms`: a stall of this process's event loop. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning on purpose
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("admission", () => {
  test("a stalled loop halves the probes admitted and says why; a probe timed out in the stall runs again", async () => {
    const changes: AdmissionState[] = [];
    const admission = new Admission({ ceiling: 32, onChange: (s) => changes.push(s) });
    admission.start();
    try {
      await sleep(250);
      assert.equal(admission.limit, 32);
      let runs = 0;
      const stalled = await admission.probe(
        async () => {
          runs++;
          if (runs === 1) block(400);
          await sleep(20);
          return runs === 1 ? "timeout" : "ok";
        },
        (r) => r === "timeout",
      );
      assert.equal(stalled, "ok");
      assert.equal(runs, 2, "the probe timed out during a stall here, so it ran again");
      assert.ok(admission.limit < 32, `admitted ${admission.limit}`);
      assert.match(changes.find((c) => c.reason !== undefined)?.reason ?? "", /event loop is \d+ ms behind/);
      assert.equal(admission.state.reprobed, 1);

    } finally {
      admission.stop();
    }
  });
});

describe("census next to CPU-burning processes", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-admission-test-"));
  let files = 0;
  let fleet: Fleet;
  const burners: ChildProcess[] = [];
  before(async () => {
    // idle connections stay open through both censuses: a server closing one just as it is
    // reused is a race of keep-alive, not of the CPU, and not what this test is about
    fleet = await startFleet({ keepAliveMs: 120_000 });
  });
  after(async () => {
    for (const b of burners) b.kill("SIGKILL");
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** 160 targets: healthy dual-era servers, pages, 401s, bare arrays, and one in ten hanging. */
  const mix = ["ok", "ok", "ok", "ok", "page", "401", "array", "ok", "ok", "hang"] as const;
  const targets = (): TargetRecord[] => Array.from({ length: 160 }, (_, i) => ({ target: fleet.url(mix[i % mix.length]!, i), kind: "http", name: null }));

  async function census(): Promise<{ classes: Map<string, string>; admissions: AdmissionState[] }> {
    const store = new SqliteStore(path.join(dir, `c${++files}.db`));
    const list = targets();
    const runId = await store.startRun("test", list, {});
    const classes = new Map<string, string>();
    const admissions: AdmissionState[] = [];
    await runCensus(store, runId, list, {
      concurrency: 80,
      perHost: 80,
      timeout: 2_000,
      onAttempt: (a: AttemptRecord) => void classes.set(a.target, a.class === "unreachable" || a.class === "error" ? `${a.class} ${a.detail}` : a.class),
      onAdmission: (s) => void admissions.push(s),
    });
    await store.close();
    return { classes, admissions };
  }

  test("every target gets the class it gets on an idle machine: no healthy server is recorded as timeout", async () => {
    const idle = await census();
    assert.equal(idle.classes.size, 160);
    const unexpected = [...idle.classes].filter(([target, cls]) => (cls === "timeout") !== target.includes("/hang/")).map(([target, cls]) => `${target}: ${cls}`);
    assert.deepEqual(unexpected, [], `idle census; admission: ${JSON.stringify(idle.admissions.at(-1))}`);

    for (let i = 0; i < Math.max(2, os.availableParallelism()); i++) {
      burners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
    }
    const busy = await census();
    for (const b of burners.splice(0)) b.kill("SIGKILL");

    assert.equal(busy.classes.size, 160);
    const differing = [...idle.classes].filter(([target, cls]) => busy.classes.get(target) !== cls).map(([target, cls]) => `${target}: ${cls} idle, ${busy.classes.get(target)} busy`);
    assert.deepEqual(differing, [], `busy census; admission: ${JSON.stringify(busy.admissions.at(-1))}`);
  });
});
