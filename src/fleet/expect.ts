/**
 * What the probe should say about each fleet behaviour: the verdict's class and detail, and the
 * evidence fields a person (or a test) checks beside them.
 */
import type { DefectCode } from "../codec/defects.js";
import type { ErrorRange } from "../rules/error-codes.js";
import type { Revision } from "../rules/revisions.js";
import type { ProbeClass, ProbeTransport } from "../probe/verdict.js";
import type { AuthStep, AuthVerdict } from "../auth/types.js";

export interface Expectation {
  class: ProbeClass;
  detail: string;
  era: "modern" | "legacy" | null;
  revision: Revision | null;
  tools: number | null;
  rpcError: { code: number; message: string; range: ErrorRange } | null;
  transport: ProbeTransport;
  /** The verdict's HTTP status, when it has one worth checking. */
  status?: number;
  /** Codes that must be among the verdict's defects. */
  defects?: DefectCode[];
  /** The probe can only conclude when its deadline passes (silence, or broken lines and silence). */
  untilDeadline?: boolean;
  /** For a sign-in case: what the sign-in walk concludes. */
  auth?: { verdict: AuthVerdict; brokenAt: AuthStep | null };
}

type Extra = Partial<Omit<Expectation, "class" | "detail">>;

/** A server that works: tools listed. */
export function ok(era: "modern" | "legacy", revision: Revision, tools: number, extra: Extra = {}): Expectation {
  return { class: "ok", detail: era, era, revision, tools, rpcError: null, transport: "streamable-http", ...extra };
}

/** A failing verdict: no tools; era and revision unknown unless said. */
export function fails(cls: Exclude<ProbeClass, "ok">, detail: string, extra: Extra = {}): Expectation {
  return {
    class: cls,
    detail,
    era: null,
    revision: null,
    tools: null,
    rpcError: null,
    transport: "streamable-http",
    ...(cls === "timeout" ? { untilDeadline: true } : {}),
    ...extra,
  };
}
