/**
 * `report --json`: one object for programs. The stable members (`runs`, `classes`, `targets`
 * with `latest`; docs/report.md) come first; everything the text says is there too, as data.
 */
import type { Aggregates, RunRecord } from "../census/store.js";
import type { TargetChanges } from "./changes.js";
import { signinObject } from "./signin.js";
import { heading, history, summary } from "./story.js";
import { classCounts, errorCodeRows, revisionRows } from "./tables.js";

export interface Selection {
  runs: number[] | null;
  since: string | null;
  target: string | null;
}

/**
 * `selected` lists the runs asked for by id, so one that has no attempt yet (just started) is
 * still reported, with zero attempts.
 */
export function reportObject(
  agg: Aggregates,
  selection: Selection,
  selected: readonly RunRecord[] = [],
  changes: readonly TargetChanges[] = [],
) {
  const changesOf = new Map(changes.map((c) => [c.target, c.changes]));
  const runs = new Map<number, RunRecord & { attempts: number }>(agg.runs.map((r) => [r.id, r]));
  for (const r of selected) if (!runs.has(r.id)) runs.set(r.id, { ...r, attempts: 0 });
  return {
    runs: [...runs.values()]
      .sort((a, b) => a.id - b.id)
      .map((r) => ({
        id: r.id,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        source: r.source,
        targets: r.targets,
        attempts: r.attempts,
      })),
    classes: classCounts(agg),
    targets: agg.perTarget.map((t) => ({
      target: t.target,
      name: t.name,
      attempts: t.attempts,
      firstAt: t.firstAt,
      lastAt: t.lastAt,
      classes: t.classes,
      history: history(t),
      latest: {
        class: t.latest.class,
        detail: t.latest.detail,
        era: t.latest.era,
        revision: t.latest.revision,
        at: t.latest.at,
        tools: t.latest.tools,
        elapsedMs: t.latest.elapsedMs,
        advice: t.latest.advice,
        httpStatus: t.latest.httpStatus,
        rpcCode: t.latest.rpcCode,
        serverName: t.latest.serverName,
        serverVersion: t.latest.serverVersion,
        defects: t.latest.defects,
        ...(t.latest.auth ? { auth: t.latest.auth } : {}),
      },
      changes: changesOf.get(t.target) ?? [],
    })),
    selection,
    heading: heading(agg),
    summary: summary(agg),
    totals: { attempts: agg.attempts, targets: agg.targets, firstAt: agg.firstAt, lastAt: agg.lastAt },
    details: agg.classes,
    classesPerRun: agg.classesPerRun,
    revisions: revisionRows(agg).map(({ era, revision, count }) => ({ era, revision, count })),
    errorCodes: errorCodeRows(agg),
    httpStatuses: agg.httpStatuses,
    latency: agg.latency,
    defects: agg.defects,
    signin: signinObject(agg),
  };
}

export type ReportObject = ReturnType<typeof reportObject>;
