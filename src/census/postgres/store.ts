/**
 * The census Store on PostgreSQL (node-postgres): the same runs, targets and attempts as the
 * SQLite store, in a schema of its own, plus a work queue through which census processes on
 * any number of machines share one run.
 *
 * The queue is plain SQL rather than pg-boss or graphile-worker. Those libraries run jobs that
 * are independent of each other; a census needs two things they do not give: a limit on
 * requests in flight to one host across every worker (a job queue's concurrency is per queue or
 * per worker, not per key), and the census's own tables as the queue (the targets of a run are
 * already rows; copying them into a job table would keep two truths about what is done). With
 * plain SQL, a claim and the host slot it takes are one row under one lease, so a worker that
 * dies can hold neither past its lease, and "exactly one finished attempt per target" is the
 * attempts table's unique key.
 */
import os from "node:os";
import type pg from "pg";
import { assemble, type AttemptGroup, type SigninGroup } from "../aggregate-rows.js";
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
} from "../rows.js";
import { redact } from "../../secrets/redact.js";
import { hostOf } from "../host-of.js";
import { latencyBucket } from "../sqlite-schema.js";
import {
  StoreRefused,
  StoreUnreachable,
  TARGET_PAGE,
  type AggregateOptions,
  type Aggregates,
  type AttemptQuery,
  type AttemptRecord,
  type HistoryRecord,
  type RunRecord,
  type SharedRun,
  type ShareOptions,
  type Store,
  type TargetRecord,
  type TargetSummary,
} from "../store.js";
import { connect, describeDb, guarded, lostServer, type Connections } from "./connection.js";
import { settlesWithin } from "../../peer/within.js";
import { PG_SCHEMA_VERSION, SCHEMA, pgMigrate, pgSchemaVersion } from "./schema.js";
import { SurfaceCache, surfaceOfRow, type SurfaceRow } from "../surface-rows.js";

export interface PostgresStoreOptions {
  /** Read only (a report): nothing created or migrated, every transaction read-only. */
  readonly?: boolean;
  /** How long one database call may take, ms (see DEFAULT_DEADLINE_MS). */
  deadlineMs?: number;
}

/** How PostgreSQL hands values back through pg (see rows.ts). */
type Pg = { id: string; runTime: Date; at: Date; json: unknown; flag: boolean };
const decode: Decode<Pg> = {
  id: (v) => Number(v),
  runTime: (v) => v.toISOString(),
  at: (v) => v.toISOString(),
  json: <T>(v: unknown) => v as T,
};
/** The latest attempt of each target, with the target's id to match its counts. */
type PgLatest = LatestRow<Pg> & { target_id: string };

/** How long a worker leaving a run waits to give back its claims. */
const LEAVE_MS = 2_000;
/** Rows fetched at a time when streaming attempts. */
const PAGE = 2000;
/** The oldest PostgreSQL this schema is written for (docs/census.md promises PostgreSQL 14 or newer). */
const MIN_SERVER = 140000;

export class PostgresStore implements Store {
  private constructor(
    private readonly connections: Connections,
    readonly where: string,
    private readonly url: string,
    private readonly deadlineMs: number | undefined,
  ) {}

