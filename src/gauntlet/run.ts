/**
 * Run mode: for each scenario (and each `-r` revision), a fresh gauntlet server and one run of
 * the client command against it, with a deadline; then the run's recording is scored. Over HTTP
 * the server listens on loopback and the client gets its URL; with `--stdio` the client starts
 * the server itself (`mcp-wire gauntlet --stdio-server`), which appends to the run's recording.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Revision } from "../rules/revisions.js";
import { VERSION } from "../version.js";
import { ClientProcess, type ClientEnd } from "./client-process.js";
import type { ScenarioDef, WireKind } from "./scenario.js";
import { EarlyRequests } from "./http-request.js";
import type { ScenarioResult } from "./score.js";
import type { Tape } from "./tape.js";

type Parts = typeof import("./run-parts.js");
/** The judging half of a run, loaded once (see run-parts.ts). */
const parts = (): Promise<Parts> => import("./run-parts.js");

export const DEFAULT_TIMEOUT_MS = 30_000;
export const SLOW_TIMEOUT_MS = 120_000;

export interface RunOptions {
  scenarios: readonly ScenarioDef[];
  /** `-r`: empty for "every revision, the client's choice". */
  revisions: readonly Revision[];
  transport: WireKind;
  command: string;
  args: readonly string[];
  timeoutMs: number;
  /** `--record DIR`: each scenario's recording is kept there. */
  recordDir?: string;
  /** How the stdio server is started: this program and its arguments before `gauntlet`. */
  self: { command: string; args: readonly string[] };
  slow: boolean;
  auth: boolean;
  /** Told of each scenario as it ends. */
  progress?: (result: ScenarioResult) => void;
}

type Result = ReturnType<Parts["scoreRun"]>;

/** One planned run, or the reason it is not run. */
function plan(options: Pick<RunOptions, "scenarios" | "revisions" | "transport" | "slow" | "auth">) {
  const runs: { scenario: ScenarioDef; revision: Revision | undefined; skip?: string }[] = [];
  for (const scenario of options.scenarios) {
    const revisions = options.revisions.length > 0 ? options.revisions : [undefined];
    for (const revision of revisions) {
      let skip: string | undefined;
      if (scenario.flag === "slow" && !options.slow) skip = "runs only with --slow";
      else if (scenario.flag === "auth" && !options.auth) skip = "runs only with --auth";
      else if (scenario.transports && !scenario.transports.includes(options.transport))
        skip = `${options.transport} has no such thing: the scenario is ${scenario.transports.join(", ")} only`;
      else if (revision && !scenario.revisions.includes(revision)) skip = `the scenario does not apply to ${revision}`;
      runs.push({ scenario, revision, ...(skip ? { skip } : {}) });
    }
  }
  return runs;
}

