/**
 * What fails a check run, for its exit status and for every writer that marks a result as failed
 * (a JUnit failure, a Markdown summary's verdict): a finding at or above `--fail-on` that no
 * baseline entry accepts, or a baseline entry that no longer occurs.
 */
import type { Severity } from "../codec/defects.js";
import type { CheckReport, FailOn, Finding } from "./types.js";

/** The severities in order, the least first. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, error: 2 };

/** Whether something of `severity` is at or above `failOn` (probe's and lint's defects too). */
export function atOrAbove(severity: Severity, failOn: FailOn): boolean {
  return failOn !== "never" && SEVERITY_RANK[severity] >= SEVERITY_RANK[failOn];
}

/** Whether this finding alone fails the run. */
export function failing(finding: Finding, failOn: FailOn): boolean {
  return !finding.accepted && atOrAbove(finding.severity, failOn);
}

/** Whether the run fails on its findings or its baseline (a target not checked at all is another matter: exit 3). */
export function runFails(report: CheckReport, failOn: FailOn): boolean {
  return report.stale.length > 0 || report.findings.some((f) => failing(f, failOn));
}
