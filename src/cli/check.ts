/**
 * `mcp-wire check`: every rule a client relies on, for the people who can fix a server, and a
 * gate for their CI. Text a person reads, or `--json`; exit 0, 1 (findings at or above
 * `--fail-on`), 2 (usage), 3 (the target could not be checked at all). docs/check.md lists every
 * finding.
 */
import type { JsonObject } from "../codec/message.js";
import { runFails } from "../check/fail-on.js";
import type { CheckOptions } from "../check/check.js";
import type { BaselineKey, CheckReport, FailOn, Finding } from "../check/types.js";
import type { ConnectionsRecording } from "../recording/record-transport.js";
import { cannotWrite } from "./file-errors.js";
import { REVISIONS, isRevision, type Revision } from "../rules/revisions.js";
import { FOUND_PROBLEMS, OK, UNCHECKED, USAGE_ERROR, usageError } from "./exit.js";
import { parseHeaders } from "./headers.js";
import { MAX_TIMEOUT_MS, wholeNumber } from "./numbers.js";
import { paint, writeErr, writeOut } from "./output.js";
import { shellQuote } from "../probe/repro.js";
import { REDACTED, redact } from "../secrets/redact.js";
import { printable } from "../codec/printable.js";
import { keyWords } from "../check/baseline.js";
import { endWords } from "../check/stdio-end.js";
import { HOMEPAGE, VERSION } from "../version.js";
import { ProgressLine } from "./progress-line.js";

export interface CheckCliOptions {
  stdio?: boolean;
  json?: boolean;
  header?: string[];
  timeout?: string;
  revision?: string[];
  env?: string[];
  cwd?: string;
  only?: string[];
  skip?: string[];
  call?: string[];
  read?: string[];
  get?: string[];
  failOn?: string;
  junit?: string;
  sarif?: string;
  sarifLocation?: string;
  markdown?: string;
  baseline?: string;
  updateBaseline?: string;
  force?: boolean;
  surface?: string;
  updateSurface?: boolean;
  /** `--record FILE`: every message of the check written as a recording. */
  record?: string;
  /** `--progress` (true), `--no-progress` (false), neither: a progress line on a terminal only. */
  progress?: boolean;
}

const FAIL_ON_CHOICES: readonly FailOn[] = ["error", "warning", "never"];

export async function runCheck(target: string[], opts: CheckCliOptions): Promise<number> {
  const parsed = await parseOptions(target, opts);
  if (typeof parsed === "string") return usage(parsed);
  const { runCheckEngine, failOn } = parsed;
  // every file is judged before the server is: a refusal costs the user no check
  const outputs = await prepareOutputs(opts);
  if (typeof outputs === "string") return usage(outputs);
  const { planSurface, writeSurface } = await import("./check-surface.js");
  const surface = await planSurface(opts.surface, opts.updateSurface);
  if (typeof surface === "string") return usage(surface);

  // a signal ends a spawned server the way it ends every command's (cli/signals.ts)
  const line = progressLine(opts.progress, process.stderr.isTTY === true);
  let report: CheckReport;
  try {
    report = await runCheckEngine({
      ...(surface ? { surface: surface.before ? { before: surface.before } : {} } : {}),
      ...(line ? { onWait: (w) => line.waiting(w && `${w.what}${w.revision ? ` (${w.revision})` : ""}`) } : {}),
    });
  } finally {
    line?.stop();
  }
  if (outputs.baseline) {
    const { applyBaseline } = await import("../check/baseline.js");
    report = applyBaseline(report, outputs.baseline);
  }
  const rewrite = opts.baseline !== undefined ? rewriteCommand(opts.baseline, opts) : undefined;
  let written = await writeOutputs(report, failOn, opts, rewrite);
  // a target not checked says nothing about which findings are gone: the old baseline stays
  if (!written && opts.updateBaseline !== undefined && !report.unchecked) written = await updateBaseline(report, opts);
  written ??= await writeSurface(surface, report);
  await writeOut(
    opts.json
      ? JSON.stringify(jsonOf(report)) + "\n"
      : render(report, failOn, process.stdout.isTTY === true, rewrite, opts.updateBaseline),
  );
  if (written) {
    writeErr(`mcp-wire check: ${written}\n`);
    return USAGE_ERROR;
  }
  if (opts.updateBaseline !== undefined && !report.unchecked) return OK;
  // the JSON on stdout is for a program; the person reading the CI log learns why the run failed
  if (opts.json && rewrite !== undefined && report.stale.length > 0)
    writeErr(
      `mcp-wire check: ${report.stale.length} baseline ${report.stale.length === 1 ? "entry no longer occurs" : "entries no longer occur"} (stale entries fail the run); rewrite the baseline with:\n  ${rewrite}\n`,
    );
  return exitStatus(report, failOn);
}

