/**
 * `mcp-wire report`: what a census found, in the words a person would write, or as JSON, CSV or
 * a self-contained HTML page.
 */
import { existsSync } from "node:fs";
import { DEFAULT_DB, isPostgresUrl, openStore } from "../census/open-store.js";
import {
  StoreRefused,
  StoreUnreachable,
  type Aggregates,
  type RunRecord,
  type Store,
  type TargetSummary,
} from "../census/store.js";
import { parseRuns, parseSince, select } from "../report/select.js";
import type { TargetChanges } from "../report/changes.js";
import { FOUND_PROBLEMS, OK, usageError } from "./exit.js";
import { cannotRead } from "./file-errors.js";
import { checkOutput, outputProblem, writeOutput } from "./output-file.js";
import { redact, redactSecrets } from "../secrets/redact.js";
import { writeErr, writeOut } from "./output.js";
import { closeOnWayOut, untilStopped } from "./signals.js";

export interface ReportCliOptions {
  db?: string;
  json?: boolean;
  csv?: boolean;
  html?: string;
  /** Replace an existing `--html` file that mcp-wire did not write. */
  force?: boolean;
  since?: string;
  target?: string;
  run?: string[];
  changes?: boolean;
  serve?: boolean;
  port?: string;
  host?: string;
  publicUrl?: string;
}

/** How far back `--changes` (and `--json`'s changes) look when `--since` does not say. */
const CHANGES_WINDOW_MS = 30 * 86_400_000;

export async function runReport(opts: ReportCliOptions): Promise<number> {
  try {
    return await report(opts);
  } catch (e) {
    // a database that went away while it was read: one line, not an internal error
    if (!(e instanceof StoreUnreachable)) throw e;
    writeErr(`mcp-wire report: the database ${redact(e.message)}\n`);
    return FOUND_PROBLEMS;
  }
}

/** Why the flags given together cannot apply, if they cannot. */
async function flagProblem(opts: ReportCliOptions): Promise<string | undefined> {
  if (opts.json && opts.csv) return "--json and --csv each print the whole report: choose one";
  // what would be silently left out otherwise: --changes prints text or JSON, --serve prints nothing
  if (opts.changes && (opts.csv || opts.html !== undefined))
    return "--changes prints what changed as text, or under targets[].changes with --json: not with --csv or --html";
  if (opts.serve && (opts.json || opts.csv || opts.html !== undefined || opts.changes))
    return "--serve serves the census as pages and JSON: give it without --json, --csv, --html or --changes";
  if (!opts.serve && (opts.port !== undefined || opts.host !== undefined || opts.publicUrl !== undefined))
    return "--port, --host and --public-url are for --serve";
  if (opts.publicUrl !== undefined) {
    const { publicUrlProblem } = await import("../report/serve/app.js");
    const problem = publicUrlProblem(opts.publicUrl);
    if (problem) return problem;
  }
  return undefined;
}

async function report(opts: ReportCliOptions): Promise<number> {
  const asked = await parseOptions(opts);
  if (typeof asked === "string") return usage(asked);
  const store = await openReportStore(opts.db);
  if (typeof store === "string") return usage(store);
  if (opts.serve) return serve(store, opts);
  // stopped part-way, the store is closed all the same: a private copy it reads is removed
  const unregister = closeOnWayOut(() => store.close());
  try {
    return await reportFrom(store, opts, asked);
  } finally {
    unregister();
    await store.close();
  }
}

/** What the report covers: the runs `--run` names (none: every run), from `--since` on. */
interface Asked {
  runs: number[];
  since?: string;
}

/** The options checked, and the `--html` file judged writable before the census is read, not after minutes of work. */
async function parseOptions(opts: ReportCliOptions): Promise<Asked | string> {
  const problem = await flagProblem(opts);
  if (problem !== undefined) return problem;
  const runs = parseRuns(opts.run ?? []);
  if (typeof runs === "string") return runs;
  const asked: Asked = { runs };
  if (opts.since !== undefined) {
    const parsed = parseSince(opts.since);
    if (typeof parsed !== "string") return parsed.error;
    asked.since = parsed;
  }
  if (opts.html !== undefined) {
    try {
      await checkOutput(opts.html, { force: opts.force === true, option: "--html" });
    } catch (e) {
      return outputProblem(opts.html, e);
    }
  }
  return asked;
}

/** The census database `--db` names, opened to read; or why it cannot be, in one line. */
async function openReportStore(given: string | undefined): Promise<Store | string> {
  const db = given ?? DEFAULT_DB;
  if (!isPostgresUrl(db) && !existsSync(db))
    return `no census database at ${db}: run \`mcp-wire census <targets>\` first${given ? "" : ", or name the database with --db FILE"}`;
  try {
    return await openStore(db, "read");
  } catch (e) {
    if (e instanceof StoreRefused) return e.message;
    return cannotRead(
      redact(db),
      typeof (e as NodeJS.ErrnoException).code === "string"
        ? e
        : new Error(redact(e instanceof Error ? e.message : String(e))),
    );
  }
}