  get pool(): pg.Pool {
    return this.connections.pool;
  }

  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const where = describeDb(url);
    const connections = connect(url, {
      settings: options.readonly ? " -c default_transaction_read_only=on" : "",
      max: 4,
      ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    });
    try {
      const client = await connections.pool.connect();
      try {
        const server = Number(
          (await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]!.v,
        );
        if (server < MIN_SERVER)
          throw new StoreRefused(
            `${where}: PostgreSQL ${Math.floor(server / 10000)} is too old; mcp-wire needs 14 or newer`,
          );
        if (options.readonly) {
          const version = await pgSchemaVersion(client, where);
          if (version === 0)
            throw new StoreRefused(
              `${where} holds no mcp-wire census (schema ${SCHEMA}): run \`mcp-wire census <targets> --db …\` first`,
            );
          if (version !== PG_SCHEMA_VERSION)
            throw new StoreRefused(
              `${where}: schema version ${version}, this mcp-wire reads ${PG_SCHEMA_VERSION}; run a census on it once to migrate it`,
            );
        } else {
          await pgMigrate(client, where);
        }
      } finally {
        client.release();
      }
    } catch (e) {
      await connections.end();
      if (e instanceof StoreRefused) throw e;
      throw new Error(redact(e instanceof Error ? e.message : String(e)));
    }
    return new PostgresStore(connections, where, url, options.deadlineMs);
  }

  /** A database call, a lost server named as such (StoreUnreachable). */
  #call<T>(work: () => Promise<T>): Promise<T> {
    return guarded(this.where, work);
  }

  #tx<T>(work: (c: pg.PoolClient) => Promise<T>, begin = "BEGIN"): Promise<T> {
    return this.#call(async () => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(begin);
        const out = await work(client);
        await client.query("COMMIT");
        return out;
      } catch (e) {
        // a connection that broke is dropped, not asked to roll back: a frozen server would not answer
        if (lostServer(e)) broken = e instanceof Error ? e : new Error(String(e));
        else await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        client.release(broken);
      }
    });
  }

  async startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): Promise<number> {
    // a run lists each target once (the first listing wins), as the SQLite store's key demands
    const seen = new Set<string>();
    const list = targets.filter((t) => !seen.has(t.target) && seen.add(t.target));
    return this.#tx(async (c) => {
      const runId = Number(
        (
          await c.query<{ id: string }>(
            "INSERT INTO runs (started_at, source, targets, settings) VALUES ($1, $2, $3, $4) RETURNING id",
            [new Date().toISOString(), source, list.length, settings],
          )
        ).rows[0]!.id,
      );
      if (list.length === 0) return runId;
      const ids = await c.query<{ id: string; target: string }>(
        `INSERT INTO targets (target, kind, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
         ON CONFLICT (target) DO UPDATE SET kind = excluded.kind, name = coalesce(excluded.name, targets.name)
         RETURNING id, target`,
        [list.map((t) => t.target), list.map((t) => t.kind), list.map((t) => t.name)],
      );
      const idOf = new Map(ids.rows.map((r) => [r.target, r.id]));
      const hosts = list.map((t) => hostOf(t));
      await c.query(
        `INSERT INTO run_targets (run_id, target_id, position, untrusted, invalid, host)
         SELECT $1, * FROM unnest($2::bigint[], $3::integer[], $4::boolean[], $5::text[], $6::text[])`,
        [
          runId,
          list.map((t) => idOf.get(t.target)),
          list.map((_, i) => i),
          list.map((t) => t.untrusted === true),
          list.map((t) => t.invalid ?? null),
          hosts,
        ],
      );
      await c.query("INSERT INTO run_hosts (run_id, host) SELECT DISTINCT $1::bigint, h FROM unnest($2::text[]) AS h", [
        runId,
        hosts,
      ]);
      return runId;
    });
  }

  async finishRun(runId: number): Promise<void> {
    const r = await this.#call(() =>
      this.pool.query("UPDATE runs SET finished_at = coalesce(finished_at, $2) WHERE id = $1", [
        runId,
        new Date().toISOString(),
      ]),
    );
    if (r.rowCount === 0) throw new Error(`no run ${runId}`);
  }

  async recordAttempt(attempt: AttemptRecord): Promise<void> {
    await this.#tx(async (c) => {
      await c.query("INSERT INTO targets (target, kind) VALUES ($1, 'http') ON CONFLICT (target) DO NOTHING", [
        attempt.target,
      ]);
      await insertAttempts(c, attempt.runId, [attempt], "error");
    });
  }

  async pendingTargets(runId: number): Promise<TargetRecord[]> {
    const rows = await this.#call(() =>
      this.pool.query<TargetRow<Pg>>(
        `SELECT t.target, t.kind, t.name, rt.untrusted, rt.invalid FROM run_targets rt JOIN targets t ON t.id = rt.target_id
         WHERE rt.run_id = $1 AND NOT rt.done ORDER BY rt.position`,
        [runId],
      ),
    );
    return rows.rows.map((r) => targetRecord(r));
  }

  async unfinishedRun(): Promise<RunRecord | undefined> {
    const r = await this.#call(() =>
      this.pool.query<RunRow<Pg>>("SELECT * FROM runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1"),
    );
    return r.rows[0] && runRecord(r.rows[0], decode);
  }

  async runs(): Promise<RunRecord[]> {
    return (await this.#call(() => this.pool.query<RunRow<Pg>>("SELECT * FROM runs ORDER BY id"))).rows.map((r) =>
      runRecord(r, decode),
    );
  }

  async *attempts(query: AttemptQuery = {}): AsyncIterableIterator<AttemptRecord> {
    for await (const r of this.#pages<AttemptRow<Pg>>("a.*, t.target", query)) {
      const a = attemptRecord(r, decode);
      a.surface = surfaceOfRow(r);
      yield a;
    }
  }

  async *history(query: AttemptQuery = {}): AsyncIterableIterator<HistoryRecord> {
    const surfaces = new SurfaceCache();
    for await (const r of this.#pages<HistoryRow<Pg> & { id: string }>(`a.id, ${HISTORY_COLUMNS}`, query))
      yield historyRecord(r, decode, surfaces);
  }

  /**
   * The attempts `query` selects, with their surfaces, in time order, a page at a time by
   * (at, id), so memory holds one page however many there are.
   */
  async *#pages<R extends { id: string; at: Date }>(
    columns: string,
    query: AttemptQuery,
  ): AsyncIterableIterator<R & SurfaceRow> {
    const where = whereOf(query);
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const params = [...where.params];
      let cond = where.sql;
      if (after) {
        params.push(after.at, after.id);
        cond = `${cond ? `${cond} AND` : "WHERE"} (a.at, a.id) > ($${params.length - 1}, $${params.length})`;
      }
      const rows = (
        await this.#call(() =>
          this.pool.query<R & SurfaceRow>(
            `SELECT ${columns}, s.tools::text AS s_tools, s.resources::text AS s_resources, s.templates::text AS s_templates, s.prompts::text AS s_prompts
             FROM attempts a JOIN targets t ON t.id = a.target_id LEFT JOIN attempt_surfaces s ON s.attempt_id = a.id
             ${cond} ORDER BY a.at, a.id LIMIT ${PAGE}`,
            params,
          ),
        )
      ).rows;
      yield* rows;
      if (rows.length < PAGE) return;
      const last = rows[rows.length - 1]!;
      after = { at: last.at, id: last.id };
    }
  }

  /** Every grouping in one read-only snapshot, so a census writing meanwhile cannot skew the sums. */
  async aggregate(query: AttemptQuery = {}, options: AggregateOptions = {}): Promise<Aggregates> {
    const where = whereOf(query);
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    return this.#tx(async (c) => {
      const all = async <T extends pg.QueryResultRow>(sql: string) => (await c.query<T>(sql, where.params)).rows;
      const groups = await all<AttemptGroup>(
        `SELECT a.run_id::integer AS "runId", class, detail, era, revision, latency_bucket::integer AS bucket, count(*)::integer AS n
         FROM attempts a ${where.sql} GROUP BY a.run_id, class, detail, era, revision, latency_bucket`,
      );
      const span = (
        await all<{ first: Date | null; last: Date | null }>(
          `SELECT min(a.at) AS first, max(a.at) AS last FROM attempts a ${where.sql}`,
        )
      )[0]!;
      // ties broken as SQLite breaks them: NULL first, then byte order
      const rpcGroups = await all<{
        code: number;
        range: string | null;
        class: string;
        detail: string;
        message: string | null;
        n: number;
      }>(
        `SELECT rpc_code AS code, rpc_range AS range, class, detail, rpc_message AS message, count(*)::integer AS n
         FROM attempts a ${and} rpc_code IS NOT NULL GROUP BY rpc_code, rpc_range, class, detail, rpc_message
         ORDER BY min(at), rpc_message COLLATE "C" NULLS FIRST`,
      );
      const httpStatuses = await all<{ status: number; count: number }>(
        `SELECT http_status AS status, count(*)::integer AS count FROM attempts a ${and} class <> 'ok' AND http_status IS NOT NULL GROUP BY http_status`,
      );
      const defects = await all<{ code: string; count: number }>(
        where.sql
          ? `SELECT d.code, count(*)::integer AS count FROM attempt_defects d JOIN attempts a ON a.id = d.attempt_id ${where.sql} GROUP BY d.code`
          : "SELECT code, count(*)::integer AS count FROM attempt_defects GROUP BY code",
      );
      const whole = options.perTarget !== false;
      const perClass = whole ? await all<PerClassRow>(`${PER_CLASS} ${where.sql} GROUP BY a.target_id, class`) : [];
      const latest = whole
        ? await all<PgLatest>(`${LATEST} ${where.sql} ORDER BY a.target_id, a.at DESC, a.id DESC`)
        : [];
      const targets = whole
        ? undefined
        : (
            await all<{ n: number }>(`SELECT count(DISTINCT a.target_id)::integer AS n FROM attempts a ${where.sql}`)
          )[0]!.n;
      const runs = (await c.query<RunRow<Pg>>("SELECT * FROM runs ORDER BY id")).rows.map((r) => runRecord(r, decode));
      // a server once, by its latest walk; the chain's first error: the walk lists defects in
      // chain order, errors first at each step
      const signin = await all<SigninGroup>(
        `SELECT s.verdict, s."firstError", s.lenient, count(*)::integer AS n FROM (
           SELECT DISTINCT ON (a.target_id) a.auth->>'verdict' AS verdict,
             (SELECT d->>'code' FROM jsonb_array_elements(a.auth->'defects') WITH ORDINALITY AS e(d, i)
              WHERE d->>'severity' = 'error' ORDER BY i LIMIT 1) AS "firstError",
             a.auth->'clients'->>'lenient' AS lenient
           FROM attempts a ${and} a.auth IS NOT NULL ORDER BY a.target_id, a.at DESC, a.id DESC) s
         GROUP BY 1, 2, 3`,
      );

      return assemble({
        signin,
        runs,
        groups,
        firstAt: span.first?.toISOString() ?? null,
        lastAt: span.last?.toISOString() ?? null,
        rpcGroups,
        httpStatuses,
        defects,
        perTarget: summaries(perClass, latest),
        ...(targets !== undefined ? { targets } : {}),
      });
    }, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  }

  /** A page of targets at a time, in the order of their ids; each page one read-only snapshot. */
  async *perTarget(query: AttemptQuery = {}): AsyncIterableIterator<TargetSummary> {
    const where = whereOf(query);
    const and = where.sql ? `${where.sql} AND` : "WHERE";
    const n = where.params.length;
    let after: string | null = null;
    for (;;) {
      const from: string | null = after;
      const page = await this.#tx(async (c): Promise<{ ids: string[]; rows: TargetSummary[] }> => {
        const ids: string[] = (
          await c.query<{ id: string }>(
            `SELECT DISTINCT a.target_id AS id FROM attempts a ${and} ($${n + 1}::bigint IS NULL OR a.target_id > $${n + 1}::bigint) ORDER BY 1 LIMIT ${TARGET_PAGE}`,
            [...where.params, from],
          )
        ).rows.map((r) => r.id);
        if (ids.length === 0) return { ids, rows: [] };
        const range = `${and} a.target_id BETWEEN $${n + 1}::bigint AND $${n + 2}::bigint`;
        const params = [...where.params, ids[0], ids.at(-1)];
        const perClass = (await c.query<PerClassRow>(`${PER_CLASS} ${range} GROUP BY a.target_id, class`, params)).rows;
        const latest = (
          await c.query<PgLatest>(`${LATEST} ${range} ORDER BY a.target_id, a.at DESC, a.id DESC`, params)
        ).rows;
        return { ids, rows: summaries(perClass, latest) };
      }, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      yield* page.rows;
      if (page.ids.length < TARGET_PAGE) return;
      after = page.ids.at(-1)!;
    }
  }

  async share(runId: number, options: ShareOptions): Promise<SharedRun> {
    // A worker's own connections commit without waiting for the disk: a claim, a renewal or a
    // stored attempt that a server crash takes back only leaves its target to be claimed and
    // probed again, which the queue is built for; an fsync each would cap the queue at the
    // disk's flush rate. Runs and migrations keep the store's durable connections.
    const connections = connect(this.url, {
      settings: " -c synchronous_commit=off",
      max: 3,
      ...(this.deadlineMs !== undefined ? { deadlineMs: this.deadlineMs } : {}),
    });
    try {
      return await guarded(this.where, () => PgWorker.join(connections, this.where, runId, options));
    } catch (e) {
      await connections.end();
      throw e;
    }
  }

  async toolDefinitions(digests: readonly string[]): Promise<Map<string, string>> {
    const rows = (
      await this.#call(() =>
        this.pool.query<{ digest: string; definition: string }>(
          "SELECT digest, definition FROM tool_definitions WHERE digest = ANY($1::text[])",
          [[...new Set(digests)]],
        ),
      )
    ).rows;
    return new Map(rows.map((r) => [r.digest, r.definition]));
  }

  async prune(before: string): Promise<number> {
    if (!Number.isFinite(Date.parse(before))) throw new Error(`before: not a date: ${JSON.stringify(before)}`);
    return this.#tx(async (c) => {
      const old = "SELECT id FROM attempts WHERE at < $1";
      await c.query(`DELETE FROM attempt_defects WHERE attempt_id IN (${old})`, [before]);
      await c.query(`DELETE FROM attempt_surfaces WHERE attempt_id IN (${old})`, [before]);
      const deleted = (await c.query("DELETE FROM attempts WHERE at < $1", [before])).rowCount ?? 0;
      await c.query(
        "DELETE FROM tool_definitions WHERE digest NOT IN (SELECT j->>1 FROM attempt_surfaces s, jsonb_array_elements(s.tools) j)",
      );
      return deleted;
    });
  }

  /** Ends the connections; one a silent server holds is cut after a short wait. */
  async close(): Promise<void> {
    await this.connections.end();
  }
}

