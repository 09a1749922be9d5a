/**
 * Attach mode's `/mcp`: one server holding the tools of every scenario a tool call triggers, for a
 * host that cannot be pointed at a path per scenario, or is driven by a model. Each tool's
 * description asks for what the scenario needs. Scenarios that shape the opening or the listing
 * (pages, versions, sessions, sign-in, streams) cannot be served beside others and are
 * `not_applicable` there; the others are scored from the one recording.
 */
import { checksOf } from "./catalogue.js";
import { notObserved, type ScenarioDef } from "./scenario.js";
import { notRun, scoreRun, type ScenarioResult } from "./score.js";
import type { Entry } from "./tape.js";
import { View } from "./view.js";

/** The scenarios a tool call triggers, and the tool whose call shows the scenario was tried. */
const TRIGGERED: Record<string, string> = {
  server_requests: "gauntlet_server_requests",
  large_result: "gauntlet_large_result",
  content_blocks: "gauntlet_content_blocks",
  tool_errors: "gauntlet_tool_errors",
  list_changed: "gauntlet_list_changed",
  progress: "gauntlet_progress",
  batch: "gauntlet_batch",
};

const ASK =
  "This is a test of the client. Call it with no arguments, then call every other tool whose name starts with gauntlet_ that this server lists, each once.";

export interface CombinedScenario extends ScenarioDef {
  scoreAll(entries: readonly Entry[]): (ScenarioResult & { messages: number })[];
}

export function combinedScenario(scenarios: readonly ScenarioDef[]): CombinedScenario {
  const parts = scenarios.filter((s) => TRIGGERED[s.id] !== undefined && s.flag === undefined);
  return {
    id: "combined",
    title: "Every tool-triggered scenario on one server",
    behaviour: "One server with each tool-triggered scenario's tools.",
    spec: parts[0]?.spec ?? "",
    revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
    logging: true,
    capabilities: { tools: { listChanged: true } },
    checks: [],
    setup(run) {
      for (const s of parts) s.setup(run);
      for (const t of Object.values(TRIGGERED)) {
        const defined = run.server.tools.get(t);
        if (defined) defined.description = `${defined.description ?? ""} ${ASK}`.trim();
      }
    },
    scoreAll(entries) {
      const view = new View(entries, "http", undefined);
      return scenarios
        .filter((s) => !s.transports || s.transports.includes("http"))
        .map((s) => {
          const tool = TRIGGERED[s.id];
          if (!tool || !parts.includes(s))
            return {
              ...notRun(s, null, "shapes the opening or the listing: served at its own path, not on /mcp"),
              id: `${s.id}@/mcp`,
              messages: 0,
            };
          if (view.calls(tool).length === 0) {
            const r = notRun(s, null, "");
            const checks = checksOf(s).map((c) => ({
              ...r.checks.find((x) => x.id === c.id)!,
              ...notObserved(`nothing called ${tool} on /mcp`),
              evidence: [],
            }));
            return { ...r, id: `${s.id}@/mcp`, outcome: "not_observed" as const, checks, messages: 0 };
          }
          return { ...scoreRun(s, entries, "http", undefined), id: `${s.id}@/mcp` };
        });
    },
  };
}
