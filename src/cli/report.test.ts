import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { SqliteStore } from "../census/sqlite-store.js";
import { seedCensus, seedHistory } from "../testkit/report-fixtures.js";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));

function run(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", timeout: 30_000, cwd });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
let db: string;

/**
 * The two stories docs/report.md tells, in a real census database: run 1 the 1,100 servers, runs
 * 2–83 the one server watched.
 */
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-report-cli-"));
  db = join(dir, "census.db");
  const store = new SqliteStore(db);
  const memory = seedHistory(seedCensus());
  for (const r of memory.runs()) {
    const id = await store.startRun(r.source, [], r.settings);
    // one transaction a run: recorded one by one, each attempt waits out the store's commit window
    await store.recordAttempts([...memory.attempts({ runIds: [r.id] })].map((a) => ({ ...a, runId: id })));
    await store.finishRun(id);
  }
  await store.close();
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe("mcp-wire report", () => {
  test("the latest run, in words", () => {
    const r = run(["report", "--db", db]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Census run 83 \(watch\.txt\)/);
    assert.match(r.stdout, /\nCalled one server once\. One answered and listed its tools, on 2025-06-18\.\n/);
  });

  test("--run 1: the 1,100 servers of the first story", () => {
    const r = run(["report", "--db", db, "--run", "1"]);
    assert.equal(r.status, 0, r.stderr);
    const prose = r.stdout.slice(r.stdout.indexOf("\n\n") + 2, r.stdout.indexOf("\n\nClasses\n")).replace(/\n+/g, " ");
    assert.match(prose, /^Called 1,100 servers once each\. /);
    assert.ok(
      prose.includes(
        '6 rejected the opening request with a JSON-RPC error: 3 sent -32001 (legacy range), all refusing for lack of a key ("invalid api key", "Authentication failed", "Unauthorized"), which the authorization spec expects as an HTTP 401 instead; one each sent -32601',
      ),
      prose,
    );
  });

  test("--target: one server's whole history", () => {
    const r = run(["report", "--db", db, "--target", "https://tools.example.org/mcp"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout.replace(/\n(?!\n)/g, " "),
      /Across 82 attempts between 20 July and 5 August 2026 we recorded 4 protocol errors/,
    );
    assert.match(r.stdout, /\n {6}82 attempts between 20 July and 5 August: 4 protocol errors, 3 web pages\.\n/);
  });

  test("--json for the runs selected; --since reaches across runs", () => {
    const latest = JSON.parse(run(["report", "--db", db, "--json"]).stdout);
    assert.deepEqual(
      latest.runs.map((x: { id: number }) => x.id),
      [83],
    );
    assert.deepEqual(latest.classes, { ok: 1 });
    assert.deepEqual(Object.keys(latest.targets[0].latest).slice(0, 5), ["class", "detail", "era", "revision", "at"]);

    const since = JSON.parse(run(["report", "--db", db, "--json", "--since", "2026-08-01"]).stdout);
    assert.deepEqual(since.selection, { runs: null, since: "2026-08-01T00:00:00.000Z", target: null });
    assert.equal(
      since.totals.attempts,
      1100 + since.targets.find((t: { target: string }) => t.target === "https://tools.example.org/mcp").attempts,
    );
    assert.ok(since.runs.length > 1 && since.runs[0].id === 1);
  });

  test("--csv, one row per target", () => {
    const r = run(["report", "--db", db, "--csv", "--run", "1"]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\r\n");
    assert.equal(
      lines[0],
      "target,attempts,class,detail,era,revision,at,tools,http_status,elapsed_ms,server_name,server_version,rpc_code",
    );
    assert.equal(lines.length, 1101);
  });

  test("--html FILE writes the page and says so", () => {
    const page = join(dir, "r.html");
    const r = run(["report", "--db", db, "--run", "1,2", "--html", page]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`Wrote ${page}: 2 census runs `), r.stdout);
    const html = readFileSync(page, "utf8");
    assert.match(html, /^<!doctype html>/);
    assert.equal(html.match(/<g class="run">/g)?.length, 2);
  });

  test("--html never replaces a file mcp-wire did not write, unless --force, and never writes through a link", () => {
    const page = join(dir, "again.html");
    assert.equal(run(["report", "--db", db, "--html", page]).status, 0);
    // its own page again: replaced without a question
    const again = run(["report", "--db", db, "--html", page]);
    assert.equal(again.status, 0, again.stderr);

    const notes = join(dir, "notes.html");
    writeFileSync(notes, "<p>my notes</p>\n");
    const refused = run(["report", "--db", db, "--html", notes]);
    assert.equal(refused.status, 2);
    assert.equal(
      refused.stderr,
      `mcp-wire report: --html ${notes} exists and was not written by mcp-wire: name another file, or add --force to replace it\n`,
    );
    assert.equal(refused.stdout, "");
    assert.equal(readFileSync(notes, "utf8"), "<p>my notes</p>\n");
    const forced = run(["report", "--db", db, "--html", notes, "--force"]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(readFileSync(notes, "utf8"), /^<!doctype html>/);

    const precious = join(dir, "precious.txt");
    writeFileSync(precious, "keep me\n");
    const link = join(dir, "link.html");
    symlinkSync(precious, link);
    const linked = run(["report", "--db", db, "--html", link, "--force"]);
    assert.equal(linked.status, 2);
    assert.match(linked.stderr, /is a symbolic link: mcp-wire does not write through one/);
    assert.equal(readFileSync(precious, "utf8"), "keep me\n");
  });

  test("usage errors exit 2 with a message, never a stack trace", () => {
    const cases: [string[], RegExp][] = [
      [
        ["report", "--db", join(dir, "missing.db")],
        /no census database at .*missing\.db: run `mcp-wire census <targets>` first\n$/,
      ],
      [["report", "--db", db, "--since", "last tuesday"], /--since takes a date/],
      [["report", "--db", db, "--run", "999"], /no run 999 in this database/],
      [["report", "--db", db, "--run", "x"], /--run takes run numbers/],
      [["report", "--db", db, "--json", "--csv"], /choose one/],
      [
        ["report", "--db", db, "--target", "https://nobody.example/mcp"],
        /has no attempt at "https:\/\/nobody\.example\/mcp"/,
      ],
      [
        ["report", "--db", db, "--html", join(dir, "no", "such", "dir", "r.html")],
        /cannot write .*r\.html: no such folder/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = run(args);
      assert.equal(r.status, 2, args.join(" "));
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, "no stack trace");
      assert.equal(r.stdout, "");
    }
    const garbage = join(dir, "garbage.db");
    writeFileSync(
      garbage,
      "this is not a database, just text long enough to be read as a header and rejected.\n".repeat(10),
    );
    const r = run(["report", "--db", garbage]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^mcp-wire report: .*garbage\.db is not an SQLite database, not a census database\n$/);
    const left = readdirSync(dir).filter((f) => f.startsWith("garbage.db"));
    assert.deepEqual(left, ["garbage.db"], "a report leaves nothing beside the file");
  });

  test("the default database is mcp-wire.db in the working directory", () => {
    const empty = mkdtempSync(join(tmpdir(), "mcp-wire-report-cwd-"));
    try {
      const r = run(["report"], empty);
      assert.equal(r.status, 2);
      assert.equal(
        r.stderr,
        "mcp-wire report: no census database at mcp-wire.db: run `mcp-wire census <targets>` first, or name the database with --db FILE\n",
      );
      assert.ok(!existsSync(join(empty, "mcp-wire.db")), "a report creates no database");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
