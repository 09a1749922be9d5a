import type { TargetRecord } from "../src/census/store.js";
import type { ProbeResult } from "../src/probe/verdict.js";

/** A probe that calls nothing: a healthy verdict at once, so a benchmark times the store alone. */
export async function instantProbe(t: TargetRecord): Promise<ProbeResult> {
  return {
    target: t.target,
    class: "ok",
    detail: "modern",
    era: "modern",
    revision: "2026-07-28",
    transport: "streamable-http",
    http: { status: 200, contentType: "application/json" },
    rpcError: null,
    tools: 3,
    server: null,
    defects: [],
    advice: "",
    elapsedMs: 1,
    trace: [],
  };
}
