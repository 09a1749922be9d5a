/**
 * The census Store on SQLite (better-sqlite3): one file, WAL so `report` can read while a census
 * writes, every attempt committed before its `recordAttempt` resolves (attempts finished within a
 * few (tens of) milliseconds of each other share one commit), and aggregates computed by GROUP BY over
 * covering indexes so a million attempts answer in well under two seconds.
 */
import { rmSync } from "node:fs";
import type Database from "better-sqlite3";
import { openReadonly, openWritable } from "./sqlite-open.js";
import { SCHEMA_VERSION, latencyBucket, schemaVersion } from "./sqlite-schema.js";
import { assemble, type AttemptGroup, type SigninGroup } from "./aggregate-rows.js";
import { SurfaceCache, surfaceOfRow, surfaceRow, type SurfaceRow } from "./surface-rows.js";
import {
  HISTORY_COLUMNS,
  LATEST_COLUMNS,
  attemptRecord,
  historyRecord,
  latestRecord,
  runRecord,
  targetRecord,
  type AttemptRow,
  type Decode,
  type HistoryRow,
  type LatestRow,
  type RunRow,
  type TargetRow,
} from "./rows.js";
import {
  StoreRefused,
  TARGET_PAGE,
  type AggregateOptions,
  type AttemptQuery,
  type AttemptRecord,
  type HistoryRecord,
  type Aggregates,
  type RunRecord,
  type Store,
  type TargetRecord,
  type TargetSummary,
} from "./store.js";

export interface SqliteStoreOptions {
  /**
   * Read an existing census without writing a byte (a report): no migration, and no `-wal` or
   * `-shm` file left beside it.
   */
  readonly?: boolean;
  /** Open only a database that exists (a resume): a missing file is an error, not a new census. */
  mustExist?: boolean;
}

/** How SQLite hands values back (see rows.ts). */
type Sqlite = { id: number; runTime: string; at: number; json: string; flag: number };
const decode: Decode<Sqlite> = {
  id: (v) => v,
  runTime: (v) => v,
  at: (v) => iso(v),
  json: <T>(v: string) => JSON.parse(v) as T,
};

type Statement = Database.Statement<unknown[], unknown>;

/**
 * How long an attempt waits for others to share its commit, ms: short, as the attempt counts as
 * done only once committed (a census that is told to stop after it stops soon after)…
 */
const COMMIT_WINDOW_MS = 10;
/**
 * … and longer while attempts come many at once (the last commit gathered BUSY_BATCH or more): a
 * census frees a probe's place before its attempt is committed, so the wait costs it no probe
 * time, and 500 probes at a time (~1,000 attempts a second) gather about forty in this window,
 * ~13 µs CPU per attempt, against ~25–33 µs at the eight of the short one. The long window still
 * ends COMMIT_WINDOW_MS after the last attempt came: when a census's last attempts are in, or
 * it is told to stop, nothing waits the rest of it.
 */
const BUSY_WINDOW_MS = 40;
const BUSY_BATCH = 8;
/** Pending attempts committed at once, whatever the window: more would gain little per attempt. */
const COMMIT_BATCH = 64;

