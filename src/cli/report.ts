/**
 * `mcp-wire report`: what a census found, in the words a person would write, or as JSON, CSV or
 * a self-contained HTML page.
 */
import { existsSync } from "node:fs";
import { isPostgresUrl, openStore } from "../census/open-store.js";
import { StoreRefused, type Aggregates, type RunRecord, type Store, type TargetSummary } from "../census/store.js";
import { parseRuns, parseSince, select } from "../report/select.js";
import { OK, USAGE_ERROR } from "./exit.js";
import { cannotRead } from "./file-errors.js";
import { checkOutput, outputProblem, writeOutput } from "./output-file.js";
import { redact, redactSecrets } from "../secrets/redact.js";
import { writeErr, writeOut } from "./output.js";

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
}

export const DEFAULT_DB = "mcp-wire.db";

export async function runReport(opts: ReportCliOptions): Promise<number> {
  if (opts.json && opts.csv) return usage("--json and --csv each print the whole report: choose one");
  const runs = parseRuns(opts.run ?? []);
  if (typeof runs === "string") return usage(runs);
  let since: string | undefined;
  if (opts.since !== undefined) {
    const parsed = parseSince(opts.since);
    if (typeof parsed !== "string") return usage(parsed.error);
    since = parsed;
  }

  // refused before the census is read, not after minutes of work
  if (opts.html !== undefined) {
    try {
      await checkOutput(opts.html, { force: opts.force === true, option: "--html" });
    } catch (e) {
      return usage(outputProblem(opts.html, e));
    }
  }

  const db = opts.db ?? DEFAULT_DB;
  if (!isPostgresUrl(db) && !existsSync(db)) {
    return usage(`no census database at ${db}: run \`mcp-wire census <targets>\` first${opts.db ? "" : ", or name the database with --db FILE"}`);
  }
  let store: Store;
  try {
    store = await openStore(db, "read");
  } catch (e) {
    if (e instanceof StoreRefused) return usage(e.message);
    return usage(cannotRead(redact(db), typeof (e as NodeJS.ErrnoException).code === "string" ? e : new Error(redact(e instanceof Error ? e.message : String(e)))));
  }
  const file = store.where;
  try {
    const allRuns = await store.runs();
    const selected = select(allRuns, { runs, ...(since !== undefined ? { since } : {}), ...(opts.target !== undefined ? { target: opts.target } : {}) });
    if ("error" in selected) return usage(selected.error);
    // a database written before secrets were kept out may still hold some: every format is
    // rendered from a redacted copy (redacting the HTML afterwards would hide `<redacted>` as a tag)
    // the page alone streams its targets from the store (see report/html.ts); the other formats list them all
    const streamed = opts.html !== undefined && !opts.json && !opts.csv;
    const agg = redactSecrets(await store.aggregate(selected.query, { perTarget: !streamed }));
    if (opts.target !== undefined && agg.attempts === 0 && runs.length === 0 && since === undefined) {
      return usage(`${file} has no attempt at ${JSON.stringify(opts.target)} (a target is named exactly as the census probed it)`);
    }
    if (opts.html !== undefined) {
      const { renderHtmlStream } = await import("../report/html.js");
      const targets = streamed ? redacted(store.perTarget(selected.query)) : agg.perTarget;
      try {
        await writeOutput(opts.html, renderHtmlStream(agg, targets), { force: opts.force === true, option: "--html" });
      } catch (e) {
        return usage(outputProblem(opts.html, e));
      }
    }
    await print(agg, opts, {
      runs: selected.runIds,
      since: since ?? null,
      target: opts.target ?? null,
      selectedRuns: selected.runIds ? allRuns.filter((r) => selected.runIds!.includes(r.id)) : [],
    });
    return OK;
  } finally {
    await store.close();
  }
}

async function print(agg: Aggregates, opts: ReportCliOptions, sel: { runs: number[] | null; since: string | null; target: string | null; selectedRuns: RunRecord[] }) {
  if (opts.json) {
    const { reportObject } = await import("../report/json.js");
    await writeOut(JSON.stringify(reportObject(agg, { runs: sel.runs, since: sel.since, target: sel.target }, sel.selectedRuns)) + "\n");
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

/** Each target as it comes from the store, redacted as the aggregates are. */
async function* redacted(targets: AsyncIterable<TargetSummary>): AsyncGenerator<TargetSummary> {
  for await (const t of targets) yield redactSecrets(t);
}

function usage(message: string): number {
  writeErr(`mcp-wire report: ${message}\n`);
  return USAGE_ERROR;
}