/** The report of what was asked, printed (and written to `--html`). */
async function reportFrom(store: Store, opts: ReportCliOptions, { runs, since }: Asked): Promise<number> {
  const allRuns = await store.runs();
  const selected = select(allRuns, {
    runs,
    ...(since !== undefined ? { since } : {}),
    ...(opts.target !== undefined ? { target: opts.target } : {}),
  });
  if ("error" in selected) return usage(selected.error);
  const changesSince = since ?? new Date(Date.now() - CHANGES_WINDOW_MS).toISOString();
  if (opts.changes && !opts.json) {
    const { renderChanges } = await import("../report/changes.js");
    await writeOut(renderChanges(await changesIn(store, changesSince, opts.target), changesSince));
    return OK;
  }
  // a database written before secrets were kept out may still hold some: every format is
  // rendered from a redacted copy (redacting the HTML afterwards would hide `<redacted>` as a tag)
  // the page alone streams its targets from the store (see report/html.ts); the other formats list them all
  const streamed = opts.html !== undefined && !opts.json && !opts.csv;
  const agg = redactSecrets(await store.aggregate(selected.query, { perTarget: !streamed }));
  if (opts.target !== undefined && agg.attempts === 0 && runs.length === 0 && since === undefined) {
    return usage(
      `${store.where} has no attempt at ${JSON.stringify(opts.target)} (a target is named exactly as the census probed it)`,
    );
  }
  const changes = opts.json ? await changesIn(store, changesSince, opts.target) : undefined;
  if (opts.html !== undefined) {
    const targets = streamed ? redacted(store.perTarget(selected.query)) : agg.perTarget;
    const problem = await writeHtml(opts.html, agg, targets, opts.force === true);
    if (problem !== undefined) return usage(problem);
  }
  await print(agg, opts, changes, {
    runs: selected.runIds,
    since: since ?? null,
    target: opts.target ?? null,
    selectedRuns: selected.runIds ? allRuns.filter((r) => selected.runIds!.includes(r.id)) : [],
  });
  return OK;
}

/** Writes the page, its targets as they come; the line saying why it could not be, if it could not. */
async function writeHtml(
  path: string,
  agg: Aggregates,
  targets: Iterable<TargetSummary> | AsyncIterable<TargetSummary>,
  force: boolean,
): Promise<string | undefined> {
  const { renderHtmlStream } = await import("../report/html.js");
  try {
    await writeOutput(path, renderHtmlStream(agg, targets), { force, option: "--html" });
  } catch (e) {
    return outputProblem(path, e);
  }
  return undefined;
}

async function print(
  agg: Aggregates,
  opts: ReportCliOptions,
  changes: readonly TargetChanges[] | undefined,
  sel: { runs: number[] | null; since: string | null; target: string | null; selectedRuns: RunRecord[] },
) {
  if (opts.json) {
    const { reportObject } = await import("../report/json.js");
    await writeOut(
      JSON.stringify(
        reportObject(agg, { runs: sel.runs, since: sel.since, target: sel.target }, sel.selectedRuns, changes),
      ) + "\n",
    );
  } else if (opts.csv) {
    const { renderCsv } = await import("../report/csv.js");
    await writeOut(renderCsv(agg));
  } else if (opts.html !== undefined) {
    const { heading } = await import("../report/story.js");
    await writeOut(`Wrote ${opts.html}: ${heading(agg)}.\n`);
  } else {
    const { renderText } = await import("../report/text.js");
    await writeOut(renderText(agg, { width: process.stdout.columns ?? 100, colour: process.stdout.isTTY === true }));
  }
}

const DEFAULT_SERVE_PORT = 8484;

/** `report --serve`: until SIGINT or SIGTERM; the store is closed on the way out. */
async function serve(store: Store, opts: ReportCliOptions): Promise<number> {
  const port = opts.port === undefined ? DEFAULT_SERVE_PORT : Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    await store.close();
    return usage(`--port takes a port number (0–65535), not ${JSON.stringify(opts.port)}`);
  }
  const { serveReport } = await import("../report/serve/app.js");
  let server: Awaited<ReturnType<typeof serveReport>>;
  try {
    server = await serveReport(store, {
      port,
      ...(opts.host !== undefined ? { host: opts.host } : {}),
      ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    });
  } catch (e) {
    await store.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") return usage(`port ${port} is in use: choose another with --port`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      return usage(`cannot listen on ${opts.host}: not an address of this machine`);
    throw e;
  }
  await writeOut(
    `Serving ${server.servers} server${server.servers === 1 ? "" : "s"} from ${redact(store.where)} at ${server.url} (read only; Ctrl-C stops)\n`,
  );
  await untilStopped();
  await server.close();
  await store.close();
  return OK;
}

/** What changed per target since `since`, redacted as the aggregates are. */
async function changesIn(store: Store, since: string, target: string | undefined): Promise<TargetChanges[]> {
  const { changesOf } = await import("../report/changes.js");
  return redactSecrets(await changesOf(store, { since, ...(target !== undefined ? { target } : {}) }));
}

/** Each target as it comes from the store, redacted as the aggregates are. */
async function* redacted(targets: AsyncIterable<TargetSummary>): AsyncGenerator<TargetSummary> {
  for await (const t of targets) yield redactSecrets(t);
}

function usage(message: string): number {
  return usageError("report", message);
}