interface Pending {
  attempt: AttemptRecord;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class SqliteStore implements Store {
  readonly db: Database.Database;
  readonly where: string;
  readonly #insertAttempt: Statement;
  readonly #insertDefect: Statement;
  readonly #insertDefinition: Statement;
  readonly #insertSurface: Statement;
  readonly #targetId: Statement;
  readonly #upsertTarget: Statement;
  readonly #recordOne: (a: AttemptRecord) => void;
  readonly #recordBatch: (batch: readonly Pending[]) => void;
  /** Attempts handed to recordAttempt and not yet committed, in the order they came. */
  #pending: Pending[] = [];
  /** Commits the pending attempts when their window is over. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The last commit gathered BUSY_BATCH or more: the next window is BUSY_WINDOW_MS. */
  #busy = false;
  /** When the first and the last of the pending attempts came (performance.now()). */
  #firstAt = 0;
  #lastAt = 0;
  /** Target row ids by target, for the attempts of the runs this connection started. */
  readonly #ids = new Map<string, number>();
  readonly #readonly: boolean;
  /** A private copy a report reads instead of the user's file (see openReadonly). */
  readonly #copy: string | undefined;

  constructor(
    readonly file: string,
    options: SqliteStoreOptions = {},
  ) {
    this.where = file;
    this.#readonly = options.readonly === true;
    if (this.#readonly) {
      const opened = openReadonly(file);
      this.db = opened.db;
      this.#copy = opened.copy;
      try {
        const version = schemaVersion(this.db);
        if (version !== SCHEMA_VERSION)
          throw new StoreRefused(
            `${file}: schema version ${version}, this mcp-wire reads ${SCHEMA_VERSION}; run a census on it once to migrate it`,
          );
      } catch (e) {
        this.#dispose();
        throw e;
      }
    } else {
      this.db = openWritable(file, options.mustExist === true);
      this.#copy = undefined;
    }
    this.db.pragma("foreign_keys = ON");

    this.#insertAttempt = this.db.prepare(
      `INSERT INTO attempts (run_id, target_id, at, class, detail, era, revision, transport, http_status, content_type,
         rpc_code, rpc_message, rpc_range, tools, server_name, server_version, defects, elapsed_ms, latency_bucket, repro, advice, auth)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertDefect = this.db.prepare("INSERT OR IGNORE INTO attempt_defects (code, attempt_id) VALUES (?, ?)");
    this.#insertDefinition = this.db.prepare(
      "INSERT OR IGNORE INTO tool_definitions (digest, definition) VALUES (?, ?)",
    );
    this.#insertSurface = this.db.prepare(
      "INSERT INTO attempt_surfaces (attempt_id, tools, resources, templates, prompts) VALUES (?, ?, ?, ?, ?)",
    );
    this.#targetId = this.db.prepare("SELECT id FROM targets WHERE target = ?").pluck();
    this.#upsertTarget = this.db
      .prepare(
        `INSERT INTO targets (target, kind, name) VALUES (?, ?, ?)
       ON CONFLICT (target) DO UPDATE SET kind = excluded.kind, name = coalesce(excluded.name, targets.name)
       RETURNING id`,
      )
      .pluck();
    this.#recordOne = this.db.transaction((a: AttemptRecord) => this.#insert(a));
    this.#recordBatch = this.db.transaction((batch: readonly Pending[]) => {
      for (const p of batch) this.#insert(p.attempt);
    });
  }

  async startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): Promise<number> {
    this.#flush();
    const insertRun = this.db.prepare("INSERT INTO runs (started_at, source, targets, settings) VALUES (?, ?, ?, ?)");
    const insertRunTarget = this.db.prepare(
      "INSERT INTO run_targets (run_id, target_id, position, untrusted, invalid) VALUES (?, ?, ?, ?, ?)",
    );
    const ids: [string, number][] = [];
    const runId = this.db.transaction(() => {
      const runId = Number(
        insertRun.run(new Date().toISOString(), source, targets.length, JSON.stringify(settings)).lastInsertRowid,
      );
      targets.forEach((t, i) => {
        const targetId = this.#upsertTarget.get(t.target, t.kind, t.name) as number;
        ids.push([t.target, targetId]);
        insertRunTarget.run(runId, targetId, i, t.untrusted ? 1 : 0, t.invalid ?? null);
      });
      return runId;
    })();
    for (const [target, id] of ids) this.#ids.set(target, id);
    return runId;
  }

  async finishRun(runId: number): Promise<void> {
    this.#flush();
    const changed = this.db
      .prepare("UPDATE runs SET finished_at = ? WHERE id = ?")
      .run(new Date().toISOString(), runId).changes;
    if (changed === 0) throw new Error(`no run ${runId}`);
  }

  /**
   * Resolves once the attempt is committed, so whatever the caller reports as done survives a
   * killed process. Attempts recorded while a window is open (COMMIT_WINDOW_MS, BUSY_WINDOW_MS)
   * are committed together in one transaction: a commit writes every page it touched to the WAL
   * (the row's and each index's), and attempts recorded close together share most of those
   * pages, so a commit of two costs ~85 µs CPU per attempt, one of eight ~30 µs and one of
   * thirty-two ~13 µs. (Within one turn of the event loop a busy census gathered only two or
   * three.)
   */
  recordAttempt(attempt: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      const n = this.#pending.push({ attempt, resolve, reject });
      if (n >= COMMIT_BATCH) return this.#flush();
      this.#lastAt = performance.now();
      if (n === 1) {
        this.#firstAt = this.#lastAt;
        this.#timer = setTimeout(this.#windowEnds, COMMIT_WINDOW_MS);
      }
    });
  }

  /** Commits now unless the long window is open and attempts are still coming. */
  readonly #windowEnds = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    const quietFor = now - this.#lastAt;
    const left = this.#firstAt + BUSY_WINDOW_MS - now;
    if (!this.#busy || quietFor >= COMMIT_WINDOW_MS || left <= 0) return this.#flush();
    this.#timer = setTimeout(this.#windowEnds, Math.min(left, COMMIT_WINDOW_MS - quietFor));
  };

  /** Commits what is pending now; every other method calls it first, so it sees what was recorded. */
  readonly #flush = (): void => {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#busy = batch.length >= BUSY_BATCH;
    if (batch.length > 1) {
      try {
        this.#recordBatch(batch);
        for (const p of batch) p.resolve();
        return;
      } catch {
        // rolled back whole: each again on its own, so one that cannot be stored fails alone
      }
    }
    for (const p of batch) {
      try {
        this.#recordOne(p.attempt);
        p.resolve();
      } catch (e) {
        p.reject(e);
      }
    }
  };

  /**
   * Many attempts in one transaction: an import, or a benchmark filling a database. A census
   * uses `recordAttempt`, whose promise says when each attempt is committed.
   */
  async recordAttempts(attempts: Iterable<AttemptRecord>): Promise<number> {
    this.#flush();
    return this.db.transaction(() => {
      let n = 0;
      for (const a of attempts) {
        this.#insert(a);
        n++;
      }
      return n;
    })();
  }

  #insert(a: AttemptRecord): void {
    const at = Date.parse(a.at);
    if (!Number.isFinite(at)) throw new Error(`attempt of ${a.target}: "at" is not a time: ${JSON.stringify(a.at)}`);
    const targetId = this.#idOf(a.target);
    // positional, in the order of the INSERT's columns: binding by name costs a lookup per column
    const id = this.#insertAttempt.run(
      a.runId,
      targetId,
      at,
      a.class,
      a.detail,
      a.era,
      a.revision,
      a.transport,
      a.httpStatus,
      a.contentType,
      a.rpcCode,
      a.rpcMessage,
      a.rpcRange,
      a.tools,
      a.serverName,
      a.serverVersion,
      JSON.stringify(a.defects),
      Math.round(a.elapsedMs),
      latencyBucket(a.elapsedMs),
      a.repro,
      a.advice,
      a.auth === null || a.auth === undefined ? null : JSON.stringify(a.auth),
    ).lastInsertRowid;
    for (const d of a.defects) this.#insertDefect.run(d.code, id);
    if (a.surface) {
      const row = surfaceRow(a.surface);
      for (const t of a.surface.tools)
        if (t.definition !== undefined) this.#insertDefinition.run(t.digest, t.definition);
      this.#insertSurface.run(id, row.tools, row.resources, row.templates, row.prompts);
    }
  }

  /**
   * A target's row id: remembered from a committed startRun (rows are never deleted, so the id
   * stays), else looked up; one made here is not remembered, as its transaction may yet roll back.
   */
  #idOf(target: string): number {
    return (
      this.#ids.get(target) ??
      (this.#targetId.get(target) as number | undefined) ??
      (this.#upsertTarget.get(target, "http", null) as number)
    );
  }

  async pendingTargets(runId: number): Promise<TargetRecord[]> {
    this.#flush();
    const rows = this.db
      .prepare(
        `SELECT t.target, t.kind, t.name, rt.untrusted, rt.invalid FROM run_targets rt JOIN targets t ON t.id = rt.target_id
         WHERE rt.run_id = ? AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = rt.run_id AND a.target_id = rt.target_id)
         ORDER BY rt.position`,
      )
      .all(runId) as TargetRow<Sqlite>[];
    return rows.map(targetRecord);
  }

  async unfinishedRun(): Promise<RunRecord | undefined> {
    this.#flush();
    const row = this.db.prepare("SELECT * FROM runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1").get() as
      RunRow<Sqlite> | undefined;
    return row && runRecord(row, decode);
  }

  async runs(): Promise<RunRecord[]> {
    this.#flush();
    return this.#runs();
  }

  #runs(): RunRecord[] {
    return (this.db.prepare("SELECT * FROM runs ORDER BY id").all() as RunRow<Sqlite>[]).map((r) =>
      runRecord(r, decode),
    );
  }

  /**
   * Streams rows as SQLite reads them. While one is being iterated this connection runs no other
   * statement (better-sqlite3 says "busy"): finish it, or break out of the loop, first.
   */
  async *attempts(query: AttemptQuery = {}): AsyncIterableIterator<AttemptRecord> {
    this.#flush();
    const where = whereOf(query);
    const rows = this.db
      .prepare(
        `SELECT a.*, t.target, s.tools AS s_tools, s.resources AS s_resources, s.templates AS s_templates, s.prompts AS s_prompts
         FROM attempts a JOIN targets t ON t.id = a.target_id LEFT JOIN attempt_surfaces s ON s.attempt_id = a.id
         ${where.sql} ORDER BY a.at, a.id`,
      )
      .iterate(...where.params) as IterableIterator<AttemptRow<Sqlite> & SurfaceRow>;
    for (const r of rows) {
      const a = attemptRecord(r, decode);
      a.surface = surfaceOfRow(r);
      yield a;
    }
  }

  async *history(query: AttemptQuery = {}): AsyncIterableIterator<HistoryRecord> {
    this.#flush();
    const where = whereOf(query);
    const rows = this.db
      .prepare(
        `SELECT ${HISTORY_COLUMNS}, s.tools AS s_tools, s.resources AS s_resources, s.templates AS s_templates, s.prompts AS s_prompts
         FROM attempts a JOIN targets t ON t.id = a.target_id LEFT JOIN attempt_surfaces s ON s.attempt_id = a.id
         ${where.sql} ORDER BY a.at, a.id`,
      )
      .iterate(...where.params) as IterableIterator<HistoryRow<Sqlite>>;
    const surfaces = new SurfaceCache();
    for (const r of rows) yield historyRecord(r, decode, surfaces);
  }

  async toolDefinitions(digests: readonly string[]): Promise<Map<string, string>> {
    this.#flush();
    const get = this.db.prepare("SELECT definition FROM tool_definitions WHERE digest = ?").pluck();
    const out = new Map<string, string>();
    for (const d of new Set(digests)) {
      const definition = get.get(d) as string | undefined;
      if (definition !== undefined) out.set(d, definition);
    }
    return out;
  }

  async prune(before: string): Promise<number> {
    const cut = Date.parse(before);
    if (!Number.isFinite(cut)) throw new Error(`before: not a date: ${JSON.stringify(before)}`);
    this.#flush();
    return this.db
      .transaction(() => {
        const old = "SELECT id FROM attempts WHERE at < ?";
        this.db.prepare(`DELETE FROM attempt_defects WHERE attempt_id IN (${old})`).run(cut);
        this.db.prepare(`DELETE FROM attempt_surfaces WHERE attempt_id IN (${old})`).run(cut);
        const deleted = this.db.prepare("DELETE FROM attempts WHERE at < ?").run(cut).changes;
        this.db.exec(
          `DELETE FROM tool_definitions WHERE digest NOT IN
           (SELECT json_extract(j.value, '$[1]') FROM attempt_surfaces s, json_each(s.tools) j)`,
        );
        return deleted;
      })
      .immediate();
  }

  async aggregate(query: AttemptQuery = {}, options: AggregateOptions = {}): Promise<Aggregates> {
    return this.aggregateNow(query, options);
  }

  /** The same, computed before it returns: for a benchmark timing SQLite itself. */
  aggregateNow(query: AttemptQuery = {}, options: AggregateOptions = {}): Aggregates {
    this.#flush();
    const where = whereOf(query);
    const span = this.#span(where);
    return assemble({
      signin: this.#signin(where),
      runs: this.#runs(),
      groups: this.#groups(where),
      firstAt: span.first === null ? null : iso(span.first),
      lastAt: span.last === null ? null : iso(span.last),
      ...this.#failures(where),
      ...(options.perTarget === false
        ? {
            perTarget: [],
            targets: this.db
              .prepare(`SELECT COUNT(DISTINCT a.target_id) FROM attempts a ${where.sql}`)
              .pluck()
              .get(...where.params) as number,
          }
        : { perTarget: this.#perTarget(where) }),
    });
  }

  #all<T>(where: Where, sql: string): T[] {
    return this.db.prepare(sql).all(...where.params) as T[];
  }

  /**
   * One scan of the attempts_by_run index, grouped in its own order (so SQLite never sorts),
   * gives runs, classes, classes per run, revisions and latency: a pass over narrow index
   * entries, with nothing computed per row.
   */
  #groups(where: Where) {
    return this.#all<AttemptGroup>(
      where,
      `SELECT run_id AS runId, class, detail, era, revision, latency_bucket AS bucket, COUNT(*) AS n
       FROM attempts a ${where.sql} GROUP BY run_id, class, detail, era, revision, latency_bucket`,
    );
  }

  /** The first and last attempt's time. */
  #span(where: Where): { first: number | null; last: number | null } {
    // apart, each is one seek at an end of attempts_by_time; together SQLite would scan it all
    return this.db
      .prepare(
        `SELECT (SELECT MIN(a.at) FROM attempts a ${where.sql}) AS first, (SELECT MAX(a.at) FROM attempts a ${where.sql}) AS last`,
      )
      .get(...where.params, ...where.params) as { first: number | null; last: number | null };
  }

  /** What went wrong: JSON-RPC errors, HTTP statuses of failures, message defects. */
  #failures(where: Where) {
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    const rpcGroups = this.#all<{
      code: number;
      range: string | null;
      class: string;
      detail: string;
      message: string | null;
      n: number;
    }>(
      where,
      `SELECT rpc_code AS code, rpc_range AS range, class, detail, rpc_message AS message, COUNT(*) AS n, MIN(at) AS first
       FROM attempts a ${and} rpc_code IS NOT NULL GROUP BY rpc_code, rpc_range, class, detail, rpc_message ORDER BY first, message`,
    );
    const httpStatuses = this.#all<{ status: number; count: number }>(
      where,
      `SELECT http_status AS status, COUNT(*) AS count FROM attempts a ${and} class <> 'ok' AND http_status IS NOT NULL GROUP BY http_status`,
    );
    // attempt_defects is keyed (code, attempt): grouped in key order, each code once per attempt
    const defects = this.#all<{ code: string; count: number }>(
      where,
      where.sql
        ? `SELECT code, COUNT(*) AS count FROM attempt_defects WHERE attempt_id IN (SELECT a.id FROM attempts a ${where.sql}) GROUP BY code`
        : "SELECT code, COUNT(*) AS count FROM attempt_defects GROUP BY code",
    );
    return { rpcGroups, httpStatuses, defects };
  }

  /**
   * A server once, by its latest walk; the chain's first error: the walk lists defects in chain
   * order, errors first at each step.
   */
  #signin(where: Where): SigninGroup[] {
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    return this.#all<SigninGroup>(
      where,
      `SELECT verdict, firstError, lenient, COUNT(*) AS n FROM (
         SELECT json_extract(a.auth, '$.verdict') AS verdict,
           (SELECT json_extract(d.value, '$.code') FROM json_each(a.auth, '$.defects') d
            WHERE json_extract(d.value, '$.severity') = 'error' ORDER BY CAST(d.key AS INTEGER) LIMIT 1) AS firstError,
           json_extract(a.auth, '$.clients.lenient') AS lenient,
           ROW_NUMBER() OVER (PARTITION BY a.target_id ORDER BY a.at DESC, a.id DESC) AS k
         FROM attempts a ${and} a.auth IS NOT NULL)
       WHERE k = 1 GROUP BY 1, 2, 3`,
    );
  }

  /**
   * A page of targets at a time, in the order of their ids, each page read whole before it is
   * handed out: no statement stays open while the caller works, which better-sqlite3 requires.
   */
  async *perTarget(query: AttemptQuery = {}): AsyncIterableIterator<TargetSummary> {
    this.#flush();
    const where = whereOf(query);
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    const ids = this.db
      .prepare(`SELECT DISTINCT a.target_id FROM attempts a ${and} a.target_id > ? ORDER BY a.target_id LIMIT ?`)
      .pluck();
    const counts = this.db.prepare(
      `SELECT target_id, class, COUNT(*) AS n FROM attempts a ${and} a.target_id BETWEEN ? AND ? GROUP BY target_id, class`,
    );
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const page = ids.all(...where.params, after, TARGET_PAGE) as number[];
      if (page.length === 0) return;
      const rows = counts.all(...where.params, page[0], page.at(-1)) as {
        target_id: number;
        class: string;
        n: number;
      }[];
      yield* this.#summaries(where, rows);
      if (page.length < TARGET_PAGE) return;
      after = page.at(-1)!;
    }
  }

  /**
   * Per target: attempts per class from one ordered scan of attempts_by_target, then its first
   * and latest attempts, each one index seek.
   */
  #perTarget(where: Where): Aggregates["perTarget"] {
    const rows = this.db
      .prepare(`SELECT target_id, class, COUNT(*) AS n FROM attempts a ${where.sql} GROUP BY target_id, class`)
      .all(...where.params) as {
      target_id: number;
      class: string;
      n: number;
    }[];
    return this.#summaries(where, rows);
  }

  /** Each target's summary from its attempts per class: its first and latest attempts, each one index seek. */
  #summaries(where: Where, rows: readonly { target_id: number; class: string; n: number }[]): TargetSummary[] {
    const byTarget = new Map<number, { attempts: number; classes: Record<string, number> }>();
    for (const r of rows) {
      let t = byTarget.get(r.target_id);
      if (!t) byTarget.set(r.target_id, (t = { attempts: 0, classes: {} }));
      t.attempts += r.n;
      t.classes[r.class] = r.n;
    }
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    const first = this.db
      .prepare(`SELECT a.at FROM attempts a ${and} a.target_id = ? ORDER BY a.at, a.id LIMIT 1`)
      .pluck();
    const latest = this.db.prepare(
      `SELECT ${LATEST_COLUMNS}
       FROM attempts a JOIN targets t ON t.id = a.target_id
       ${and} a.target_id = ? ORDER BY a.at DESC, a.id DESC LIMIT 1`,
    );
    const out: Aggregates["perTarget"] = [];
    for (const [targetId, t] of byTarget) {
      const l = latest.get(...where.params, targetId) as LatestRow<Sqlite>;
      out.push({
        target: l.target,
        name: l.name,
        attempts: t.attempts,
        firstAt: iso(first.get(...where.params, targetId) as number),
        lastAt: iso(l.at),
        classes: t.classes,
        latest: latestRecord(l, decode),
      });
    }
    return out;
  }

  async close(): Promise<void> {
    this.#flush();
    this.#dispose();
  }

  #dispose(): void {
    if (this.db.open) {
      // back to a rollback journal when this is the last connection, so a report opening the
      // file read-only later finds no WAL to set up and leaves no -wal/-shm beside it
      if (!this.#readonly) {
        try {
          this.db.pragma("busy_timeout = 0");
          this.db.pragma("journal_mode = DELETE");
        } catch {
          // another connection is open: the last one to close does it
        }
      }
      this.db.close();
    }
    if (this.#copy) rmSync(this.#copy, { recursive: true, force: true });
  }
}

interface Where {
  sql: string;
  params: unknown[];
}

/** The WHERE clause over `attempts a` for a query; the same parameters in every statement. */
function whereOf(query: AttemptQuery): Where {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (query.runIds) {
    terms.push(query.runIds.length === 0 ? "0" : `a.run_id IN (${query.runIds.map(() => "?").join(", ")})`);
    params.push(...query.runIds);
  }
  if (query.since !== undefined) {
    const since = Date.parse(query.since);
    if (!Number.isFinite(since)) throw new Error(`since: not a date: ${JSON.stringify(query.since)}`);
    terms.push("a.at >= ?");
    params.push(since);
  }
  if (query.target !== undefined) {
    terms.push("a.target_id = (SELECT id FROM targets WHERE target = ?)");
    params.push(query.target);
  }
  return { sql: terms.length ? `WHERE ${terms.join(" AND ")}` : "", params };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
