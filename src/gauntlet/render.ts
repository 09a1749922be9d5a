/**
 * The scorecard for a person (a table per scenario) and for programs (`--json`). Everything a
 * client sent is redacted and shown as text: a client's name cannot carry terminal escapes.
 */
import { redact } from "../secrets/redact.js";
import type { Outcome } from "./scenario.js";
import type { Scorecard } from "./score.js";

const MARK: Record<Outcome, string> = {
  pass: "pass",
  fail: "FAIL",
  warn: "warn",
  info: "info",
  not_observed: "not observed",
  not_applicable: "n/a",
};

/** Control characters a terminal would act on, shown as escapes. */
function plain(text: string): string {
  return redact(text).replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export function renderText(card: Scorecard): string {
  const out: string[] = [];
  out.push(`mcp-wire gauntlet (catalogue ${card.catalogue})`);
  out.push(`client: ${card.client ? plain(`${card.client.name} ${card.client.version}`) : "(it sent no clientInfo)"}`);
  for (const s of card.scenarios) {
    out.push("");
    out.push(
      `${s.id}${s.revision ? ` (${s.revision})` : ""}: ${MARK[s.outcome]}${s.note ? ` — ${plain(s.note)}` : ""}`,
    );
    const width = Math.max(...s.checks.map((c) => c.id.length));
    for (const c of s.checks) {
      const evidence = c.evidence.length > 0 ? ` [lines ${c.evidence.join(", ")}]` : "";
      out.push(
        `  ${MARK[c.outcome].padEnd(12)} ${c.id.padEnd(width)}  ${plain(c.message)}${evidence}${c.accepted ? " (accepted by the baseline)" : ""}`,
      );
    }
    if (s.recording) out.push(`  recording: ${s.recording}`);
  }
  out.push("");
  const c = card.counts;
  out.push(
    `${c.pass} passed, ${c.fail} failed, ${c.warn} warned, ${c.info} info, ${c.not_observed} not observed, ${c.not_applicable} not applicable; ${card.messages} client messages in ${(card.elapsedMs / 1000).toFixed(1)} s`,
  );
  return out.join("\n") + "\n";
}

/** `--json`: the contract's shape. */
export function renderJson(card: Scorecard): string {
  const json = {
    catalogue: card.catalogue,
    client: card.client,
    scenarios: card.scenarios.map((s) => ({
      id: s.id,
      revision: s.revision,
      outcome: s.outcome,
      ...(s.note ? { note: s.note } : {}),
      ...(s.recording ? { recording: s.recording } : {}),
      checks: s.checks.map((c) => ({
        id: c.id,
        outcome: c.outcome,
        severity: c.severity,
        message: c.message,
        evidence: c.evidence,
        ...(c.accepted ? { accepted: true } : {}),
      })),
    })),
    counts: card.counts,
    messages: card.messages,
    elapsedMs: card.elapsedMs,
  };
  return redact(JSON.stringify(json)) + "\n";
}
