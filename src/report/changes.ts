/**
 * What changed between consecutive attempts at each target: its class (ok → unreachable), the
 * revision it speaks, and what it offers (tools added, removed or redefined, with the parts of
 * the definition that changed; resource, template and prompt names added or removed).
 *
 * A surface is compared with the last attempt that listed one, not with a failure in between: a
 * server that went down and came back with a new tool shows the new tool once, when it came back,
 * and a server that is down has not "removed" its tools.
 */
import type { AttemptQuery, AttemptRecord, HistoryRecord, Store, SurfaceRecord } from "../census/store.js";
import { count, counted, day } from "./words.js";

export interface ToolRedefinition {
  name: string;
  /** The top-level members of the definition that differ (`description`, `inputSchema`, …). */
  changed: string[];
}

export type Change =
  | { kind: "class"; at: string; from: string; to: string; fromDetail: string; toDetail: string }
  | { kind: "revision"; at: string; from: string; to: string }
  | {
      kind: "surface";
      at: string;
      tools: { added: string[]; removed: string[]; redefined: ToolRedefinition[] };
      resources: { added: string[]; removed: string[] };
      resourceTemplates: { added: string[]; removed: string[] };
      prompts: { added: string[]; removed: string[] };
    };

export interface TargetChanges {
  target: string;
  /** Attempts read in the window. */
  attempts: number;
  changes: Change[];
}

interface Last {
  attempt: Pick<AttemptRecord, "class" | "detail" | "revision">;
  surface: SurfaceRecord | null;
  attempts: number;
  changes: Change[];
}

/** Pairs of digests a redefinition was found between, resolved into changed members at the end. */
interface Pending {
  change: ToolRedefinition;
  from: string;
  to: string;
}

/**
 * Follows attempts as they come, per target, in time order, and records each change. The
 * definitions of redefined tools are read in one go by `resolve`, to say what in them changed.
 */
export class ChangeTracker {
  readonly #last = new Map<string, Last>();
  #pending: Pending[] = [];

  /** The changes `a` makes to its target's record (also kept under the target). */
  add(a: HistoryRecord): Change[] {
    const prev = this.#last.get(a.target);
    if (!prev) {
      this.#last.set(a.target, { attempt: a, surface: a.surface ?? null, attempts: 1, changes: [] });
      return [];
    }
    const before = prev.changes.length;
    prev.attempts++;
    if (prev.attempt.class !== a.class) {
      prev.changes.push({
        kind: "class",
        at: a.at,
        from: prev.attempt.class,
        to: a.class,
        fromDetail: prev.attempt.detail,
        toDetail: a.detail,
      });
    } else if (a.revision !== null && prev.attempt.revision !== null && a.revision !== prev.attempt.revision) {
      prev.changes.push({ kind: "revision", at: a.at, from: prev.attempt.revision, to: a.revision });
    }
    prev.attempt = a;
    if (a.surface) {
      if (prev.surface) {
        const drift = surfaceDrift(a.at, prev.surface, a.surface, this.#pending);
        if (drift) prev.changes.push(drift);
      }
      prev.surface = a.surface;
    }
    return prev.changes.slice(before);
  }

  /** Fills in what changed in each redefined tool since the last call. */
  async resolve(store: Pick<Store, "toolDefinitions">): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return;
    const definitions = await store.toolDefinitions(pending.flatMap((p) => [p.from, p.to]));
    for (const p of pending) p.change.changed = changedMembers(definitions.get(p.from), definitions.get(p.to));
  }