/**
 * The line saying what a step waits for: on a terminal unless `--no-progress`; elsewhere (a CI
 * log) only with `--progress`, as plain lines.
 */
export function progressLine(flag: boolean | undefined, tty: boolean): ProgressLine | undefined {
  if (flag === false || (flag === undefined && !tty)) return undefined;
  return new ProgressLine("mcp-wire check", { tty });
}

/** Writes the findings as the new baseline (the `--json` object); a line saying what failed, if anything did. */
async function updateBaseline(report: CheckReport, opts: CheckCliOptions): Promise<string | undefined> {
  const { outputProblem, writeOutput } = await import("./output-file.js");
  const fresh: CheckReport = { ...report, findings: report.findings.map(({ accepted: _, ...f }) => f), stale: [] };
  try {
    // the file was judged to be a baseline (or absent) before the check: replacing it is the point
    await writeOutput(opts.updateBaseline!, `${JSON.stringify(jsonOf(fresh), null, 2)}\n`, {
      force: true,
      option: "--update-baseline",
    });
  } catch (e) {
    return outputProblem(opts.updateBaseline!, e);
  }
  return undefined;
}

/**
 * The command that rewrites the baseline: this one, with `--update-baseline` for `--baseline`,
 * its secrets (header and `--env` values) shown as `<redacted>`.
 */
function rewriteCommand(file: string, opts: CheckCliOptions): string {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("check");
  const args = at === -1 ? [] : argv.slice(at + 1);
  const kept: string[] = [];
  let rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      rest = args.slice(i);
      break;
    }
    if (a === "--baseline" || a === "--update-baseline") {
      i++;
      continue;
    }
    if (a.startsWith("--baseline=") || a.startsWith("--update-baseline=")) continue;
    if (a === "--env" && i + 1 < args.length) {
      const value = args[++i]!;
      kept.push(a, `${value.split("=")[0]}=${REDACTED}`);
      continue;
    }
    kept.push(a);
  }
  if (kept.length === 0) kept.push(...(opts.stdio ? ["--stdio"] : []), "…");
  const headers = parseHeaders(opts.header ?? []);
  const words = ["mcp-wire", "check", ...kept, "--update-baseline", file, ...rest];
  return redact(words.map(shellQuote).join(" "), typeof headers === "string" ? undefined : headers);
}

/** The baseline, read, and every output file judged writable; or why not, in one line. */
async function prepareOutputs(opts: CheckCliOptions): Promise<{ baseline?: BaselineKey[] } | string> {
  if (opts.updateBaseline !== undefined) {
    const problem = await replaceableBaseline(opts.updateBaseline, opts.force === true);
    if (problem) return problem;
  }
  const location = await sarifLocationOf(opts);
  if (typeof location === "object") return location.error;
  if (location !== undefined) opts.sarifLocation = location;
  const { checkOutput, outputProblem } = await import("./output-file.js");
  const files: [string, string | undefined][] = [
    ["--junit", opts.junit],
    ["--sarif", opts.sarif],
    ["--markdown", opts.markdown],
  ];
  const named = files.filter((f): f is [string, string] => f[1] !== undefined);
  if (new Set(named.map(([, p]) => p)).size < named.length)
    return "--junit, --sarif and --markdown each need a file of their own";
  for (const [option, path] of named) {
    try {
      await checkOutput(path, { force: opts.force === true, option });
    } catch (e) {
      return outputProblem(path, e);
    }
  }
  if (opts.baseline === undefined) return {};
  const { readBaseline, BaselineError } = await import("../check/baseline.js");
  try {
    return { baseline: await readBaseline(opts.baseline) };
  } catch (e) {
    if (e instanceof BaselineError) return e.message;
    throw e;
  }
}

