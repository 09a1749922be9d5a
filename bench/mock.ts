/**
 * `mock`: a recording played to a client, against the server it was recorded from.
 *
 * - round trips: sequential echo `tools/call`s to `mcp-wire mock` of a recording of `mcp-wire
 *   serve`, against the same calls to `mcp-wire serve` itself, over stdio and over HTTP apart
 *   (target: mock ≥ 0.8× the rate of serve);
 * - `replay` of a 10,000-exchange recording against `serve --stdio` (reading the file included),
 *   against the library's client sending the same requests to `serve --stdio` alone (target: at
 *   most 1.3× its time, printed as client time / replay time ≥ 0.77);
 * - a 10,000-exchange recording: the time from `mockServer(file)` to its first answer, against
 *   reading the file and `JSON.parse` of each of its lines (target: at most 2× that, printed as
 *   parse time / mock time ≥ 0.5), and the heap the loaded mock holds after GC against the file's
 *   size once it has read the whole file (target: at most 3×, printed as file size / heap ≥ 0.34).
 *
 * Every answer is checked, so a fast wrong answer shows.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { ChildServer, McpClient, connectHttp } from "../src/entry/client.js";
import { mockServer } from "../src/mock/library.js";
import { openScript } from "../src/mock/script.js";
import { replay } from "../src/replay/replay.js";
import { recordTransport } from "../src/recording/record-transport.js";
import { fmtBytes, gcExposed, table, within, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const TEXT = "hello";

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`mock benchmark: ${what}`);
}

function echoedText(result: unknown): unknown {
  return (result as { content?: { text?: unknown }[] }).content?.[0]?.text;
}

/** Records `calls` echo calls to `mcp-wire serve --stdio` into `file`. */
async function record(file: string, calls: number): Promise<void> {
  const child = new ChildServer(process.execPath, [CLI, "serve", "--stdio"]);
  try {
    const client = await within(
      McpClient.connect(() => recordTransport(child.transport, file)),
      "record: connect",
    );
    for (let i = 0; i < calls; i++) await client.callTool("echo", { text: TEXT });
    await client.close();
  } finally {
    await child.shutdown();
  }
}

/** Milliseconds for `n` sequential echo calls to the HTTP server `args` starts, once it printed its URL. */
async function timeHttpCalls(name: string, args: string[], printed: RegExp, n: number): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await within(
      new Promise<string>((resolve, reject) => {
        let seen = "";
        const look = (d: Buffer) => {
          seen += d.toString("utf8");
          const m = printed.exec(seen);
          if (m) resolve(m[1]!);
        };
        child.stdout.on("data", look);
        child.stderr.on("data", look);
        child.once("exit", () => reject(new Error(`${name} exited: ${seen}`)));
      }),
      `${name}: listening`,
    );
    const { client } = await within(connectHttp(url, { fresh: true }), `${name}: connect`);
    check(echoedText(await client.callTool("echo", { text: TEXT })) === TEXT, `${name} did not echo`);
    const t0 = performance.now();
    let last: unknown;
    for (let i = 0; i < n; i++) last = await client.callTool("echo", { text: TEXT });
    const ms = performance.now() - t0;
    check(echoedText(last) === TEXT, `${name} did not echo the last call`);
    await client.close().catch(() => undefined);
    return ms;
  } finally {
    child.kill("SIGKILL");
  }
}

/**
 * `replay` of the recording against `serve --stdio` (reading it included), against the library's
 * client sending the same `calls` echo requests to a fresh `serve --stdio` itself.
 */
async function timeReplay(file: string, calls: number): Promise<{ replayMs: number; clientMs: number }> {
  const c0 = performance.now();
  const child = new ChildServer(process.execPath, [CLI, "serve", "--stdio"]);
  try {
    const client = await within(
      McpClient.connect(() => child.transport),
      "client alone: connect",
    );
    let last: unknown;
    for (let i = 0; i < calls; i++) last = await client.callTool("echo", { text: TEXT });
    check(echoedText(last) === TEXT, "the client alone did not echo");
    await client.close();
  } finally {
    await child.shutdown();
  }
  const clientMs = performance.now() - c0;
  const r0 = performance.now();
  const children: ChildServer[] = [];
  try {
    const report = await replay(await openScript(file), {
      connect: () => {
        const c = new ChildServer(process.execPath, [CLI, "serve", "--stdio"]);
        children.push(c);
        return c.transport;
      },
      ignores: [],
      skip: new Set(),
    });
    const replayed = report.conversations.reduce((n, c) => n + c.requests.length, 0);
    check(report.unreachable === undefined && report.differences === 0, "replay found differences");
    check(replayed > calls, `replay sent ${replayed} requests`);
  } finally {
    await Promise.all(children.map((c) => c.shutdown()));
  }
  return { replayMs: performance.now() - r0, clientMs };
}

