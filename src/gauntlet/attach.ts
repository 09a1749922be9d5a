/**
 * Attach mode, `--listen`: every scenario at `/<scenario>/mcp` for a host that connects by
 * itself, each with its own server and recording, until interrupted or `--sessions N` have
 * ended (a 2026-07-28 client, which has no sessions, ends one after 10 s without a request); then
 * the scorecard. `/mcp` serves one server with a `gauntlet_<scenario>` tool per scenario, for a
 * host driven by a model (see combined.ts).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { cannotListen } from "../cli/listen-error.js";
import { wholeNumber } from "../cli/numbers.js";
import { writeErr } from "../cli/output.js";
import { untilStopped } from "../cli/signals.js";
import type { Revision } from "../rules/revisions.js";
import { VERSION } from "../version.js";
import { combinedScenario } from "./combined.js";
import type { GauntletHttp } from "./http.js";
import type { ScenarioDef } from "./scenario.js";
import { notRun, scoreRun, scorecard, type Scorecard } from "./score.js";
import { buildCore, servedRevisions, serveHttp } from "./server.js";
import { Tape } from "./tape.js";
import { LiveRecording } from "./tape-file.js";

/** A 2026-07-28 client's "session" ends after this long without a request. */
const MODERN_IDLE_MS = 10_000;

export interface ListenOptions {
  listen: string;
  sessions: string | undefined;
  scenarios: readonly ScenarioDef[];
  revisions: readonly Revision[];
  recordDir: string | undefined;
  slow: boolean;
  auth: boolean;
}

interface Mounted {
  scenario: ScenarioDef;
  front: GauntletHttp;
  tape: Tape;
  recording?: { file: string; live: LiveRecording };
}

function parseListen(value: string): { host: string; port: number } | string {
  const at = value.lastIndexOf(":");
  const host = at > 0 ? value.slice(0, at).replace(/^\[|\]$/g, "") : "127.0.0.1";
  const port = wholeNumber(
    "--listen",
    at >= 0 ? value.slice(at + 1) : value,
    0,
    65535,
    "a port number",
    "[HOST:]PORT, 0: any free one",
  );
  return typeof port === "number" ? { host, port } : port.error;
}

export async function runListen(options: ListenOptions): Promise<Scorecard | string> {
  const where = parseListen(options.listen);
  if (typeof where === "string") return where;
  const wanted =
    options.sessions === undefined ? undefined : wholeNumber("--sessions", options.sessions, 1, 1_000_000, "a count");
  if (typeof wanted === "object") return wanted.error;
  const started = Date.now();
  const mounted = new Map<string, Mounted>();
  let ended = 0;
  let done: (() => void) | undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const sessionEnded = () => {
    if (wanted !== undefined && ++ended >= wanted) done?.();
  };
  const idle = new Map<string, ReturnType<typeof setTimeout>>();
  const all = [...options.scenarios.filter((s) => runnable(s, options)), combinedScenario(options.scenarios)];
  for (const scenario of all) {
    const tape = new Tape({
      recording: 1,
      tool: "mcp-wire",
      version: VERSION,
      transport: "streamable-http",
      scenario: scenario.id,
      ...(options.revisions.length === 1 ? { revision: options.revisions[0]! } : {}),
    });
    const front = serveHttp(
      buildCore(scenario, servedRevisions(scenario, options.revisions), "http"),
      tape,
      scenario.id === "combined" ? "/mcp" : `/${scenario.id}/mcp`,
    );
    front.onSessionEnd = sessionEnded;
    const file = options.recordDir ? join(options.recordDir, `${scenario.id}.ndjson`) : undefined;
    const live = file ? new LiveRecording(file, tape.header) : undefined;
    live?.follow(tape);
    mounted.set(scenario.id, { scenario, front, tape, ...(file && live ? { recording: { file, live } } : {}) });
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://gauntlet.invalid");
    const id =
      url.pathname === "/mcp" || url.pathname.startsWith("/mcp/") ? "combined" : (url.pathname.split("/")[1] ?? "");
    const m =
      mounted.get(id) ??
      [...mounted.values()].find(
        (x) => url.pathname.startsWith("/.well-known/") && url.pathname.endsWith(`/${x.scenario.id}/mcp`),
      );
    if (!m || !m.front.handle(req, res, url.pathname, url.searchParams)) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end("Not Found: the gauntlet serves /<scenario>/mcp and /mcp\n");
      return;
    }
    if (req.headers["mcp-session-id"] === undefined && req.method === "POST") {
      clearTimeout(idle.get(id));
      idle.set(
        id,
        setTimeout(
          () =>
            m.tape.entries.some((e) => e.record.conversation === "modern" && e.record.from === "client") &&
            sessionEnded(),
          MODERN_IDLE_MS,
        ),
      );
    }
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(where.port, where.host, () => resolve());
    });
  } catch (e) {
    return cannotListen(where.host, where.port, e);
  }
  const { port } = server.address() as AddressInfo;
  const host = where.host.includes(":") ? `[${where.host}]` : where.host;
  writeErr(`mcp-wire gauntlet: listening on http://${host}:${port}/mcp (every scenario at /<scenario>/mcp)\n`);
  await Promise.race([finished, untilStopped()]);
  for (const t of idle.values()) clearTimeout(t);
  for (const m of mounted.values()) {
    m.front.close();
    await m.recording?.live.close();
  }
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  const results = [];
  for (const scenario of options.scenarios) {
    const m = mounted.get(scenario.id);
    if (!m) {
      results.push({ ...notRun(scenario, null, whyNot(scenario, options)), messages: 0 });
      continue;
    }
    const recording = m.recording?.file;
    const revision = options.revisions.length === 1 ? options.revisions[0] : undefined;
    results.push({ ...scoreRun(scenario, m.tape.entries, "http", revision), ...(recording ? { recording } : {}) });
  }
  const combined = mounted.get("combined")!;
  results.push(...combinedScenario(options.scenarios).scoreAll(combined.tape.entries));
  return scorecard(results, Date.now() - started);
}

function runnable(s: ScenarioDef, o: ListenOptions): boolean {
  return whyNot(s, o) === "";
}

function whyNot(s: ScenarioDef, o: ListenOptions): string {
  if (s.flag === "slow" && !o.slow) return "runs only with --slow";
  if (s.flag === "auth" && !o.auth) return "runs only with --auth";
  if (s.transports && !s.transports.includes("http")) return "a stdio scenario: use --stdio-server";
  if (servedRevisions(s, o.revisions).length === 0) return `the scenario does not apply to ${o.revisions.join(", ")}`;
  return "";
}