/** One census process working on a shared run; see SharedRun. */
class PgWorker implements SharedRun {
  private constructor(
    private readonly connections: Connections,
    private readonly where: string,
    readonly runId: number,
    readonly workerId: number,
    private readonly leaseMs: number,
    private readonly gapMs: number,
  ) {}

  static async join(connections: Connections, where: string, runId: number, options: ShareOptions): Promise<PgWorker> {
    const pool = connections.pool;
    const exists = await pool.query("SELECT 1 FROM runs WHERE id = $1", [runId]);
    if (exists.rowCount === 0) throw new StoreRefused(`no run ${runId} in this database`);
    const id = await pool.query<{ id: string }>(
      "INSERT INTO workers (run_id, lease_until, label) VALUES ($1, now() + $2 * interval '1 millisecond', $3) RETURNING id",
      [runId, options.leaseMs, options.label || `${os.hostname()} pid ${process.pid}`],
    );
    return new PgWorker(
      connections,
      where,
      runId,
      Number(id.rows[0]!.id),
      options.leaseMs,
      Math.max(0, options.gapMs ?? 0),
    );
  }

  get pool(): pg.Pool {
    return this.connections.pool;
  }

  async claim(max: number, perHost: number): Promise<TargetRecord[]> {
    if (max <= 0) return [];
    const rows = await guarded(this.where, () =>
      this.pool.query<TargetRow<Pg>>("SELECT * FROM claim($1, $2, $3, $4)", [this.runId, this.workerId, max, perHost]),
    );
    return rows.rows.map((r) => targetRecord(r));
  }

