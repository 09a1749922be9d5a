/**
 * `npm run interop`: `check --surface FILE` as a user runs it, against a real server (the official SDK v2's, its
 * tools read from a file so the test can release a new version): the first run records, an
 * unchanged server passes, a breaking change fails the run, `--update-surface` records the new
 * surface, and a target that cannot be checked leaves the file as it was.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { V1, surfaceBench } from "../src/testkit/surface.js";

describe("mcp-wire check --surface", () => {
  const { definitions, surface, check, cleanup } = surfaceBench();
  after(cleanup);
  const surfaceFindings = (stdout: string) =>
    (JSON.parse(stdout) as { findings: { id: string; change?: string; subject?: string }[] }).findings
      .filter((f) => f.id.startsWith("surface_"))
      .map((f) => `${f.id} ${f.change} ${f.subject}`);

  test("recorded, then unchanged: no surface finding; a required parameter added: breaking, exit 1; --update-surface: recorded anew, exit 0", async () => {
    writeFileSync(definitions, JSON.stringify(V1));
    const first = await check();
    assert.equal(first.status, 0, first.stderr);
    const recorded = readFileSync(surface, "utf8");
    assert.match(recorded, /"search"/);

    const same = await check();
    assert.equal(same.status, 0, same.stderr);
    assert.deepEqual(surfaceFindings(same.stdout), []);

    const v2 = structuredClone(V1);
    v2.tools[0]!.inputSchema = {
      type: "object",
      properties: { q: { type: "string" }, limit: { type: "integer" } } as never,
      required: ["q", "limit"],
    };
    writeFileSync(definitions, JSON.stringify(v2));
    const breaking = await check();
    assert.equal(breaking.status, 1, breaking.stdout);
    assert.deepEqual(surfaceFindings(breaking.stdout), [
      "surface_parameter_added compatible tool:search",
      "surface_required_added breaking tool:search",
    ]);
    assert.equal(readFileSync(surface, "utf8"), recorded, "a comparison leaves the file as it was");

    const updated = await check("--update-surface");
    assert.equal(updated.status, 0, updated.stdout);
    assert.deepEqual(surfaceFindings(updated.stdout), []);
    assert.match(readFileSync(surface, "utf8"), /"limit"/);
  });
});
