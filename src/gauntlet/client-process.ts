/**
 * The client under test as a process of its own group: run once per scenario, with a deadline,
 * and ended with everything it started. When it exits, or its deadline passes (then with
 * SIGTERM), it gets a grace period to close what it opened; then its whole process group gets
 * SIGKILL, so nothing is left running. Its output is drained and only a bounded tail kept, so a
 * client that floods its stdout costs nothing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeOnWayOut } from "../cli/signals.js";

/** What the client gets to close what it opened, after it exits or its deadline passes. */
const GRACE_MS = 5_000;
const TAIL_BYTES = 4096;
const POLL_MS = 50;

export interface ClientEnd {
  /** Its exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Its deadline passed before it exited. */
  timedOut: boolean;
  /** It could not be started at all. */
  spawnError?: string;
  /** The end of what it wrote to stderr. */
  stderrTail: string;
}

export class ClientProcess {
  private readonly child: ChildProcess;
  private tail = "";
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>;
  private readonly unregister: () => void;

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, [...args], { detached: true, stdio: ["ignore", "pipe", "pipe"], env });
    this.child.stdout?.resume();
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString("utf8")).slice(-TAIL_BYTES);
    });
    this.exited = new Promise((resolve) => {
      this.child.once("error", (e) => resolve({ code: null, signal: null, error: e.message }));
      this.child.once("exit", (code, signal) => resolve({ code, signal }));
    });
    const kill = () => this.killGroup("SIGKILL");
    process.once("exit", kill);
    const unregisterWayOut = closeOnWayOut(async () => kill());
    this.unregister = () => {
      process.off("exit", kill);
      unregisterWayOut();
    };
  }

  /** Waits for the client to exit within `deadlineMs`, then ends its group as the class says. */
  async finish(deadlineMs: number): Promise<ClientEnd> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), deadlineMs)));
    const first = await Promise.race([this.exited, deadline]);
    clearTimeout(timer);
    const timedOut = first === "deadline";
    if (timedOut) this.killGroup("SIGTERM");
    await this.groupGone(GRACE_MS);
    this.killGroup("SIGKILL");
    const end = await this.exited;
    this.unregister();
    return {
      code: end.code,
      signal: end.signal,
      timedOut,
      ...(end.error !== undefined ? { spawnError: end.error } : {}),
      stderrTail: this.tail,
    };
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  }

  /** Resolves once no process of the group is left, or after `ms`. */
  private async groupGone(ms: number): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const until = Date.now() + ms;
    while (Date.now() < until) {
      try {
        process.kill(-pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