  /** One statement, so one round trip and one commit for the whole batch. */
  async finish(attempts: readonly AttemptRecord[]): Promise<AttemptRecord[]> {
    if (attempts.length === 0) return [];
    const stored = await guarded(this.where, () => insertAttempts(this.pool, this.runId, attempts, "skip", this.gapMs));
    return attempts.filter((a) => stored.has(a.target));
  }

  async renew(): Promise<void> {
    await guarded(this.where, () =>
      this.pool.query("UPDATE workers SET lease_until = now() + $2 * interval '1 millisecond' WHERE id = $1", [
        this.workerId,
        this.leaseMs,
      ]),
    );
  }

  progress(): Promise<{ done: number; total: number; classes: Map<string, number> }> {
    return guarded(this.where, async () => {
      const counts = (
        await this.pool.query<{ done: number; total: number }>(
          "SELECT count(*) FILTER (WHERE done)::integer AS done, count(*)::integer AS total FROM run_targets WHERE run_id = $1",
          [this.runId],
        )
      ).rows[0]!;
      const classes = await this.pool.query<{ class: string; n: number }>(
        "SELECT class, count(*)::integer AS n FROM attempts WHERE run_id = $1 GROUP BY class",
        [this.runId],
      );
      return { done: counts.done, total: counts.total, classes: new Map(classes.rows.map((r) => [r.class, r.n])) };
    });
  }

