/**
 * `mcp-wire gauntlet` as a user runs it, for the tests: the scorecard read from `--json`, and the
 * clients the tests drive (the model client, drivers of real clients, and misbehaving ones). A
 * test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { fileURLToPath } from "node:url";
import { mcpWire } from "./cli-child.js";

export const MODEL_CLIENT = fileURLToPath(new URL("./gauntlet-model-client.js", import.meta.url));
export const DRIVERS = fileURLToPath(new URL("./gauntlet-drivers/", import.meta.url));
export const BAD_CLIENTS = fileURLToPath(new URL("./gauntlet-clients/", import.meta.url));

export interface CardCheck {
  id: string;
  outcome: string;
  severity: string;
  message: string;
  evidence: number[];
}

export interface Card {
  catalogue: string;
  client: { name: string; version: string } | null;
  scenarios: { id: string; revision: string | null; outcome: string; note?: string; checks: CardCheck[] }[];
  counts: Record<string, number>;
}

export interface GauntletRun {
  code: number | string;
  card: Card | undefined;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-wire gauntlet --json <args>` and reads its scorecard. */
export async function gauntlet(args: string[], ms = 120_000): Promise<GauntletRun> {
  const child = mcpWire(["gauntlet", "--json", ...args]);
  const code = await child.exit(ms);
  let card: Card | undefined;
  try {
    card = JSON.parse(child.stdout()) as Card;
  } catch {
    card = undefined;
  }
  return { code, card, stdout: child.stdout(), stderr: child.stderr() };
}

/** `scenario id` → `check id` → outcome, for compact assertions. */
export function outcomes(card: Card | undefined): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const s of card?.scenarios ?? []) {
    const key = s.revision ? `${s.id}@${s.revision}` : s.id;
    out[key] = Object.fromEntries(s.checks.map((c) => [c.id, c.outcome]));
  }
  return out;
}

/** The outcome of check `id` in the first scenario run that has it. */
export function outcomeOf(card: Card | undefined, id: string): string | undefined {
  for (const s of card?.scenarios ?? []) for (const c of s.checks) if (c.id === id) return c.outcome;
  return undefined;
}
