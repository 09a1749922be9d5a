/**
 * The one place that turns `--db` into a Store: a `postgres://` or `postgresql://` URL (or
 * `postgres:` alone, with the connection taken from PGHOST, PGUSER, PGPASSWORD… as `pg` reads
 * them) is PostgreSQL; anything else is an SQLite file. Each engine is loaded only when used, and
 * its driver (an optional peer of the package) is looked for first.
 */
import { rememberDatabaseUrl } from "../secrets/redact.js";
import { requireDriver } from "./drivers.js";
import type { Store } from "./store.js";

/** The census database when `--db` is not given: an SQLite file in the current folder. */
export const DEFAULT_DB = "mcp-wire.db";

export type OpenMode =
  /** A census: create and migrate as needed. */
  | "write"
  /** A resume or a join: the database must exist already. */
  | "existing"
  /** A report: read only, nothing created or changed. */
  | "read";

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:/i.test(db);
}

export async function openStore(db: string, mode: OpenMode): Promise<Store> {
  if (isPostgresUrl(db)) {
    // made known before anything can fail, so every message hides its password
    rememberDatabaseUrl(db);
    await requireDriver("pg");
    const { PostgresStore } = await import("./postgres/store.js");
    return PostgresStore.open(db, { readonly: mode === "read" });
  }
  await requireDriver("better-sqlite3");
  const { SqliteStore } = await import("./sqlite-store.js");
  return new SqliteStore(db, { readonly: mode === "read", mustExist: mode === "existing" });
}
