/**
 * What the documents a check run is written as (JUnit, SARIF, Markdown) read off the run alike:
 * the rule each finding is documented by, which findings fail the run, and what a stale baseline
 * entry is told. `check`, `gauntlet` and `replay` write all three, so the three agree on these
 * only if each is decided once, here.
 */
import { keyWords } from "./baseline.js";
import { failing } from "./fail-on.js";
import type { BaselineKey, CheckRule, FailOn, Finding } from "./types.js";

/**
 * The rules findings are documented by: the catalogue the command passes, and for a finding whose
 * rule it lacks (a gauntlet or replay id, a check added since), one made from what the finding
 * says, so no finding is shown without its fix and its specification.
 */
export class RuleBook {
  private readonly byId: ReadonlyMap<string, CheckRule>;

  constructor(readonly catalogue: readonly CheckRule[]) {
    this.byId = new Map(catalogue.map((r) => [r.id, r]));
  }

  /** The catalogue's rule, when it has one: only such a rule has a title of its own. */
  known(id: string): CheckRule | undefined {
    return this.byId.get(id);
  }

  /** The rule `f` is documented by. */
  of(f: Finding): CheckRule {
    return (
      this.byId.get(f.id) ?? {
        id: f.id,
        severity: f.severity,
        title: f.id,
        rule: f.message,
        revisions: "all",
        spec: f.spec,
        fix: f.fix,
        breaks: f.breaks,
      }
    );
  }
}

/** The findings that fail the run under `failOn`, and the rest (below it, or accepted), each in order. */
export function splitFailing(
  findings: readonly Finding[],
  failOn: FailOn,
): { fails: readonly Finding[]; rest: readonly Finding[] } {
  const fails: Finding[] = [];
  const rest: Finding[] = [];
  for (const f of findings) (failing(f, failOn) ? fails : rest).push(f);
  return { fails, rest };
}

/** What to do about stale entries: run the command that rewrites the baseline, when the run knows it. */
export function rewriteAdvice(rewrite: string | undefined, otherwise: string): string {
  return rewrite ? `rewrite the baseline with: ${rewrite}` : otherwise;
}

/** A stale entry, in a sentence that ends with `advice`. */
export function staleSentence(entry: BaselineKey, advice: string): string {
  return `The baseline accepts ${keyWords(entry)}, which this run did not find: ${advice}.`;
}
