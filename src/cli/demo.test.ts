/**
 * `mcp-wire demo` as `npm start` runs it: the whole fleet once, with everything the demo prints
 * and writes, and every database it must refuse. Running it again (the same servers on the same
 * ports, a database started afresh) and with --db and --html is `npm run interop`
 * (interop/demo.test.ts): each is another full demo.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, describe, test } from "node:test";
import { MAIN, runIn, sha } from "../testkit/demo.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-demo-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], deadlineMs?: number) => runIn(dir, args, deadlineMs);
const demo = (...args: string[]) => run(["demo", ...args]);

describe("mcp-wire demo", () => {
  test("starts the fleet, runs a census into mcp-wire-demo.db, prints the report, writes the page, lints the samples", async () => {
    // a user's own census database sits beside it: the demo must never touch it
    writeFileSync(join(dir, "mcp-wire.db"), "not the demo's");
    const before = sha(join(dir, "mcp-wire.db"));
    const r = await demo();
    assert.equal(r.status, 0, r.stderr);
    assert.equal(sha(join(dir, "mcp-wire.db")), before, "mcp-wire.db untouched");
    const servers = Number(/^mcp-wire demo: (\d+) servers on 127\.0\.0\.1/.exec(r.stdout)?.[1]);
    assert.ok(servers > 20, r.stdout.slice(0, 300));
    assert.match(r.stderr, /^census: \d+ of \d+ done/m, "progress, as plain lines without a terminal");

    const report = r.stdout.slice(r.stdout.indexOf("\nCensus run "));
    const prose = report.slice(report.indexOf("\n\n") + 2, report.indexOf("\n\nClasses\n")).replace(/\n+/g, " ");
    assert.ok(prose.startsWith(`Called ${servers} servers once each. `), prose);
    // a loaded machine may turn one of the two into a timeout; the sentence still names the code
    assert.match(
      prose,
      /rejected the opening request with .*-32001 \(legacy range\), (both |all )?refusing for lack of a key/,
    );
    assert.match(prose, /answered with a web page rather than JSON at all/);
    assert.match(r.stdout, /\nClasses\n {2}class +attempts +share/);
    assert.match(r.stdout, /\n✗ not_jsonrpc \(bare_array\)/);
    assert.match(r.stdout, /\nWrote mcp-wire-report\.html: /);
    assert.match(r.stdout, /samples\/legacy-session\.ndjson .*revision 2025-11-25 \(from the initialize request\)/);
    assert.match(r.stdout, /samples\/modern-requests\.ndjson .*revision 2026-07-28 \(from the _meta\)/);
    // the hint names a file that is there from where the demo ran (a global install has no ./samples)
    const hinted = /\(mcp-wire lint (\S+) shows each defect\)/.exec(r.stdout)?.[1];
    assert.ok(hinted && existsSync(isAbsolute(hinted) ? hinted : join(dir, hinted)), `${hinted} exists`);
    const lint = await run(["lint", hinted]);
    assert.ok(lint.status === 0 || lint.status === 1, lint.stderr);

    assert.ok(existsSync(join(dir, "mcp-wire-demo.db")));
    const html = readFileSync(join(dir, "mcp-wire-report.html"), "utf8");
    assert.match(html, /^<!doctype html>/);
    assert.equal(html.match(/<tr>/g)!.length >= servers, true);

    // the database is a census like any other: report reads it again
    const again = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [MAIN, "report", "--json", "--db", "mcp-wire-demo.db"], {
        cwd: dir,
        stdio: ["ignore", "pipe", "inherit"],
      });
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

describe("mcp-wire demo refuses a database it cannot or must not use, at once and untouched", () => {
  const cases: [string, () => string, RegExp][] = [
    ["a folder", () => (mkdirSync(join(dir, "a-folder"), { recursive: true }), "a-folder"), /a-folder is not a file/],
    [
      "a text file",
      () => (writeFileSync(join(dir, "notes.txt"), "my notes\n"), "notes.txt"),
      /notes\.txt is not an SQLite database/,
    ],
    ["a census of the user's own", () => "own.db", /own\.db holds a census other than the demo's/],
    [
      "a place nothing can be written",
      () => "/proc/mcp-wire-demo.db",
      /^mcp-wire demo: cannot use \/proc\/mcp-wire-demo\.db: /,
    ],
    ["a PostgreSQL URL", () => "postgres://u:hunter2secret@127.0.0.1:1/x", /the demo writes an SQLite file of its own/],
  ];
  for (const [what, make, message] of cases) {
    test(what, async () => {
      if (what.startsWith("a census")) {
        // a real census of the user's, made by mcp-wire census over one unreachable target
        writeFileSync(join(dir, "targets.txt"), "http://127.0.0.1:9/mcp\n");
        const made = await run(["census", "targets.txt", "--db", "own.db", "--timeout", "1000"]);
        assert.equal(made.status, 0, made.stderr);
      }
      const db = make();
      const path = db.startsWith("/") || db.includes("://") ? undefined : join(dir, db);
      const hash = path && existsSync(path) && !db.startsWith("a-folder") ? sha(path) : undefined;
      // a hang is killed at 20 s, far past "at once", and then has no exit status of 2
      const r = await run(["demo", "--db", db], 20_000);
      assert.equal(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr.trim(), message);
      assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
      assert.doesNotMatch(r.stderr, /hunter2secret| {4}at /, "no secret, no stack trace");
      assert.equal(r.stdout, "", "no fleet started, nothing printed");
      if (hash) assert.equal(sha(path!), hash, "left untouched");
    });
  }
});
