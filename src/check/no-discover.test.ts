/**
 * A 2026-07-28 server without `server/discover`: it refuses discover (and `initialize`), yet
 * answers 2026-07-28 requests. `check` reports the missing discover as an error and goes on in
 * 2026-07-28, its tools listed and judged; `probe` says the same in its verdict. Real servers stay
 * silent: the official SDK v1 server, which answers a `_meta`-carrying request in the legacy
 * shape (no `resultType`), does not count as answering 2026-07-28, and the SDK v2 server serves
 * discover. (probe against the SDK v1 server, and server-everything over stdio and HTTP:
 * interop/check-real.test.ts.)
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { exitStatus } from "../cli/check.js";
import { probeHttp, probeStdio } from "../probe/probe.js";
import { NODE, fixture } from "../testkit/interop-harness.js";
import { within } from "../testkit/within.js";
import { startZoo, type RunningZoo } from "../testkit/zoo-server.js";
import { checkHttp, checkStdio } from "./check.js";
import type { CheckReport } from "./types.js";

const ZOO = fileURLToPath(new URL("../testkit/zoo-server.js", import.meta.url));
/** The official SDK v1 `McpServer` over stdio. */
const SDK_V1 = fixture("replay-server.mjs");

function assertDiscoverMissing(r: CheckReport): void {
  assert.equal(r.unchecked, null, JSON.stringify(r.unchecked));
  assert.equal(r.revisions["2026-07-28"], "ok", JSON.stringify(r.revisions));
  assert.deepEqual(
    r.findings.map((f) => [f.id, f.severity, f.revisions, f.subject, f.method]),
    [["discover_missing", "error", ["2026-07-28"], "method:server/discover", "server/discover"]],
  );
  assert.match(r.findings[0]!.message, /MUST implement server\/discover/);
  assert.match(r.findings[0]!.spec, /2026-07-28\/server\/discover$/);
  // its tools were listed (both pages) and judged
  assert.ok(r.checked.pages >= 2, JSON.stringify(r.checked));
  assert.ok(r.ran.some((x) => x.id === "tool_input_schema_not_object" && x.revision === "2026-07-28"));
  assert.equal(exitStatus(r, "error"), 1);
}

describe("a 2026-07-28 server that refuses server/discover", () => {
  let zoo: RunningZoo;
  before(async () => {
    zoo = await startZoo();
  });
  after(() => zoo.close());

  test("check over stdio: discover_missing, an error, and the check goes on in 2026-07-28", async () => {
    const r = await within(checkStdio(NODE, [ZOO, "no-discover"]), "the check", 60_000);
    assertDiscoverMissing(r);
    assert.equal(r.revisions["2025-11-25"], "refused", "initialize was refused");
    const only = await within(checkStdio(NODE, [ZOO, "no-discover"], { revisions: ["2026-07-28"] }), "-r", 60_000);
    assertDiscoverMissing(only);
  });

  test("check over HTTP: the same, and no refusal check asked with the discover it lacks", async () => {
    const r = await within(checkHttp(zoo.url("no-discover")), "the check", 60_000);
    assertDiscoverMissing(r);
    assert.ok(!r.ran.some((x) => x.id === "http_header_mismatch"), "the refusals are asked with server/discover");
    assert.ok(r.ran.some((x) => x.id === "http_get_delete_not_405"));
  });

  test("probe over stdio and HTTP: ok (modern), the tools counted, discover_missing in the verdict", async () => {
    for (const r of [
      await within(probeStdio(NODE, [ZOO, "no-discover"]), "probe --stdio", 30_000),
      await within(probeStdio(NODE, [ZOO, "no-discover"], { revision: "2026-07-28" }), "probe -r", 30_000),
      await within(probeHttp(zoo.url("no-discover")), "probe", 30_000),
    ]) {
      assert.deepEqual([r.class, r.detail, r.revision, r.tools], ["ok", "modern", "2026-07-28", 2], r.advice);
      assert.deepEqual(
        r.defects.map((d) => [d.code, d.severity]),
        [["discover_missing", "error"]],
      );
      assert.match(r.advice, /refuses server\/discover, which a 2026-07-28 server MUST implement/);
    }
  });

  test("the official SDK v1 server answers tools/list with _meta in the legacy shape: not 2026-07-28, no finding", async () => {
    const r = await within(checkStdio(NODE, [SDK_V1], { revisions: ["2026-07-28"] }), "the check", 60_000);
    assert.notEqual(r.revisions["2026-07-28"], "ok");
    assert.ok(
      r.ran.some((x) => x.id === "discover_missing"),
      "it was asked without discover",
    );
    assert.deepEqual(r.findings, []);
  });

  test("the official SDK v2 server, 2026-07-28 only, serves discover: no finding", async () => {
    const r = await within(
      checkStdio(NODE, [fixture("v2-sdk-server.mjs"), "modern"], { revisions: ["2026-07-28"] }),
      "the check",
      60_000,
    );
    assert.equal(r.revisions["2026-07-28"], "ok");
    assert.ok(!r.findings.some((f) => f.severity === "error"), JSON.stringify(r.findings));
    assert.ok(!r.findings.some((f) => f.id === "discover_missing"));
  });
});