  /** Each target followed, in the order of its first attempt. */
  targets(): TargetChanges[] {
    return [...this.#last].map(([target, l]) => ({ target, attempts: l.attempts, changes: l.changes }));
  }

  changesOf(target: string): readonly Change[] {
    return this.#last.get(target)?.changes ?? [];
  }
}

/**
 * Every target's changes within `query` (the attempts read in time order), the targets in the
 * order of their first attempt.
 */
export async function changesOf(store: Store, query: AttemptQuery): Promise<TargetChanges[]> {
  const tracker = new ChangeTracker();
  for await (const a of store.history(query)) tracker.add(a);
  await tracker.resolve(store);
  return tracker.targets();
}

/** The same tools in the same order and the same names listed: nearly every attempt, told without building anything. */
function sameSurface(a: SurfaceRecord, b: SurfaceRecord): boolean {
  if (a.tools.length !== b.tools.length) return false;
  for (let i = 0; i < a.tools.length; i++)
    if (a.tools[i]!.digest !== b.tools[i]!.digest || a.tools[i]!.name !== b.tools[i]!.name) return false;
  return (
    sameList(a.resources, b.resources) &&
    sameList(a.resourceTemplates, b.resourceTemplates) &&
    sameList(a.prompts, b.prompts)
  );
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function surfaceDrift(at: string, before: SurfaceRecord, after: SurfaceRecord, pending: Pending[]): Change | undefined {
  if (sameSurface(before, after)) return undefined;
  const was = new Map(before.tools.map((t) => [t.name, t.digest]));
  const now = new Map(after.tools.map((t) => [t.name, t.digest]));
  const added = [...now.keys()].filter((n) => !was.has(n));
  const removed = [...was.keys()].filter((n) => !now.has(n));
  const redefined: ToolRedefinition[] = [];
  for (const [name, digest] of now) {
    const old = was.get(name);
    if (old === undefined || old === digest) continue;
    const change: ToolRedefinition = { name, changed: [] };
    redefined.push(change);
    pending.push({ change, from: old, to: digest });
  }
  const change = {
    kind: "surface" as const,
    at,
    tools: { added, removed, redefined },
    resources: names(before.resources, after.resources),
    resourceTemplates: names(before.resourceTemplates, after.resourceTemplates),
    prompts: names(before.prompts, after.prompts),
  };
  const any = [
    change.tools.added,
    change.tools.removed,
    change.tools.redefined,
    ...[change.resources, change.resourceTemplates, change.prompts].flatMap((x) => [x.added, x.removed]),
  ];
  return any.some((list) => list.length > 0) ? change : undefined;
}

/**
 * Names added and removed. A list the server stopped (or started) declaring is not a change of
 * its items: that would call every resource removed when only the listing failed.
 */
function names(before: string[] | null, after: string[] | null): { added: string[]; removed: string[] } {
  if (before === null || after === null) return { added: [], removed: [] };
  const was = new Set(before);
  const now = new Set(after);
  return { added: [...now].filter((n) => !was.has(n)), removed: [...was].filter((n) => !now.has(n)) };
}

/** The top-level members whose canonical JSON differs; every member when a definition is missing. */
function changedMembers(before: string | undefined, after: string | undefined): string[] {
  const parse = (text: string | undefined): Record<string, unknown> => {
    try {
      const v = text === undefined ? {} : (JSON.parse(text) as unknown);
      return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const a = parse(before);
  const b = parse(after);
  // the texts are canonical (keys sorted at every depth), so equal members stringify alike
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .sort();
}

/** "ok → unreachable (refused)" */
function classChangeText(c: Extract<Change, { kind: "class" }>): string {
  return `${c.from} → ${c.to}${c.toDetail && c.toDetail !== c.to ? ` (${c.toDetail})` : ""}`;
}

/** "tools: + search; − fetch; ~ echo (description, inputSchema)" and the like, one clause a list. */
function surfaceChangeText(c: Extract<Change, { kind: "surface" }>): string {
  const parts: string[] = [];
  const list = (label: string, x: { added: string[]; removed: string[] }, redefined: ToolRedefinition[] = []) => {
    const words = [
      ...x.added.map((n) => `+ ${n}`),
      ...x.removed.map((n) => `− ${n}`),
      ...redefined.map((r) => `~ ${r.name}${r.changed.length ? ` (${r.changed.join(", ")})` : ""}`),
    ];
    if (words.length > 0) parts.push(`${label}: ${words.join("; ")}`);
  };
  list("tools", c.tools, c.tools.redefined);
  list("resources", c.resources);
  list("templates", c.resourceTemplates);
  list("prompts", c.prompts);
  return parts.join(" · ");
}

/** One line a change: "3 Dec 07:03  ok → unreachable (refused)". */
export function changeLine(c: Change): string {
  const text =
    c.kind === "class"
      ? classChangeText(c)
      : c.kind === "revision"
        ? `revision ${c.from} → ${c.to}`
        : surfaceChangeText(c);
  return `${stamp(c.at)}  ${text}`;
}

function stamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${day(iso, false)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/**
 * `report --changes` as text: a sentence for the window, then each target that changed with one
 * line a change, oldest first; targets that did not change are counted, not listed.
 */
export function renderChanges(all: readonly TargetChanges[], since: string): string {
  const changed = all.filter((t) => t.changes.length > 0);
  const attempts = all.reduce((n, t) => n + t.attempts, 0);
  const out: string[] = [];
  out.push(
    `Since ${day(since)}: ${counted(all.length, "target")} with ${counted(attempts, "attempt")}; ` +
      (changed.length === 0
        ? "nothing changed."
        : `${count(changed.length)} changed${changed.length < all.length ? `, ${count(all.length - changed.length)} did not` : ""}.`),
  );
  for (const t of changed) {
    out.push("", t.target);
    for (const c of t.changes) out.push(`  ${changeLine(c)}`);
  }
  return `${out.join("\n")}\n`;
}
