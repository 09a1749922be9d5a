/**
 * The findings of one check as they are made: each from its rule (severity, fix and spec come
 * from the catalogue, never from the place that finds it), once per rule, revision, method and
 * path, in the order found, with the rules `--only`/`--skip` leave out never recorded.
 */
import type { Severity } from "../codec/defects.js";
import type { Revision } from "../rules/revisions.js";
import { appliesTo, ruleOf } from "./rules.js";
import type { Finding, SurfaceChange } from "./types.js";

/** Findings of one rule, revision and method past this many are counted, not kept. */
const MAX_SAME = 20;
/** A hostile server cannot make a report of unbounded size. */
const MAX_FINDINGS = 2000;

export interface FindingInput {
  revision: Revision | null;
  method?: string | null;
  path?: string | null;
  message: string;
  /** A milder case of the rule than its own severity (a codec defect's named case, a warning of the sign-in walk). */
  severity?: Severity;
  /** What the finding is about, when the place that finds it knows. */
  about?: { subject: string; subjectPath: string | null };
  /** A surface change: its class, and the value before and after it. */
  change?: SurfaceChange;
  before?: unknown;
  after?: unknown;
}

export class Findings {
  readonly list: Finding[] = [];
  private readonly keys = new Set<string>();
  private readonly perGroup = new Map<string, number>();
  /** The rule ids that ran, with the revision each ran for, in order. */
  readonly ran: { id: string; revision: Revision | null }[] = [];
  private readonly ranKeys = new Set<string>();

  constructor(private readonly wanted: (id: string) => boolean) {}

  /** Whether rule `id` is to be checked at all (`--only`, `--skip`). */
  wants(id: string): boolean {
    return this.wanted(id);
  }

  /** Records that rule `id` was checked for `revision` (found or not). */
  checked(id: string, revision: Revision | null): void {
    if (!this.wanted(id) || !appliesTo(ruleOf(id), revision)) return;
    const key = `${id}|${revision}`;
    if (this.ranKeys.has(key)) return;
    this.ranKeys.add(key);
    this.ran.push({ id, revision });
  }

  add(id: string, input: FindingInput): void {
    if (!this.wanted(id)) return;
    const rule = ruleOf(id);
    if (!appliesTo(rule, input.revision)) return;
    this.checked(id, input.revision);
    const method = input.method ?? null;
    const path = input.path ?? null;
    const key = `${id}|${input.revision}|${method}|${path}|${input.message}`;
    if (this.keys.has(key) || this.list.length >= MAX_FINDINGS) return;
    const group = `${id}|${input.revision}|${method}`;
    const n = this.perGroup.get(group) ?? 0;
    this.perGroup.set(group, n + 1);
    if (n >= MAX_SAME) return;
    this.keys.add(key);
    this.list.push({
      id,
      severity: input.severity ?? rule.severity,
      revision: input.revision,
      method,
      path,
      message: input.message.length > 500 ? `${input.message.slice(0, 500)}…` : input.message,
      fix: rule.fix,
      spec: rule.spec,
      breaks: rule.breaks ?? [],
      ...(input.about ? input.about : {}),
      ...(input.change ? { change: input.change, before: input.before ?? null, after: input.after ?? null } : {}),
    });
  }

  counts(): { error: number; warning: number; info: number } {
    const c = { error: 0, warning: 0, info: 0 };
    for (const f of this.list) c[f.severity]++;
    return c;
  }
}

/** Which rule ids a check runs: all, or `only` of them, less `skip`. */
export function selection(
  only: readonly string[] | undefined,
  skip: readonly string[] | undefined,
): (id: string) => boolean {
  const o = only && only.length > 0 ? new Set(only) : undefined;
  const s = new Set(skip ?? []);
  return (id) => (o === undefined || o.has(id)) && !s.has(id);
}