  /** Gives back its claims, briefly: a server that does not answer at once gets them back when the lease runs out. */
  async leave(): Promise<void> {
    try {
      const bye = (async () => {
        await this.pool.query("UPDATE run_targets SET claimed_by = NULL WHERE claimed_by = $1 AND NOT done", [
          this.workerId,
        ]);
        await this.pool.query("UPDATE workers SET lease_until = now(), left_at = now() WHERE id = $1", [this.workerId]);
      })();
      if (!(await settlesWithin(bye, LEAVE_MS)))
        throw new StoreUnreachable(this.where, "no answer while leaving the run");
      await guarded(this.where, () => bye);
    } finally {
      await this.connections.end();
    }
  }
}

/**
 * Inserts attempts of one run in one statement: their defect codes, and the run's targets
 * marked done. `skip` drops an attempt whose target already has one in the run (a worker whose
 * lease ran out, racing the one that took over); `error` refuses it, as SQLite's key does.
 * Returns the targets whose attempt was stored.
 */
/** An attempt as a row of the `input` the insert reads (snake_case, as the table's columns). */
function attemptRow(a: AttemptRecord) {
  if (!Number.isFinite(Date.parse(a.at)))
    throw new Error(`attempt of ${a.target}: "at" is not a time: ${JSON.stringify(a.at)}`);
  return {
    target: a.target,
    at: a.at,
    class: a.class,
    detail: a.detail,
    era: a.era,
    revision: a.revision,
    transport: a.transport,
    http_status: a.httpStatus,
    content_type: a.contentType,
    rpc_code: a.rpcCode,
    rpc_message: a.rpcMessage,
    rpc_range: a.rpcRange,
    tools: a.tools,
    server_name: a.serverName,
    server_version: a.serverVersion,
    defects: a.defects,
    elapsed_ms: Math.round(a.elapsedMs),
    latency_bucket: latencyBucket(a.elapsedMs),
    repro: a.repro,
    advice: a.advice,
    auth: a.auth ?? null,
    ...surfaceColumns(a),
  };
}

