/**
 * `npm run interop`: eras kept apart. A dual-era server (the official SDK v2's `serveStdio`) that
 * starts late answers both the `server/discover` a dual-era client sends first and the
 * `initialize` it sends beside it after a second of silence, and serves that process in the
 * legacy revision. `check` and `probe` judge such a process in the revision that opened it, and
 * learn of 2026-07-28 from a fresh process: no false error, whatever the start-up time.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { NODE, fixture, scratch } from "../src/testkit/interop-harness.js";
import { within } from "../src/testkit/within.js";
import { probeStdio } from "../src/probe/probe.js";
import { checkStdio } from "../src/check/check.js";

const V2 = fixture("v2-sdk-server.mjs");

describe("a dual-era server that starts late", () => {
  test("check: its first start takes 1.5 s (as under npx), and not one error: every revision ok, none judged in another's rules", async () => {
    const dir = scratch();
    try {
      const args = [fixture("peers/slow-first-start.mjs"), join(dir.dir, "started"), "1500", V2, "dual"];
      const r = await within(checkStdio(NODE, args), "the check", 90_000);
      assert.equal(r.unchecked, null);
      assert.deepEqual(r.revisions, {
        "2026-07-28": "ok",
        "2025-11-25": "ok",
        "2025-06-18": "ok",
        "2025-03-26": "ok",
        "2024-11-05": "ok",
      });
      const errors = r.findings.filter((f) => f.severity === "error");
      assert.deepEqual(errors, [], errors.map((f) => `${f.id} ${f.revision} ${f.method} ${f.message}`).join("\n"));
      assert.ok(!r.findings.some((f) => f.id === "result_type_missing"), JSON.stringify(r.findings));
      // the SDK's -32603 for a bad cursor is the SDK's to change: info, naming it
      const badParams = r.findings.filter((f) => f.id === "bad_params_not_32602");
      assert.ok(badParams.length > 0);
      for (const f of badParams) {
        assert.equal(f.severity, "info");
        assert.match(f.message, /the official TypeScript MCP SDK/);
      }
    } finally {
      dir.cleanup();
    }
  });

  test("probe: every start takes 1.5 s, and it is ok (modern) on 2026-07-28 with no defect", async () => {
    const args = [fixture("peers/slow-start.mjs"), "1500", V2, "dual"];
    const r = await within(probeStdio(NODE, args, { timeout: 15_000 }), "the probe", 30_000);
    assert.equal(r.class, "ok", JSON.stringify(r.trace));
    assert.equal(r.detail, "modern");
    assert.equal(r.revision, "2026-07-28");
    assert.equal(r.tools, 2);
    assert.deepEqual(r.defects, []);
  });
});
