/**
 * `check --surface FILE` as a user runs it, against a real server (the official SDK v2's, its
 * tools read from a file so the test can release a new version): a target that cannot be checked
 * leaves the file as it was, and misuse is a usage error. The sequence of releases, each change
 * in its class, is in interop/check-surface.test.ts.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { V1, run, surfaceBench } from "../testkit/surface.js";

describe("mcp-wire check --surface", () => {
  const { dir, definitions, surface, check, cleanup } = surfaceBench();
  after(cleanup);

  test("recorded; then a target that cannot be checked leaves the file untouched (exit 3); misuse is a usage error", async () => {
    writeFileSync(definitions, JSON.stringify(V1));
    const recorded = await check();
    assert.equal(recorded.status, 0, recorded.stderr);
    const before = readFileSync(surface, "utf8");
    assert.match(before, /"search"/);
    const dead = await run([
      "check",
      "--surface",
      surface,
      "--update-surface",
      "--stdio",
      "--",
      "/nonexistent/mcp-wire-none",
    ]);
    assert.equal(dead.status, 3, dead.stdout);
    assert.equal(readFileSync(surface, "utf8"), before);

    const alone = await run(["check", "--update-surface", "http://127.0.0.1:1/mcp"]);
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--update-surface goes with --surface FILE/);

    const junk = join(dir, "junk.json");
    writeFileSync(junk, '{"findings":[]}');
    const notSurface = await run(["check", "--surface", junk, "http://127.0.0.1:1/mcp"]);
    assert.equal(notSurface.status, 2);
    assert.match(notSurface.stderr, /is not a surface file written by mcp-wire check --surface/);
  });
});
