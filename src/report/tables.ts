/**
 * The report's tables as rows, shared by the text, JSON and HTML forms: classes with counts and
 * shares, the revisions spoken, the error codes seen with their ranges.
 */
import type { Aggregates } from "../census/store.js";
import { describeError } from "../rules/error-codes.js";
import { LATEST_REVISION } from "../rules/revisions.js";
import { spoken } from "./story.js";
import { CLASSES, CLASS_WORDS } from "./vocabulary.js";
import { share } from "./words.js";

export interface ClassRow {
  class: string;
  words: string;
  count: number;
  share: string;
  details: { detail: string; count: number }[];
}

/** Classes in their fixed order (so two reports line up), those seen only. */
export function classRows(agg: Aggregates): ClassRow[] {
  const rows = new Map<string, ClassRow>();
  for (const c of agg.classes) {
    let row = rows.get(c.class);
    if (!row)
      rows.set(
        c.class,
        (row = { class: c.class, words: CLASS_WORDS[c.class] ?? c.class, count: 0, share: "", details: [] }),
      );
    row.count += c.count;
    row.details.push({ detail: c.detail, count: c.count });
  }
  for (const row of rows.values()) {
    row.share = share(row.count, agg.attempts);
    row.details.sort((a, b) => b.count - a.count || a.detail.localeCompare(b.detail));
  }
  const order = (cls: string) => {
    const i = (CLASSES as readonly string[]).indexOf(cls);
    return i < 0 ? CLASSES.length : i;
  };
  return [...rows.values()].sort((a, b) => order(a.class) - order(b.class) || a.class.localeCompare(b.class));
}

/** Attempts per class, as `--json` gives them. */
export function classCounts(agg: Aggregates): Record<string, number> {
  return Object.fromEntries(classRows(agg).map((r) => [r.class, r.count]));
}

export interface RevisionRow {
  era: string | null;
  revision: string | null;
  spoken: string;
  count: number;
  /** Of the attempts that answered. */
  share: string;
}

export function revisionRows(agg: Aggregates): RevisionRow[] {
  const ok = agg.revisions.reduce((n, r) => n + r.count, 0);
  return [...agg.revisions]
    .sort((a, b) => (b.revision ?? "").localeCompare(a.revision ?? "") || b.count - a.count)
    .map((r) => ({
      era: r.era,
      revision: r.revision,
      spoken: spoken(r.era, r.revision),
      count: r.count,
      share: share(r.count, ok),
    }));
}

export interface ErrorCodeRow {
  code: number;
  range: string;
  name: string;
  count: number;
  /** The verdicts it led to: "rpc_error/method_not_found", "auth_required/rpc_error_instead_of_401". */
  verdicts: string[];
  messages: string[];
}

export function errorCodeRows(agg: Aggregates): ErrorCodeRow[] {
  const rows = new Map<number, ErrorCodeRow>();
  for (const e of agg.rpcErrors) {
    let row = rows.get(e.code);
    if (!row) {
      const described = describeError(e.code, LATEST_REVISION);
      rows.set(
        e.code,
        (row = {
          code: e.code,
          range: e.range ?? described.range,
          name: described.name,
          count: 0,
          verdicts: [],
          messages: [],
        }),
      );
    }
    row.count += e.count;
    const verdict = `${e.class}/${e.detail}`;
    if (!row.verdicts.includes(verdict)) row.verdicts.push(verdict);
    for (const m of e.messages) if (!row.messages.includes(m)) row.messages.push(m);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count || b.code - a.code);
}
