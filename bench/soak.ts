/**
 * `npm run soak`: many clients at once against `mcp-wire serve`, over stdio (one child process
 * per client, as stdio is) and over Streamable HTTP (one `serve --http` process on 127.0.0.1,
 * clients in both eras), for a bounded time. Reports round trips, errors and the resident memory
 * of the server processes after a warm-up and at the end; exits 1 if any call failed or a server
 * group's memory grew by more than 10%. Memory is first read once a third of the run has passed,
 * when V8 has grown its heaps to the working set the load needs: growth after that is what a leak
 * looks like. Each reading is the median of the samples of two seconds, so one GC does not move it.
 *
 *   SOAK_SECONDS=60        how long the load runs (default 60), warm-up included
 *   SOAK_CLIENTS=50        clients in all (default 50)
 *   SOAK_STDIO=10          how many of them speak stdio, each to its own `serve --stdio` (default 10)
 *
 * Loopback only; every call has a deadline; every loop ends at the deadline; every process it
 * started is stopped at the end, also when the run fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Revision } from "../src/index.js";
import { ChildServer, McpClient, connectHttp } from "../src/entry/client.js";
import { within } from "./harness.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const CALL_TIMEOUT = 10_000;
const SOAK_SETUP_MS = 20_000;
const MAX_GROWTH = 0.1;

function positive(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`${name} must be a positive number, not ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
}

const seconds = positive("SOAK_SECONDS", 60);
const clients = Math.floor(positive("SOAK_CLIENTS", 50));
const stdioClients = Math.min(clients, Math.floor(positive("SOAK_STDIO", 10)));
const httpClients = clients - stdioClients;
/** Memory is first read once the servers have warmed up: a third of the run, at least 3 s. */
const warmupMs = Math.max(3_000, (seconds * 1000) / 3);
/** Each memory reading: the median of the samples over this long. */
const WINDOW_MS = 2_000;

/** Resident set size of a process, in bytes (Linux /proc; ps elsewhere). */
function rss(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux, or the process is gone
  }
  return NaN;
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Tally {
  roundTrips: number;
  errors: number;
  firstErrors: string[];
}

function fail(t: Tally, where: string, e: unknown): void {
  t.errors++;
  if (t.firstErrors.length < 10)
    t.firstErrors.push(`${where}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
}

/** One client's loop until the deadline: echo (checked), add (checked), now and then tools/list and a progress call. */
async function drive(name: string, client: McpClient, until: number, t: Tally): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    try {
      if (i % 50 === 49) {
        const tools = await client.listTools({ timeout: CALL_TIMEOUT });
        if (!tools.some((x) => x.name === "echo")) throw new Error("tools/list lost echo");
      } else if (i % 20 === 19) {
        let seen = 0;
        const r = await client.callTool(
          "progress",
          { steps: 2, intervalMs: 0 },
          { timeout: CALL_TIMEOUT, onProgress: () => seen++ },
        );
        if (r.content[0]?.text !== "counted to 2" || seen === 0)
          throw new Error(`progress: ${JSON.stringify(r.content)} after ${seen} notifications`);
      } else if (i % 10 === 9) {
        const r = await client.callTool("add", { a: i, b: 0.5 }, { timeout: CALL_TIMEOUT });
        if ((r.structuredContent as { sum?: number } | undefined)?.sum !== i + 0.5)
          throw new Error(`add: ${JSON.stringify(r)}`);
      } else {
        const text = `${name} #${i} héllo ✓`;
        const r = await client.callTool("echo", { text }, { timeout: CALL_TIMEOUT });
        if (r.content[0]?.text !== text) throw new Error(`echo: ${JSON.stringify(r.content)}`);
      }
      t.roundTrips++;
    } catch (e) {
      fail(t, name, e);
    }
  }
}

/** `serve --http 0`, once it has said where it listens. */
async function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--http", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8");
  const url = await within(
    new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (d: string) => {
        err += d;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`serve --http exited (${code}): ${err}`)));
    }),
    "serve --http",
    SOAK_SETUP_MS,
  );
  return { child, url };
}

