/**
 * The gauntlet's catalogue: every scenario in the order runs take them, each with its checks and
 * the `client_messages` check every scenario has. Its version is in `--json`, so an upgrade that
 * changes what is checked never silently changes a CI verdict: bump it with any change to a
 * scenario's behaviour or a check's rule.
 */
import type { CheckRule } from "../check/types.js";
import { SPEC, broke, notObserved, pass, type CheckDef, type ScenarioDef } from "./scenario.js";
import { lifecycle } from "./scenarios/lifecycle.js";
import { emptyCursor, pagination, paginationStuck } from "./scenarios/pagination.js";
import { serverRequests } from "./scenarios/server-requests.js";
import { versionOlder, versionUnknown } from "./scenarios/version-fallback.js";
import { authChallenge, sessionExpired, sseResume } from "./scenarios/http-only.js";
import { batch, contentBlocks, largeResult, toolErrors } from "./scenarios/goes-on.js";
import { listChanged, progress, shutdown } from "./scenarios/signals.js";

export const CATALOGUE_VERSION = "2026-12-06.1";

export const SCENARIOS: readonly ScenarioDef[] = [
  lifecycle,
  pagination,
  paginationStuck,
  emptyCursor,
  serverRequests,
  versionOlder,
  versionUnknown,
  sessionExpired,
  sseResume,
  largeResult,
  contentBlocks,
  toolErrors,
  listChanged,
  progress,
  batch,
  authChallenge,
  shutdown,
];

export function scenarioOf(id: string): ScenarioDef | undefined {
  return SCENARIOS.find((s) => s.id === id);
}

/** `<scenario>.client_messages`: every message the client sent, judged as `tap` judges it. */
function clientMessages(scenario: string): CheckDef {
  return {
    id: `${scenario}.client_messages`,
    severity: "error",
    title: "Every client message is sound",
    rule: "Every message the client sends passes the codec, the conversation's rules and the official schema.json of the revision it was sent in.",
    spec: `${SPEC}/2025-11-25/basic`,
    bug: "Clients that send params the schema forbids (a null cursor, a string id reused, a missing field) are refused by strict servers.",
    score(view) {
      if (view.client.length === 0) return notObserved("the client sent no message");
      let worst: "error" | "warning" | undefined;
      const evidence: number[] = [];
      let first = "";
      for (const e of view.client) {
        for (const d of e.record.defects ?? []) {
          if (d.severity === "info") continue;
          if (worst !== "error") worst = d.severity;
          if (evidence.length < 20 && !evidence.includes(e.line)) evidence.push(e.line);
          if (!first || (d.severity === "error" && !first.startsWith("error")))
            first = `${d.severity} ${d.code}${d.path ? ` at ${d.path}` : ""}: ${d.message}`;
        }
      }
      if (!worst) return pass(`${view.client.length} client message${view.client.length === 1 ? "" : "s"}, all sound`);
      return broke(worst, first, evidence);
    },
  };
}

/** Every check of a scenario, `client_messages` last. */
export function checksOf(scenario: ScenarioDef): readonly CheckDef[] {
  return [...scenario.checks, clientMessages(scenario.id)];
}

/** The catalogue as the rules `check`'s writers (JUnit, Markdown) read. */
export function gauntletRules(): CheckRule[] {
  return SCENARIOS.flatMap((s) =>
    checksOf(s).map((c) => ({
      id: c.id,
      severity: c.severity,
      title: c.title,
      rule: c.rule,
      revisions: s.revisions,
      spec: c.spec,
      fix: `The client's author: ${c.rule}`,
    })),
  );
}
