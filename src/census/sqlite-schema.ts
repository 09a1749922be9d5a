/**
 * The census database's schema, as an ordered list of migrations. A database records in
 * `schema_version` every migration applied to it; opening it applies the rest, each in its own
 * transaction, so a file written by an older mcp-wire keeps its history and gains what is new.
 * Migrations are only ever appended: an applied one never changes.
 */
import type Database from "better-sqlite3";

export interface Migration {
  version: number;
  why: string;
  up: (db: Database.Database) => void;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    why: "runs, targets, the targets of each run, and one attempt per target per run",
    up: (db) =>
      db.exec(`
        CREATE TABLE runs (
          id INTEGER PRIMARY KEY,
          started_at TEXT NOT NULL,
          finished_at TEXT,
          source TEXT NOT NULL,
          targets INTEGER NOT NULL,
          settings TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE targets (
          id INTEGER PRIMARY KEY,
          target TEXT NOT NULL UNIQUE,
          kind TEXT NOT NULL,
          name TEXT
        );
        CREATE TABLE run_targets (
          run_id INTEGER NOT NULL REFERENCES runs (id),
          target_id INTEGER NOT NULL REFERENCES targets (id),
          position INTEGER NOT NULL,
          untrusted INTEGER NOT NULL DEFAULT 0,
          invalid TEXT,
          PRIMARY KEY (run_id, target_id)
        ) WITHOUT ROWID;
        CREATE TABLE attempts (
          id INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs (id),
          target_id INTEGER NOT NULL REFERENCES targets (id),
          at INTEGER NOT NULL, -- ms since the epoch: half the bytes of ISO text, and compared as numbers
          class TEXT NOT NULL,
          detail TEXT NOT NULL,
          era TEXT,
          revision TEXT,
          transport TEXT,
          http_status INTEGER,
          content_type TEXT,
          rpc_code INTEGER,
          rpc_message TEXT,
          rpc_range TEXT,
          tools INTEGER,
          server_name TEXT,
          server_version TEXT,
          defects TEXT NOT NULL DEFAULT '[]',
          elapsed_ms INTEGER NOT NULL,
          repro TEXT,
          advice TEXT,
          -- at most one attempt per target per run, whatever a resumed census does
          UNIQUE (run_id, target_id)
        );
        CREATE INDEX attempts_by_time ON attempts (at);
      `),
  },
  {
    version: 2,
    why: "defect codes in a table of their own, latency buckets, and covering indexes in the order the report groups by",
    up: (db) =>
      db.exec(`
        CREATE TABLE attempt_defects (
          code TEXT NOT NULL,
          attempt_id INTEGER NOT NULL REFERENCES attempts (id),
          PRIMARY KEY (code, attempt_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO attempt_defects (code, attempt_id)
          SELECT json_extract(d.value, '$.code'), a.id FROM attempts a, json_each(a.defects) d
          WHERE json_extract(d.value, '$.code') IS NOT NULL;
        -- the report groups by bucket: reading a stored one beats comparing every row's time
        ALTER TABLE attempts ADD COLUMN latency_bucket INTEGER NOT NULL DEFAULT 0;
        UPDATE attempts SET latency_bucket = ${bucketSql("elapsed_ms")};
        CREATE INDEX attempts_by_run ON attempts (run_id, class, detail, era, revision, latency_bucket, at, target_id);
        CREATE INDEX attempts_by_target ON attempts (target_id, class, at, run_id);
        CREATE INDEX attempts_latest ON attempts (target_id, at, run_id);
        CREATE INDEX attempts_rpc ON attempts (rpc_code, rpc_range, class, detail, rpc_message, at) WHERE rpc_code IS NOT NULL;
        CREATE INDEX attempts_http ON attempts (http_status, at) WHERE class <> 'ok' AND http_status IS NOT NULL;
      `),
  },
  {
    version: 3,
    why: "the probe's sign-in diagnosis, as JSON, on each attempt",
    up: (db) => db.exec("ALTER TABLE attempts ADD COLUMN auth TEXT"),
  },
  {
    version: 4,
    why: "what each attempt saw a server offer: tool definitions stored once per distinct content, and per attempt its tools and resource, template and prompt names",
    up: (db) =>
      db.exec(`
        CREATE TABLE tool_definitions (
          digest TEXT PRIMARY KEY,
          definition TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE attempt_surfaces (
          attempt_id INTEGER PRIMARY KEY REFERENCES attempts (id),
          tools TEXT NOT NULL, -- JSON [[name, digest], …] in the order listed
          resources TEXT,      -- JSON arrays of names; NULL when the server does not declare them
          templates TEXT,
          prompts TEXT
        );
      `),
  },
];

/** Every table the migrations make: a database holding any other is another program's. */
export const OWN_TABLES: readonly string[] = [
  "schema_version",
  "runs",
  "targets",
  "run_targets",
  "attempts",
  "attempt_defects",
  "tool_definitions",
  "attempt_surfaces",
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The highest migration applied to `db`, 0 for a new file. */
export function schemaVersion(db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!table) return 0;
  return (db.prepare("SELECT MAX(version) FROM schema_version").pluck().get() as number | null) ?? 0;
}

/**
 * Applies every migration past the database's version, up to `upTo` (default: all). Refuses a
 * database from a newer mcp-wire rather than guess at a schema it does not know.
 */
export function migrate(db: Database.Database, upTo = SCHEMA_VERSION): number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL, why TEXT NOT NULL)",
  );
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION)
    throw new Error(
      `${db.name}: schema version ${current} comes from a newer mcp-wire (this one knows up to ${SCHEMA_VERSION})`,
    );
  const record = db.prepare("INSERT INTO schema_version (version, applied_at, why) VALUES (?, ?, ?)");
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > upTo) continue;
    db.transaction(() => {
      // another process opening the same new file may have applied it while this one waited
      if (schemaVersion(db) >= m.version) return;
      m.up(db);
      record.run(m.version, new Date().toISOString(), m.why);
    }).immediate();
  }
  return schemaVersion(db);
}

/**
 * The latency buckets stored in `attempts.latency_bucket` (the report's LATENCY_BOUNDS_MS when
 * migration 2 was written). Frozen like the migration: new bounds take a new migration that
 * recomputes the column, and a test keeps the two lists equal.
 */
export const STORED_BOUNDS_MS: readonly number[] = [50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** The bucket of an elapsed time: an index into STORED_BOUNDS_MS, its length for the open one. */
export function latencyBucket(ms: number): number {
  const i = STORED_BOUNDS_MS.findIndex((b) => ms <= b);
  return i === -1 ? STORED_BOUNDS_MS.length : i;
}

function bucketSql(column: string): string {
  return `CASE ${STORED_BOUNDS_MS.map((b, i) => `WHEN ${column} <= ${b} THEN ${i}`).join(" ")} ELSE ${STORED_BOUNDS_MS.length} END`;
}
