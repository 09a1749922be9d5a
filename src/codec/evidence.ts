/**
 * What a single message says about the revision a conversation speaks: the version offered in
 * `initialize`, the one an `initialize` result chose, or a modern request's `_meta`.
 */
import { META_PROTOCOL_VERSION, isRevision, type Revision } from "../rules/revisions.js";
import type { Checked } from "./check.js";

export interface RevisionEvidence {
  revision: Revision;
  /** Where it was read, for a person. */
  source: "initialize request" | "initialize result" | "_meta";
}

export function revisionEvidence(checked: Checked): RevisionEvidence | undefined {
  const m = checked.message as Record<string, unknown> | undefined;
  if (!m || Array.isArray(m)) return undefined;
  if (checked.kind === "request") {
    const params = m.params as Record<string, unknown> | undefined;
    if (!params) return undefined;
    if (m.method === "initialize" && isRevision(params.protocolVersion)) {
      return { revision: params.protocolVersion, source: "initialize request" };
    }
    const meta = params._meta as Record<string, unknown> | undefined;
    const v = meta && typeof meta === "object" ? meta[META_PROTOCOL_VERSION] : undefined;
    if (isRevision(v)) return { revision: v, source: "_meta" };
  } else if (checked.kind === "result") {
    const r = m.result as Record<string, unknown>;
    if (isRevision(r.protocolVersion) && (r.serverInfo !== undefined || r.capabilities !== undefined)) {
      return { revision: r.protocolVersion, source: "initialize result" };
    }
  }
  return undefined;
}
