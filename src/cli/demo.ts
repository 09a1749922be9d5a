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
import { outputProblem, writeOutput } from "./output-file.js";
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
  const html = options.html ?? DEMO_HTML;
  const colour = process.stdout.isTTY === true;
  const bold = (s: string) => paint("bold", s, colour);
  // the database first: one that cannot be used is said at once, before any server is started
  let store: Store;
  try {
    store = await freshStore(db);
  } catch (e) {
    writeErr(`mcp-wire demo: ${e instanceof StoreRefused ? e.message : `cannot use ${db}: ${fileProblem(e)}`}\n`);
    return USAGE_ERROR;
  }
  let fleet: Fleet | undefined;
  // stopped (Ctrl-C, kill PID), the census stops, the fleet and its stdio servers end at once so
  // that the probes in flight end too, and the database is closed on the way out: no -wal or
  // -shm file is left beside it
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const onStop = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    stop.abort();
    void fleet?.close();
    void endEverything(1000);
  };
  return stoppable(onStop, async () => {
    try {
      fleet = await startFleet({ basePort: DEMO_BASE_PORT });
      if (stoppedBy) return signalExitCode(stoppedBy);
      const { targets, commands, expected } = fleetTargets(fleet);
      await writeOut(
        `${bold("mcp-wire demo")}: ${targets.length} servers on 127.0.0.1 (${fleet.endpoints.length} over HTTP, ${fleet.stdio.length} over stdio) that behave like those ` +
          `a registry census meets: healthy ones of both eras, web pages, bare arrays, refusals, sign-in chains, hangs. Each is called once, into ${db}.\n\n`,
      );

      const runId = await store.startRun(DEMO_SOURCE, targets, {
        concurrency: CONCURRENCY,
        perHost: CONCURRENCY,
        timeout: TIMEOUT_MS,
        allowPrivate: false,
        headers: 0,
      });
      const progress = new Progress({ total: targets.length, everyMs: 2000 });
      const seen: AttemptRecord[] = [];
      try {
        await runCensus(store, runId, targets, {
          concurrency: CONCURRENCY,
          perHost: CONCURRENCY,
          timeout: TIMEOUT_MS,
          signal: stop.signal,
          probe: (t, options) => probeOne(t, options, commands),
          onAttempt: (a) => {
            seen.push(a);
            progress.add(a.class);
          },
        });
      } finally {
        progress.stop();
      }
      if (stoppedBy) {
        writeErr(
          `mcp-wire demo: stopped; ${db} holds the ${seen.length} verdict${seen.length === 1 ? "" : "s"} reached so far\n`,
        );
        return signalExitCode(stoppedBy);
      }

      const agg = await store.aggregate({ runIds: [runId] });
      await writeOut(renderText(agg, { width: process.stdout.columns ?? 100, colour }) + "\n");
      try {
        await writeOutput(html, renderHtml(agg), { option: "--html" });
        await writeOut(
          `${bold("Wrote")} ${html}: the same findings with charts and a sortable table of targets; open it in a browser.\n`,
        );
      } catch (e) {
        writeErr(`mcp-wire demo: ${outputProblem(html, e)}\n`);
      }
      await writeOut(checkVerdicts(seen, expected));
      const dbFlag = db === DEMO_DB ? ` --db ${DEMO_DB}` : ` --db ${shellQuote(db)}`;
      await writeOut(
        `Next: mcp-wire report${dbFlag} [--json | --csv | --html FILE] reads this census again; mcp-wire census <targets> runs a census of your own (into mcp-wire.db); mcp-wire probe <url> asks one server.\n\n`,
      );
    } finally {
      await store.close();
      await fleet?.close();
    }
    // stopped while the report was being written: no more
    if (stoppedBy) return signalExitCode(stoppedBy);

    // the samples ship with the package: named so that the hint works from wherever it is installed
    const samples = SAMPLES.map(([title, file]) => {
      const path = fileURLToPath(new URL(`../../../samples/${file}`, import.meta.url));
      return { title, path, shown: shownPath(path) };
    });
    await writeOut(
      `${bold("The bundled sample captures, linted")} (mcp-wire lint ${shellQuote(samples[0]!.shown)} shows each defect)\n`,
    );
    for (const { title, path, shown } of samples) {
      const summary = await lintStream(createReadStream(path), {}, () => undefined);
      await writeOut(`  ${shown} (${title}): ${summaryLine(summary)}\n`);
    }
    return OK;
  });
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
