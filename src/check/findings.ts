/**
 * The findings of one check as they are made: each from its rule (severity, fix and spec come
 * from the catalogue, never from the place that finds it), one per problem — the same rule,
 * subject, method and subject path in another revision adds that revision to the finding — in
 * the order found, with the rules `--only`/`--skip` leave out never recorded.
 */
import type { Severity } from "../codec/defects.js";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { SEVERITY_RANK } from "./fail-on.js";
import { appliesTo, ruleOf, type CheckRuleId } from "./rules.js";
import { subjectOf, type Subject } from "./subject.js";
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
  /** What the finding is about, when the place that finds it knows; otherwise told from the rest. */
  about?: Subject;
  /** The message `path` points into, and its place among the answers to `method`, to tell the subject by. */
  value?: unknown;
  page?: number;
  /** A surface change: its class, and the value before and after it. */
  change?: SurfaceChange;
  before?: unknown;
  after?: unknown;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Made = Mutable<Finding> & { revisions: Revision[]; pathIn: Partial<Record<Revision, string | null>> };

export class Findings {
  readonly list: Finding[] = [];
  private readonly keys = new Set<string>();
  /** The findings of each problem (rule, subject, method, subject path), to merge revisions into. */
  private readonly problems = new Map<string, Made[]>();
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
  checked(id: CheckRuleId, revision: Revision | null): void {
    if (!this.wanted(id) || !appliesTo(ruleOf(id), revision)) return;
    const key = `${id}|${revision}`;
    if (this.ranKeys.has(key)) return;
    this.ranKeys.add(key);
    this.ran.push({ id, revision });
  }

  add(id: CheckRuleId, input: FindingInput): void {
    if (!this.wanted(id)) return;
    const rule = ruleOf(id);
    if (!appliesTo(rule, input.revision)) return;
    this.checked(id, input.revision);
    const method = input.method ?? null;
    const path = input.path ?? null;
    const key = `${id}|${input.revision}|${method}|${path}|${input.message}`;
    if (this.keys.has(key)) return;
    const group = `${id}|${input.revision}|${method}`;
    const n = this.perGroup.get(group) ?? 0;
    this.perGroup.set(group, n + 1);
    if (n >= MAX_SAME) return;
    this.keys.add(key);
    const about = input.about ?? defaultSubject(id, method, path, input.value, input.page);
    const problem = JSON.stringify([id, about.subject, method, about.subjectPath]);
    const severity = input.severity ?? rule.severity;
    const message = input.message.length > 500 ? `${input.message.slice(0, 500)}…` : input.message;
    const same = this.problems.get(problem) ?? [];
    const r = input.revision;
    const into = r === null ? undefined : same.find((f) => !f.revisions.includes(r));
    if (into && r !== null) {
      into.revisions.push(r);
      into.revisions.sort((a, b) => REVISIONS.indexOf(b) - REVISIONS.indexOf(a));
      into.pathIn[r] = path;
      if (SEVERITY_RANK[severity] > SEVERITY_RANK[into.severity]) into.severity = severity;
      // the finding speaks as its newest revision does
      if (into.revisions[0] === r) Object.assign(into, { revision: r, path, message });
      return;
    }
    if (this.list.length >= MAX_FINDINGS) return;
    const made: Made = {
      id,
      severity,
      revision: r,
      revisions: r === null ? [] : [r],
      method,
      path,
      subject: about.subject,
      subjectPath: about.subjectPath,
      message,
      fix: rule.fix,
      spec: rule.spec,
      breaks: rule.breaks ?? [],
      pathIn: r === null ? {} : { [r]: path },
      ...(input.change ? { change: input.change, before: input.before ?? null, after: input.after ?? null } : {}),
    };
    same.push(made);
    this.problems.set(problem, same);
    this.list.push(made);
  }

  counts(): { error: number; warning: number; info: number } {
    const c = { error: 0, warning: 0, info: 0 };
    for (const f of this.list) c[f.severity]++;
    return c;
  }
}

/** The subject of a finding whose maker did not name one: HTTP rules are about the POSTs of the exchange. */
function defaultSubject(
  id: string,
  method: string | null,
  path: string | null,
  value: unknown,
  page: number | undefined,
): Subject {
  if (id.startsWith("http_")) return { subject: "http:POST", subjectPath: path };
  return subjectOf(method, path, value, page);
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
