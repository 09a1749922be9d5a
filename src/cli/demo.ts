/**
 * `mcp-wire demo` (what `npm start` runs): the whole tool on one machine. It starts the demo
 * fleet (local servers on 127.0.0.1 that behave like those a registry census meets), runs a census
 * over it into a database of its own with the progress bar, prints the report, writes the HTML
 * page, and ends with the bundled sample captures linted. Nothing leaves 127.0.0.1.
 */
import { createReadStream, existsSync, rmSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runCensus } from "../census/census.js";
import { isPostgresUrl, openStore } from "../census/open-store.js";
import { Progress } from "../census/progress.js";
import { StoreRefused, type AttemptRecord, type Store, type TargetRecord } from "../census/store.js";
import { startFleet, type Expectation, type Fleet, type FleetCommand } from "../fleet/fleet.js";
import { lintStream, summaryLine } from "../lint/lint.js";
import { probeHttp, probeStdio, type ProbeOptions } from "../probe/probe.js";
import { shellQuote } from "../probe/repro.js";
import { renderHtml } from "../report/html.js";
import { renderText } from "../report/text.js";
import { OK, USAGE_ERROR, signalExitCode } from "./exit.js";
import { fileProblem } from "./file-errors.js";
import { writeOutputs } from "./output-file.js";
import { paint, writeErr, writeOut } from "./output.js";
import { stoppable } from "./signals.js";
import { endEverything } from "../transport/way-out.js";

/** The demo's own database: a user's census lives in mcp-wire.db, which the demo never opens. */
const DEMO_DB = "mcp-wire-demo.db";
const DEMO_HTML = "mcp-wire-report.html";
/** What the demo calls its runs: a database holding any other run is a user's census, not ours to reset. */
const DEMO_SOURCE = "demo fleet";
/**
 * The fleet's ports when they are free, so that two demos print the same report (it names every
 * server by its URL); below Linux's ephemeral range (32768–60999), so that no outgoing connection
 * of another program has taken them by chance.
 */
const DEMO_BASE_PORT = 29_830;

/**
 * Long enough for every behaviour that ends only at the deadline (a hang, an endless stream) to
 * show it, and for a legacy opening to finish first on a loaded machine; short enough to wait for.
 */
const TIMEOUT_MS = 4000;
/**
 * Every fleet server is on 127.0.0.1, our own: the census's politeness of one request at a time
 * per host would only make the demo wait, so the hangs are waited for side by side.
 */
const CONCURRENCY = 16;

export interface DemoOptions {
  db?: string;
  html?: string;
}

const SAMPLES = [
  ["a legacy 2025-11-25 session over stdio", "legacy-session.ndjson"],
  ["modern 2026-07-28 stateless requests", "modern-requests.ndjson"],
] as const;

export async function runDemo(options: DemoOptions = {}): Promise<number> {
  const db = options.db ?? DEMO_DB;
  // the database first: one that cannot be used is said at once, before any server is started
  let store: Store;
  try {
    store = await freshStore(db);
  } catch (e) {
    writeErr(`mcp-wire demo: ${e instanceof StoreRefused ? e.message : `cannot use ${db}: ${fileProblem(e)}`}\n`);
    return USAGE_ERROR;
  }
  const demo = new Demo(store, db, options.html ?? DEMO_HTML);
  return stoppable(
    (signal) => demo.stop(signal),
    () => demo.run(),
  );
}

/** What the census of the fleet found, and what each server was built to make the probe say. */
interface FleetCensus {
  runId: number;
  seen: AttemptRecord[];
  expected: ReadonlyMap<string, { name: string; expect: Expectation }>;
}

/**
 * One demo over named steps: the fleet started and probed, the report printed and written, the
 * sample captures linted. Stopped (Ctrl-C, kill PID), the census stops, the fleet and its stdio
 * servers end at once so that the probes in flight end too, and the database is closed on the way
 * out: no -wal or -shm file is left beside it.
 */
class Demo {
  private readonly stopping = new AbortController();
  private stoppedBy: NodeJS.Signals | undefined;
  private fleet: Fleet | undefined;
  private readonly colour = process.stdout.isTTY === true;

  constructor(
    private readonly store: Store,
    private readonly db: string,
    private readonly html: string,
  ) {}

