import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { startFleet, until, type Fleet } from "../testkit/census-fleet.js";
import { SqliteStore } from "../census/sqlite-store.js";
import { mcpWire, type Child } from "../testkit/cli-child.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-cli-"));
let n = 0;
const fresh = (ext: string) => path.join(dir, `f${++n}.${ext}`);

const census = (args: string[], env: NodeJS.ProcessEnv = {}): Child => mcpWire(["census", ...args], env);

/** Attempts stored so far, read beside the running census (WAL lets a reader in); 0 before the file exists. */
function storedAttempts(db: string): number {
  try {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return conn.prepare("SELECT COUNT(*) FROM attempts").pluck().get() as number;
    } finally {
      conn.close();
    }
  } catch {
    return 0;
  }
}

function targetsFile(urls: string[]): string {
  const file = fresh("txt");
  writeFileSync(file, `# census test\n${urls.join("\n")}\n`);
  return file;
}

/** Every target of the run has exactly one attempt: none lost, none doubled. */
async function assertOneEach(db: string, runId: number, urls: string[]): Promise<void> {
  const store = new SqliteStore(db, { readonly: true });
  try {
    const counts = new Map<string, number>();
    for await (const a of store.attempts({ runIds: [runId] })) counts.set(a.target, (counts.get(a.target) ?? 0) + 1);
    assert.deepEqual(
      urls.map((u) => [u, counts.get(u)]),
      urls.map((u) => [u, 1]),
    );
    const runs = await store.runs();
    assert.equal(runs.length, 1, "a resume must not start a new run");
    assert.ok(runs[0]!.finishedAt, "the resumed run is finished");
  } finally {
    await store.close();
  }
}

