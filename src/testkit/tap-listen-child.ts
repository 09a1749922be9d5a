/**
 * `tap --listen` in a process of its own, run through the library with a schema budget a test
 * chooses: `node tap-listen-child.js <upstream> <revision> <budget ms>`. It prints the tap's URL,
 * runs until its stdin ends, prints the summary, and then simply returns: the process exits only
 * if nothing the tap started (its validation thread, a timer, a socket) is left holding it. A test
 * helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { fileURLToPath } from "node:url";
import { isRevision } from "../rules/revisions.js";
import { startHttpTap } from "../tap/http-tap.js";
import { TapReport } from "../tap/report.js";

export const TAP_LISTEN_CHILD = fileURLToPath(import.meta.url);

async function main(): Promise<void> {
  const [upstream, revision, budget] = process.argv.slice(2);
  if (upstream === undefined || revision === undefined || !isRevision(revision))
    throw new Error("usage: <upstream> <revision> <budget ms>");
  const report = new TapReport({ live: process.stderr });
  const tap = await startHttpTap({ upstream, port: 0, report, revision, schemaBudgetMs: Number(budget) });
  process.stdout.write(`${tap.url}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  process.stdin.pause();
  await tap.close();
  process.stderr.write(report.summary(tap.revisions()));
  await report.close();
}

if (process.argv[1] === TAP_LISTEN_CHILD) await main();