/** Each tool definition of a batch once, however many of its attempts list it: digest → definition. */
function definitionsOf(attempts: readonly AttemptRecord[]): Map<string, string> {
  const definitions = new Map<string, string>();
  for (const a of attempts)
    for (const t of a.surface?.tools ?? []) if (t.definition !== undefined) definitions.set(t.digest, t.definition);
  return definitions;
}

async function insertAttempts(
  c: Pick<pg.Pool, "query">,
  runId: number,
  attempts: readonly AttemptRecord[],
  conflict: "skip" | "error",
  gapMs = 0,
): Promise<Set<string>> {
  const rows = attempts.map(attemptRow);
  const definitions = definitionsOf(attempts);
  const r = await c.query<{ target: string }>(
    `WITH input AS (
       SELECT x.*, t.id AS target_id FROM jsonb_to_recordset($2::jsonb) AS x(
         target text, at timestamptz, class text, detail text, era text, revision text, transport text, http_status integer,
         content_type text, rpc_code integer, rpc_message text, rpc_range text, tools integer, server_name text, server_version text,
         defects jsonb, elapsed_ms integer, latency_bucket smallint, repro text, advice text, auth jsonb,
         s_tools jsonb, s_resources jsonb, s_templates jsonb, s_prompts jsonb)
       JOIN targets t ON t.target = x.target
     ), ins AS (
       INSERT INTO attempts (run_id, target_id, at, class, detail, era, revision, transport, http_status, content_type, rpc_code, rpc_message,
         rpc_range, tools, server_name, server_version, defects, elapsed_ms, latency_bucket, repro, advice, auth)
       SELECT $1, target_id, at, class, detail, era, revision, transport, http_status, content_type, rpc_code, rpc_message,
         rpc_range, tools, server_name, server_version, defects, elapsed_ms, latency_bucket, repro, advice, auth FROM input
       ${conflict === "skip" ? "ON CONFLICT (run_id, target_id) DO NOTHING" : ""}
       RETURNING id, target_id, defects
     ), codes AS (
       INSERT INTO attempt_defects (code, attempt_id)
       SELECT DISTINCT d->>'code', ins.id FROM ins, jsonb_array_elements(ins.defects) d WHERE d->>'code' IS NOT NULL
     ), defs AS (
       INSERT INTO tool_definitions (digest, definition)
       SELECT d.digest, d.definition FROM jsonb_to_recordset($4::jsonb) AS d(digest text, definition text)
       ON CONFLICT (digest) DO NOTHING
     ), surfaces AS (
       INSERT INTO attempt_surfaces (attempt_id, tools, resources, templates, prompts)
       SELECT ins.id, input.s_tools, input.s_resources, input.s_templates, input.s_prompts
       FROM ins JOIN input ON input.target_id = ins.target_id WHERE input.s_tools IS NOT NULL
     ), marked AS (
       UPDATE run_targets rt SET done = true, claimed_by = NULL FROM ins WHERE rt.run_id = $1 AND rt.target_id = ins.target_id
       RETURNING rt.host
     ), gap AS (
       -- the host's next request waits out the gap, whichever worker makes it
       UPDATE run_hosts rh SET free_at = greatest(rh.free_at, now() + $3 * interval '1 millisecond')
       WHERE $3 > 0 AND rh.run_id = $1 AND rh.host IN (SELECT host FROM marked)
     )
     SELECT t.target FROM ins JOIN targets t ON t.id = ins.target_id`,
    [
      runId,
      JSON.stringify(rows),
      gapMs,
      JSON.stringify([...definitions].map(([digest, definition]) => ({ digest, definition }))),
    ],
  );
  return new Set(r.rows.map((x) => x.target));
}