/** Milliseconds for `n` sequential echo calls to the stdio server `args` starts. */
async function timeCalls(name: string, args: string[], n: number): Promise<number> {
  const child = new ChildServer(process.execPath, args);
  try {
    const client = await within(
      McpClient.connect(() => child.transport),
      `${name}: connect`,
    );
    check(echoedText(await client.callTool("echo", { text: TEXT })) === TEXT, `${name} did not echo`);
    const t0 = performance.now();
    let last: unknown;
    for (let i = 0; i < n; i++) last = await client.callTool("echo", { text: TEXT });
    const ms = performance.now() - t0;
    check(echoedText(last) === TEXT, `${name} did not echo the last call`);
    await client.close().catch(() => undefined);
    return ms;
  } finally {
    await child.shutdown();
  }
}

function heap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

function outcome(of: string, versus: string, atLeast: number, r: number, measurement: string): TargetOutcome {
  return {
    of,
    versus,
    atLeast,
    benchmark: "mock",
    measurement,
    ratio: { median: r, p25: r, p75: r },
    met: r >= atLeast,
  };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const calls = profile.quick ? 500 : 5_000;
  const exchanges = profile.quick ? 1_000 : 10_000;
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-mock-bench-"));
  try {
    const small = path.join(dir, "echo.ndjson");
    await record(small, 1);
    const serveMs = await timeCalls("serve", [CLI, "serve", "--stdio"], calls);
    const mockMs = await timeCalls("mock", [CLI, "mock", small], calls);
    const serveHttpMs = await timeHttpCalls("serve --http", [CLI, "serve", "--http", "0"], /listening on (\S+)/, calls);
    const mockHttpMs = await timeHttpCalls(
      "mock --listen",
      [CLI, "mock", small, "--listen", "0"],
      /^(http:\S+)$/m,
      calls,
    );

    const big = path.join(dir, "big.ndjson");
    await record(big, exchanges);
    const size = statSync(big).size;
    const p0 = performance.now();
    const parsed = readFileSync(big, "utf8")
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as unknown);
    const parseMs = performance.now() - p0;
    check(parsed.length > exchanges, `the recording holds ${parsed.length} lines`);
    const before = heap();
    const m0 = performance.now();
    const mock = await mockServer(big);
    const client = await within(
      McpClient.connect(() => mock.transport()),
      "mockServer: connect",
    );
    const first = await client.callTool("echo", { text: TEXT });
    const firstMs = performance.now() - m0;
    check(echoedText(first) === TEXT, "mockServer did not echo");
    // a request with no recording is answered once the whole file is read: the heap is then the loaded mock's
    const missed = await client.callTool("echo", { text: "not recorded" }).then(
      () => false,
      () => true,
    );
    check(missed, "a request with no recording was answered");
    const held = heap() - before;
    await client.close();
    const { unmatched } = await mock.close();
    check(unmatched.length === 1, `${unmatched.length} requests unmatched`);
    const { replayMs, clientMs } = await timeReplay(big, exchanges);

    console.log(
      "\n" +
        table(
          ["measured", "mcp-wire mock", "versus", "versus is"],
          [
            [
              `${calls.toLocaleString("en")} sequential echo calls, stdio`,
              `${mockMs.toFixed(0)} ms`,
              `${serveMs.toFixed(0)} ms`,
              "mcp-wire serve",
            ],
            [
              `${calls.toLocaleString("en")} sequential echo calls, HTTP`,
              `${mockHttpMs.toFixed(0)} ms`,
              `${serveHttpMs.toFixed(0)} ms`,
              "mcp-wire serve --http",
            ],
            [
              `replay of ${exchanges.toLocaleString("en")} exchanges against serve`,
              `${replayMs.toFixed(0)} ms`,
              `${clientMs.toFixed(0)} ms`,
              "the library's client sending them",
            ],
            [
              `${exchanges.toLocaleString("en")}-exchange recording: first answer`,
              `${firstMs.toFixed(0)} ms`,
              `${parseMs.toFixed(0)} ms`,
              "read + JSON.parse of its lines",
            ],
            [
              "its heap after GC",
              fmtBytes(held),
              fmtBytes(size),
              `the file${gcExposed ? "" : " (no --expose-gc: heap not collected)"}`,
            ],
          ],
          [false, true, true, false],
        ),
    );
    return [
      outcome("mock", "serve", 0.8, serveMs / mockMs, `${calls} sequential echo tools/call over stdio`),
      outcome("mock", "serve", 0.8, serveHttpMs / mockHttpMs, `${calls} sequential echo tools/call over HTTP`),
      outcome(
        "the client alone",
        "replay",
        0.77,
        clientMs / replayMs,
        `replay of ${exchanges} exchanges against serve (≤ 1.3× the client alone)`,
      ),
      outcome(
        "JSON.parse of the lines",
        "mock's first answer",
        0.5,
        parseMs / firstMs,
        `${exchanges}-exchange recording: time to first answer (≤ 2×)`,
      ),
      outcome(
        "file size",
        "heap after GC",
        0.34,
        size / Math.max(held, 1),
        `${exchanges}-exchange recording: heap (≤ 3×)`,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const mockBenchmark: Benchmark = {
  name: "mock",
  title: "round trips against serve, and a 10,000-exchange recording's start and heap",
  run,
};