export async function runAll(options: RunOptions): Promise<Result[]> {
  const results: Result[] = [];
  const work = mkdtempSync(join(tmpdir(), "mcp-wire-gauntlet-"));
  try {
    for (const p of plan(options)) {
      const result = p.skip
        ? { ...(await parts()).notRun(p.scenario, p.revision ?? null, p.skip), messages: 0 }
        : await runOne(options, p.scenario, p.revision, work);
      results.push(result);
      options.progress?.(result);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

function recordingName(scenario: ScenarioDef, revision: Revision | undefined): string {
  return `${scenario.id}${revision ? `.${revision}` : ""}.ndjson`;
}

async function runOne(
  options: RunOptions,
  scenario: ScenarioDef,
  revision: Revision | undefined,
  work: string,
): Promise<Result> {
  const deadline = Math.max(options.timeoutMs, scenario.deadlineMs && options.slow ? scenario.deadlineMs : 0);
  const file = join(options.recordDir ?? work, recordingName(scenario, revision));
  const env: NodeJS.ProcessEnv = { ...process.env, MCP_WIRE_SCENARIO: scenario.id, MCP_WIRE_REVISION: revision ?? "" };
  let end: ClientEnd;
  let tape: Tape;
  if (options.transport === "http") {
    ({ end, tape } = await runHttp(options, scenario, revision, env, deadline, file));
  } else {
    rmSync(file, { force: true });
    end = await runStdio(options, scenario, revision, env, deadline, file, work);
    tape = await readTapeOrEmpty(file, scenario, revision);
  }
  const result = (await parts()).scoreRun(scenario, tape.entries, options.transport, revision);
  const note = endNote(end);
  return { ...result, ...(options.recordDir ? { recording: file } : {}), ...(note ? { note } : {}) };
}

async function readTapeOrEmpty(file: string, scenario: ScenarioDef, revision: Revision | undefined): Promise<Tape> {
  const { readTape, Tape } = await parts();
  try {
    return await readTape(file);
  } catch {
    // the client never started the server: nothing was recorded
    return new Tape({
      recording: 1,
      tool: "mcp-wire",
      version: VERSION,
      transport: "stdio",
      scenario: scenario.id,
      ...(revision ? { revision } : {}),
    });
  }
}

function endNote(end: ClientEnd): string | undefined {
  if (end.spawnError) return `the client could not be started: ${end.spawnError}`;
  if (end.timedOut) return "the client was still running at the deadline and was ended";
  return undefined;
}

/**
 * Over HTTP: the client is started as soon as the port listens, and the server is built while it
 * boots; a request that comes before the server is ready waits for it, in order.
 */
async function runHttp(
  options: RunOptions,
  scenario: ScenarioDef,
  revision: Revision | undefined,
  env: NodeJS.ProcessEnv,
  deadline: number,
  file: string,
): Promise<{ end: ClientEnd; tape: Tape }> {
  const early = new EarlyRequests();
  const server = createServer((req, res) => early.take(req, res));
  const url = await listen(server);
  const client = new ClientProcess(options.command, withUrl(options.args, `${url}/mcp`), env);
  const { buildCore, servedRevisions, serveHttp, Tape, LiveRecording, requestTarget, warmJudging } = await parts();
  const revisions = servedRevisions(scenario, revision ? [revision] : []);
  const core = buildCore(scenario, revisions, "http");
  const tape = new Tape({
    recording: 1,
    tool: "mcp-wire",
    version: VERSION,
    transport: "streamable-http",
    scenario: scenario.id,
    ...(revisions.length === 1 ? { revision: revisions[0]! } : {}),
  });
  const front = serveHttp(core, tape, "/mcp");
  // the header names the transport the client connected with, so it is written once it has
  const recording = new LiveRecording(file, () => ({ ...tape.header, transport: front.transport() }));
  recording.follow(tape);
  warmJudging(revisions, () => tape.entries.length > 0);
  early.ready((req, res) => {
    const target = requestTarget(req.url);
    if (!front.handle(req, res, target.path, target.query))
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found\n");
  });
  const end = await client.finish(deadline);
  front.close();
  await close(server);
  await recording.close();
  return { end, tape };
}

async function runStdio(
  options: RunOptions,
  scenario: ScenarioDef,
  revision: Revision | undefined,
  env: NodeJS.ProcessEnv,
  deadline: number,
  file: string,
  work: string,
): Promise<ClientEnd> {
  const serverArgs = [
    ...options.self.args,
    "gauntlet",
    "--stdio-server",
    scenario.id,
    "--record",
    file,
    ...(revision ? ["-r", revision] : []),
  ];
  const config = join(work, `${scenario.id}.mcp.json`);
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { gauntlet: { command: options.self.command, args: serverArgs } } }, null, 2),
  );
  const args = options.args.map((a) => a.split("{config}").join(config));
  const client = new ClientProcess(options.command, args, {
    ...env,
    MCP_WIRE_SERVER_COMMAND: options.self.command,
    MCP_WIRE_SERVER_ARGS: JSON.stringify(serverArgs),
  });
  return client.finish(deadline);
}

/** The client's arguments with the URL where `{url}` is, or last. */
function withUrl(args: readonly string[], url: string): string[] {
  return args.some((a) => a.includes("{url}")) ? args.map((a) => a.split("{url}").join(url)) : [...args, url];
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
