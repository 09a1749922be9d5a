/**
 * `mcp-wire prune --before DATE`: deletes the attempts older than a date. Deleting history cannot
 * be undone, so it says first how many attempts would go and asks; a script says `--yes`, and
 * without a terminal to ask on, nothing is deleted without it. A date in the future (which takes
 * every attempt, the ones a census is writing included) needs `--yes` even at a terminal.
 */
import { existsSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { DEFAULT_DB, isPostgresUrl, openStore } from "../census/open-store.js";
import { StoreRefused, type Store } from "../census/store.js";
import { parseSince } from "../report/select.js";
import { redact } from "../secrets/redact.js";
import { FOUND_PROBLEMS, OK, usageError } from "./exit.js";
import { cannotRead } from "./file-errors.js";
import { writeErr, writeOut } from "./output.js";

export interface PruneCliOptions {
  db?: string;
  before: string;
  yes?: boolean;
  dryRun?: boolean;
}

function usage(message: string): number {
  return usageError("prune", message);
}

export async function runPrune(opts: PruneCliOptions): Promise<number> {
  const before = parseSince(opts.before);
  if (typeof before !== "string") return usage(before.error.replace("--since", "--before"));
  if (opts.dryRun && opts.yes)
    return usage("--dry-run deletes nothing, so --yes has nothing to confirm: give one of them");
  const db = opts.db ?? DEFAULT_DB;
  if (!isPostgresUrl(db) && !existsSync(db))
    return usage(`no census database at ${db}${opts.db ? "" : ": name it with --db FILE"}`);
  let store: Store;
  try {
    store = await openStore(db, "existing");
  } catch (e) {
    if (e instanceof StoreRefused) return usage(e.message);
    return usage(
      cannotRead(
        redact(db),
        typeof (e as NodeJS.ErrnoException).code === "string"
          ? e
          : new Error(redact(e instanceof Error ? e.message : String(e))),
      ),
    );
  }
  try {
    return await prune(store, before, opts);
  } finally {
    await store.close();
  }
}

async function prune(store: Store, before: string, opts: PruneCliOptions): Promise<number> {
  const { counted, moment } = await import("../report/words.js");
  const all = (await store.aggregate({})).attempts;
  const kept = (await store.aggregate({ since: before })).attempts;
  const doomed = all - kept;
  const what = `${counted(doomed, "attempt")} from before ${moment(before)} in ${store.where}`;
  if (doomed === 0) {
    await writeOut(`Nothing to delete: no attempt from before ${moment(before)} in ${store.where}.\n`);
    return OK;
  }
  if (opts.dryRun) {
    await writeOut(
      `Would delete ${what} (${counted(kept, "attempt")} from then on would stay); runs and targets are kept. Nothing was deleted.\n`,
    );
    return OK;
  }
  const future = Date.parse(before) > Date.now();
  if (!opts.yes) {
    if (future)
      return usage(
        `${moment(before)} is in the future: that deletes every attempt (${counted(doomed, "attempt")}, a census running now included); add --yes if that is what you mean`,
      );
    if (process.stdin.isTTY !== true)
      return usage(`this would delete ${what}; add --yes to delete them (there is no terminal to ask on)`);
    if (!(await confirmed(`Delete ${what}? Runs and targets are kept. [y/N] `))) {
      writeErr("mcp-wire prune: nothing deleted.\n");
      return FOUND_PROBLEMS;
    }
  }
  const deleted = await store.prune(before);
  await writeOut(
    `Deleted ${counted(deleted, "attempt")} from before ${moment(before)} in ${store.where}; runs, targets and later attempts are kept.\n`,
  );
  return OK;
}

/** Asks on the terminal; only `y` or `yes` is a yes. */
async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(question));
  } finally {
    rl.close();
  }
}
