/**
 * `mcp-wire gauntlet`: score an MCP client against servers that behave as real servers do on a
 * bad day. Four modes: run a client command once per scenario, listen for a host to connect
 * (`--listen`), be one scenario's stdio server in a host's configuration (`--stdio-server`), or
 * score recordings made while attached (`--score`). The outputs and exit statuses are `check`'s.
 */
import { statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { BaselineKey, FailOn } from "../check/types.js";
import { REVISIONS, isRevision, type Revision } from "../rules/revisions.js";
import { FOUND_PROBLEMS, OK, UNCHECKED, usageError } from "./exit.js";
import { wholeNumber, MAX_TIMEOUT_MS } from "./numbers.js";
import type { OutputJob } from "./output-file.js";
import { writeErr, writeOut } from "./output.js";
import type { ScenarioDef } from "../gauntlet/scenario.js";
import type { Scorecard } from "../gauntlet/score.js";

export interface GauntletCliOptions {
  listen?: string;
  sessions?: string;
  stdioServer?: string;
  record?: string;
  score?: string[];
  scenario?: string[];
  revision?: string[];
  stdio?: boolean;
  timeout?: string;
  slow?: boolean;
  auth?: boolean;
  json?: boolean;
  junit?: string;
  markdown?: string;
  baseline?: string;
  failOn?: string;
  force?: boolean;
}

const FAIL_ON_CHOICES: readonly FailOn[] = ["error", "warning", "never"];

function usage(message: string): number {
  return usageError("gauntlet", message);
}

export async function runGauntlet(command: string[], opts: GauntletCliOptions): Promise<number> {
  const modeProblem = oneMode(command, opts);
  if (modeProblem) return usage(modeProblem);
  const revisions = readRevisions(opts.revision ?? []);
  if (typeof revisions === "string") return usage(revisions);
  const failOn = (opts.failOn ?? "error") as FailOn;
  if (!FAIL_ON_CHOICES.includes(failOn))
    return usage(`--fail-on takes ${FAIL_ON_CHOICES.join(", ")}, not ${JSON.stringify(opts.failOn)}`);
  if (opts.stdioServer !== undefined) return stdioServerMode(opts.stdioServer, opts, revisions);

  const scenarios = await chosenScenarios(opts);
  if (typeof scenarios === "string") return usage(scenarios);
  const outputs = await prepareOutputs(opts);
  if (typeof outputs === "string") return usage(outputs);
  const card =
    opts.score !== undefined
      ? await scoreMode(opts.score, opts, revisions)
      : opts.listen !== undefined
        ? await listenMode(opts.listen, opts, scenarios, revisions)
        : await runMode(command, opts, scenarios, revisions);
  if (typeof card === "string") return usage(card);
  return finish(card, command.join(" ") || opts.listen || "recordings", failOn, opts, outputs.baseline);
}

/** Exactly one of the four modes, or what is wrong. */
function oneMode(command: readonly string[], opts: GauntletCliOptions): string | undefined {
  const modes = [
    command.length > 0,
    opts.listen !== undefined,
    opts.stdioServer !== undefined,
    opts.score !== undefined,
  ].filter(Boolean).length;
  if (modes === 1) return undefined;
  return modes === 0
    ? "give a client command after --, or --listen, --stdio-server or --score"
    : "a client command, --listen, --stdio-server and --score are separate modes: give one";
}

/** `-r`, repeatable and comma-separated, each once. */
function readRevisions(values: readonly string[]): Revision[] | string {
  const revisions: Revision[] = [];
  for (const r of values.flatMap((v) => v.split(",")).map((v) => v.trim())) {
    if (!isRevision(r)) return `-r takes a revision (${REVISIONS.join(", ")}), not ${JSON.stringify(r)}`;
    if (!revisions.includes(r)) revisions.push(r);
  }
  return revisions;
}

async function stdioServerMode(id: string, opts: GauntletCliOptions, revisions: readonly Revision[]): Promise<number> {
  const misplaced = misplacedFor("--stdio-server", opts, [
    "listen",
    "sessions",
    "score",
    "scenario",
    "stdio",
    "timeout",
    "slow",
    "auth",
    "json",
    "junit",
    "markdown",
    "baseline",
    "failOn",
  ]);
  if (misplaced) return usage(misplaced);
  const { scenarioOf } = await import("../gauntlet/catalogue.js");
  const scenario = scenarioOf(id);
  if (!scenario) return usage(`no scenario is named ${JSON.stringify(id)} (docs/gauntlet.md lists them)`);
  if (opts.record === undefined) return usage("--stdio-server needs --record FILE, the recording --score reads");
  if (scenario.transports && !scenario.transports.includes("stdio"))
    return usage(`${scenario.id} is an HTTP scenario; use --listen`);
  const { runStdioServer } = await import("../gauntlet/stdio-server.js");
  // stdin may still be open when a signal ends the server: nothing else is to run
  process.exit(await runStdioServer(scenario, revisions, opts.record));
}

/** The scenarios `--scenario` names (an id, or the prefix of a family's), or all of them. */
async function chosenScenarios(opts: GauntletCliOptions): Promise<ScenarioDef[] | string> {
  const { SCENARIOS } = await import("../gauntlet/catalogue.js");
  if (opts.scenario === undefined) return [...SCENARIOS];
  const ids = opts.scenario
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const named = (s: ScenarioDef, id: string) => s.id === id || s.id.startsWith(`${id}.`);
  const unknown = ids.find((id) => !SCENARIOS.some((s) => named(s, id)));
  if (unknown !== undefined)
    return `--scenario: no scenario is named ${JSON.stringify(unknown)} (docs/gauntlet.md lists them)`;
  const scenarios = SCENARIOS.filter((s) => ids.some((id) => named(s, id)));
  const flagged = scenarios.find((s) => (s.flag === "slow" && !opts.slow) || (s.flag === "auth" && !opts.auth));
  if (flagged) return `--scenario ${flagged.id} runs only with --${flagged.flag}`;
  return scenarios;
}

async function scoreMode(
  paths: readonly string[],
  opts: GauntletCliOptions,
  revisions: readonly Revision[],
): Promise<Scorecard | string> {
  const misplaced = misplacedFor("--score", opts, ["listen", "sessions", "record", "stdio", "timeout", "slow", "auth"]);
  return misplaced ?? scoreFiles(paths, revisions);
}

async function listenMode(
  listen: string,
  opts: GauntletCliOptions,
  scenarios: readonly ScenarioDef[],
  revisions: readonly Revision[],
): Promise<Scorecard | string> {
  const misplaced = misplacedFor("--listen", opts, ["stdio", "timeout"]);
  if (misplaced) return misplaced;
  const { runListen } = await import("../gauntlet/attach.js");
  return runListen({
    listen,
    sessions: opts.sessions,
    scenarios,
    revisions,
    recordDir: opts.record,
    slow: opts.slow === true,
    auth: opts.auth === true,
  });
}

/** Run mode: the client command once per scenario (and `-r` revision). */
async function runMode(
  command: readonly string[],
  opts: GauntletCliOptions,
  scenarios: readonly ScenarioDef[],
  revisions: readonly Revision[],
): Promise<Scorecard | string> {
  if (opts.sessions !== undefined) return "--sessions goes with --listen";
  const timeout =
    opts.timeout === undefined
      ? undefined
      : wholeNumber("--timeout", opts.timeout, 1, MAX_TIMEOUT_MS, "milliseconds", "per scenario");
  if (typeof timeout === "object") return timeout.error;
  if (opts.record !== undefined && !isDirectory(opts.record))
    return `--record ${opts.record}: not a directory (run mode keeps one recording per scenario there)`;
  const started = Date.now();
  const { runAll, DEFAULT_TIMEOUT_MS, SLOW_TIMEOUT_MS } = await import("../gauntlet/run.js");
  const results = await runAll({
    scenarios,
    revisions,
    transport: opts.stdio ? "stdio" : "http",
    command: command[0]!,
    args: command.slice(1),
    timeoutMs: timeout ?? (opts.slow ? SLOW_TIMEOUT_MS : DEFAULT_TIMEOUT_MS),
    ...(opts.record !== undefined ? { recordDir: opts.record } : {}),
    self: { command: process.execPath, args: [process.argv[1]!] },
    slow: opts.slow === true,
    auth: opts.auth === true,
  });
  const { scorecard } = await import("../gauntlet/score.js");
  return scorecard(results, Date.now() - started);
}

/** A flag that cannot apply to a mode is a usage error, never ignored. */
function misplacedFor(
  mode: string,
  opts: GauntletCliOptions,
  keys: readonly (keyof GauntletCliOptions)[],
): string | undefined {
  const flag = keys.find((k) => opts[k] !== undefined && opts[k] !== false);
  if (flag === undefined) return undefined;
  const name = flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return `--${name} does not go with ${mode}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function scoreFiles(paths: readonly string[], revisions: readonly Revision[]): Promise<Scorecard | string> {
  const { readTape } = await import("../gauntlet/tape-file.js");
  const { RecordingError } = await import("../recording/errors.js");
  const { scenarioOf } = await import("../gauntlet/catalogue.js");
  const { scoreRun, scorecard } = await import("../gauntlet/score.js");
  const files: string[] = [];
  for (const p of paths) {
    if (isDirectory(p))
      files.push(
        ...readdirSync(p)
          .filter((f) => f.endsWith(".ndjson") || f.endsWith(".jsonl"))
          .sort()
          .map((f) => join(p, f)),
      );
    else files.push(p);
  }
  if (files.length === 0) return "--score found no recording (*.ndjson) to score";
  const results = [];
  for (const file of files) {
    let tape;
    try {
      tape = await readTape(file);
    } catch (e) {
      if (e instanceof RecordingError) return e.message;
      return `${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`;
    }
    const scenario = scenarioOf(String(tape.header.scenario ?? ""));
    if (!scenario)
      return `${file}: the recording names no gauntlet scenario (its header has ${JSON.stringify(tape.header.scenario ?? null)})`;
    const revision = isRevision(tape.header.revision) ? tape.header.revision : undefined;
    if (revisions.length > 0 && revision && !revisions.includes(revision)) continue;
    const transport = tape.header.transport === "stdio" ? "stdio" : "http";
    results.push({ ...scoreRun(scenario, tape.entries, transport, revision), recording: file });
  }
  return scorecard(results, 0);
}

async function prepareOutputs(opts: GauntletCliOptions): Promise<{ baseline?: BaselineKey[] } | string> {
  const { checkOutput, outputProblem } = await import("./output-file.js");
  const files: [string, string | undefined][] = [
    ["--junit", opts.junit],
    ["--markdown", opts.markdown],
  ];
  if (opts.junit !== undefined && opts.junit === opts.markdown)
    return "--junit and --markdown each need a file of their own";
  for (const [option, path] of files) {
    if (path === undefined) continue;
    try {
      await checkOutput(path, { force: opts.force === true, option });
    } catch (e) {
      return outputProblem(path, e);
    }
  }
  if (opts.baseline === undefined) return {};
  const { readGauntletBaseline } = await import("../gauntlet/baseline.js");
  const baseline = await readGauntletBaseline(opts.baseline);
  return typeof baseline === "string" ? baseline : { baseline };
}

async function finish(
  card: Scorecard,
  target: string,
  failOn: FailOn,
  opts: GauntletCliOptions,
  baseline: BaselineKey[] | undefined,
): Promise<number> {
  const { asCheckReport } = await import("../gauntlet/score.js");
  const { applyBaseline } = await import("../check/baseline.js");
  const { gauntletRules } = await import("../gauntlet/catalogue.js");
  const { renderJson, renderText } = await import("../gauntlet/render.js");
  const { runFails } = await import("../check/fail-on.js");
  let report = asCheckReport(card, target);
  if (baseline) {
    report = applyBaseline(report, baseline);
    const accepted = new Set(report.findings.filter((f) => f.accepted).map((f) => `${f.id}|${f.revision}`));
    for (const s of card.scenarios)
      for (const c of s.checks) if (accepted.has(`${c.id}|${s.revision}`)) c.accepted = true;
  }
  const { writeOutputs } = await import("./output-file.js");
  const rules = gauntletRules();
  const writes: OutputJob[] = [
    ["--junit", opts.junit, async () => (await import("../check/junit.js")).renderJunit(report, rules, { failOn })],
    [
      "--markdown",
      opts.markdown,
      async () => (await import("../check/markdown.js")).renderMarkdown(report, rules, { failOn }),
    ],
  ];
  const failed = await writeOutputs(writes, opts.force === true);
  await writeOut(opts.json ? renderJson(card) : renderText(card));
  for (const s of report.stale)
    writeErr(
      `mcp-wire gauntlet: baseline entry ${s.id}${s.revision ? ` (${s.revision})` : ""} no longer occurs: remove it\n`,
    );
  if (failed) {
    writeErr(`mcp-wire gauntlet: ${failed}\n`);
    return FOUND_PROBLEMS;
  }
  if (card.messages === 0) return UNCHECKED;
  return runFails(report, failOn) ? FOUND_PROBLEMS : OK;
}
