/**
 * `mcp-wire demo` (what `npm start` runs): the whole tool on one machine. It starts the demo
 * fleet (local servers on 127.0.0.1 that behave like those the seed's census met), runs a census
 * over it into mcp-wire.db with the progress bar, prints the report, writes mcp-wire-report.html,
 * and ends with the bundled sample captures linted. Nothing leaves 127.0.0.1.
 */
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runCensus } from "../census/census.js";
import { Progress } from "../census/progress.js";
import { SqliteStore } from "../census/sqlite-store.js";
import type { AttemptRecord, TargetRecord } from "../census/store.js";
import { startFleet, type Expectation, type Fleet, type FleetCommand } from "../fleet/fleet.js";
import { lintStream, summaryLine } from "../lint/lint.js";
import { probeHttp, probeStdio, type ProbeOptions } from "../probe/probe.js";
import { shellQuote } from "../probe/repro.js";
import { renderHtml } from "../report/html.js";
import { renderText } from "../report/text.js";
import { OK } from "./exit.js";
import { paint, writeOut } from "./output.js";

export const DEMO_DB = "mcp-wire.db";
export const DEMO_HTML = "mcp-wire-report.html";

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

const SAMPLES = [
  ["a legacy 2025-11-25 session over stdio", "legacy-session.ndjson"],
  ["modern 2026-07-28 stateless requests", "modern-requests.ndjson"],
] as const;

export async function runDemo(): Promise<number> {
  const colour = process.stdout.isTTY === true;
  const bold = (s: string) => paint("bold", s, colour);
  const fleet = await startFleet();
  const store = new SqliteStore(DEMO_DB);
  try {
    const { targets, commands, expected } = fleetTargets(fleet);
    await writeOut(
      `${bold("mcp-wire demo")}: ${targets.length} servers on 127.0.0.1 (${fleet.endpoints.length} over HTTP, ${fleet.stdio.length} over stdio) that behave like those ` +
        `a registry census meets: healthy ones of both eras, web pages, bare arrays, refusals, hangs. Each is called once, into ${DEMO_DB}.\n\n`,
    );

    const runId = await store.startRun("demo fleet", targets, { concurrency: CONCURRENCY, perHost: CONCURRENCY, timeout: TIMEOUT_MS, allowPrivate: false, headers: 0 });
    const progress = new Progress({ total: targets.length, everyMs: 2000 });
    const seen: AttemptRecord[] = [];
    try {
      await runCensus(store, runId, targets, {
        concurrency: CONCURRENCY,
        perHost: CONCURRENCY,
        timeout: TIMEOUT_MS,
        probe: (t, options) => probeOne(t, options, commands),
        onAttempt: (a) => {
          seen.push(a);
          progress.add(a.class);
        },
      });
    } finally {
      progress.stop();
    }

    const agg = await store.aggregate({ runIds: [runId] });
    await writeOut(renderText(agg, { width: process.stdout.columns ?? 100, colour }) + "\n");
    await writeFile(DEMO_HTML, renderHtml(agg));
    await writeOut(`${bold("Wrote")} ${DEMO_HTML}: the same findings with charts and a sortable table of targets; open it in a browser.\n`);
    await writeOut(checkVerdicts(seen, expected));
    await writeOut(`Next: mcp-wire report [--json | --csv | --html FILE] reads ${DEMO_DB} again; mcp-wire census <targets> runs a census of your own; mcp-wire probe <url> asks one server.\n\n`);
  } finally {
    await store.close();
    await fleet.close();
  }

  await writeOut(`${bold("The bundled sample captures, linted")} (mcp-wire lint FILE shows each defect)\n`);
  for (const [title, file] of SAMPLES) {
    const path = fileURLToPath(new URL(`../../../samples/${file}`, import.meta.url));
    const summary = await lintStream(createReadStream(path), {}, () => undefined);
    await writeOut(`  samples/${file} (${title}): ${summaryLine(summary)}\n`);
  }
  return OK;
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
function checkVerdicts(seen: readonly AttemptRecord[], expected: ReadonlyMap<string, { name: string; expect: Expectation }>): string {
  const wrong = seen.flatMap((a) => {
    const e = expected.get(a.target);
    if (!e || (e.expect.class === a.class && e.expect.detail === a.detail)) return [];
    return [`  ${e.name}: expected ${e.expect.class} (${e.expect.detail}), got ${a.class} (${a.detail})`];
  });
  if (wrong.length === 0) return `Every verdict is the one its fleet server was built to draw (${seen.length} of ${seen.length}).\n`;
  return `${wrong.length} verdict${wrong.length === 1 ? " differs" : "s differ"} from what the fleet expects (a loaded machine can turn an answer into a timeout):\n${wrong.join("\n")}\n`;
}