/**
 * Where SARIF results are shown: `--sarif-location` (a file that exists), else the first of
 * package.json and README.md in the working directory; a location without `--sarif` is a mistake.
 */
async function sarifLocationOf(opts: CheckCliOptions): Promise<string | undefined | { error: string }> {
  if (opts.sarif === undefined) {
    return opts.sarifLocation === undefined
      ? undefined
      : { error: "--sarif-location applies to --sarif FILE, which was not given" };
  }
  const { stat } = await import("node:fs/promises");
  const isFile = async (path: string) => (await stat(path).catch(() => undefined))?.isFile() === true;
  const { sarifLocation } = await import("../check/sarif.js");
  if (opts.sarifLocation !== undefined) {
    const location = sarifLocation(opts.sarifLocation);
    if (typeof location !== "string") return location;
    if (!(await isFile(location)))
      return {
        error: `--sarif-location ${location}: no such file here; name a file of the repository, e.g. package.json`,
      };
    return location;
  }
  for (const candidate of ["package.json", "README.md"]) if (await isFile(candidate)) return candidate;
  return {
    error:
      "--sarif needs a repository file to show its results at (code scanning rejects results without one): there is no package.json or README.md here, so name one with --sarif-location FILE",
  };
}

/**
 * `--update-baseline FILE` may replace FILE only when it is a baseline already (or `--force`):
 * a mistyped name never overwrites a file of another kind.
 */
async function replaceableBaseline(path: string, force: boolean): Promise<string | undefined> {
  const { lstat } = await import("node:fs/promises");
  const info = await lstat(path).catch(() => undefined);
  if (!info) return undefined;
  if (info.isSymbolicLink()) return `--update-baseline ${path}: a symbolic link, which mcp-wire never writes through`;
  if (!info.isFile()) return `--update-baseline ${path}: not a file`;
  if (force) return undefined;
  const { readBaseline, BaselineError } = await import("../check/baseline.js");
  try {
    await readBaseline(path);
  } catch (e) {
    if (e instanceof BaselineError)
      return `--update-baseline ${path}: the file exists and is not a baseline (${e.message.replace(/^--baseline [^:]*: /, "")}); name another file, or --force to replace it`;
    throw e;
  }
  return undefined;
}

/** Writes the JUnit, SARIF and Markdown files asked for (even for a target that could not be checked); a line saying what failed, if anything did. */
async function writeOutputs(
  report: CheckReport,
  failOn: FailOn,
  opts: CheckCliOptions,
  rewrite: string | undefined,
): Promise<string | undefined> {
  if (opts.junit === undefined && opts.sarif === undefined && opts.markdown === undefined) return undefined;
  const { CHECK_RULES } = await import("../check/rules.js");
  const { outputProblem, writeOutput } = await import("./output-file.js");
  const force = opts.force === true;
  const jobs: [string, string, () => Promise<string>][] = [];
  if (opts.junit !== undefined)
    jobs.push([
      "--junit",
      opts.junit,
      async () =>
        (await import("../check/junit.js")).renderJunit(report, CHECK_RULES, {
          failOn,
          ...(rewrite ? { rewrite } : {}),
        }),
    ]);
  if (opts.sarif !== undefined)
    jobs.push([
      "--sarif",
      opts.sarif,
      async () =>
        (await import("../check/sarif.js")).renderSarif(report, CHECK_RULES, {
          location: opts.sarifLocation!,
          toolVersion: VERSION,
          ...(HOMEPAGE ? { homepage: HOMEPAGE } : {}),
          ...(rewrite ? { rewrite } : {}),
        }),
    ]);
  if (opts.markdown !== undefined)
    jobs.push([
      "--markdown",
      opts.markdown,
      async () =>
        (await import("../check/markdown.js")).renderMarkdown(report, CHECK_RULES, {
          failOn,
          ...(rewrite ? { rewrite } : {}),
        }),
    ]);
  for (const [option, path, render] of jobs) {
    try {
      await writeOutput(path, await render(), { force, option });
    } catch (e) {
      return outputProblem(path, e);
    }
  }
  return undefined;
}