  stop(signal: NodeJS.Signals): void {
    this.stoppedBy = signal;
    this.stopping.abort();
    void this.fleet?.close();
    void endEverything(1000);
  }

  async run(): Promise<number> {
    try {
      const found = await this.censusOfFleet();
      if (typeof found === "number") return found;
      await this.report(found);
    } finally {
      await this.store.close();
      await this.fleet?.close();
    }
    // stopped while the report was being written: no more
    if (this.stoppedBy) return signalExitCode(this.stoppedBy);
    await lintSamples(this.bold("The bundled sample captures, linted"));
    return OK;
  }

  private bold(text: string): string {
    return paint("bold", text, this.colour);
  }

  /** The fleet started and each of its servers probed once; or, stopped, the exit status that calls for. */
  private async censusOfFleet(): Promise<FleetCensus | number> {
    this.fleet = await startFleet({ basePort: DEMO_BASE_PORT });
    if (this.stoppedBy) return signalExitCode(this.stoppedBy);
    const { targets, commands, expected } = fleetTargets(this.fleet);
    await writeOut(
      `${this.bold("mcp-wire demo")}: ${targets.length} servers on 127.0.0.1 (${this.fleet.endpoints.length} over HTTP, ${this.fleet.stdio.length} over stdio) that behave like those ` +
        `a registry census meets: healthy ones of both eras, web pages, bare arrays, refusals, sign-in chains, hangs. Each is called once, into ${this.db}.\n\n`,
    );
    const runId = await this.store.startRun(DEMO_SOURCE, targets, {
      concurrency: CONCURRENCY,
      perHost: CONCURRENCY,
      timeout: TIMEOUT_MS,
      allowPrivate: false,
      headers: 0,
    });
    const seen = await this.probeAll(runId, targets, commands);
    if (this.stoppedBy) {
      writeErr(
        `mcp-wire demo: stopped; ${this.db} holds the ${seen.length} verdict${seen.length === 1 ? "" : "s"} reached so far\n`,
      );
      return signalExitCode(this.stoppedBy);
    }
    return { runId, seen, expected };
  }

  /** The census run over the fleet's targets with the progress bar; the attempts it stored. */
  private async probeAll(
    runId: number,
    targets: TargetRecord[],
    commands: ReadonlyMap<string, FleetCommand>,
  ): Promise<AttemptRecord[]> {
    const progress = new Progress({ total: targets.length, everyMs: 2000 });
    const seen: AttemptRecord[] = [];
    try {
      await runCensus(this.store, runId, targets, {
        concurrency: CONCURRENCY,
        perHost: CONCURRENCY,
        timeout: TIMEOUT_MS,
        signal: this.stopping.signal,
        probe: (t, options) => probeOne(t, options, commands),
        onAttempt: (a) => {
          seen.push(a);
          progress.add(a.class);
        },
      });
    } finally {
      progress.stop();
    }
    return seen;
  }

  /** The report as text, the page written, the verdicts checked against the fleet, and what to run next. */
  private async report({ runId, seen, expected }: FleetCensus): Promise<void> {
    const agg = await this.store.aggregate({ runIds: [runId] });
    await writeOut(renderText(agg, { width: process.stdout.columns ?? 100, colour: this.colour }) + "\n");
    const failed = await writeOutputs([["--html", this.html, async () => renderHtml(agg)]], false);
    if (failed !== undefined) writeErr(`mcp-wire demo: ${failed}\n`);
    else
      await writeOut(
        `${this.bold("Wrote")} ${this.html}: the same findings with charts and a sortable table of targets; open it in a browser.\n`,
      );
    await writeOut(checkVerdicts(seen, expected));
    const dbFlag = this.db === DEMO_DB ? ` --db ${DEMO_DB}` : ` --db ${shellQuote(this.db)}`;
    await writeOut(
      `Next: mcp-wire report${dbFlag} [--json | --csv | --html FILE] reads this census again; mcp-wire census <targets> runs a census of your own (into mcp-wire.db); mcp-wire probe <url> asks one server.\n\n`,
    );
  }
}

