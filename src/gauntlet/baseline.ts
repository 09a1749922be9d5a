/**
 * `gauntlet --baseline FILE`: the checks a client's authors accept for now. The file is the
 * `--json` output of an earlier gauntlet run; each check that did not pass there (fail, warn,
 * info) becomes an entry keyed by its id (which names the scenario) and the scenario's revision,
 * and `check`'s baseline does the rest: accepted checks do not fail the run, stale entries do.
 */
import { stat, readFile } from "node:fs/promises";
import { BASELINE_MAX_BYTES, BaselineError, parseBaseline } from "../check/baseline.js";
import type { BaselineKey } from "../check/types.js";

const FAULTS = new Set(["fail", "warn", "info"]);

/** The entries, or one line saying why the file cannot be used. */
export async function readGauntletBaseline(path: string): Promise<BaselineKey[] | string> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return `--baseline ${path}: not a file`;
    if (info.size > BASELINE_MAX_BYTES) return `--baseline ${path}: larger than any gauntlet --json output is`;
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `--baseline ${path}: cannot read it (${code === "ENOENT" ? "no such file" : (code ?? String(e))})`;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return `--baseline ${path}: not JSON; it must be the --json output of an earlier mcp-wire gauntlet`;
  }
  const scenarios = (doc as { scenarios?: unknown } | null)?.scenarios;
  if (!Array.isArray(scenarios))
    return `--baseline ${path}: no "scenarios" array; it must be the --json output of an earlier mcp-wire gauntlet`;
  const findings: unknown[] = [];
  for (const s of scenarios as { revision?: unknown; checks?: unknown }[]) {
    if (!Array.isArray(s?.checks)) continue;
    for (const c of s.checks as { id?: unknown; outcome?: unknown }[])
      if (typeof c?.outcome === "string" && FAULTS.has(c.outcome))
        findings.push({ id: c.id, revision: s.revision ?? null });
  }
  try {
    return parseBaseline(JSON.stringify({ findings }), path);
  } catch (e) {
    return e instanceof BaselineError ? e.message : String(e);
  }
}
