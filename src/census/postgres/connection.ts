/**
 * Connections to the census's PostgreSQL: the URL read as `pg` reads it, a password looked up
 * where `psql` looks when the URL has none, a deadline on every call, and connections that a
 * server gone silent cannot hold open. A server that stops (or whose network does) fails the
 * call that was waiting; one that is up but frozen (the connection open, no answer coming) would
 * otherwise hold a census forever, and with it the user's Ctrl-C.
 */
import { createRequire } from "node:module";
import { Socket } from "node:net";
import pg from "pg";
import { parseIntoClientConfig } from "pg-connection-string";
import { redact, rememberDatabaseUrl } from "../../secrets/redact.js";
import { StoreUnreachable } from "../store.js";
import { SCHEMA } from "./schema.js";
import { settlesWithin } from "../../peer/within.js";

/**
 * How long one call may take: the server cancels a statement that runs longer (its
 * `statement_timeout`), and the client gives up on one the server never answers a little later.
 * A report over millions of attempts answers well within it.
 */
const DEFAULT_DEADLINE_MS = 60_000;
/** The client waits this much past the server's deadline, so a slow statement is cancelled by the server, cleanly. */
const CLIENT_MARGIN_MS = 2_000;
/** Connecting: the TCP connection, the sign-in and the server's first answers. */
const CONNECT_MS = 10_000;
/** Ending the connections politely; past it they are cut. */
const CLOSE_MS = 2_000;

/** `--db postgres:` alone: every connection setting from PGHOST, PGUSER, PGPASSWORD… */
function bare(url: string): boolean {
  return /^postgres(ql)?:$/i.test(url);
}

/** The database as a message may name it: never its password. */
export function describeDb(url: string): string {
  return bare(url) ? `${url} (PGHOST, PGDATABASE… from the environment)` : rememberDatabaseUrl(url);
}

/**
 * pgpass, the password-file reader `pg` itself uses (without types): a dependency of pg, not of
 * mcp-wire (pg is an optional peer), so it is found from pg's own folder.
 */
const pgpass = createRequire(createRequire(import.meta.url).resolve("pg"))("pgpass") as (
  params: PasswordLookup,
  found: (password: string | undefined) => void,
) => void;

interface PasswordLookup {
  host?: string | undefined;
  port?: number | undefined;
  database?: string | undefined;
  user?: string | undefined;
}

/**
 * The password when the URL gives none, found where `pg` and `psql` look: PGPASSWORD, then the
 * password file (PGPASSFILE, else ~/.pgpass, used only when no one else may read it). Either
 * keeps the password off the command line, where `ps` shows it to every user of the machine.
 * Done here rather than by `pg`, whose own password-file lookup prints a deprecation warning.
 */
async function passwordFromEnvironment(params: PasswordLookup): Promise<string | undefined> {
  const fromEnv = process.env.PGPASSWORD;
  if (fromEnv) return fromEnv;
  return new Promise((resolve) =>
    pgpass({ host: params.host, port: params.port, database: params.database, user: params.user }, resolve),
  );
}

export interface PoolOptions {
  /** Settings for every session, as `-c name=value` words. */
  settings?: string;
  max: number;
  deadlineMs?: number;
}

/** A pool and the sockets under it, which `end` cuts if the server does not answer the goodbye. */
export interface Connections {
  readonly pool: pg.Pool;
  end(): Promise<void>;
}

export function connect(url: string, options: PoolOptions): Connections {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const sockets = new Set<Socket>();
  // read as pg reads a connectionString; the password, when the URL has none, is looked up as above
  const { password, ...fromUrl } = bare(url)
    ? { password: undefined }
    : (parseIntoClientConfig(url) as pg.ClientConfig);
  const pool = new pg.Pool({
    application_name: "mcp-wire",
    connectionTimeoutMillis: Math.min(CONNECT_MS, deadlineMs),
    statement_timeout: deadlineMs,
    query_timeout: deadlineMs + CLIENT_MARGIN_MS,
    // a peer that vanished without closing (a cable, a crashed host) is found by the kernel
    keepAlive: true,
    max: options.max,
    options: `-c search_path=${SCHEMA}${options.settings ?? ""}`,
    ...fromUrl,
    // pg calls a password function with the connection's parameters, and takes undefined as "none"
    password:
      typeof password === "string" && password !== ""
        ? password
        : (passwordFromEnvironment as unknown as () => Promise<string>),
    // pg's own socket, made here so that `end` can cut it
    stream: () => {
      const socket = new Socket();
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      return socket;
    },
  });
  // an idle connection the server dropped: the pool replaces it, the next query says if it matters
  pool.on("error", () => undefined);
  let ended: Promise<void> | undefined;
  return {
    pool,
    end: () =>
      (ended ??= (async () => {
        const polite = pool.end().catch(() => undefined);
        if (await settlesWithin(polite, CLOSE_MS)) return;
        // a frozen server never answers the goodbye, and its sockets would keep the process alive
        for (const s of sockets) s.destroy();
        await settlesWithin(polite, CLOSE_MS);
      })()),
  };
}

/** Errors of the network or of a server that stopped: not of what was asked of it. */
const LOST_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/**
 * SQLSTATEs of a server going away: the connection exceptions (class 08), shut down by an
 * administrator, crashed, starting or stopping (57P01–57P03), and a statement cancelled, which
 * here is only ever its deadline (57014).
 */
const LOST_STATES = new Set(["57P01", "57P02", "57P03", "57014"]);
/** What `pg` says when a connection broke or a call passed its deadline, where it gives no code. */
const LOST_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection timeout|Client has encountered a connection error/i;

/** Whether `e` says the server is gone, or silent past the deadline, rather than that a statement is wrong. */
export function lostServer(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && (LOST_CODES.has(code) || LOST_STATES.has(code) || code.startsWith("08"))) return true;
  return e instanceof Error && LOST_MESSAGE.test(e.message);
}

/** `e` as a StoreUnreachable when it says the server is gone, else as it is. */
function unreachable(e: unknown, where: string): unknown {
  if (!lostServer(e) || e instanceof StoreUnreachable) return e;
  const message = e instanceof Error ? e.message : String(e);
  const reason = /Query read timeout/i.test(message)
    ? "no answer before the deadline"
    : redact(message.split("\n")[0]!.slice(0, 200));
  return new StoreUnreachable(where, reason, { cause: e });
}

/** Runs a database call, naming a lost server as such. */
export async function guarded<T>(where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw unreachable(e, where);
  }
}