describe("mcp-wire census", () => {
  let slow: Fleet;
  let fast: Fleet;
  before(async () => {
    slow = await startFleet({ delayMs: 80 });
    fast = await startFleet();
  });
  after(async () => {
    await slow.close();
    await fast.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a census killed with SIGKILL part-way loses no finished attempt, and --resume finishes the run once each", async () => {
    const urls = Array.from({ length: 16 }, (_, i) => slow.url("ok", `kill-${i}`));
    const db = fresh("db");
    const first = census([targetsFile(urls), "--db", db, "--per-host", "2", "--timeout", "5000"]);
    await until(() => storedAttempts(db) >= 3, "three stored attempts");
    first.process.kill("SIGKILL");
    assert.equal(await first.exit(), "SIGKILL");
    const before = storedAttempts(db);
    assert.ok(before >= 3 && before < urls.length, `${before} attempts stored when killed`);

    const resumed = census(["--db", db, "--resume", "--per-host", "4"]);
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    assert.match(
      resumed.stderr(),
      new RegExp(`resuming run 1 over .*: ${urls.length - before} of ${urls.length} targets left`),
    );
    assert.match(
      resumed.stdout(),
      new RegExp(`^Run 1: 16 targets \\(${urls.length - before} in this session\\) in .*ok 16\\.`, "m"),
    );
    await assertOneEach(db, 1, urls);
  });

  test("Ctrl-C stops cleanly: in-flight probes are stored, the exit is 130, and the resume command is printed", async () => {
    const urls = Array.from({ length: 16 }, (_, i) => slow.url("ok", `int-${i}`));
    const db = fresh("db");
    const first = census([targetsFile(urls), "--db", db, "--per-host", "2"]);
    await until(() => storedAttempts(db) >= 2, "two stored attempts");
    first.process.kill("SIGINT");
    assert.equal(await first.exit(), 130);
    assert.match(first.stderr(), /stopping: no new probes/);
    assert.match(
      first.stderr(),
      new RegExp(
        `interrupted: run 1 has \\d+ targets? left; every finished attempt is saved in .*\\nResume with: mcp-wire census --db ${db.replace(/[.]/g, "\\.")} --resume\\n`,
      ),
    );
    assert.equal(first.stdout(), "");

    const resumed = census(["--db", db, "--resume"]);
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    await assertOneEach(db, 1, urls);
  });

  test("a header is sent to the server and appears in no output and no database file", async () => {
    const secret = "census-secret-9d3f7a21";
    const db = fresh("db");
    const run = census(
      [targetsFile([fast.url("echo-auth", "cli")]), "--db", db, "--header", "Authorization: Bearer ${CENSUS_TEST_KEY}"],
      { CENSUS_TEST_KEY: secret },
    );
    assert.equal(await run.exit(), 0, run.stderr());
    assert.ok(fast.authorizations.includes(`Bearer ${secret}`));
    assert.match(run.stdout(), /auth_required 1/);
    assert.ok(!run.stdout().includes(secret) && !run.stderr().includes(secret));
    for (const f of readdirSync(dir).filter((f) => path.join(dir, f).startsWith(db)))
      assert.ok(!readFileSync(path.join(dir, f)).includes(secret), `${f} holds the secret`);
  });

  test("a registry export: private addresses are not called unless --allow-private", async () => {
    const file = fresh("json");
    const url = fast.url("ok", "registry");
    writeFileSync(
      file,
      JSON.stringify({
        servers: [
          {
            server: { name: "io.example/local", version: "1", remotes: [{ type: "streamable-http", url }] },
            _meta: { "io.modelcontextprotocol.registry/official": { isLatest: true } },
          },
        ],
      }),
    );
    const refused = census([file, "--db", fresh("db")]);
    assert.equal(await refused.exit(), 0, refused.stderr());
    assert.match(refused.stdout(), /invalid_target 1/);
    assert.equal(fast.hits.get("/ok/registry"), undefined);
    const allowed = census([file, "--db", fresh("db"), "--allow-private"]);
    assert.equal(await allowed.exit(), 0, allowed.stderr());
    assert.match(allowed.stdout(), /ok 1/);
  });

  test("a line without http:// gets probe's 'did you mean', at once, not a 0 % uptime found later", async () => {
    const bare = fast.url("ok", "bare").replace(/^http:\/\//, "");
    const run = census([targetsFile([fast.url("ok", "schemed"), bare]), "--db", fresh("db")]);
    assert.equal(await run.exit(), 0, run.stderr());
    assert.ok(
      run.stderr().includes(`census: warning: "${bare}" has no scheme: did you mean http://${bare}?`),
      run.stderr(),
    );
    assert.match(run.stderr(), /recorded as bad_url and not called/);
  });

  test("pasted URLs are unwrapped; the summary says which lines and entries were left out, and why", async () => {
    const file = fresh("txt");
    writeFileSync(file, `# pasted\n"${fast.url("ok", "pasted-1")}",\n\n<${fast.url("ok", "pasted-2")}>\n`);
    const run = census([file, "--db", fresh("db")]);
    assert.equal(await run.exit(), 0, run.stderr());
    assert.match(run.stdout(), /ok 2/);
    assert.match(run.stderr(), /2 targets from .* \(list of URLs; 1 comment line and 1 blank line skipped\)/);

    const json = fresh("json");
    const latest = { "io.modelcontextprotocol.registry/official": { isLatest: true } };
    writeFileSync(
      json,
      JSON.stringify({
        servers: [
          {
            server: { name: "io.example/package", version: "1", packages: [{ registryType: "npm", identifier: "x" }] },
            _meta: latest,
          },
          {
            server: {
              name: "io.example/remote",
              version: "1",
              remotes: [{ type: "streamable-http", url: fast.url("ok", "remote") }],
            },
            _meta: latest,
          },
        ],
      }),
    );
    const registry = census([json, "--db", fresh("db")]);
    assert.equal(await registry.exit(), 0, registry.stderr());
    assert.match(
      registry.stderr(),
      /1 target from .* \(registry export; 1 entry without remotes \(packages run locally\) left out\)/,
    );
  });

  test("usage errors exit 2 with a message: a malformed file names its line, missing targets, nothing to resume, bad numbers", async () => {
    const bad = fresh("txt");
    writeFileSync(bad, "https://a.example/mcp\nhttps://b.example/mcp and more\n");
    const malformed = census([bad, "--db", fresh("db")]);
    assert.equal(await malformed.exit(), 2);
    assert.match(malformed.stderr(), /line 2: one URL a line/);

    const json = fresh("json");
    writeFileSync(json, '{"servers": [{"server": {"name": "a", "remotes": [{"url": 7}]}}]}');
    const badJson = census([json, "--db", fresh("db")]);
    assert.equal(await badJson.exit(), 2);
    assert.match(badJson.stderr(), /\$\.servers\[0\]\.server\.remotes\[0\]\.url: expected a string/);

    const none = census(["--db", fresh("db")]);
    assert.equal(await none.exit(), 2);
    assert.match(none.stderr(), /needs a targets file/);

    const missing = fresh("db");
    const nothing = census(["--db", missing, "--resume"]);
    assert.equal(await nothing.exit(), 2);
    assert.match(nothing.stderr(), /nothing to resume: no census database at /);
    assert.equal(existsSync(missing), false, "a resume with nothing to resume creates nothing");

    const empty = fresh("txt");
    writeFileSync(empty, "# nothing here yet\n\n");
    const noTarget = census([empty, "--db", missing]);
    assert.equal(await noTarget.exit(), 2);
    assert.match(noTarget.stderr(), /lists no target/);
    assert.equal(existsSync(missing), false);

    const words = fresh("txt");
    writeFileSync(words, "name,url\nalpha,beta\n");
    const notUrls = census([words, "--db", missing]);
    assert.equal(await notUrls.exit(), 2);
    assert.match(notUrls.stderr(), /not one line is an http\(s\) URL \(line 1: "name,url"\)/);
    assert.equal(existsSync(missing), false, "a file of no URL creates no database");

    const zero = census([bad, "--concurrency", "0"]);
    assert.equal(await zero.exit(), 2);
    assert.match(zero.stderr(), /--concurrency takes a number of probes from 1 to 10,000, not "0"/);

    const gap = census([bad, "--per-host-gap", "soon"]);
    assert.equal(await gap.exit(), 2);
    assert.equal(
      gap.stderr(),
      'mcp-wire census: --per-host-gap takes milliseconds from 0 to 86,400,000 (a day at most), not "soon"\n',
    );
  });

  test("--per-host-gap is said at the start and held between the probes of one host", async () => {
    const urls = Array.from({ length: 3 }, (_, i) => fast.url("ok", `cli-gap-${i}`));
    const run = census([targetsFile(urls), "--db", fresh("db"), "--per-host-gap", "300", "--concurrency", "4"]);
    assert.equal(await run.exit(), 0, run.stderr());
    // three targets on one host, one at a time: what runs is said, not the --concurrency asked for
    assert.match(
      run.stderr(),
      /1 at a time \(1 host, 1 per host at least 300 ms apart; --concurrency 4 is not reached\), 10000 ms each/,
    );
    const spans = urls
      .map((u) => fast.requests.filter((r) => r.path === new URL(u).pathname))
      .map((rs) => ({ start: Math.min(...rs.map((r) => r.start)), end: Math.max(...rs.map((r) => r.end ?? Infinity)) }))
      .sort((a, b) => a.start - b.start);
    // The fleet runs in this process and the census in a child: the census starts its rest when
    // the answer's bytes reach it, while this process notes the answer's end only when it is next
    // scheduled, which a loaded machine can put tens of milliseconds late. So half the gap is
    // asserted: without the gap the next probe starts within a few milliseconds.
    for (let i = 1; i < spans.length; i++)
      assert.ok(spans[i]!.start - spans[i - 1]!.end >= 150, `rest ${spans[i]!.start - spans[i - 1]!.end} ms`);
  });

  test("the opening line says how many probes really run at once", async () => {
    // nothing listens on port 1: each probe is refused at once, and only the opening line matters
    const hosts = (k: number) => Array.from({ length: k }, (_, i) => `http://127.0.0.${i + 2}:1/mcp`);
    const few = census([targetsFile(hosts(2)), "--db", fresh("db"), "--concurrency", "4"]);
    assert.equal(await few.exit(), 0, few.stderr());
    assert.match(few.stderr(), /; 2 at a time \(every target at once, 1 per host\), 10000 ms each/);
    const many = census([targetsFile(hosts(3)), "--db", fresh("db"), "--concurrency", "2"]);
    assert.equal(await many.exit(), 0, many.stderr());
    assert.match(many.stderr(), /; 2 at a time, 1 per host, 10000 ms each/);
  });

  test("a run started with headers is resumed only with headers again", async () => {
    const db = fresh("db");
    const store = new SqliteStore(db);
    await store.startRun("t.txt", [{ target: fast.url("ok", "h"), kind: "http", name: null }], {
      concurrency: 4,
      perHost: 1,
      timeout: 2000,
      allowPrivate: false,
      headers: 1,
    });
    await store.close();
    const bare = census(["--db", db, "--resume"]);
    assert.equal(await bare.exit(), 2);
    assert.match(bare.stderr(), /run 1 was started with 1 --header option; give them again/);
    const withHeader = census(["--db", db, "--resume", "--header", "X-Key: again-value"]);
    assert.equal(await withHeader.exit(), 0, withHeader.stderr());
  });

  test("a --db that is not mcp-wire's is refused in one line (exit 2) and left byte for byte as it was", async () => {
    const urls = targetsFile([fast.url("ok", "db-check")]);
    const text = fresh("db");
    writeFileSync(text, "notes, not a database\n");
    const foreign = fresh("db");
    const db = new Database(foreign);
    db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')");
    db.close();
    for (const [file, message] of [
      [text, /is not an SQLite database; it was left untouched/],
      [foreign, /holds tables mcp-wire did not make \(contacts\); it was left untouched/],
    ] as const) {
      const before = createHash("sha256").update(readFileSync(file)).digest("hex");
      const run = census([urls, "--db", file]);
      assert.equal(await run.exit(), 2);
      assert.match(run.stderr(), message);
      assert.equal(run.stderr().trim().split("\n").length, 1, run.stderr());
      assert.equal(createHash("sha256").update(readFileSync(file)).digest("hex"), before);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.startsWith(`${path.basename(file)}-`)),
        [],
      );
    }
    assert.equal(fast.hits.get("/ok/db-check"), undefined, "nothing was called");
  });

  test("a --db where no file can be written (a folder without the right, none at all, a file) is said so in one line (exit 2)", async () => {
    // a folder of its own everyone may enter, holding one nobody but its owner may write to;
    // as root (who may write anywhere) the census runs as "nobody"
    const base = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-unwritable-"));
    try {
      chmodSync(base, 0o755);
      const urls = path.join(base, "targets.txt");
      writeFileSync(urls, `${fast.url("ok", "unwritable")}\n`, { mode: 0o644 });
      const locked = path.join(base, "locked");
      mkdirSync(locked, { mode: 0o555 });
      const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
      for (const [db, message] of [
        [
          path.join(locked, "census.db"),
          `cannot write ${path.join(locked, "census.db")}: the folder ${locked} is not writable (permission denied)`,
        ],
        [
          path.join(base, "missing", "census.db"),
          `cannot write ${path.join(base, "missing", "census.db")}: no such folder`,
        ],
        [path.join(urls, "census.db"), `cannot write ${path.join(urls, "census.db")}: ${urls} is not a folder`],
      ] as const) {
        const run = mcpWire(["census", urls, "--db", db], {}, as);
        assert.equal(await run.exit(), 2, run.stderr());
        assert.equal(run.stderr(), `mcp-wire census: ${message}\n`);
      }
      assert.deepEqual(readdirSync(locked), []);
      assert.equal(fast.hits.get("/ok/unwritable"), undefined, "nothing was called");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