/** The exit status of a finished check under `failOn`. */
export function exitStatus(report: CheckReport, failOn: FailOn): number {
  if (report.unchecked) return UNCHECKED;
  return runFails(report, failOn) ? FOUND_PROBLEMS : OK;
}

/** The `--json` object: the fields docs/check.md documents, `unchecked` and `stale` after them. */
function jsonOf(r: CheckReport): unknown {
  return {
    target: r.target,
    revisions: r.revisions,
    findings: r.findings.map(({ pathIn: _, ...f }) => f),
    counts: r.counts,
    checked: r.checked,
    elapsedMs: r.elapsedMs,
    unchecked: r.unchecked,
    stale: r.stale,
    ...(r.stdio ? { stdio: r.stdio } : {}),
    ...(r.calls && r.calls.length > 0
      ? {
          calls: r.calls.map(({ kind, name, revision, outcome, elapsedMs }) => ({
            kind,
            name,
            revision,
            outcome,
            elapsedMs,
          })),
        }
      : {}),
  };
}

interface Parsed {
  failOn: FailOn;
  runCheckEngine: (extra: Pick<CheckOptions, "surface" | "onWait">) => Promise<CheckReport>;
}

async function parseOptions(target: string[], opts: CheckCliOptions): Promise<Parsed | string> {
  const headers = parseHeaders(opts.header ?? []);
  if (typeof headers === "string") return headers;
  const timeout =
    opts.timeout === undefined
      ? undefined
      : wholeNumber("--timeout", opts.timeout, 1, MAX_TIMEOUT_MS, "milliseconds", "a day at most");
  if (typeof timeout === "object") return timeout.error;
  const failOn = (opts.failOn ?? "error") as FailOn;
  if (!FAIL_ON_CHOICES.includes(failOn))
    return `--fail-on takes ${FAIL_ON_CHOICES.join(", ")}, not ${JSON.stringify(opts.failOn)}`;
  const revisions: Revision[] = [];
  for (const r of (opts.revision ?? []).flatMap((v) => v.split(","))) {
    if (!isRevision(r.trim())) return `-r takes a revision (${REVISIONS.join(", ")}), not ${JSON.stringify(r)}`;
    revisions.push(r.trim() as Revision);
  }
  const { isRuleId } = await import("../check/rules.js");
  const ids = (list: string[] | undefined, flag: string): string[] | string => {
    const out = (list ?? [])
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== "");
    const unknown = out.find((id) => !isRuleId(id));
    return unknown === undefined
      ? out
      : `${flag}: no check is named ${JSON.stringify(unknown)} (mcp-wire explain lists every id)`;
  };
  const only = ids(opts.only, "--only");
  if (typeof only === "string") return only;
  const skip = ids(opts.skip, "--skip");
  if (typeof skip === "string") return skip;
  const env: Record<string, string> = {};
  for (const e of opts.env ?? []) {
    const eq = e.indexOf("=");
    if (eq <= 0) return `--env takes NAME=VALUE, not ${JSON.stringify(e.slice(0, 40))}`;
    env[e.slice(0, eq)] = e.slice(eq + 1);
  }
  const calls = namedArgs(opts.call ?? [], "--call");
  if (typeof calls === "string") return calls;
  const gets = namedArgs(opts.get ?? [], "--get");
  if (typeof gets === "string") return gets;
  const common = {
    ...(timeout !== undefined ? { timeout } : {}),
    ...(revisions.length > 0 ? { revisions } : {}),
    ...(only.length > 0 ? { only } : {}),
    ...(skip.length > 0 ? { skip } : {}),
    optIns: { calls, gets, reads: opts.read ?? [] },
  };
  const recorded = opts.record !== undefined ? await openRecording(opts.record, opts.stdio === true) : undefined;
  if (typeof recorded === "string") return recorded;
  if (recorded) Object.assign(common, { record: recorded.recording });
  const engine = await engineOf(target, opts, common, headers, env);
  if (typeof engine === "string") {
    await recorded?.recording.writer.close();
    return engine;
  }
  if (!recorded) return { failOn, runCheckEngine: engine };
  return {
    failOn,
    runCheckEngine: async (extra) => {
      try {
        return await engine(extra);
      } finally {
        await recorded.recording.writer.close();
      }
    },
  };
}

