/**
 * Opening an SQLite census file so that a file which is not ours is never changed: a census
 * writes only into a new file or one mcp-wire made, and a report reads without leaving a byte
 * behind (SQLite in WAL mode would create `-wal` and `-shm` files even for a read-only reader).
 */
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { OWN_TABLES, SCHEMA_VERSION, migrate, schemaVersion } from "./sqlite-schema.js";
import { StoreRefused } from "./store.js";

const MAGIC = "SQLite format 3\0";

/** The first bytes of the file, or why it cannot be a database at all. */
function header(file: string): Buffer {
  const stat = statSync(file);
  if (stat.isDirectory()) throw new StoreRefused(`${file} is not a file (it is a folder)`);
  if (!stat.isFile()) throw new StoreRefused(`${file} is not a regular file`);
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(100);
    const n = readSync(fd, buf, 0, 100, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function isSqlite(head: Buffer): boolean {
  return head.length >= 16 && head.subarray(0, 16).toString("latin1") === MAGIC;
}

/**
 * The tables, views and triggers in `db` that mcp-wire did not make. A database with no
 * `schema_version` table is another program's, even when its tables have our names.
 */
function foreignObjects(db: Database.Database): string[] {
  const names = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
      .pluck()
      .all() as string[]
  ).sort();
  if (names.length === 0) return [];
  if (!names.includes("schema_version")) return names;
  return names.filter((n) => !OWN_TABLES.includes(n));
}

function refusal(file: string, foreign: string[]): StoreRefused {
  const shown = foreign.slice(0, 4).join(", ") + (foreign.length > 4 ? `, … (${foreign.length} in all)` : "");
  return new StoreRefused(
    `${file} holds tables mcp-wire did not make (${shown}); it was left untouched. Name a new file with --db`,
  );
}

/**
 * A census database to write to: created when missing (unless `mustExist`), migrated when
 * older. A file that is not SQLite, or an SQLite database holding other programs' tables, is
 * refused before anything is written; a file this call created is removed again on failure.
 *
 * An existing file is first looked at read-only, and opened for writing only once it is known
 * to be ours: a writable connection that closes last checkpoints the file's `-wal` into it and
 * deletes the `-wal` and `-shm`, which would change another program's database (one whose
 * writer was killed with pages still in its `-wal`) while saying it was left untouched.
 */
export function openWritable(file: string, mustExist: boolean): Database.Database {
  const existed = existsSync(file);
  if (!existed && mustExist) throw new StoreRefused(`no census database at ${file}`);
  if (existed) {
    const head = header(file);
    // an empty file is a new database to SQLite; anything else must be one already
    if (head.length > 0 && !isSqlite(head))
      throw new StoreRefused(`${file} is not an SQLite database; it was left untouched. Name a new file with --db`);
    if (head.length > 0) recognise(file, head);
  }
  // SQLite says only "unable to open database file" when it cannot write the file or, for its
  // -wal and -shm, the folder: asked first, the system says which (an errno error naming the path)
  // (an in-memory database, ":memory:" or "", has no file)
  if (file !== ":memory:" && file !== "") {
    const folder = path.dirname(path.resolve(file));
    if (existsSync(folder) && !statSync(folder).isDirectory())
      throw new StoreRefused(`cannot write ${file}: ${folder} is not a folder`);
    if (existed) accessSync(file, constants.W_OK);
    accessSync(folder, constants.W_OK);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: existed });
    // a census and a report may open the file at once: wait for the other's lock instead of failing
    db.pragma("busy_timeout = 5000");
    db.pragma("journal_mode = WAL");
    // WAL with NORMAL survives a killed process (what --resume relies on); only a power cut can
    // lose the last commits, and an fsync per attempt would throttle a census for nothing
    db.pragma("synchronous = NORMAL");
    migrate(db);
    return db;
  } catch (e) {
    db?.close();
    if (!existed) for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(f, { force: true });
    throw e;
  }
}

/** Refuses an existing SQLite file that mcp-wire may not write to, having only read it. */
function recognise(file: string, head: Buffer): void {
  const { db, copy } = openForReading(file, head);
  try {
    const version = schemaVersion(db);
    if (version > SCHEMA_VERSION)
      throw new StoreRefused(
        `${file}: schema version ${version} comes from a newer mcp-wire (this one knows up to ${SCHEMA_VERSION})`,
      );
    const foreign = foreignObjects(db);
    if (foreign.length > 0) throw refusal(file, foreign);
  } finally {
    db.close();
    if (copy) rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * A read-only connection that writes nothing beside the file but read marks in an existing
 * `-shm`. A file in WAL mode with no `-wal` beside it has no writer: a read-only connection
 * would still create `-wal` and `-shm`, so a private copy is read instead (the file is complete
 * without a WAL). With a `-wal` present a writer is at work (or was killed), and the files are
 * read where they are, so what the `-wal` holds is seen too. `copy` is the directory to remove
 * once the connection is closed.
 */
function openForReading(file: string, head: Buffer): { db: Database.Database; copy: string | undefined } {
  // bytes 18 and 19 of the header are the read and write versions: 2 means WAL
  const wal = head[18] === 2 && !existsSync(`${file}-wal`);
  let copy: string | undefined;
  let source = file;
  if (wal) {
    copy = mkdtempSync(path.join(tmpdir(), "mcp-wire-report-"));
    source = path.join(copy, path.basename(file));
    copyFileSync(file, source);
  }
  try {
    const db = new Database(source, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    return { db, copy };
  } catch (e) {
    if (copy) rmSync(copy, { recursive: true, force: true });
    throw e;
  }
}

/** A census database to read (a report), without leaving a byte behind; see openForReading. */
export function openReadonly(file: string): { db: Database.Database; copy: string | undefined } {
  if (!existsSync(file)) throw new StoreRefused(`no census database at ${file}`);
  const head = header(file);
  if (!isSqlite(head))
    throw new StoreRefused(
      `${file} is ${head.length === 0 ? "empty" : "not an SQLite database"}, not a census database`,
    );
  const opened = openForReading(file, head);
  if (schemaVersion(opened.db) === 0 || foreignObjects(opened.db).length > 0) {
    opened.db.close();
    if (opened.copy) rmSync(opened.copy, { recursive: true, force: true });
    throw new StoreRefused(`${file} is not a census database of mcp-wire`);
  }
  return opened;
}
