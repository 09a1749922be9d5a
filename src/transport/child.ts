/**
 * A stdio MCP server as a child process: spawned with pipes, its stderr kept (the last part of
 * it, capped) as evidence, and shut down as the stdio transport says: close its input, wait,
 * SIGTERM, wait, SIGKILL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { ServerExitedError, SpawnError } from "../peer/errors.js";
import { redact } from "../secrets/redact.js";
import { StreamTransport, type StreamTransportOptions } from "./stream.js";
import { endOnWayOut } from "./way-out.js";

/**
 * The longest line read from a server by default: file and image tools answer with a whole file
 * base64-encoded on one line, often past 4 MiB (a 5 MiB text file is a 5.2 MB line), so the
 * client reads up to 64 MiB; past it the request fails at once, never after its deadline.
 */
const CHILD_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface SpawnOptions extends StreamTransportOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How much of the end of stderr to keep. Default 64 KiB. */
  stderrBytes?: number;
  /**
   * Start the server in a process group of its own and signal the whole group, so what it forks
   * (a shell wrapper's server, an `npx` child) ends with it.
   */
  group?: boolean;
  /** Each wait of `shutdown` (and of `McpClient.close()` over it): after stdin closes, after SIGTERM. Default 2000 ms. */
  graceMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  error?: Error;
}

/** How long an ended output waits for the process's exit, and the exit for the rest of stderr. */
const EXIT_GRACE_MS = 500;
/** The default wait of each graceful step of a shutdown. */
const DEFAULT_GRACE_MS = 2000;
/** How much of stderr an error shows: the last lines, which say why a server stopped. */
const STDERR_LINES = 20;
const STDERR_CHARS = 2000;
/** Environment names whose values are secrets. */
const SECRET_NAME = /key|token|secret|password|passwd|auth|credential/i;

function secretValues(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value && SECRET_NAME.test(name)) out[name] = value;
  return out;
}

function lastLines(text: string, lines: number, chars: number): string {
  const kept = text.trimEnd().split("\n").slice(-lines).join("\n");
  return kept.length > chars ? `…${kept.slice(kept.length - chars)}` : kept;
}

export class ChildServer {
  readonly transport: StreamTransport;
  /**
   * Settles once the process has exited and what it wrote to stderr has been read to the end
   * (or a grace has passed, if a grandchild holds the pipe): `stderrTail()` is complete then.
   */
  readonly exited: Promise<ExitStatus>;
  /** Settles at the exit itself, before the rest of stderr may have been read. */
  private readonly exitSeen: Promise<ExitStatus>;
  private readonly child: ChildProcessWithoutNullStreams;
  private stderrParts: Buffer[] = [];
  private stderrHeld = 0;
  private exit: ExitStatus | undefined;
  private readonly stderrCap: number;
  /** Settles once the process has exited and its pipes are closed: all of its stderr has been read. */
  private readonly done: Promise<void>;
  /** Values of the environment whose names say they are secrets: hidden wherever stderr shows them. */
  private readonly secretEnv: Record<string, string>;
  private readonly grouped: boolean;
  private readonly graceMs: number;

