/**
 * A listed surface as the census stores it: each tool definition in canonical JSON (object keys
 * sorted at every depth, no whitespace), so the same definition listed in any key order is one
 * stored text with one digest, and a change in any part of it is a change of digest.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../codec/canonical.js";
import type { Surface } from "../probe/surface.js";
import type { SurfaceRecord } from "./store.js";

/** A short, stable name for a definition's text (the first 32 hex digits of its SHA-256). */
export function digestOf(definition: string): string {
  return createHash("sha256").update(definition).digest("hex").slice(0, 32);
}

/** The surface with each tool as its canonical text; digests are given by `withDigests`, after redaction. */
export function surfaceRecord(surface: Surface): SurfaceRecord {
  return {
    tools: surface.tools.map((t) => ({
      name: typeof t.name === "string" ? t.name : "",
      digest: "",
      definition: canonicalJson(t),
    })),
    resources: surface.resources,
    resourceTemplates: surface.resourceTemplates,
    prompts: surface.prompts,
  };
}

/** Each tool's digest, of its definition exactly as it will be stored. */
export function withDigests(record: SurfaceRecord): SurfaceRecord {
  return { ...record, tools: record.tools.map((t) => ({ ...t, digest: digestOf(t.definition ?? "") })) };
}
