/**
 * Helpers shared by the tap tests: `mcp-wire tap` as a real child process, what it wrote each
 * way, and its live report parsed. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { readFileSync } from "node:fs";
import { spawn, spawnSync, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CLI, until, within } from "./mcp-interop.js";

export { CLI, until, within };

export const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));

/** One line of the live report: `tap: client→server line 12: error id_null at /id: …`. */
export interface LiveDefect {
  from: "client" | "server";
  where: string;
  severity: string;
  code: string;
}

const LIVE = /^tap: (client|server)→(?:server|client) (.+?): (error|warning|info) ([a-z_0-9]+)(?: at \S*)?: /;

export function liveDefects(stderr: string): LiveDefect[] {
  const found: LiveDefect[] = [];
  for (const line of stderr.split("\n")) {
    const m = LIVE.exec(line);
    if (m) found.push({ from: m[1] as "client" | "server", where: m[2]!, severity: m[3]!, code: m[4]! });
  }
  return found;
}

/** `mcp-wire tap …` with pipes on all three streams. */
export class TapProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly out: Buffer[] = [];
  private outBytes = 0;
  private err = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [CLI, "tap", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (b: Buffer) => {
      this.out.push(b);
      this.outBytes += b.length;
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s: string) => (this.err += s));
    this.child.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
  }

  get stdout(): Buffer {
    return Buffer.concat(this.out, this.outBytes);
  }

  get stderr(): string {
    return this.err;
  }

  /** Writes and waits until the pipe has taken it. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(data, (e) => (e ? reject(e) : resolve())));
  }

  /** The complete lines the tap has passed on from the server so far. */
  lines(): string[] {
    const text = this.stdout.toString("latin1");
    return text.split("\n").slice(0, -1);
  }

  untilLines(n: number, what = `${n} lines from the server`): Promise<void> {
    return until(() => this.lines().length >= n, what);
  }

  /** Closes the client's side and waits for the tap to exit. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return within(this.exited, "the tap exiting");
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

/** The message records of a recording (`tap --log`), without its header and bodiless exchanges. */
export function messageRecords<T = Record<string, unknown>>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => typeof r.line === "string") as T[];
}

/**
 * Resolves once the recording a `tap --log` is writing holds a message record that `wanted`
 * accepts. The tap writes a message's record once it is judged, which on a busy machine comes
 * well after the client had the message; an SDK client's close() ends the tap with SIGTERM two
 * seconds after closing its input, and what was not written by then is lost. A test that reads
 * the recording waits for its last message this way before it closes the client.
 */
export async function untilRecorded(
  file: string,
  wanted: (record: { from?: string; line: string }) => boolean,
  what: string,
): Promise<void> {
  const written = () => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return false;
    }
    // whole lines only: the last may be half written
    const lines = text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean);
    return lines
      .map((l) => JSON.parse(l) as { from?: string; line?: unknown })
      .some((r) => typeof r.line === "string" && wanted(r as { from?: string; line: string }));
  };
  await until(written, `the recording to hold ${what}`, 60_000);
}

/** `mcp-wire lint --json FILE`: one record per line. */
export function lintJson(
  file: string,
  extra: readonly string[] = [],
): { status: number | null; records: { line: number; kind: string; from?: string; defects: { code: string }[] }[] } {
  const r = spawnSync(process.execPath, [CLI, "lint", "--json", ...extra, file], { encoding: "utf8", timeout: 20_000 });
  return {
    status: r.status,
    records: r.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

/** A child process that prints its URL once it is ready: `mcp-wire serve --http 0`, a fixture server. */
export interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): void;
}

/** Spawns `node args…` and waits for `pattern` on stdout or stderr; its first group is the URL. */
export async function startPrinting(
  args: readonly string[],
  pattern: RegExp,
  url: (m: RegExpExecArray) => string = (m) => m[1]!,
): Promise<Started> {
  const child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const found = within(
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = pattern.exec(out + err);
        if (m) resolve(url(m));
      };
      child.stdout!.setEncoding("utf8").on("data", (d: string) => ((out += d), look()));
      child.stderr!.setEncoding("utf8").on("data", (d: string) => ((err += d), look()));
      child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}):\n${err}`)));
    }),
    `${args.join(" ")} printing its URL`,
  );
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  try {
    return { child, url: await found, stderr: () => err, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/** server-everything over HTTP (`streamable` on /mcp, or `sse` on /sse), as a child process. */
export function startEverythingHttp(mode: "streamable" | "sse"): Promise<Started> {
  return startPrinting(
    [fixture("everything-http.mjs"), mode],
    /PORT (\d+)/,
    (m) => `http://127.0.0.1:${m[1]}${mode === "sse" ? "/sse" : "/mcp"}`,
  );
}

/** `mcp-wire serve --http 0`. */
export function startServeHttp(): Promise<Started> {
  return startPrinting([CLI, "serve", "--http", "0"], /listening on (http:\/\/\S+)/);
}
