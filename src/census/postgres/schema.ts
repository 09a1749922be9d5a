/**
 * The census schema on PostgreSQL, as an ordered list of migrations, in a schema of its own
 * (`mcp_wire`) so a database shared with other programs keeps their tables and ours apart.
 * `mcp_wire.schema_version` records each migration applied; opening the store applies the rest
 * under an advisory lock (workers starting together migrate once). Migrations are only ever
 * appended: an applied one never changes.
 */
import type pg from "pg";
import { StoreRefused } from "../store.js";

export const SCHEMA = "mcp_wire";

export interface PgMigration {
  version: number;
  why: string;
  sql: string;
  /**
   * What it creates in the schema, as `pg_describe_object` names it without the schema: a
   * schema holding anything else (before this migration, anything of its own) is not ours.
   */
  makes: readonly string[];
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    why: "runs, targets, the targets of each run, one attempt per target per run, defect codes, and the report's indexes",
    makes: [
      "table runs",
      "sequence runs_id_seq",
      "table targets",
      "sequence targets_id_seq",
      "table run_targets",
      "table attempts",
      "sequence attempts_id_seq",
      "table attempt_defects",
    ],
    sql: `
      CREATE TABLE runs (
        id bigserial PRIMARY KEY,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        source text NOT NULL,
        targets integer NOT NULL,
        settings jsonb NOT NULL DEFAULT '{}'
      );
      CREATE TABLE targets (
        id bigserial PRIMARY KEY,
        target text NOT NULL UNIQUE,
        kind text NOT NULL,
        name text
      );
      CREATE TABLE run_targets (
        run_id bigint NOT NULL REFERENCES runs (id),
        target_id bigint NOT NULL REFERENCES targets (id),
        position integer NOT NULL,
        untrusted boolean NOT NULL DEFAULT false,
        invalid text,
        PRIMARY KEY (run_id, target_id)
      );
      CREATE TABLE attempts (
        id bigserial PRIMARY KEY,
        run_id bigint NOT NULL REFERENCES runs (id),
        target_id bigint NOT NULL REFERENCES targets (id),
        at timestamptz NOT NULL,
        class text NOT NULL,
        detail text NOT NULL,
        era text,
        revision text,
        transport text,
        http_status integer,
        content_type text,
        rpc_code integer,
        rpc_message text,
        rpc_range text,
        tools integer,
        server_name text,
        server_version text,
        defects jsonb NOT NULL DEFAULT '[]',
        elapsed_ms integer NOT NULL,
        latency_bucket smallint NOT NULL,
        repro text,
        advice text,
        -- exactly one finished attempt per target per run, however many workers race to it
        UNIQUE (run_id, target_id)
      );
      CREATE TABLE attempt_defects (
        code text NOT NULL,
        attempt_id bigint NOT NULL REFERENCES attempts (id),
        PRIMARY KEY (code, attempt_id)
      );
      CREATE INDEX attempts_by_time ON attempts (at);
      CREATE INDEX attempts_by_run ON attempts (run_id, class, detail, era, revision, latency_bucket) INCLUDE (at, target_id);
      CREATE INDEX attempts_latest ON attempts (target_id, at DESC, id DESC);
      CREATE INDEX attempts_rpc ON attempts (rpc_code, rpc_range, class, detail, rpc_message, at) WHERE rpc_code IS NOT NULL;
      CREATE INDEX attempts_http ON attempts (http_status, at) WHERE class <> 'ok' AND http_status IS NOT NULL;
      CREATE INDEX attempt_defects_by_attempt ON attempt_defects (attempt_id);
    `,
  },
  {
    version: 2,
    why: "the work queue shared by census workers (leases, claims, per-host slots and gaps), and the sign-in diagnosis on each attempt",
    makes: [
      "table workers",
      "sequence workers_id_seq",
      "table run_hosts",
      "function claim(bigint,bigint,integer,integer)",
    ],
    sql: `
      ALTER TABLE attempts ADD COLUMN auth jsonb;
      -- a worker is alive while its lease runs; its claims (and the host slots they take) die with it
      CREATE TABLE workers (
        id bigserial PRIMARY KEY,
        run_id bigint NOT NULL REFERENCES runs (id),
        started_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL,
        left_at timestamptz,
        label text NOT NULL
      );
      ALTER TABLE run_targets
        ADD COLUMN host text NOT NULL DEFAULT '',
        ADD COLUMN done boolean NOT NULL DEFAULT false,
        ADD COLUMN claimed_by bigint REFERENCES workers (id),
        ADD COLUMN claims integer NOT NULL DEFAULT 0;
      UPDATE run_targets rt SET done = true
        WHERE EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = rt.run_id AND a.target_id = rt.target_id);
      -- the host as the census limits it (host-of.ts): the URL's host name, lower case
      UPDATE run_targets rt SET host = CASE WHEN t.kind = 'stdio' THEN 'stdio:' || t.target
          ELSE coalesce(lower(substring(t.target FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\\[[^]]*\\]|[^:/?#]*)')), t.target) END
        FROM targets t WHERE t.id = rt.target_id;
      CREATE INDEX run_targets_todo ON run_targets (run_id, host, position) WHERE NOT done;
      CREATE INDEX run_targets_claimed ON run_targets (claimed_by) WHERE NOT done AND claimed_by IS NOT NULL;
      -- one row per host of a run: the lock that makes per-host limits hold across workers, and
      -- when the host may be called again (the per-host gap)
      CREATE TABLE run_hosts (
        run_id bigint NOT NULL REFERENCES runs (id),
        host text NOT NULL,
        free_at timestamptz NOT NULL DEFAULT '-infinity',
        PRIMARY KEY (run_id, host)
      );
      INSERT INTO run_hosts (run_id, host) SELECT DISTINCT run_id, host FROM run_targets;

      -- Claims up to max_n targets of a run for a worker: hosts are locked first (SKIP LOCKED, so
      -- workers never wait on each other), then, in a statement of its own that therefore sees
      -- every claim committed before the lock was taken, each host's live claims are counted and
      -- only the free slots are filled. A claim is live while its worker's lease runs.
      CREATE FUNCTION claim(p_run bigint, p_worker bigint, max_n integer, per_host integer)
      RETURNS TABLE (target_id bigint, target text, kind text, name text, untrusted boolean, invalid text, host text, claims integer)
      LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE
        locked text[];
      BEGIN
        SELECT array_agg(h.host) INTO locked FROM (
          SELECT rh.host FROM run_hosts rh
          WHERE rh.run_id = p_run AND rh.free_at <= now()
            AND EXISTS (
              SELECT 1 FROM run_targets rt LEFT JOIN workers w ON w.id = rt.claimed_by
              WHERE rt.run_id = p_run AND rt.host = rh.host AND NOT rt.done
                AND (rt.claimed_by IS NULL OR w.lease_until <= now()))
          ORDER BY rh.free_at, rh.host
          LIMIT max_n
          FOR UPDATE OF rh SKIP LOCKED) h;
        IF locked IS NULL THEN RETURN; END IF;
        RETURN QUERY
        WITH slots AS (
          SELECT l.host, per_host - (
            SELECT count(*) FROM run_targets c JOIN workers w ON w.id = c.claimed_by
            WHERE c.run_id = p_run AND c.host = l.host AND NOT c.done AND w.lease_until > now())::integer AS free
          FROM unnest(locked) AS l(host)
        ), picked AS (
          SELECT p.target_id FROM slots s CROSS JOIN LATERAL (
            SELECT rt.target_id FROM run_targets rt LEFT JOIN workers w ON w.id = rt.claimed_by
            WHERE rt.run_id = p_run AND rt.host = s.host AND NOT rt.done
              AND (rt.claimed_by IS NULL OR w.lease_until <= now())
            ORDER BY rt.position
            LIMIT greatest(s.free, 0)
          ) p
          LIMIT max_n
        ), claimed AS (
          UPDATE run_targets rt SET claimed_by = p_worker, claims = rt.claims + 1
          FROM picked WHERE rt.run_id = p_run AND rt.target_id = picked.target_id
          RETURNING rt.target_id, rt.untrusted, rt.invalid, rt.host, rt.claims, rt.position
        )
        SELECT c.target_id, t.target, t.kind, t.name, c.untrusted, c.invalid, c.host, c.claims
        FROM claimed c JOIN targets t ON t.id = c.target_id ORDER BY c.position;
      END
      $fn$;
    `,
  },
  {
    version: 3,
    why: "what each attempt saw a server offer: tool definitions stored once per distinct content, and per attempt its tools and resource, template and prompt names",
    makes: ["table tool_definitions", "table attempt_surfaces"],
    sql: `
      CREATE TABLE tool_definitions (
        digest text PRIMARY KEY,
        definition text NOT NULL
      );
      CREATE TABLE attempt_surfaces (
        attempt_id bigint PRIMARY KEY REFERENCES attempts (id),
        tools jsonb NOT NULL, -- [[name, digest], …] in the order listed
        resources jsonb,      -- arrays of names; NULL when the server does not declare them
        templates jsonb,
        prompts jsonb
      );
    `,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** What holds the version of the schema, made before the first migration. */
const VERSION_TABLE = "table schema_version";

type Queryable = Pick<pg.PoolClient, "query">;

/**
 * Every object in the `mcp_wire` schema, named as `pg_describe_object` names it without the
 * schema. Read from the catalogs, which list every object whoever owns it (information_schema
 * shows only what the user may use, and would hide another role's table), and every kind of
 * object: a table, a sequence, a function or a type of another program's in the way of a
 * migration would stop it part-way. Indexes and a table's own types belong to their table.
 */
async function objectsInSchema(db: Queryable): Promise<string[] | undefined> {
  const ns = (await db.query<{ oid: number }>("SELECT oid FROM pg_namespace WHERE nspname = $1", [SCHEMA])).rows[0]
    ?.oid;
  if (ns === undefined) return undefined;
  const rows = await db.query<{ what: string }>(
    `SELECT pg_describe_object('pg_class'::regclass, c.oid, 0) AS what FROM pg_class c
       WHERE c.relnamespace = $1 AND c.relkind NOT IN ('i', 'I', 't')
     UNION
     SELECT pg_describe_object(d.classid, d.objid, 0) FROM pg_depend d
       WHERE d.refclassid = 'pg_namespace'::regclass AND d.refobjid = $1 AND d.deptype = 'n' AND d.classid <> 'pg_class'::regclass`,
    [ns],
  );
  const prefix = `${SCHEMA}.`;
  return rows.rows.map((r) => r.what.replace(` ${prefix}`, " ")).sort();
}

/** The version of the census schema in this database: 0 when there is none, and why it is not ours if it is not. */
export async function pgSchemaVersion(db: Queryable, where: string): Promise<number> {
  return (await judge(db, where)).version;
}

/** Whether the schema exists, and the version of what it holds, once that is known to be ours alone. */
async function judge(db: Queryable, where: string): Promise<{ exists: boolean; version: number }> {
  const objects = await objectsInSchema(db);
  if (objects === undefined) return { exists: false, version: 0 };
  if (objects.length === 0) return { exists: true, version: 0 };
  let version = 0;
  if (objects.includes(VERSION_TABLE)) {
    version = Number(
      (await db.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${SCHEMA}.schema_version`)).rows[0]?.v ?? 0,
    );
    if (version > PG_SCHEMA_VERSION)
      throw new StoreRefused(
        `${where}: schema version ${version} comes from a newer mcp-wire (this one knows up to ${PG_SCHEMA_VERSION})`,
      );
  }
  // with no schema_version, nothing in the schema is ours, even what has our names
  const ours = new Set(
    objects.includes(VERSION_TABLE)
      ? [VERSION_TABLE, ...PG_MIGRATIONS.filter((m) => m.version <= version).flatMap((m) => m.makes)]
      : [],
  );
  const foreign = objects.filter((o) => !ours.has(o));
  if (foreign.length > 0) {
    const tables = foreign.every((o) => o.startsWith("table "));
    const names = foreign.map((o) => (tables ? o.slice("table ".length) : o));
    throw new StoreRefused(
      `${where}: schema ${SCHEMA} holds ${tables ? "tables" : "objects"} mcp-wire did not make (${names.slice(0, 4).join(", ")}${names.length > 4 ? `, … (${names.length} in all)` : ""}); it was left untouched`,
    );
  }
  return { exists: true, version };
}

/**
 * Brings the schema up to `upTo` (default: the latest), every migration in one transaction,
 * after checking, in it, that the schema holds nothing that is not ours: a migration that fails
 * leaves the database as it was. The advisory lock makes workers that start together take
 * turns; each reads the version once it holds the lock.
 */
export async function pgMigrate(db: Queryable, where: string, upTo = PG_SCHEMA_VERSION): Promise<number> {
  await db.query("BEGIN");
  try {
    await db.query("SELECT pg_advisory_xact_lock(hashtext('mcp_wire schema migration'))");
    const found = await judge(db, where);
    let version = found.version;
    if (version < upTo) {
      if (!found.exists) await db.query(`CREATE SCHEMA ${SCHEMA}`);
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL, why text NOT NULL)`,
      );
      await db.query(`SET LOCAL search_path = ${SCHEMA}`);
      for (const m of PG_MIGRATIONS) {
        if (m.version <= version || m.version > upTo) continue;
        await db.query(m.sql);
        await db.query(`INSERT INTO ${SCHEMA}.schema_version (version, applied_at, why) VALUES ($1, now(), $2)`, [
          m.version,
          m.why,
        ]);
        version = m.version;
      }
    }
    await db.query("COMMIT");
    return version;
  } catch (e) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}
