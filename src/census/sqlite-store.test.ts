import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { Defect } from "../codec/defects.js";
import { SCHEMA_VERSION, STORED_BOUNDS_MS, migrate, schemaVersion } from "./sqlite-schema.js";
import { SqliteStore } from "./sqlite-store.js";
import { LATENCY_BOUNDS_MS, type AttemptRecord, type TargetRecord } from "./store.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-store-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `t${++files}.db`);

const A = "https://a.example/mcp";
const B = "https://b.example/mcp";
const C = "https://c.example/mcp";
const TARGETS: TargetRecord[] = [
  { target: A, kind: "http", name: "example/a", untrusted: true },
  { target: B, kind: "sse", name: null },
  { target: C, kind: "http", name: null, invalid: "template" },
];

const legacyCode: Defect = { code: "error_code_legacy", severity: "warning", path: "/error/code", message: "legacy range" } as Defect;
const extra: Defect = { code: "unexpected_member", severity: "warning", path: "/result/x", message: "x" } as Defect;

function attempt(runId: number, target: string, at: string, over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    runId,
    target,
    at,
    class: "ok",
    detail: "modern",
    era: "modern",
    revision: "2026-07-28",
    transport: "streamable-http",
    httpStatus: 200,
    contentType: "application/json",
    rpcCode: null,
    rpcMessage: null,
    rpcRange: null,
    tools: 3,
    serverName: "s",
    serverVersion: "1.0.0",
    defects: [],
    elapsedMs: 40,
    repro: null,
    advice: "fine",
    ...over,
  };
}

const refusal = (runId: number, target: string, at: string, message: string) =>
  attempt(runId, target, at, {
    class: "auth_required",
    detail: "rpc_error_instead_of_401",
    era: null,
    revision: null,
    rpcCode: -32001,
    rpcMessage: message,
    rpcRange: "legacy",
    tools: null,
    serverName: null,
    serverVersion: null,
    defects: [legacyCode, legacyCode],
    elapsedMs: 700,
    repro: "curl -sS …",
    advice: "send a 401",
  });

/** Two runs over A, B, C: what every aggregate test reads. */
function filled(): SqliteStore {
  const store = new SqliteStore(newFile());
  const r1 = store.startRun("targets.txt", TARGETS, { timeout: 2000 });
  store.recordAttempt(attempt(r1, A, "2026-07-20T10:00:00.000Z", { defects: [extra] }));
  store.recordAttempt(refusal(r1, B, "2026-07-20T10:00:01.000Z", "Invalid API key"));
  store.recordAttempt(attempt(r1, C, "2026-07-20T10:00:02.000Z", { class: "invalid_target", detail: "template", era: null, revision: null, httpStatus: null, tools: 0, elapsedMs: 0 }));
  store.finishRun(r1);
  const r2 = store.startRun("targets.txt", TARGETS, { timeout: 2000 });
  store.recordAttempt(attempt(r2, A, "2026-08-05T09:00:00.000Z", { class: "web_page", detail: "text/html", era: null, revision: null, httpStatus: 200, contentType: "text/html", tools: null, elapsedMs: 3000 }));
  store.recordAttempt(refusal(r2, B, "2026-08-05T09:00:01.000Z", "Missing token"));
  store.recordAttempt(attempt(r2, C, "2026-08-05T09:00:02.000Z", { revision: "2025-06-18", era: "legacy", detail: "legacy", elapsedMs: 120 }));
  return store;
}

