import type { TargetRecord } from "./store.js";

/**
 * The host a target's requests go to, the key of the per-host limit: the host name alone, since
 * the same machine behind several ports is one host (and a shared platform one host for all the
 * servers it runs). A stdio target is its own host.
 */
export function hostOf(t: Pick<TargetRecord, "target" | "kind">): string {
  if (t.kind === "stdio") return `stdio:${t.target}`;
  try {
    return new URL(t.target).hostname.toLowerCase();
  } catch {
    return t.target;
  }
}
