/**
 * `mcp-wire demo` (and the commands beside it) as `npm start` runs it on a fresh machine: no
 * terminal, no input, nothing but the working directory. Shared by the demo's test in `npm test`
 * and the heavier runs of `npm run interop`. A test helper: src/testkit/ is left out of the
 * package, and it declares no tests.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `mcp-wire ARGS` in `dir`, killed (and so no exit status of 0 or 2) past `deadlineMs`. */
export function runIn(dir: string, args: string[], deadlineMs = 120_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), deadlineMs);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** The servers the report names, in its order: the same fleet on the same ports reads the same. */
export const urls = (out: string) => [...out.matchAll(/http:\/\/127\.0\.0\.1:\d+\/\S*/g)].map((m) => m[0]).sort();
