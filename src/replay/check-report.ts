/**
 * A replay as a `check` report, so `--junit` and `--markdown` are check's own writers: a case per
 * method replayed, a finding per answer that changed (naming each path where it did), and a
 * server that could not be reached as the report's one unchecked case.
 */
import type { CheckReport, CheckRule, Finding } from "../check/types.js";
import type { ReplayReport } from "./replay.js";

const FIX =
  "Change the server back, or take the live answers in with --update once the change is meant (docs/recordings.md).";
const SPEC = "docs/recordings.md";

/** The id a method's case and findings go under. */
function caseId(method: string): string {
  return `replay ${method}`;
}

/** A rule per method replayed: what the writers title each case with. */
export function replayRules(report: ReplayReport): CheckRule[] {
  const methods = new Set(report.conversations.flatMap((c) => c.requests.map((r) => r.method)));
  return [...methods].map((method) => ({
    id: caseId(method),
    severity: "error",
    title: `${method} answers as recorded`,
    rule: `Each ${method} request sent again gets the answer the recording holds.`,
    revisions: "all",
    spec: SPEC,
    fix: FIX,
  }));
}

export function asCheckReport(report: ReplayReport, target: string, elapsedMs: number): CheckReport {
  const findings: Finding[] = [];
  const ran = new Map<string, { id: string; revision: null }>();
  let messages = 0;
  for (const c of report.conversations)
    for (const r of c.requests) {
      if (r.status === "skipped" || r.status === "unrecorded") continue;
      messages++;
      ran.set(r.method, { id: caseId(r.method), revision: null });
      if (r.status !== "different") continue;
      const paths = r.differences.map((d) => d.path);
      findings.push({
        id: caseId(r.method),
        severity: "error",
        revision: null,
        revisions: [],
        method: r.method,
        path: paths[0] ?? null,
        subject: `conversation:${c.id || "1"} ${r.method} ${r.params}`,
        subjectPath: null,
        message: `${r.method} ${r.params} (conversation ${c.id || "1"}) answered differently at ${paths.join(", ")}`,
        fix: FIX,
        spec: SPEC,
        breaks: [],
      });
    }
  return {
    target,
    revisions: {},
    findings,
    counts: { error: findings.length, warning: 0, info: 0 },
    checked: { messages, pages: 0 },
    elapsedMs,
    ran: [...ran.values()],
    unchecked:
      report.unreachable !== undefined
        ? { class: "unreachable", detail: report.unreachable, message: "the server could not be reached" }
        : null,
    stale: [],
  };
}
