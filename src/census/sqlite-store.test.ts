import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { OWN_TABLES, SCHEMA_VERSION, STORED_BOUNDS_MS, migrate, schemaVersion } from "./sqlite-schema.js";
import { SqliteStore } from "./sqlite-store.js";
import { A, B, C, TARGETS, attempt, extra, fill, storeContract } from "../testkit/store-contract.js";
import { LATENCY_BOUNDS_MS, StoreRefused, collect } from "./store.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-store-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `t${++files}.db`);

storeContract(
  "SQLite",
  async () => new SqliteStore(newFile()),
  async (store) => new SqliteStore((store as SqliteStore).file),
);

const filled = async () => (await fill(new SqliteStore(newFile()))) as SqliteStore;

describe("SqliteStore", () => {
  test("attempts recorded together share one commit, each committed when its promise resolves; one that cannot be stored fails alone", async () => {
    const file = newFile();
    const store = new SqliteStore(file);
    const run = await store.startRun("t", TARGETS, {});
    // another connection, as a report would open: it sees only committed rows
    const reader = new Database(file, { readonly: true });
    const committed = () => reader.prepare("SELECT COUNT(*) FROM attempts").pluck().get() as number;
    try {
      const first = store.recordAttempt(attempt(run, A, "2026-07-20T10:00:00.000Z"));
      const second = store.recordAttempt(attempt(run, B, "2026-07-20T10:00:01.000Z", { defects: [extra] }));
      // the same target twice in one run: refused by the database
      const duplicate = store.recordAttempt(attempt(run, A, "2026-07-20T10:00:02.000Z"));
      assert.equal(committed(), 0, "nothing is committed before the turn ends");
      await first;
      assert.equal(committed(), 2, "committed once its promise resolved");
      await second;
      await assert.rejects(duplicate, /UNIQUE/);
      const third = store.recordAttempt(attempt(run, C, "2026-07-20T10:00:03.000Z"));
      // any other call commits what is pending first
      assert.deepEqual(await store.pendingTargets(run), []);
      await third;
      assert.deepEqual(
        (await collect(store.attempts())).map((a) => [a.target, a.defects.length]),
        [
          [A, 0],
          [B, 1],
          [C, 0],
        ],
      );
      assert.deepEqual((await store.aggregate()).defects, [{ code: extra.code, count: 1 }]);
    } finally {
      reader.close();
      await store.close();
    }
  });

  test("opens in WAL mode at the latest schema version, and closes back to a rollback journal", async () => {
    const store = new SqliteStore(newFile());
    assert.equal(store.db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(schemaVersion(store.db), SCHEMA_VERSION);
    assert.deepEqual(
      (
        store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]
      ).sort(),
      [...OWN_TABLES].sort(),
    );
    await store.close();
    const db = new Database(store.file, { readonly: true });
    assert.equal(db.pragma("journal_mode", { simple: true }), "delete");
    db.close();
  });

  test("a report can read while a census writes (WAL), and a read-only store refuses an old schema", async () => {
    const file = newFile();
    const writer = await filled();
    const reader = new SqliteStore(writer.file, { readonly: true });
    await writer.recordAttempt(attempt(1, "https://d.example/mcp", "2026-08-06T00:00:00.000Z"));
    assert.equal((await reader.aggregate()).attempts, 7);
    await reader.close();
    await writer.close();

    const old = new Database(file);
    migrate(old, 1);
    old.close();
    assert.throws(() => new SqliteStore(file, { readonly: true }), /schema version 1/);
  });

  test("a version-1 database is migrated: defects get their table, latencies their buckets, history is kept", async () => {
    const file = newFile();
    const v1 = new Database(file);
    assert.equal(migrate(v1, 1), 1);
    v1.exec(`
      INSERT INTO runs (id, started_at, finished_at, source, targets, settings) VALUES (1, '2026-07-01T00:00:00.000Z', '2026-07-01T00:01:00.000Z', 'old.txt', 2, '{}');
      INSERT INTO targets (id, target, kind, name) VALUES (1, '${A}', 'http', NULL), (2, '${B}', 'http', NULL);
      INSERT INTO run_targets (run_id, target_id, position) VALUES (1, 1, 0), (1, 2, 1);
      INSERT INTO attempts (run_id, target_id, at, class, detail, defects, elapsed_ms)
        VALUES (1, 1, ${Date.parse("2026-07-01T00:00:10Z")}, 'protocol_violation', 'id_null', '${JSON.stringify([{ code: "id_null", severity: "error", path: "/id", message: "id is null" }, extra])}', 20000),
               (1, 2, ${Date.parse("2026-07-01T00:00:20Z")}, 'timeout', 'initialize', '[]', 75);
    `);
    v1.close();

    const store = new SqliteStore(file);
    assert.equal(schemaVersion(store.db), SCHEMA_VERSION);
    assert.deepEqual(
      store.db.prepare("SELECT version FROM schema_version ORDER BY version").pluck().all(),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
    const agg = await store.aggregate();
    assert.equal(agg.attempts, 2);
    assert.deepEqual(agg.defects, [
      { code: "id_null", count: 1 },
      { code: "unexpected_member", count: 1 },
    ]);
    assert.deepEqual(
      agg.latency.filter((b) => b.count > 0),
      [
        { upToMs: 100, count: 1 },
        { upToMs: null, count: 1 },
      ],
    );
    // and it goes on working as a new one
    const run = await store.startRun("old.txt", [{ target: A, kind: "http", name: null }], {});
    await store.recordAttempt(
      attempt(run, A, "2026-07-02T00:00:00.000Z", { defects: [extra], auth: { verdict: "broken" } }),
    );
    assert.equal((await store.aggregate()).perTarget.find((t) => t.target === A)?.attempts, 2);
    assert.deepEqual(
      (await collect(store.attempts({ target: A }))).map((a) => a.auth),
      [null, { verdict: "broken" }],
    );
    await store.close();
  });

  test("a database from a newer mcp-wire is refused, not guessed at", async () => {
    const file = newFile();
    await new SqliteStore(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_version (version, applied_at, why) VALUES (?, ?, ?)").run(
      SCHEMA_VERSION + 1,
      new Date().toISOString(),
      "the future",
    );
    db.close();
    assert.throws(() => new SqliteStore(file), /newer mcp-wire/);
  });

  test("the stored latency buckets are the report's", () => {
    assert.deepEqual(STORED_BOUNDS_MS, [...LATENCY_BOUNDS_MS]);
  });

  describe("a file that is not mcp-wire's is refused and left byte for byte as it was", () => {
    const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
    const besides = (file: string) =>
      readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}-`));

    const cases: [string, (file: string) => void, RegExp][] = [
      ["a text file", (f) => writeFileSync(f, "my notes\nline two\n"), /not an SQLite database/],
      [
        "another program's SQLite database",
        (f) => {
          const db = new Database(f);
          db.exec(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')",
          );
          db.close();
        },
        /tables mcp-wire did not make \(notes\)/,
      ],
      [
        "another program's database in WAL mode",
        (f) => {
          const db = new Database(f);
          db.pragma("journal_mode = WAL");
          db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')");
          db.close();
        },
        /tables mcp-wire did not make/,
      ],
      [
        "another program's database in WAL mode whose writer was killed with pages still in its -wal",
        (f) => {
          // the writer is a process of its own, killed before it could checkpoint: its tables
          // are in the -wal alone, and a connection closing last would move them into the file
          const writer = spawnSync(
            process.execPath,
            [
              "--input-type=module",
              "-e",
              `import Database from "better-sqlite3";
               const db = new Database(${JSON.stringify(f)});
               db.pragma("journal_mode = WAL");
               db.pragma("wal_autocheckpoint = 0");
               db.exec("CREATE TABLE payroll (who TEXT, pay INTEGER); INSERT INTO payroll VALUES ('ann', 100)");
               process.kill(process.pid, "SIGKILL");`,
            ],
            { cwd: process.cwd(), encoding: "utf8" },
          );
          assert.equal(writer.signal, "SIGKILL", writer.stderr);
          assert.deepEqual(besides(f).sort(), [`${path.basename(f)}-shm`, `${path.basename(f)}-wal`]);
        },
        /tables mcp-wire did not make \(payroll\)/,
      ],
      [
        "tables with our names that we did not make",
        (f) => {
          const db = new Database(f);
          db.exec("CREATE TABLE runs (x); CREATE TABLE attempts (y)");
          db.close();
        },
        /tables mcp-wire did not make \(attempts, runs\)/,
      ],
      [
        "a census database another program added a table to",
        (f) => {
          const db = new Database(f);
          migrate(db);
          db.exec("CREATE TABLE extra (z)");
          db.close();
        },
        /\(extra\)/,
      ],
    ];
    for (const [what, make, message] of cases) {
      test(what, () => {
        const file = newFile();
        make(file);
        const before = sha(file);
        const leftBefore = besides(file);
        // a reader may write its read marks into an -shm: that one need only still be there
        const shaBesides = () => leftBefore.filter((f) => !f.endsWith("-shm")).map((f) => [f, sha(path.join(dir, f))]);
        const besidesBefore = shaBesides();
        for (const readonly of [false, true]) {
          assert.throws(
            () => new SqliteStore(file, { readonly }),
            (e: Error) =>
              e instanceof StoreRefused &&
              (readonly ? /not a census database|not an SQLite database/ : message).test(e.message),
          );
          assert.equal(sha(file), before);
          assert.deepEqual(besides(file), leftBefore);
          assert.deepEqual(shaBesides(), besidesBefore);
        }
      });
    }

    test("a missing file is an error for a resume and a report, and is not created", () => {
      const file = newFile();
      assert.throws(() => new SqliteStore(file, { mustExist: true }), /no census database/);
      assert.throws(() => new SqliteStore(file, { readonly: true }), /no census database/);
      assert.equal(existsSync(file), false);
    });

    test("a report leaves no -wal or -shm beside the file, and does not change it", async () => {
      const file = newFile();
      await (await fill(new SqliteStore(file))).close();
      const before = sha(file);
      const reader = new SqliteStore(file, { readonly: true });
      assert.equal((await reader.aggregate()).attempts, 6);
      await reader.close();
      assert.deepEqual(besides(file), []);
      assert.equal(sha(file), before);

      // a file left in WAL mode (an older mcp-wire) is read through a private copy
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      db.close();
      const wal = sha(file);
      const again = new SqliteStore(file, { readonly: true });
      assert.equal((await again.aggregate()).attempts, 6);
      await again.close();
      assert.deepEqual(besides(file), []);
      assert.equal(sha(file), wal);
    });
  });
});
