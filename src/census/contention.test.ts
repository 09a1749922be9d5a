/**
 * The census under contention for CPU: a census of the demo fleet beside CPU-burning processes
 * records for every target the class the fleet says it gets on an idle machine (each endpoint's
 * expectation, which src/probe/probe.test.ts holds every endpoint to), and `timeout` only for
 * the servers that never answer.
 *
 * What makes this reliable on a crowded machine (other test files, other users): the fleet
 * serves from this same process, so any starvation that slows a server's answer is a stall of
 * the event loop the census watches; the deadline is long next to the fleet's answers (a
 * healthy server needs milliseconds), so a healthy target can time out only when this process
 * stalled, which the admission then sees and probes again. Nothing here asserts a time.
 *
 * The burners must starve this census, not the test files that run beside it: for the busy
 * census this process (every thread) and the burners are pinned to the same core, one burner
 * for that core, where `taskset` exists; elsewhere one burner per core runs unpinned.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFleet, type Fleet } from "../fleet/fleet.js";
import type { AdmissionState } from "./admission.js";
import { runCensus } from "./census.js";
import { SqliteStore } from "./sqlite-store.js";
import type { TargetRecord } from "./store.js";

/** Copies of each fleet endpoint, each its own target: enough probes at once to load the loop. */
const COPIES = 2;
/** Against answers in milliseconds: only a stall of this process can make a healthy one late. */
const TIMEOUT_MS = 5_000;

/**
 * A process that spins on one core until its parent is gone or a minute has passed, so a test
 * that dies leaves nothing burning.
 */
const BURN = `const end = Date.now() + 60000; const parent = process.ppid; let i = 0;
for (;;) { if (++i % 1e6 === 0 && (Date.now() > end || process.ppid !== parent)) process.exit(0); }`;

/** The CPUs this process may run on now (a taskset list such as `0,1` or `0-3`), or undefined without taskset. */
function affinity(): string | undefined {
  const shown = spawnSync("taskset", ["-c", "-p", String(process.pid)], { encoding: "utf8" });
  return shown.status === 0 ? /:\s*(\S+)\s*$/.exec(shown.stdout)?.[1] : undefined;
}

function pin(cpus: string): void {
  const done = spawnSync("taskset", ["-a", "-c", "-p", cpus, String(process.pid)], { encoding: "utf8" });
  assert.equal(done.status, 0, `taskset could not pin this process to ${cpus}: ${done.stderr}`);
}

interface Census {
  /** class and detail, per target */
  verdicts: Map<string, string>;
  admission: AdmissionState | undefined;
}

describe("a census beside CPU-burning processes", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-contention-"));
  let fleet: Fleet;
  let files = 0;
  const burners: ChildProcess[] = [];
  before(async () => {
    fleet = await startFleet({ hugeBytes: 16 * 1024 * 1024, dripMs: 200 });
  });
  after(async () => {
    for (const b of burners) b.kill("SIGKILL");
    await fleet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every HTTP endpoint of the fleet, COPIES times (a query tells the copies apart), with what it should get. */
  function targets(): { list: TargetRecord[]; expected: Map<string, string> } {
    const list: TargetRecord[] = [];
    const expected = new Map<string, string>();
    for (let copy = 0; copy < COPIES; copy++) {
      for (const e of fleet.endpoints) {
        const url = `${e.url}${e.url.includes("?") ? "&" : "?"}copy=${copy}`;
        list.push({ target: url, kind: "http", name: e.name });
        expected.set(url, `${e.expect.class} ${e.expect.detail}`);
      }
    }
    return { list, expected };
  }

  async function census(list: TargetRecord[]): Promise<Census> {
    const store = new SqliteStore(path.join(dir, `census-${++files}.db`));
    try {
      const runId = await store.startRun("contention", list, {});
      const verdicts = new Map<string, string>();
      let admission: AdmissionState | undefined;
      await runCensus(store, runId, list, {
        // one host serves the whole fleet
        concurrency: 16,
        perHost: 16,
        timeout: TIMEOUT_MS,
        onAttempt: (a) => void verdicts.set(a.target, `${a.class} ${a.detail}`),
        onAdmission: (s) => void (admission = s),
      });
      return { verdicts, admission };
    } finally {
      await store.close();
    }
  }

  test("every target gets the class it gets on an idle machine, and only silent servers time out", async () => {
    const { list, expected } = targets();
    const timeouts = [...expected].filter(([, v]) => v.startsWith("timeout ")).length;
    assert.ok(timeouts > 0 && timeouts < list.length, "the fleet has silent servers and answering ones");

    const cpus = affinity();
    const core = cpus?.split(/[,-]/)[0];
    if (cpus !== undefined && core !== undefined) {
      pin(core);
      burners.push(spawn("taskset", ["-c", core, process.execPath, "-e", BURN], { stdio: "ignore" }));
    } else {
      for (let i = 0; i < os.availableParallelism(); i++)
        burners.push(spawn(process.execPath, ["-e", BURN], { stdio: "ignore" }));
    }
    let busy: Census;
    try {
      busy = await census(list);
    } finally {
      for (const b of burners.splice(0)) b.kill("SIGKILL");
      if (cpus !== undefined) pin(cpus);
    }

    assert.equal(busy.verdicts.size, list.length);
    const differing = list
      .filter((t) => busy.verdicts.get(t.target) !== expected.get(t.target))
      .map((t) => `${t.target}: ${expected.get(t.target)} idle, ${busy.verdicts.get(t.target)} busy`);
    assert.deepEqual(differing, [], `busy census; admission: ${JSON.stringify(busy.admission)}`);
  });
});