/** The bundled sample captures, each linted in one line, under `heading`. */
async function lintSamples(heading: string): Promise<void> {
  // the samples ship with the package: named so that the hint works from wherever it is installed
  const samples = SAMPLES.map(([title, file]) => {
    const path = fileURLToPath(new URL(`../../../samples/${file}`, import.meta.url));
    return { title, path, shown: shownPath(path) };
  });
  await writeOut(`${heading} (mcp-wire lint ${shellQuote(samples[0]!.shown)} shows each defect)\n`);
  for (const { title, path, shown } of samples) {
    const summary = await lintStream(createReadStream(path), {}, () => undefined);
    await writeOut(`  ${shown} (${title}): ${summaryLine(summary)}\n`);
  }
}

/** A file as a person can hand it to a command from here: relative below the working directory, else absolute. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

/** The fleet as census targets: URLs for HTTP, command lines for stdio; names are behaviours. */
function fleetTargets(fleet: Fleet) {
  const expected = new Map<string, { name: string; expect: Expectation }>();
  const commands = new Map<string, FleetCommand>();
  const targets: TargetRecord[] = [];
  for (const e of fleet.endpoints) {
    targets.push({ target: e.url, kind: "http", name: e.name });
    expected.set(e.url, e);
  }
  for (const c of fleet.stdio) {
    const line = [c.command, ...c.args].map(shellQuote).join(" ");
    targets.push({ target: line, kind: "stdio", name: c.name });
    commands.set(line, c);
    expected.set(line, c);
  }
  return { targets, commands, expected };
}

/** A stdio target is run from its fleet command, not by splitting its line: a path may hold a space. */
function probeOne(t: TargetRecord, options: ProbeOptions, commands: ReadonlyMap<string, FleetCommand>) {
  const command = commands.get(t.target);
  return command ? probeStdio(command.command, command.args, options) : probeHttp(t.target, options);
}

/** Each fleet server says what the probe should make of it: the demo checks, and says so. */
function checkVerdicts(
  seen: readonly AttemptRecord[],
  expected: ReadonlyMap<string, { name: string; expect: Expectation }>,
): string {
  const wrong = seen.flatMap((a) => {
    const e = expected.get(a.target);
    if (!e) return [];
    const auth = e.expect.auth;
    const got = a.auth as { verdict?: unknown; brokenAt?: unknown } | null;
    const authAgrees = !auth || (got?.verdict === auth.verdict && (got?.brokenAt ?? null) === (auth.brokenAt ?? null));
    if (e.expect.class === a.class && e.expect.detail === a.detail && authAgrees) return [];
    const signin = (v: unknown, at: unknown) => (auth ? `, sign-in ${String(v)}${at ? ` at ${String(at)}` : ""}` : "");
    return [
      `  ${e.name}: expected ${e.expect.class} (${e.expect.detail}${signin(auth?.verdict, auth?.brokenAt)}), got ${a.class} (${a.detail}${signin(got?.verdict ?? "none", got?.brokenAt)})`,
    ];
  });
  if (wrong.length === 0)
    return `Every verdict is the one its fleet server was built to draw (${seen.length} of ${seen.length}).\n`;
  return `${wrong.length} verdict${wrong.length === 1 ? " differs" : "s differ"} from what the fleet expects (a loaded machine can turn an answer into a timeout):\n${wrong.join("\n")}\n`;
}

/**
 * The demo's database, emptied: each run starts afresh so that two demos print the same report.
 * Only a database that holds nothing but demo runs is reset; any other file is the user's and is
 * refused untouched (a census of their own, another program's database, not a database at all).
 */
async function freshStore(db: string): Promise<Store> {
  if (isPostgresUrl(db))
    throw new StoreRefused(
      `the demo writes an SQLite file of its own; for PostgreSQL run mcp-wire census --db ${db} on your targets`,
    );
  if (existsSync(db)) {
    const old = await openStore(db, "read");
    try {
      const foreign = (await old.runs()).filter((r) => r.source !== DEMO_SOURCE);
      if (foreign.length > 0)
        throw new StoreRefused(
          `${db} holds a census other than the demo's (${foreign.length} run${foreign.length === 1 ? "" : "s"}); it was left untouched. Name another file with --db`,
        );
    } finally {
      await old.close();
    }
    for (const f of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]) rmSync(f, { force: true });
  }
  return openStore(db, "write");
}