/** `--record FILE`: the recording every connection of the check is written to. */
async function openRecording(file: string, stdio: boolean): Promise<{ recording: ConnectionsRecording } | string> {
  const { createWriteStream } = await import("node:fs");
  const { RecordingWriter } = await import("../recording/writer.js");
  const { ConnectionsRecording } = await import("../recording/record-transport.js");
  const out = createWriteStream(file);
  const opened = await new Promise<Error | null>((resolve) =>
    out.once("open", () => resolve(null)).once("error", resolve),
  );
  if (opened) return cannotWrite(file, opened);
  const writer = new RecordingWriter(out, { transport: stdio ? "stdio" : "streamable-http", scenario: "check" });
  return { recording: new ConnectionsRecording(writer) };
}

/** The check to run on `target`, or what is wrong with the command line. */
async function engineOf(
  target: string[],
  opts: CheckCliOptions,
  common: CheckOptions,
  headers: Record<string, string>,
  env: Record<string, string>,
): Promise<((extra: Pick<CheckOptions, "surface" | "onWait">) => Promise<CheckReport>) | string> {
  const { checkHttp, checkStdio } = await import("../check/check.js");
  if (opts.stdio) {
    const [command, ...args] = target;
    if (!command) return "check --stdio needs a command: mcp-wire check --stdio -- <command> [args…]";
    if (Object.keys(headers).length > 0) return "--header is for an HTTP server; a stdio server takes --env NAME=VALUE";
    if (opts.cwd !== undefined) {
      const { stat } = await import("node:fs/promises");
      const s = await stat(opts.cwd).catch(() => undefined);
      if (!s?.isDirectory()) return `--cwd ${JSON.stringify(opts.cwd)} is not a directory`;
    }
    const childEnv = Object.keys(env).length > 0 ? { ...process.env, ...env } : undefined;
    return (extra) =>
      checkStdio(command, args, {
        ...common,
        ...extra,
        ...(childEnv ? { env: childEnv } : {}),
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
      });
  }
  const url = target[0];
  if (!url || target.length > 1) return "check needs one URL, or --stdio -- <command> [args…]";
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `not a URL: ${JSON.stringify(url)} (for a local command use --stdio -- <command>)`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return `only http and https URLs can be checked, not ${u.protocol}`;
  if (Object.keys(env).length > 0 || opts.cwd !== undefined)
    return "--env and --cwd are for a stdio server (--stdio -- <command>)";
  return (extra) => checkHttp(url, { ...common, ...extra, headers });
}

/** `NAME` or `NAME=JSON` (the JSON an object of arguments). */
function namedArgs(values: readonly string[], flag: string): { name: string; args: JsonObject }[] | string {
  const out: { name: string; args: JsonObject }[] = [];
  for (const v of values) {
    const eq = v.indexOf("=");
    const name = eq === -1 ? v : v.slice(0, eq);
    if (name === "") return `${flag} takes NAME or NAME=JSON, not ${JSON.stringify(v.slice(0, 60))}`;
    if (eq === -1) {
      out.push({ name, args: {} });
      continue;
    }
    let args: unknown;
    try {
      args = JSON.parse(v.slice(eq + 1));
    } catch {
      return `${flag} ${name}: the arguments after = are not JSON`;
    }
    if (typeof args !== "object" || args === null || Array.isArray(args))
      return `${flag} ${name}: the arguments must be a JSON object`;
    out.push({ name, args: args as JsonObject });
  }
  return out;
}

function usage(message: string): number {
  return usageError("check", message);
}

