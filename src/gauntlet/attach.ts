/**
 * Attach mode, `--listen`: every scenario at `/<scenario>/mcp` for a host that connects by
 * itself, each with its own server and recording, until interrupted or `--sessions N` have
 * ended (a 2026-07-28 client, which has no sessions, ends one after 10 s without a request); then
 * the scorecard. `/mcp` serves one server with a `gauntlet_<scenario>` tool per scenario, for a
 * host driven by a model (see combined.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
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
import { requestTarget } from "./http-request.js";
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
  const attached = new Attached(options, wanted);
  const problem = await attached.listen(where.host, where.port);
  if (problem !== undefined) return problem;
  await Promise.race([attached.finished, untilStopped()]);
  await attached.close();
  return scorecard(attached.results(), Date.now() - started);
}

/**
 * The servers of one attach run: every runnable scenario mounted at its path with its tape and
 * recording, the sessions counted as they end (`--sessions N`), and a 2026-07-28 client's idle
 * time, which ends its "session".
 */
class Attached {
  private readonly mounted = new Map<string, Mounted>();
  private readonly idle = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly server = createServer((req, res) => this.route(req, res));
  private ended = 0;
  private done: (() => void) | undefined;
  /** Resolves once `--sessions N` sessions have ended. */
  readonly finished = new Promise<void>((resolve) => (this.done = resolve));

  constructor(
    private readonly options: ListenOptions,
    private readonly wanted: number | undefined,
  ) {
    const all = [...options.scenarios.filter((s) => runnable(s, options)), combinedScenario(options.scenarios)];
    for (const scenario of all) this.mount(scenario);
  }

  private readonly sessionEnded = (): void => {
    if (this.wanted !== undefined && ++this.ended >= this.wanted) this.done?.();
  };

  private mount(scenario: ScenarioDef): void {
    const { options } = this;
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
    front.onSessionEnd = this.sessionEnded;
    const file = options.recordDir ? join(options.recordDir, `${scenario.id}.ndjson`) : undefined;
    const live = file ? new LiveRecording(file, () => ({ ...tape.header, transport: front.transport() })) : undefined;
    live?.follow(tape);
    this.mounted.set(scenario.id, { scenario, front, tape, ...(file && live ? { recording: { file, live } } : {}) });
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const url = requestTarget(req.url);
    const id = url.path === "/mcp" || url.path.startsWith("/mcp/") ? "combined" : (url.path.split("/")[1] ?? "");
    const m =
      this.mounted.get(id) ??
      [...this.mounted.values()].find(
        (x) => url.path.startsWith("/.well-known/") && url.path.endsWith(`/${x.scenario.id}/mcp`),
      );
    if (!m || !m.front.handle(req, res, url.path, url.query)) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end("Not Found: the gauntlet serves /<scenario>/mcp and /mcp\n");
      return;
    }
    if (req.headers["mcp-session-id"] === undefined && req.method === "POST") this.stillThere(id, m);
  }

  /** A sessionless request: the 2026-07-28 client's "session" ends after a while without one. */
  private stillThere(id: string, m: Mounted): void {
    clearTimeout(this.idle.get(id));
    const spoke = () => m.tape.entries.some((e) => e.record.conversation === "modern" && e.record.from === "client");
    this.idle.set(
      id,
      setTimeout(() => spoke() && this.sessionEnded(), MODERN_IDLE_MS),
    );
  }

  /** Listens, and says where; a port that cannot be had is the problem returned. */
  async listen(host: string, port: number): Promise<string | undefined> {
    const server = this.server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
    } catch (e) {
      return cannotListen(host, port, e);
    }
    const taken = (server.address() as AddressInfo).port;
    const shown = host.includes(":") ? `[${host}]` : host;
    writeErr(`mcp-wire gauntlet: listening on http://${shown}:${taken}/mcp (every scenario at /<scenario>/mcp)\n`);
    return undefined;
  }

  async close(): Promise<void> {
    for (const t of this.idle.values()) clearTimeout(t);
    for (const m of this.mounted.values()) {
      m.front.close();
      await m.recording?.live.close();
    }
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Each scenario's verdicts, those not run with why, and the combined server's. */
  results(): Parameters<typeof scorecard>[0] {
    const { options } = this;
    const results: ReturnType<typeof scoreRun>[] = [];
    const revision = options.revisions.length === 1 ? options.revisions[0] : undefined;
    for (const scenario of options.scenarios) {
      const m = this.mounted.get(scenario.id);
      if (!m) {
        results.push({ ...notRun(scenario, null, whyNot(scenario, options)), messages: 0 });
        continue;
      }
      const recording = m.recording?.file;
      results.push({ ...scoreRun(scenario, m.tape.entries, "http", revision), ...(recording ? { recording } : {}) });
    }
    results.push(...combinedScenario(options.scenarios).scoreAll(this.mounted.get("combined")!.tape.entries));
    return results;
  }
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
