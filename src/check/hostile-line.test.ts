/**
 * A server whose stdout starts with a 70 MB line that is not JSON-RPC, checked as one revision
 * (`-r 2025-11-25`): the line is named for what it is (too large), and the report never says the
 * server speaks none of the revision it then answered in.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { within } from "../testkit/within.js";
import { checkStdio } from "./check-stdio.js";

const SERVER = fileURLToPath(new URL("../../../test/fixtures/huge-line-server.mjs", import.meta.url));

test("a 70 MB stdout line with one revision asked: too_large, not 'speaks none of'", async () => {
  const r = await within(
    checkStdio(process.execPath, [SERVER, "70000000"], { revisions: ["2025-11-25"], timeout: 10_000 }),
    "the check",
    60_000,
  );
  const ids = r.findings.map((f) => f.id);
  assert.ok(ids.includes("too_large") || ids.includes("stdout_not_jsonrpc"), JSON.stringify(ids));
  assert.doesNotMatch(JSON.stringify(r.unchecked ?? ""), /speaks none of/);
});

test("a probe that opens a revision that was asked for is never reported as 'speaks none of' it", async () => {
  const { Run } = await import("./run.js");
  const run = new Run("node server.mjs", { revisions: ["2025-11-25"] }, true);
  run.findings.add("too_large", {
    revision: "2025-11-25",
    message: "a line of 70000000 bytes, over the limit: dropped",
  });
  const verdict = { class: "ok", detail: "legacy", era: "legacy", revision: "2025-11-25" } as unknown as Parameters<
    typeof run.unchecked
  >[0];
  const unchecked = run.unchecked(verdict);
  assert.equal(unchecked?.detail, "too_large");
  assert.doesNotMatch(unchecked?.message ?? "", /speaks none of/);
  // a revision the probe opened that was not asked for is still named as what the server speaks
  const other = new Run("node server.mjs", { revisions: ["2024-11-05"] }, true).unchecked(verdict);
  assert.match(other?.message ?? "", /speaks none of the revisions asked for \(2024-11-05\); it speaks 2025-11-25/);
});
