/**
 * The probe against real processes that test its opening and its deadline: a modern server
 * that starts late, a server that ignores stdin closing and SIGTERM.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { guardEventLoop, within } from "../testkit/peer.js";
import { SERVE_ARGS } from "../testkit/mcp-interop.js";
import { startFleet, type Fleet } from "../fleet/fleet.js";
import { probeHttp, probeStdio } from "./probe.js";

guardEventLoop();

const fixture = (path: string) => fileURLToPath(new URL(`../../../test/fixtures/${path}`, import.meta.url));
const NODE = process.execPath;

// both wait seconds for a server that takes its time, each its own: side by side
describe("probe --stdio: servers that take their time", { concurrency: true }, () => {
  describe("probe --stdio: the opening", () => {
    test("a modern server (SDK v2, modern only) that takes 3.5 s to start is ok (modern), not legacy", async () => {
      const r = await within(
        probeStdio(NODE, [fixture("peers/slow-start.mjs"), "3500", fixture("v2-sdk-server.mjs"), "modern"], {
          timeout: 10_000,
        }),
        "the probe",
        20_000,
      );
      assert.equal(r.class, "ok", JSON.stringify(r.trace));
      assert.equal(r.detail, "modern", JSON.stringify(r.trace));
      assert.equal(r.revision, "2026-07-28");
      assert.equal(r.tools, 2);
      assert.deepEqual(r.defects, []);
    });
  });

  describe("probe --stdio: the deadline includes the cleanup", () => {
    test("a server that ignores stdin closing and SIGTERM is killed at the deadline: the probe ends soon after it, not when the server would", async () => {
      const timeout = 3000;
      const t0 = performance.now();
      const r = await within(probeStdio(NODE, [fixture("child-stubborn.mjs")], { timeout }), "the probe", 20_000);
      const wall = performance.now() - t0;
      assert.equal(r.class, "timeout");
      // the kill itself takes milliseconds; the slack is for a busy machine (the server would never go)
      assert.ok(wall < timeout + 3000, `the probe took ${Math.round(wall)} ms with a ${timeout} ms deadline`);
    });
  });
});

describe("probe -r: exactly one revision", () => {
  const LEGACY_2025_06_18 = [fileURLToPath(new URL("../fleet/stdio-server.js", import.meta.url)), "legacy"];
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet();
  });
  after(() => fleet?.close());

  test("a legacy server that chooses 2025-06-18 when offered 2024-11-05: rpc_error unsupported_version, naming its choice", async () => {
    const r = await within(
      probeStdio(NODE, LEGACY_2025_06_18, { revision: "2024-11-05", timeout: 10_000 }),
      "the probe",
      20_000,
    );
    assert.equal(r.class, "rpc_error", JSON.stringify(r.trace));
    assert.equal(r.detail, "unsupported_version");
    assert.equal(r.rpcError, null);
    assert.match(r.advice, /^The server does not speak 2024-11-05; it chose 2025-06-18\./);
  });

  test("a legacy-only stdio server with -r 2026-07-28: rpc_error unsupported_version, naming what it speaks", async () => {
    const r = await within(
      probeStdio(NODE, LEGACY_2025_06_18, { revision: "2026-07-28", timeout: 10_000 }),
      "the probe",
      20_000,
    );
    assert.equal(r.class, "rpc_error", JSON.stringify(r.trace));
    assert.equal(r.detail, "unsupported_version");
    assert.match(r.advice, /^The server does not speak 2026-07-28; it speaks 2025-06-18 \(legacy/);
    // the repro line replays the request as sent, identity included
    assert.match(r.repro ?? "", /"io\.modelcontextprotocol\/clientInfo":\{"name":"mcp-wire-probe","version":"[^"]+"\}/);
  });

  test("a legacy-only HTTP server with -r 2026-07-28: the same, over Streamable HTTP", async () => {
    const r = await within(
      probeHttp(fleet.url("legacy"), { revision: "2026-07-28", timeout: 10_000 }),
      "the probe",
      20_000,
    );
    assert.equal(r.class, "rpc_error", JSON.stringify(r.trace));
    assert.equal(r.detail, "unsupported_version");
    assert.match(r.advice, /^The server does not speak 2026-07-28; it speaks 2025-11-25 \(legacy/);
  });

  test("a revision the server speaks: ok, that revision", async () => {
    const r = await within(
      probeStdio(NODE, [...SERVE_ARGS], { revision: "2024-11-05", timeout: 10_000 }),
      "the probe",
      20_000,
    );
    assert.equal(r.class, "ok", JSON.stringify(r.trace));
    assert.equal(r.revision, "2024-11-05");
    const m = await within(
      probeHttp(fleet.url("modern"), { revision: "2025-03-26", timeout: 10_000 }),
      "the probe",
      20_000,
    );
    assert.equal(m.class, "ok", JSON.stringify(m.trace));
    assert.equal(m.revision, "2025-03-26");
  });
});
