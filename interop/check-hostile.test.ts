/**
 * `npm run interop`: `check` under a server that lists more than memory holds — 250 pages of
 * 4 MB of tools — with the heap capped at 512 MB: it ends with a finding and every report file
 * written, never "JavaScript heap out of memory".
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mcpWire } from "../src/testkit/cli-child.js";
import { fixture } from "../src/testkit/interop-harness.js";

test("250 pages of 4 MB: kept_over_budget, exit 0, JUnit, SARIF and Markdown written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-huge-"));
  try {
    const out = (name: string) => join(dir, name);
    const child = mcpWire(
      [
        "check",
        "--json",
        "-r",
        "2025-11-25",
        "--junit",
        out("j.xml"),
        "--sarif",
        out("s.sarif"),
        "--sarif-location",
        "package.json",
        "--markdown",
        out("m.md"),
        "--stdio",
        "--",
        process.execPath,
        fixture("huge-pages-server.mjs"),
        "250",
        "4",
      ],
      { NODE_OPTIONS: "--max-old-space-size=512" },
    );
    const status = await child.exit(300_000);
    assert.equal(status, 0, child.stderr().slice(-2000));
    const report = JSON.parse(child.stdout()) as { findings: { id: string }[]; checked: { pages: number } };
    assert.ok(report.findings.some((f) => f.id === "kept_over_budget"));
    assert.equal(report.checked.pages, 250);
    for (const f of ["j.xml", "s.sarif", "m.md"]) assert.ok(existsSync(out(f)), f);
    assert.match(readFileSync(out("j.xml"), "utf8"), /kept_over_budget/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