  constructor(
    readonly command: string,
    readonly args: readonly string[] = [],
    options: SpawnOptions = {},
  ) {
    this.stderrCap = options.stderrBytes ?? 64 * 1024;
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.secretEnv = secretValues(options.env ?? process.env);
    this.child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      // POSIX only: on Windows `detached` opens a console of its own instead
      detached: options.group === true && process.platform !== "win32",
    });
    this.grouped = options.group === true && process.platform !== "win32";
    // a program ending early (a signal, an uncaught error) ends it too, rather than leave it running unparented
    const unregister =
      this.child.pid === undefined
        ? () => undefined
        : endOnWayOut({ end: (graceMs) => this.terminate(graceMs), kill: () => this.kill("SIGKILL") });
    this.exitSeen = new Promise<ExitStatus>((resolve) => {
      this.child.on("error", (error) => {
        unregister();
        // spawn failures (ENOENT, EACCES) come here, before the pipes end, and no "exit" follows;
        // later ones (a failed kill) must not go unhandled either
        if (this.child.pid === undefined && this.exit === undefined)
          this.transport.fail(new SpawnError(command, error));
        this.exit ??= { code: null, signal: null, error };
        resolve(this.exit);
      });
      this.child.once("exit", (code, signal) => {
        unregister();
        this.exit ??= { code, signal };
        resolve(this.exit);
      });
    });
    this.done = new Promise((resolve) => this.child.once("close", () => resolve()));
    this.exited = this.exitSeen.then(async (status) => {
      if (!status.error)
        await Promise.race([this.done, new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
      return status;
    });
    this.child.stderr.on("data", (chunk: Buffer) => this.keepStderr(chunk));
    // a server that dies mid-write must not crash us with EPIPE
    this.child.stdin.on("error", () => undefined);
    this.transport = new StreamTransport(this.child.stdout, this.child.stdin, {
      ...options,
      maxLineBytes: options.maxLineBytes ?? CHILD_MAX_LINE_BYTES,
      explainEnd: () => this.explainEnd(),
      endOther: () => this.shutdown(),
      evidence: () => {
        const tail = this.redactedStderr();
        return tail ? `its stderr ends:\n${tail.replace(/^/gm, "  ")}` : "it wrote nothing to stderr";
      },
    });
  }

  /**
   * Why its output ended: the process exited (its status or signal, and the end of its stderr,
   * read to the last byte unless a grandchild holds the pipe past a grace), or undefined if it
   * is still running (it closed its stdout and lives on).
   */
  private async explainEnd(): Promise<Error | undefined> {
    if (!this.exit && !(await this.waitExit(EXIT_GRACE_MS))) return undefined;
    const exit = this.exit!;
    if (exit.error) return undefined;
    await Promise.race([this.done, new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
    return new ServerExitedError([this.command, ...this.args].join(" "), exit.code, exit.signal, this.redactedStderr());
  }

  /** The last lines of stderr, as an error may show them: secrets redacted. */
  redactedStderr(): string {
    return redact(lastLines(this.stderrTail(), STDERR_LINES, STDERR_CHARS), this.secretEnv);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The exit status, once the process has ended. */
  get status(): ExitStatus | undefined {
    return this.exit;
  }

  /** The last part of what the server wrote to stderr. */
  stderrTail(): string {
    return Buffer.concat(this.stderrParts).toString("utf8");
  }

  /**
   * Graceful first, forced if need be: stdin closed, `graceMs` later SIGTERM, `graceMs` later
   * SIGKILL. Resolves once the process is gone, or `graceMs` after the SIGKILL at the latest
   * (a process stuck in the kernel): never more than three graces in all. Our ends of its pipes
   * are let go as well, so a grandchild that inherited them cannot keep this process alive.
   */
  async shutdown(graceMs = this.graceMs): Promise<ExitStatus> {
    if (!this.exit) {
      this.child.stdin.end();
      if (!(await this.waitExit(graceMs))) return this.terminate(graceMs);
    }
    // it ended on its own, and what it forked goes with it
    if (this.grouped) this.signal("SIGTERM");
    // what it wrote last is still read, unless a grandchild holds the pipes open past a grace
    const timer = setTimeout(() => this.release(), graceMs);
    timer.unref();
    this.child.once("close", () => clearTimeout(timer));
    return this.exit!;
  }

  /** SIGTERM, then SIGKILL `graceMs` later if it has not exited: for a program that is ending now. */
  async terminate(graceMs: number): Promise<ExitStatus> {
    if (!this.exit) {
      this.signal("SIGTERM");
      if (!(await this.waitExit(graceMs))) {
        this.signal("SIGKILL");
        await this.waitExit(graceMs);
      }
      this.release();
    }
    return this.exit ?? { code: null, signal: null };
  }

  /** Sends `signal` at once, without waiting. */
  kill(signal: NodeJS.Signals): void {
    this.signal(signal);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (this.grouped && pid !== undefined) {
      try {
        // the group outlives its leader: grandchildren are signalled even after it exited
        process.kill(-pid, signal);
        return;
      } catch {
        // the group is gone, or was never made: the leader alone
      }
    }
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
  }

  private release(): void {
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.child.stdin.destroy();
  }

  private waitExit(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exitSeen.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrParts.push(chunk);
    this.stderrHeld += chunk.length;
    // whole chunks go while what is left still fills the cap; the oldest one left is cut to fit,
    // so a short last chunk after a long one does not leave the tail all but empty
    while (this.stderrParts.length > 0 && this.stderrHeld - this.stderrParts[0]!.length >= this.stderrCap) {
      this.stderrHeld -= this.stderrParts.shift()!.length;
    }
    if (this.stderrHeld > this.stderrCap && this.stderrParts.length > 0) {
      const oldest = this.stderrParts[0]!;
      this.stderrParts[0] = oldest.subarray(this.stderrHeld - this.stderrCap);
      this.stderrHeld = this.stderrCap;
    }
  }
}
