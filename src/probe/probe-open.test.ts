/**
 * The probe against real processes that test its opening and its deadline: a modern server
 * that starts late, a server that ignores stdin closing and SIGTERM.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { guardEventLoop, within } from "../peer/support.test.js";
import { SERVE_ARGS } from "../mcp/interop-support.test.js";
import { probeStdio } from "./probe.js";

guardEventLoop();

const fixture = (path: string) => fileURLToPath(new URL(`../../../test/fixtures/${path}`, import.meta.url));
const NODE = process.execPath;

describe("probe --stdio: the opening", () => {
  test("a modern server that takes 3.5 s to start is ok (modern), not legacy", async () => {
    const r = await within(probeStdio(NODE, [fixture("peers/slow-start.mjs"), "3500", ...SERVE_ARGS], { timeout: 10_000 }), 20_000, "the probe");
    assert.equal(r.class, "ok", JSON.stringify(r.trace));
    assert.equal(r.detail, "modern", JSON.stringify(r.trace));
    assert.equal(r.revision, "2026-07-28");
    assert.equal(r.tools, 3);
    assert.deepEqual(r.defects, []);
  });
});

describe("probe --stdio: the deadline includes the cleanup", () => {
  test("a server that ignores stdin closing and SIGTERM is killed within the deadline: the probe ends by deadline + 0.5 s", async () => {
    const timeout = 3000;
    const t0 = performance.now();
    const r = await within(probeStdio(NODE, [fixture("child-stubborn.mjs")], { timeout }), 20_000, "the probe");
    const wall = performance.now() - t0;
    assert.equal(r.class, "timeout");
    assert.ok(wall < timeout + 500, `the probe took ${Math.round(wall)} ms with a ${timeout} ms deadline`);
  });
});