const MARK: Record<Finding["severity"], "red" | "yellow" | "dim"> = { error: "red", warning: "yellow", info: "dim" };

function render(
  r: CheckReport,
  failOn: FailOn,
  colour: boolean,
  rewrite: string | undefined,
  updated: string | undefined,
): string {
  const lines: string[] = [`mcp-wire check ${printable(r.target)}`];
  const ladder = Object.entries(r.revisions).map(
    ([rev, outcome]) => `${rev} ${outcome === "ok" ? paint("green", "ok", colour) : outcome}`,
  );
  if (ladder.length > 0) lines.push(`  revisions: ${ladder.join(" · ")}`);
  if (r.unchecked) {
    lines.push(
      "",
      `  ${paint("red", `✗ could not be checked: ${r.unchecked.class} (${r.unchecked.detail})`, colour)}`,
      `  ${printable(r.unchecked.message)}`,
    );
    if (r.stdio) {
      lines.push(`  ${endWords(r.stdio)}${r.stdio.stderrTail ? "; its stderr ends:" : "; it wrote nothing to stderr"}`);
      for (const line of r.stdio.stderrTail.split("\n").filter((l) => l !== "")) lines.push(`    ${printable(line)}`);
    }
  }
  if (r.calls && r.calls.length > 0) {
    lines.push("");
    for (const c of r.calls)
      lines.push(
        `  --${c.kind} ${printable(c.name)} [${c.revision}]: ${printable(c.outcome)}${c.outcome === "not listed" ? "" : ` (${c.elapsedMs} ms)`}`,
      );
  }
  const order = { error: 0, warning: 1, info: 2 } as const;
  const sorted = [...r.findings].sort((a, b) => order[a.severity] - order[b.severity]);
  if (sorted.length > 0) lines.push("");
  for (const f of sorted) {
    const about = f.subject === `method:${f.method}` || f.subject === "server" ? null : f.subject;
    const where = [f.revisions.join(", "), f.method, about, (about === null ? f.path : f.subjectPath) || null]
      .filter((x) => x !== null && x !== "")
      .map((x) => printable(x!))
      .join(" ");
    lines.push(
      `  ${paint(MARK[f.severity], f.severity.padEnd(7), colour)} ${f.id}${where ? ` [${where}]` : ""}${f.accepted ? " (accepted by the baseline)" : ""}`,
    );
    lines.push(`          ${printable(f.message)}`);
    lines.push(`          fix: ${f.fix}`);
    if (f.breaks.length > 0) lines.push(`          breaks: ${f.breaks.join(", ")}`);
  }
  for (const s of r.stale)
    lines.push(
      `  ${paint("red", "stale  ", colour)} ${printable(keyWords(s))}: the baseline accepts it, but it no longer occurs`,
    );
  if (r.stale.length > 0 && !updated)
    lines.push(
      `  Stale entries fail the run until the baseline catches up; rewrite it with:`,
      `    ${rewrite ?? "mcp-wire check … --update-baseline FILE"}`,
    );
  const c = r.counts;
  const verdict = updated
    ? r.unchecked
      ? paint("red", "✗ unchecked: the baseline is left as it was", colour)
      : paint("green", `✓ baseline written to ${printable(updated)}`, colour)
    : exitStatus(r, failOn) === OK
      ? paint("green", "✓ passes", colour)
      : r.unchecked
        ? paint("red", "✗ unchecked", colour)
        : paint("red", "✗ fails", colour);
  lines.push(
    "",
    `${verdict} (--fail-on ${failOn}): ${c.error} error${c.error === 1 ? "" : "s"}, ${c.warning} warning${c.warning === 1 ? "" : "s"}, ${c.info} info · ${r.checked.messages} message${r.checked.messages === 1 ? "" : "s"} validated, ${r.checked.pages} page${r.checked.pages === 1 ? "" : "s"} listed · ${r.elapsedMs} ms`,
  );
  if (r.findings.length > 0) lines.push("  mcp-wire explain <id> prints what each finding means and how to fix it.");
  return lines.join("\n") + "\n";
}
