/**
 * The scorecard: each scenario run's checks scored from its recording, the scenario's outcome its
 * worst check's, the client named by the first `clientInfo` it sent. The same card becomes a
 * `check` report for the writers `check` has (JUnit, Markdown, the baseline and `--fail-on`), so a
 * client author's CI reads the gauntlet as it reads `check`.
 */
import type { Severity } from "../codec/defects.js";
import type { CheckReport, Finding } from "../check/types.js";
import type { Revision } from "../rules/revisions.js";
import { CATALOGUE_VERSION, checksOf } from "./catalogue.js";
import { notApplicable, type Outcome, type ScenarioDef, type WireKind } from "./scenario.js";
import type { Entry } from "./tape.js";
import { View } from "./view.js";

export interface CheckResult {
  id: string;
  outcome: Outcome;
  severity: Severity;
  message: string;
  evidence: number[];
  spec: string;
  /** Set when a `--baseline` entry accepts it. */
  accepted?: true;
}

export interface ScenarioResult {
  /** The scenario's id (`version_fallback.older` for a variant). */
  id: string;
  revision: Revision | null;
  outcome: Outcome;
  checks: CheckResult[];
  /** The recording kept with `--record DIR`, if any. */
  recording?: string;
  /** Why the run went as it did, when it did not go at all (the client never started, timed out). */
  note?: string;
}

export interface Scorecard {
  catalogue: string;
  client: { name: string; version: string } | null;
  scenarios: ScenarioResult[];
  counts: Record<Outcome, number>;
  /** How many messages the client sent in all (0: exit 3). */
  messages: number;
  elapsedMs: number;
}

/** Worst first: a scenario's outcome is the first of these its checks have. */
const WORST: readonly Outcome[] = ["fail", "warn", "info", "not_observed", "pass", "not_applicable"];

function worst(outcomes: readonly Outcome[]): Outcome {
  for (const o of WORST) if (outcomes.includes(o)) return o;
  return "not_applicable";
}

/** Scores one scenario run from its recording. */
export function scoreRun(
  scenario: ScenarioDef,
  entries: readonly Entry[],
  transport: WireKind,
  bound: Revision | undefined,
): ScenarioResult & { clientInfo?: { name: string; version: string }; messages: number } {
  const view = new View(entries, transport, bound);
  const unspoken = unspokenReason(scenario, view);
  const checks = checksOf(scenario).map((c): CheckResult => {
    const v = unspoken && !c.id.endsWith(".client_messages") ? notApplicable(unspoken) : c.score(view);
    return {
      id: c.id,
      outcome: v.outcome,
      severity: c.severity,
      message: v.message,
      evidence: [...v.evidence],
      spec: c.spec,
    };
  });
  const info = view.clientInfo();
  return {
    id: scenario.id,
    revision: bound ?? view.revision() ?? null,
    // a scenario the client could not speak is not applicable, unless what it did send was unsound
    outcome: unspoken
      ? worst(checks.map((c) => (c.outcome === "pass" ? "not_applicable" : c.outcome)))
      : worst(checks.map((c) => c.outcome)),
    checks,
    ...(info ? { clientInfo: info } : {}),
    messages: view.client.length,
  };
}

/** A scenario bound to revisions the client could not speak: why it is not applicable. */
function unspokenReason(scenario: ScenarioDef, view: View): string | undefined {
  const modernOnly = scenario.revisions.every((r) => r === "2026-07-28");
  const legacyOnly = !scenario.revisions.includes("2026-07-28");
  const initialized = view.requests("initialize").length > 0;
  const spokeModern = view
    .requests()
    .some(
      (e) =>
        e.record.http?.protocolVersion === "2026-07-28" ||
        (e.value as { method?: string })?.method === "server/discover" ||
        view.revision() === "2026-07-28",
    );
  if (legacyOnly && !initialized && spokeModern)
    return `the client speaks 2026-07-28 only; the scenario needs ${scenario.revisions.join(", ")}`;
  if (modernOnly && initialized && view.revision() !== "2026-07-28") return "the client does not speak 2026-07-28";
  return undefined;
}

/** A scenario decided before its run (revision, transport, flag). */
export function notRun(scenario: ScenarioDef, revision: Revision | null, why: string): ScenarioResult {
  return {
    id: scenario.id,
    revision,
    outcome: "not_applicable",
    checks: checksOf(scenario).map((c) => ({
      id: c.id,
      outcome: "not_applicable",
      severity: c.severity,
      message: why,
      evidence: [],
      spec: c.spec,
    })),
  };
}

export function scorecard(
  results: readonly (ScenarioResult & { clientInfo?: { name: string; version: string }; messages?: number })[],
  elapsedMs: number,
): Scorecard {
  const counts = Object.fromEntries(WORST.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) for (const c of r.checks) counts[c.outcome]++;
  const client = results.find((r) => r.clientInfo)?.clientInfo ?? null;
  const messages = results.reduce((n, r) => n + (r.messages ?? 0), 0);
  const scenarios = results.map(({ clientInfo: _c, messages: _m, ...r }) => r);
  return { catalogue: CATALOGUE_VERSION, client, scenarios, counts, messages, elapsedMs };
}

const SEVERITY: Partial<Record<Outcome, Severity>> = { fail: "error", warn: "warning", info: "info" };

/** The scorecard as a `check` report: a finding per check that did not pass, a case per check that ran. */
export function asCheckReport(card: Scorecard, target: string): CheckReport {
  const findings: Finding[] = [];
  const ran: { id: string; revision: Revision | null }[] = [];
  const revisions: Partial<Record<Revision, "ok">> = {};
  for (const s of card.scenarios) {
    if (s.revision) revisions[s.revision] = "ok";
    for (const c of s.checks) {
      if (c.outcome === "not_applicable") continue;
      ran.push({ id: c.id, revision: s.revision });
      const severity = SEVERITY[c.outcome];
      if (!severity) continue;
      findings.push({
        id: c.id,
        severity,
        revision: s.revision,
        revisions: s.revision ? [s.revision] : [],
        method: null,
        path: null,
        // what a check report's finding is about: here, the scenario the client went through
        subject: `scenario:${s.id}`,
        subjectPath: null,
        message: c.evidence.length > 0 ? `${c.message} (recording lines ${c.evidence.join(", ")})` : c.message,
        fix: "Change the client as the rule says (docs/gauntlet.md).",
        spec: c.spec,
        breaks: [],
        ...(c.accepted ? { accepted: true as const } : {}),
      });
    }
  }
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return {
    target,
    revisions,
    findings,
    counts,
    checked: { messages: card.messages, pages: 0 },
    elapsedMs: card.elapsedMs,
    ran,
    unchecked:
      card.messages === 0
        ? { class: "silent", detail: "no message", message: "the client sent no message in any scenario" }
        : null,
    stale: [],
  };
}
