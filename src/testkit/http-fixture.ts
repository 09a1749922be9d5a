/**
 * A fixture HTTP server as a child process, for the tests: started, its port read from the
 * "PORT <n>" line it prints, stopped by ending its stdin. A test helper: src/testkit/ is left out
 * of the package, and it declares no tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { within } from "./mcp-interop.js";

/** A fixture server as a child process: started, its port read from "PORT <n>", stopped. */
export class HttpFixture {
  private child: ChildProcess | undefined;
  private err = "";
  port = 0;

  constructor(
    private readonly script: string,
    private readonly args: readonly string[],
  ) {}

  async start(): Promise<void> {
    const child = spawn(process.execPath, [this.script, ...this.args], { stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (this.err = (this.err + d).slice(-8192)));
    let out = "";
    this.port = await within(
      new Promise<number>((resolve, reject) => {
        child.stdout!.setEncoding("utf8").on("data", (d: string) => {
          out += d;
          const m = /PORT (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once("exit", (code) =>
          reject(new Error(`${this.script} exited (${code}) before listening: ${this.err}`)),
        );
        child.once("error", reject);
      }),
      `${this.script} listening`,
    );
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  stderr(): string {
    return this.err;
  }

  /** Ends its stdin (the fixtures exit then); SIGKILL if it is still there after a second. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 1000);
    await exited;
    clearTimeout(timer);
  }
}
