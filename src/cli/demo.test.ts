import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-demo-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** As `npm start` runs it on a fresh machine: no terminal, no input, nothing but the working directory. */
function demo(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, "demo"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe("mcp-wire demo", () => {
  test("starts the fleet, runs a census into mcp-wire.db, prints the report, writes the page, lints the samples", async () => {
    const r = await demo();
    assert.equal(r.status, 0, r.stderr);
    const servers = Number(/^mcp-wire demo: (\d+) servers on 127\.0\.0\.1/.exec(r.stdout)?.[1]);
    assert.ok(servers > 20, r.stdout.slice(0, 300));
    assert.match(r.stderr, /^census: \d+ of \d+ done/m, "progress, as plain lines without a terminal");

    const report = r.stdout.slice(r.stdout.indexOf("\nCensus run "));
    const prose = report.slice(report.indexOf("\n\n") + 2, report.indexOf("\n\nClasses\n")).replace(/\n+/g, " ");
    assert.ok(prose.startsWith(`Called ${servers} servers once each. `), prose);
    // a loaded machine may turn one of the two into a timeout; the sentence still names the code
    assert.match(prose, /rejected the opening request with .*-32001 \(legacy range\), (both |all )?refusing for lack of a key/);
    assert.match(prose, /answered with a web page rather than JSON at all/);
    assert.match(r.stdout, /\nClasses\n {2}class +attempts +share/);
    assert.match(r.stdout, /\n✗ not_jsonrpc \(bare_array\)/);
    assert.match(r.stdout, /\nWrote mcp-wire-report\.html: /);
    assert.match(r.stdout, /samples\/legacy-session\.ndjson .*revision 2025-11-25 \(from the initialize request\)/);
    assert.match(r.stdout, /samples\/modern-requests\.ndjson .*revision 2026-07-28 \(from the _meta\)/);

    assert.ok(existsSync(join(dir, "mcp-wire.db")));
    const html = readFileSync(join(dir, "mcp-wire-report.html"), "utf8");
    assert.match(html, /^<!doctype html>/);
    assert.equal(html.match(/<tr>/g)!.length >= servers, true);

    // the database is a census like any other: report reads it again
    const again = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [MAIN, "report", "--json"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
      child.on("close", () => resolve(out));
    });
    const stored = JSON.parse(again);
    assert.equal(stored.runs.length, 1);
    assert.equal(stored.runs[0].source, "demo fleet");
    assert.equal(stored.targets.length, servers);
  });
});
