/**
 * Starting and stopping the processes of the interop suite (independent MCP peers, `mcp-wire
 * tap`, `probe`, `lint`), each with a deadline, and the clients that talk through them. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI, within } from "./mcp-interop.js";
import { isHeader } from "../recording/recording.js";

export { CLI, within };

/** The repository root, from `dist/src/interop/`. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const fixture = (path: string): string => join(ROOT, "test/fixtures", path);
export const modulePath = (path: string): string => join(ROOT, "node_modules", path);
export const NODE = process.execPath;

/** Deadline for one step (a start, a probe, a call): only a hang should ever reach it. */
export const STEP_MS = 20_000;

/**
 * A scratch folder removed by `cleanup()`, or kept (and named on stderr) with
 * MCP_WIRE_INTEROP_KEEP=1, so the tap logs of a failing cell can be read afterwards.
 */
export function scratch(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-interop-"));
  const keep = process.env.MCP_WIRE_INTEROP_KEEP === "1";
  return {
    dir,
    cleanup: () =>
      keep ? void process.stderr.write(`interop: kept ${dir}\n`) : rmSync(dir, { recursive: true, force: true }),
  };
}

/** A port nothing listens on right now, for peers that cannot report the one they picked. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const KEEP = 256 * 1024;

/** A child process with both outputs kept (their last 256 KiB) and a bounded stop. */
export class Proc {
  readonly child: ChildProcess;
  private out = "";
  private err = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly command: string,
    readonly args: readonly string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
  ) {
    // stdin stays an open pipe: some fixtures end when it closes
    this.child = spawn(command, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
      cwd: options.cwd ?? ROOT,
    });
    this.child.stdout!.setEncoding("utf8").on("data", (s: string) => (this.out = (this.out + s).slice(-KEEP)));
    this.child.stderr!.setEncoding("utf8").on("data", (s: string) => (this.err = (this.err + s).slice(-KEEP)));
    this.child.stdin!.on("error", () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once("error", () => resolve({ code: null, signal: null }));
      this.child.once("close", (code, signal) => resolve({ code, signal }));
    });
  }

  get stdout(): string {
    return this.out;
  }
  get stderr(): string {
    return this.err;
  }
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in stdout or stderr; fails if the process ends first. */
  async waitFor(pattern: RegExp, what: string, ms = STEP_MS): Promise<RegExpExecArray> {
    const start = Date.now();
    for (;;) {
      const m = pattern.exec(this.out) ?? pattern.exec(this.err);
      if (m) return m;
      if (!this.running)
        throw new Error(
          `${what}: ${this.command} ${this.args.join(" ")} exited first; stderr:\n${this.err.slice(-2000)}`,
        );
      if (Date.now() - start > ms)
        throw new Error(`${what}: not seen after ${ms} ms; stderr:\n${this.err.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 3000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (this.running) this.child.kill("SIGKILL");
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return within(this.exited, `${this.command} exiting`);
  }
}

/** A server process that prints `PORT <n>` once it listens on 127.0.0.1. */
export async function startListening(
  command: string,
  args: readonly string[],
  path = "/mcp",
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<{ proc: Proc; url: string }> {
  const proc = new Proc(command, args, options);
  try {
    const m = await proc.waitFor(/PORT (\d+)/, `${args.join(" ")} listening`);
    return { proc, url: `http://127.0.0.1:${m[1]}${path}` };
  } catch (e) {
    await proc.stop(500);
    throw e;
  }
}

/** Resolves once `url` answers HTTP at all (any status); stops `proc` and fails if it never does. */
export async function untilListening(proc: Proc, url: string): Promise<void> {
  const start = Date.now();
  for (;;) {
    const up = await fetch(url, {
      method: "GET",
      headers: { accept: "text/event-stream" },
      signal: AbortSignal.timeout(1000),
    }).then(
      (r) => (void r.body?.cancel().catch(() => undefined), true),
      () => false,
    );
    if (up) return;
    if (!proc.running || Date.now() - start > STEP_MS) {
      await proc.stop(500);
      throw new Error(`${proc.args.join(" ")} did not answer at ${url}; stderr:\n${proc.stderr.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `mcp-wire serve --http 0`, and the URL it listens on. */
export async function startServeHttp(): Promise<{ proc: Proc; url: string }> {
  const proc = new Proc(NODE, [CLI, "serve", "--http", "0"]);
  const m = await proc.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/, "mcp-wire serve --http listening");
  return { proc, url: m[1]! };
}

// ---- mcp-wire's commands ----

export interface ProbeVerdict {
  class: string;
  detail: string;
  era: string | null;
  revision: string | null;
  transport: string;
  tools: number | null;
  defects: { code: string; severity: string; message: string }[];
  advice: string;
}

/** `mcp-wire probe --json …` as a real process: its exit status and verdict. */
export async function probe(
  target: readonly string[],
  extra: readonly string[] = [],
): Promise<{ status: number | null; verdict: ProbeVerdict; raw: string; stderr: string }> {
  const proc = new Proc(NODE, [CLI, "probe", "--json", "--timeout", "15000", ...extra, ...target]);
  const { code } = await within(proc.exited, `mcp-wire probe ${target.join(" ")}`, STEP_MS + 5000);
  let verdict: ProbeVerdict;
  try {
    verdict = JSON.parse(proc.stdout) as ProbeVerdict;
  } catch {
    throw new Error(
      `probe printed no JSON (exit ${code}); stdout: ${proc.stdout.slice(0, 500)}; stderr: ${proc.stderr.slice(-1000)}`,
    );
  }
  return { status: code, verdict, raw: proc.stdout, stderr: proc.stderr };
}

/** The stdio tap as a command line a client spawns as its server: `mcp-wire tap --log LOG -- …`. */
export function tapStdioCommand(
  log: string,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return { command: NODE, args: [CLI, "tap", "--log", log, "--", command, ...args] };
}

/** `mcp-wire tap --listen 0 --upstream URL --log LOG`, and the URL it listens on. */
export async function startHttpTap(upstream: string, log: string): Promise<{ proc: Proc; url: string }> {
  const proc = new Proc(NODE, [CLI, "tap", "--listen", "0", "--upstream", upstream, "--log", log]);
  const m = await proc.waitFor(/listening on (http:\/\/\S+)/, "mcp-wire tap --listen");
  return { proc, url: m[1]! };
}

/** What the tap said at the end of a session: `no defects`, or the count line by code. */
export interface TapSummary {
  /** `tap: 4 messages client→server, 4 server→client; …` */
  traffic: string;
  /** `no defects` or `3 defects (…): 2 id_reused_in_flight (error), …` */
  defects: string;
  clean: boolean;
}

/** The last summary in a tap's stderr; throws if the tap printed none. */
export function tapSummary(stderr: string): TapSummary {
  const lines = stderr.split("\n");
  const at = lines.findLastIndex((l) => /^tap: \d+ messages? client→server/.test(l));
  if (at < 0) throw new Error(`the tap printed no summary; its stderr:\n${stderr.slice(-2000)}`);
  const defects = (lines[at + 1] ?? "").replace(/^tap: /, "");
  return { traffic: lines[at]!.replace(/^tap: /, ""), defects, clean: defects === "no defects" };
}

export interface LogRecord {
  from: string;
  line: string;
  kind: string;
  defects: { code: string; severity: string; message: string; path?: string }[];
  conversation?: unknown;
}

/** The records a `tap --log` wrote. */
/** The message records of a tap log: its header and the exchanges that carried no message left out. */
export function readLog(file: string): LogRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => !isHeader(r) && typeof r.line === "string")
    .map((r) => r as unknown as LogRecord);
}

/** `mcp-wire lint --json FILE`: its exit status and every defect, with the line it is on. */
export function lint(file: string): {
  status: number | null;
  defects: { line: number; code: string; severity: string; message: string }[];
  lines: number;
  stderr: string;
} {
  const r = spawnSync(NODE, [CLI, "lint", "--json", file], {
    encoding: "utf8",
    timeout: STEP_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const records = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { line: number; defects: { code: string; severity: string; message: string }[] });
  return {
    status: r.status,
    defects: records.flatMap((rec) => rec.defects.map((d) => ({ line: rec.line, ...d }))),
    lines: records.length,
    stderr: r.stderr,
  };
}

/** Defects as one line each, for assertion messages a person can act on. */
export function listDefects(
  defects: readonly { code: string; severity: string; message: string; line?: number }[],
): string {
  return defects
    .map((d) => `${d.line !== undefined ? `line ${d.line}: ` : ""}${d.severity} ${d.code}: ${d.message}`)
    .join("\n");
}