async function main(): Promise<number> {
  console.log(
    `# soak: ${clients} clients (${stdioClients} over stdio, each to its own serve --stdio; ${httpClients} over HTTP to one serve --http), ${seconds} s, memory read after ${(warmupMs / 1000).toFixed(0)} s and at the end`,
  );
  const stdio: ChildServer[] = [];
  let http: ChildProcess | undefined;
  const connected: McpClient[] = [];
  try {
    const server = await startHttpServer();
    http = server.child;
    const opened = await Promise.all([
      ...Array.from({ length: stdioClients }, async (_, i) => {
        const child = new ChildServer(process.execPath, [CLI, "serve", "--stdio"]);
        stdio.push(child);
        // both eras over stdio too: even clients detect (2026-07-28), odd ones speak 2025-11-25
        const options = i % 2 === 0 ? {} : { revision: "2025-11-25" as Revision };
        return {
          name: `stdio-${i}`,
          client: await within(
            McpClient.connect(() => child.transport, { timeout: CALL_TIMEOUT, ...options }),
            `stdio client ${i}`,
            SOAK_SETUP_MS,
          ),
        };
      }),
      ...Array.from({ length: httpClients }, async (_, i) => {
        const options = i % 2 === 0 ? {} : { revision: "2025-11-25" as Revision };
        const c = await within(
          connectHttp(server.url, { fresh: true, transport: "streamable-http", timeout: CALL_TIMEOUT, ...options }),
          `http client ${i}`,
          SOAK_SETUP_MS,
        );
        return { name: `http-${i}`, client: c.client };
      }),
    ]);
    for (const o of opened) connected.push(o.client);
    const eras = opened.map((o) => o.client.era);
    console.log(
      `connected: ${eras.filter((e) => e === "modern").length} modern (2026-07-28), ${eras.filter((e) => e === "legacy").length} legacy`,
    );

    const started = Date.now();
    const deadline = started + seconds * 1000;
    const tallies = {
      stdio: { roundTrips: 0, errors: 0, firstErrors: [] } as Tally,
      http: { roundTrips: 0, errors: 0, firstErrors: [] } as Tally,
    };
    const loops = opened.map((o) =>
      drive(o.name, o.client, deadline, o.name.startsWith("stdio") ? tallies.stdio : tallies.http),
    );

    const groupRss = () => ({ http: rss(http!.pid!), stdio: stdio.reduce((n, c) => n + rss(c.pid!), 0) });
    const samples: { at: number; http: number; stdio: number }[] = [];
    const reading = (from: number, to: number) => {
      const inWindow = samples.filter((x) => x.at >= from && x.at <= to);
      return { http: median(inWindow.map((x) => x.http)), stdio: median(inWindow.map((x) => x.stdio)) };
    };
    let last = started;
    let told = false;
    const sampler = setInterval(() => {
      const now = Date.now();
      samples.push({ at: now, ...groupRss() });
      if (!told && now - started >= warmupMs + WINDOW_MS) {
        told = true;
        const r = reading(started + warmupMs, started + warmupMs + WINDOW_MS);
        console.log(`after warm-up: serve --http ${mb(r.http)}, ${stdioClients} × serve --stdio ${mb(r.stdio)} in all`);
      }
      if (now - last >= 10_000) {
        last = now;
        const total = tallies.stdio.roundTrips + tallies.http.roundTrips;
        const r = samples.at(-1)!;
        console.log(
          `${((now - started) / 1000).toFixed(0)} s: ${total} round trips (${(total / ((now - started) / 1000)).toFixed(0)}/s), ${tallies.stdio.errors + tallies.http.errors} errors, serve --http ${mb(r.http)}, serve --stdio ${mb(r.stdio)}`,
        );
      }
    }, 100);
    await Promise.all(loops);
    clearInterval(sampler);
    const start = reading(started + warmupMs, started + warmupMs + WINDOW_MS);
    const end = reading(deadline - WINDOW_MS, Infinity);
    const elapsed = (Date.now() - started) / 1000;

    const errors = tallies.stdio.errors + tallies.http.errors;
    const defects = connected.reduce((n, c) => n + c.defects.length, 0);
    const growth = { http: (end.http - start.http) / start.http, stdio: (end.stdio - start.stdio) / start.stdio };
    console.log("");
    for (const [name, t] of Object.entries(tallies))
      console.log(
        `${name}: ${t.roundTrips} round trips (${(t.roundTrips / elapsed).toFixed(0)}/s), ${t.errors} errors`,
      );
    console.log(`defects the clients saw: ${defects}`);
    console.log(`memory (RSS) serve --http: ${mb(start.http)} → ${mb(end.http)} (${(growth.http * 100).toFixed(1)}%)`);
    console.log(
      `memory (RSS) ${stdioClients} × serve --stdio: ${mb(start.stdio)} → ${mb(end.stdio)} (${(growth.stdio * 100).toFixed(1)}%)`,
    );
    for (const e of [...tallies.stdio.firstErrors, ...tallies.http.firstErrors]) console.log(`  error: ${e}`);

    const problems: string[] = [];
    if (errors > 0) problems.push(`${errors} calls failed`);
    if (defects > 0) problems.push(`${defects} defects in the servers' messages`);
    for (const [name, g] of Object.entries(growth)) {
      if (Number.isNaN(g)) problems.push(`no memory reading for ${name} (not Linux?)`);
      else if (g > MAX_GROWTH)
        problems.push(`${name} servers' memory grew ${(g * 100).toFixed(1)}%, over ${MAX_GROWTH * 100}%`);
    }
    console.log(problems.length === 0 ? "\nsoak: ok" : `\nsoak: FAILED: ${problems.join("; ")}`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(connected.map((c) => c.close().catch(() => undefined)));
    const stops = await Promise.all(stdio.map((c) => c.shutdown(2000)));
    if (http && http.exitCode === null && http.signalCode === null) {
      const exited = new Promise((resolve) => http!.once("exit", resolve));
      http.kill("SIGTERM");
      await within(exited, "serve --http stopping", 5000).catch(() => http!.kill("SIGKILL"));
    }
    const killed = stops.filter((s) => s.signal === "SIGKILL").length;
    if (killed > 0) console.log(`(${killed} stdio servers had to be killed)`);
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
