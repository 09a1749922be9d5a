/**
 * A surface as both SQL stores keep it: one row per attempt, the tools as JSON pairs of name and
 * digest (their definitions live once each in `tool_definitions`), the name lists as JSON arrays,
 * NULL for a list the server does not declare.
 */
import type { SurfaceRecord } from "./store.js";

/** The columns of `attempt_surfaces` as a query reads them (aliased `s_…` beside an attempt's own). */
export interface SurfaceRow {
  s_tools: string | null;
  s_resources: string | null;
  s_templates: string | null;
  s_prompts: string | null;
}

const list = (v: readonly string[] | null): string | null => (v === null ? null : JSON.stringify(v));
const parsed = (v: string | null): string[] | null => (v === null ? null : (JSON.parse(v) as string[]));

export function surfaceRow(s: SurfaceRecord): {
  tools: string;
  resources: string | null;
  templates: string | null;
  prompts: string | null;
} {
  return {
    tools: JSON.stringify(s.tools.map((t) => [t.name, t.digest])),
    resources: list(s.resources),
    templates: list(s.resourceTemplates),
    prompts: list(s.prompts),
  };
}

/**
 * Surfaces as a long history reads them: the same stored text (a server that did not change)
 * gives the same parsed value, parsed once, so a comparison is by reference and a million rows
 * do not each allocate their tool list. Bounded, so a census of many servers cannot grow it
 * without end.
 */
export class SurfaceCache {
  readonly #byText = new Map<string, SurfaceRecord>();
  constructor(private readonly max = 50_000) {}

  of(r: SurfaceRow): SurfaceRecord | null {
    if (r.s_tools === null || r.s_tools === undefined) return null;
    const key = `${r.s_tools}\0${r.s_resources}\0${r.s_templates}\0${r.s_prompts}`;
    let s = this.#byText.get(key);
    if (!s) {
      if (this.#byText.size >= this.max) this.#byText.clear();
      s = surfaceOfRow(r)!;
      this.#byText.set(key, s);
    }
    return s;
  }
}

/** The surface of a row, or null when the attempt stored none. */
export function surfaceOfRow(r: SurfaceRow): SurfaceRecord | null {
  if (r.s_tools === null || r.s_tools === undefined) return null;
  return {
    tools: (JSON.parse(r.s_tools) as [string, string][]).map(([name, digest]) => ({ name, digest })),
    resources: parsed(r.s_resources),
    resourceTemplates: parsed(r.s_templates),
    prompts: parsed(r.s_prompts),
  };
}