describe("SqliteStore", () => {
  test("opens in WAL mode at the latest schema version", () => {
    const store = new SqliteStore(newFile());
    assert.equal(store.db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(schemaVersion(store.db), SCHEMA_VERSION);
    store.close();
  });

  test("runs, their targets, attempts, pending targets and the unfinished run round-trip", () => {
    const file = newFile();
    const store = new SqliteStore(file);
    const run = store.startRun("registry.json", TARGETS, { concurrency: 4 });
    assert.deepEqual(store.pendingTargets(run), TARGETS);
    const a = attempt(run, A, "2026-07-20T10:00:00.000Z", { defects: [extra], elapsedMs: 12.6 });
    store.recordAttempt(a);
    store.close();

    const again = new SqliteStore(file);
    assert.deepEqual(again.pendingTargets(run), TARGETS.slice(1));
    assert.deepEqual([...again.attempts()], [{ ...a, elapsedMs: 13 }]);
    const unfinished = again.unfinishedRun();
    assert.equal(unfinished?.id, run);
    assert.deepEqual(unfinished?.settings, { concurrency: 4 });
    assert.equal(unfinished?.targets, 3);
    assert.equal(unfinished?.source, "registry.json");
    again.finishRun(run);
    assert.equal(again.unfinishedRun(), undefined);
    assert.ok(again.runs()[0]?.finishedAt);
    again.close();
  });

  test("a second attempt of one target in one run is refused, and leaves nothing behind", () => {
    const store = new SqliteStore(newFile());
    const run = store.startRun("t", TARGETS, {});
    store.recordAttempt(attempt(run, A, "2026-07-20T10:00:00.000Z"));
    assert.throws(() => store.recordAttempt(attempt(run, A, "2026-07-20T10:00:05.000Z", { defects: [extra] })), /UNIQUE/);
    assert.equal([...store.attempts()].length, 1);
    assert.equal(store.db.prepare("SELECT COUNT(*) FROM attempt_defects").pluck().get(), 0);
    store.close();
  });

  test("a re-run appends: the same targets get a new run and keep their history", () => {
    const store = filled();
    assert.deepEqual(
      store.runs().map((r) => r.id),
      [1, 2],
    );
    assert.equal(store.db.prepare("SELECT COUNT(*) FROM targets").pluck().get(), 3);
    assert.deepEqual(
      [...store.attempts({ target: B })].map((a) => a.rpcMessage),
      ["Invalid API key", "Missing token"],
    );
    store.close();
  });

  test("aggregate() counts classes, runs, revisions, errors, statuses, latency, defects and per-target history", () => {
    const store = filled();
    const agg = store.aggregate();
    assert.equal(agg.attempts, 6);
    assert.equal(agg.targets, 3);
    assert.equal(agg.firstAt, "2026-07-20T10:00:00.000Z");
    assert.equal(agg.lastAt, "2026-08-05T09:00:02.000Z");
    assert.deepEqual(
      agg.runs.map((r) => [r.id, r.attempts, r.finishedAt !== null]),
      [
        [1, 3, true],
        [2, 3, false],
      ],
    );
    assert.deepEqual(agg.classes, [
      { class: "auth_required", detail: "rpc_error_instead_of_401", count: 2 },
      { class: "invalid_target", detail: "template", count: 1 },
      { class: "ok", detail: "legacy", count: 1 },
      { class: "ok", detail: "modern", count: 1 },
      { class: "web_page", detail: "text/html", count: 1 },
    ]);
    assert.deepEqual(agg.classesPerRun, [
      { runId: 1, class: "auth_required", count: 1 },
      { runId: 1, class: "invalid_target", count: 1 },
      { runId: 1, class: "ok", count: 1 },
      { runId: 2, class: "auth_required", count: 1 },
      { runId: 2, class: "ok", count: 1 },
      { runId: 2, class: "web_page", count: 1 },
    ]);
    assert.deepEqual(
      agg.revisions.sort((a, b) => String(a.revision).localeCompare(String(b.revision))),
      [
        { era: "legacy", revision: "2025-06-18", count: 1 },
        { era: "modern", revision: "2026-07-28", count: 1 },
      ],
    );
    assert.deepEqual(agg.rpcErrors, [{ code: -32001, range: "legacy", class: "auth_required", detail: "rpc_error_instead_of_401", count: 2, messages: ["Invalid API key", "Missing token"] }]);
    assert.deepEqual(agg.httpStatuses, [{ status: 200, count: 3 }]);
    assert.deepEqual(
      agg.latency.filter((b) => b.count > 0),
      [
        { upToMs: 50, count: 2 },
        { upToMs: 250, count: 1 },
        { upToMs: 1000, count: 2 },
        { upToMs: 5000, count: 1 },
      ],
    );
    // a defect seen twice in one attempt counts once for it
    assert.deepEqual(agg.defects, [
      { code: "error_code_legacy", count: 2 },
      { code: "unexpected_member", count: 1 },
    ]);
    const a = agg.perTarget.find((t) => t.target === A)!;
    assert.deepEqual(a, {
      target: A,
      name: "example/a",
      attempts: 2,
      firstAt: "2026-07-20T10:00:00.000Z",
      lastAt: "2026-08-05T09:00:00.000Z",
      classes: { ok: 1, web_page: 1 },
      latest: { class: "web_page", detail: "text/html", era: null, revision: null, at: "2026-08-05T09:00:00.000Z", advice: "fine", tools: null, elapsedMs: 3000 },
    });
    store.close();
  });

  test("aggregate() filters by run, time and target", () => {
    const store = filled();
    const run2 = store.aggregate({ runIds: [2] });
    assert.equal(run2.attempts, 3);
    assert.deepEqual(
      run2.runs.map((r) => r.id),
      [2],
    );
    assert.deepEqual(run2.rpcErrors[0]?.messages, ["Missing token"]);
    assert.deepEqual(run2.defects, [{ code: "error_code_legacy", count: 1 }]);
    const since = store.aggregate({ since: "2026-08-01" });
    assert.equal(since.attempts, 3);
    assert.equal(since.firstAt, "2026-08-05T09:00:00.000Z");
    const b = store.aggregate({ target: B });
    assert.equal(b.attempts, 2);
    assert.equal(b.perTarget.length, 1);
    assert.equal(b.perTarget[0]?.latest.class, "auth_required");
    const none = store.aggregate({ runIds: [] });
    assert.equal(none.attempts, 0);
    assert.equal(none.firstAt, null);
    assert.deepEqual(none.perTarget, []);
    assert.throws(() => store.aggregate({ since: "last tuesday" }), /not a date/);
    store.close();
  });

  test("a report can read while a census writes (WAL), and a read-only store refuses an old schema", () => {
    const file = newFile();
    const writer = filled();
    const reader = new SqliteStore(writer.file, { readonly: true });
    writer.recordAttempt(attempt(1, "https://d.example/mcp", "2026-08-06T00:00:00.000Z"));
    assert.equal(reader.aggregate().attempts, 7);
    reader.close();
    writer.close();

    const old = new Database(file);
    migrate(old, 1);
    old.close();
    assert.throws(() => new SqliteStore(file, { readonly: true }), /schema version 1/);
  });

  test("a version-1 database is migrated: defects get their table, latencies their buckets, history is kept", () => {
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
    const agg = store.aggregate();
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
    const run = store.startRun("old.txt", [{ target: A, kind: "http", name: null }], {});
    store.recordAttempt(attempt(run, A, "2026-07-02T00:00:00.000Z", { defects: [extra] }));
    assert.equal(store.aggregate().perTarget.find((t) => t.target === A)?.attempts, 2);
    store.close();
  });

  test("a database from a newer mcp-wire is refused, not guessed at", () => {
    const file = newFile();
    new SqliteStore(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_version (version, applied_at, why) VALUES (?, ?, ?)").run(SCHEMA_VERSION + 1, new Date().toISOString(), "the future");
    db.close();
    assert.throws(() => new SqliteStore(file), /newer mcp-wire/);
  });

  test("the stored latency buckets are the report's", () => {
    assert.deepEqual(STORED_BOUNDS_MS, [...LATENCY_BOUNDS_MS]);
  });
});
