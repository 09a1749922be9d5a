/**
 * What a scenario is: the server it sets up for one run (tools, handlers, and where it is wrong on
 * purpose — `WireHooks`), and its checks, each a rule with a spec link, the real-world bug it
 * catches, and a scorer that reads the run's recording. Scorers read only the recording, so a
 * run scored live and a recording scored later (`--score`) come to the same verdicts.
 */
import type { Severity } from "../codec/defects.js";
import type { JsonObject, Message } from "../codec/message.js";
import type { McpServer } from "../mcp/server.js";
import type { Revision } from "../rules/revisions.js";
import type { View } from "./view.js";

export type Outcome = "pass" | "fail" | "warn" | "info" | "not_observed" | "not_applicable";
export type WireKind = "stdio" | "http";

export interface Verdict {
  readonly outcome: Outcome;
  readonly message: string;
  readonly evidence: readonly number[];
}

export interface CheckDef {
  /** `<scenario>.<check>`. */
  readonly id: string;
  /** What a fault of this check is: `error` (a MUST, or harm) fails, `warning` (a SHOULD) warns, `info` notes. */
  readonly severity: Severity;
  readonly title: string;
  readonly rule: string;
  readonly spec: string;
  /** The real-world bug it catches. */
  readonly bug: string;
  score(view: View): Verdict;
}

/** Where the server is wrong on purpose, consulted by the transports. */
export interface WireHooks {
  /** A client message as the server core reads it (the recording keeps what the client sent). */
  incoming?(message: JsonObject): JsonObject;
  /** A server message as the client gets it: replacement text, or undefined to send it as it is. */
  outgoing?(message: Message): string | undefined;
  /** HTTP: whether requests of this legacy session (its alias) are now answered 404. */
  expired?(session: string): boolean;
  /** HTTP: after the answer to a request of this session was sent (to expire it). */
  answered?(session: string, method: string): void;
  /** HTTP: whether this tool call's stream is closed after a priming event, for the client to resume. */
  cut?(method: string, params: JsonObject | undefined): boolean;
  /** HTTP: answer bodies are written in pieces of this many bytes (characters split across them). */
  chunkBytes?: number;
  /** HTTP: the first request gets 401 with a `resource_metadata` challenge. */
  challenge?: boolean;
}

export interface RunSetup {
  readonly server: McpServer;
  readonly wire: WireHooks;
  readonly transport: WireKind;
}

export interface ScenarioDef {
  readonly id: string;
  readonly title: string;
  /** What the server does. */
  readonly behaviour: string;
  readonly spec: string;
  /** The revisions the scenario applies to. */
  readonly revisions: readonly Revision[];
  /** The transports it applies to (default both). */
  readonly transports?: readonly WireKind[];
  /** Run only with this flag. */
  readonly flag?: "slow" | "auth";
  /** Its deadline when longer than the run's. */
  readonly deadlineMs?: number;
  /** Scripted waits, left out of its timing in the benchmark. */
  readonly scriptedMs?: number;
  /** Extra server options: logging, capabilities to declare beyond the derived ones. */
  readonly logging?: boolean;
  readonly capabilities?: JsonObject;
  readonly checks: readonly CheckDef[];
  setup(run: RunSetup): void;
}

export const SPEC = "https://modelcontextprotocol.io/specification";

/** Verdict helpers: a failed check's outcome follows its severity. */
export function pass(message: string, evidence: readonly number[] = []): Verdict {
  return { outcome: "pass", message, evidence };
}

export function broke(severity: Severity, message: string, evidence: readonly number[] = []): Verdict {
  return { outcome: severity === "error" ? "fail" : severity === "warning" ? "warn" : "info", message, evidence };
}

export function notObserved(message: string, evidence: readonly number[] = []): Verdict {
  return { outcome: "not_observed", message, evidence };
}

export function notApplicable(message: string): Verdict {
  return { outcome: "not_applicable", message, evidence: [] };
}

/** A check whose fault outcome follows its severity: `score` returns a verdict, or a fault message. */
export function check(
  def: Omit<CheckDef, "score">,
  score: (view: View, fault: (message: string, evidence?: readonly number[]) => Verdict) => Verdict,
): CheckDef {
  return { ...def, score: (view) => score(view, (m, e) => broke(def.severity, m, e ?? [])) };
}

/** Revisions from `from` to `to`, inclusive, in order. */
export function between(all: readonly Revision[], from: Revision, to: Revision): Revision[] {
  return all.slice(all.indexOf(from), all.indexOf(to) + 1);
}