interface Where {
  sql: string;
  params: unknown[];
}

function whereOf(query: AttemptQuery): Where {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (query.runIds) {
    params.push(query.runIds);
    terms.push(`a.run_id = ANY($${params.length}::bigint[])`);
  }
  if (query.since !== undefined) {
    const since = Date.parse(query.since);
    if (!Number.isFinite(since)) throw new Error(`since: not a date: ${JSON.stringify(query.since)}`);
    params.push(new Date(since).toISOString());
    terms.push(`a.at >= $${params.length}::timestamptz`);
  }
  if (query.target !== undefined) {
    params.push(query.target);
    terms.push(`a.target_id = (SELECT id FROM targets WHERE target = $${params.length})`);
  }
  return { sql: terms.length ? `WHERE ${terms.join(" AND ")}` : "", params };
}

const PER_CLASS = "SELECT a.target_id, class, count(*)::integer AS n, min(a.at) AS first FROM attempts a";
const LATEST = `SELECT DISTINCT ON (a.target_id) a.target_id, ${LATEST_COLUMNS} FROM attempts a JOIN targets t ON t.id = a.target_id`;

interface PerClassRow {
  target_id: string;
  class: string;
  n: number;
  first: Date;
}

/** Each target's summary from its attempts per class and its latest attempt. */
function summaries(perClass: readonly PerClassRow[], latest: readonly PgLatest[]): TargetSummary[] {
  const byTarget = new Map<string, { attempts: number; first: number; classes: Record<string, number> }>();
  for (const r of perClass) {
    let t = byTarget.get(r.target_id);
    if (!t) byTarget.set(r.target_id, (t = { attempts: 0, first: Infinity, classes: {} }));
    t.attempts += r.n;
    t.first = Math.min(t.first, r.first.getTime());
    t.classes[r.class] = r.n;
  }
  return latest.map((l) => {
    const t = byTarget.get(l.target_id)!;
    const at = l.at.toISOString();
    return {
      target: l.target,
      name: l.name,
      attempts: t.attempts,
      firstAt: new Date(t.first).toISOString(),
      lastAt: at,
      classes: t.classes,
      latest: latestRecord(l, decode),
    };
  });
}

/** An attempt's surface as the insert's JSON input takes it (null columns when it has none). */
function surfaceColumns(a: AttemptRecord): {
  s_tools: unknown;
  s_resources: unknown;
  s_templates: unknown;
  s_prompts: unknown;
} {
  const s = a.surface;
  if (!s) return { s_tools: null, s_resources: null, s_templates: null, s_prompts: null };
  return {
    s_tools: s.tools.map((t) => [t.name, t.digest]),
    s_resources: s.resources,
    s_templates: s.resourceTemplates,
    s_prompts: s.prompts,
  };
}
