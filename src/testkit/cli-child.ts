/**
 * `mcp-wire census` as a child process, as a user runs it: for the tests that kill one
 * part-way or run several side by side. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

export interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name); rejects after `ms`, killing the child. */
  exit: (ms?: number) => Promise<number | string>;
}

/** `as`: run as this user and group (a test running as root, playing a user without root's rights), or in this folder. */
export function mcpWire(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  as?: { uid: number; gid: number } | { cwd: string },
): Child {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(as ?? {}),
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  // "close", not "exit": the exit can come before the last of stdout and stderr has been read
  const exited = new Promise<number | string>((resolve) =>
    child.on("close", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exit: (ms = 60_000) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`mcp-wire ${args[0]} did not exit within ${ms} ms; stderr: ${err}`));
        }, ms);
      });
      return Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
  };
}
