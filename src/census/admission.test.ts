/**
 * The census's admission: it watches its own event loop, admits fewer probes while the loop is
 * behind, and probes again a target whose timeout fell in a stall of its own.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Admission, type AdmissionState } from "./admission.js";

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
    const admission = new Admission({ ceiling: 32, timeoutMs: 2_000, onChange: (s) => changes.push(s) });
    admission.start();
    try {
      await sleep(250);
      let runs = 0;
      const stalled = await admission.probe(
        async () => {
          runs++;
          if (runs === 1) block(700);
          await sleep(20);
          return runs === 1 ? "timeout" : "ok";
        },
        (r) => r === "timeout",
      );
      assert.equal(stalled, "ok");
      assert.equal(runs, 2, "the probe timed out during a stall here, so it ran again");
      assert.ok(admission.limit < 32, `admitted ${admission.limit}`);
      assert.match(
        changes.find((c) => c.reason !== undefined)?.reason ?? "",
        /event loop is (\d+ ms behind|\d+% busy)/,
      );
      assert.equal(admission.state.reprobed, 1);
    } finally {
      admission.stop();
    }
  });

  test("a timeout after a silence far longer than the loop's stalls is the server's: not probed again", async () => {
    const admission = new Admission({ ceiling: 32, timeoutMs: 2_000 });
    admission.start();
    try {
      await sleep(250);
      let runs = 0;
      const silent = await admission.probe(
        async (progress) => {
          runs++;
          if (runs > 1) return "ok";
          // a stall long enough to count, then seconds of the server saying nothing
          block(600);
          progress();
          await sleep(3_000);
          return "timeout";
        },
        (r) => r === "timeout",
      );
      assert.equal(silent, "timeout");
      assert.equal(runs, 1, "the server was silent for seconds after the stall ended");
      assert.equal(admission.state.reprobed, 0);
    } finally {
      admission.stop();
    }
  });
});
