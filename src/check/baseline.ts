/**
 * `check --baseline FILE`: the findings a server's authors accept for now. The file is the
 * `--json` output of an earlier `check` (or what `--update-baseline` wrote); only each finding's
 * `id`, `subject`, `method`, `subjectPath` (and, from files written before findings had subjects,
 * `revision` and `path`) are read, so a hand-edited subset works too. A finding the baseline names
 * is reported as accepted and does not fail the run; an entry that no longer occurs (its check
 * ran, and did not find it) is stale and fails it, so a baseline only shrinks. docs/check.md
 * describes it for users.
 */
import { open } from "node:fs/promises";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import type { BaselineKey, CheckReport, Finding } from "./types.js";

/** A baseline file larger than this is not an earlier `check --json` (which is kilobytes). */
export const BASELINE_MAX_BYTES = 16 * 1024 * 1024;

/** The baseline file cannot be used; `message` is one line for a person, naming the file. */
export class BaselineError extends Error {
  override readonly name = "BaselineError";
  readonly code = "ERR_MCP_WIRE_BASELINE";
}

/**
 * The entries of a baseline, from the text of a file (`source` names it in messages): an object
 * with a `findings` array, as `check --json` prints it, or the bare array. Throws BaselineError.
 */
export function parseBaseline(text: string, source: string): BaselineKey[] {
  const bad = (why: string) =>
    new BaselineError(
      `--baseline ${source}: ${why}; it must be the --json output of an earlier mcp-wire check (or part of it)`,
    );
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw bad(`not JSON (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
  }
  const findings = Array.isArray(doc)
    ? doc
    : doc !== null && typeof doc === "object"
      ? (doc as { findings?: unknown }).findings
      : undefined;
  if (!Array.isArray(findings)) throw bad(`no "findings" array`);
  const keys = new Map<string, BaselineKey>();
  findings.forEach((f: unknown, i) => {
    const at = `findings[${i}]`;
    if (f === null || typeof f !== "object" || Array.isArray(f)) throw bad(`${at} is not an object`);
    const o = f as Record<string, unknown>;
    if (typeof o.id !== "string" || o.id === "") throw bad(`${at} has no "id"`);
    const optional = (name: "method" | "path" | "subject" | "subjectPath"): string | null => {
      const v = o[name];
      if (v === undefined || v === null) return null;
      if (typeof v !== "string") throw bad(`${at}.${name} is not a string or null`);
      return v;
    };
    const r = o.revision;
    if (r !== undefined && r !== null && !(typeof r === "string" && (REVISIONS as readonly string[]).includes(r))) {
      throw bad(`${at}.revision is ${JSON.stringify(r)}, not one of ${REVISIONS.join(", ")} or null`);
    }
    const subject = optional("subject");
    const revisions = o.revisions;
    const listed =
      Array.isArray(revisions) &&
      revisions.every((v) => typeof v === "string" && (REVISIONS as readonly string[]).includes(v))
        ? (revisions as Revision[])
        : undefined;
    if (revisions !== undefined && revisions !== null && listed === undefined)
      throw bad(`${at}.revisions is not a list of ${REVISIONS.join(", ")}`);
    const key: BaselineKey = {
      id: o.id,
      revision: (r ?? null) as Revision | null,
      method: optional("method"),
      path: optional("path"),
      ...(subject !== null ? { subject, subjectPath: optional("subjectPath") } : {}),
      ...(listed && listed.length > 0 ? { revisions: listed } : {}),
    };
    keys.set(keyOf(key), key);
  });
  return [...keys.values()];
}

/** Reads and parses a baseline file, up to BASELINE_MAX_BYTES. Throws BaselineError, naming the file. */
export async function readBaseline(path: string): Promise<BaselineKey[]> {
  let text: string;
  try {
    const file = await open(path, "r");
    try {
      const info = await file.stat();
      if (!info.isFile()) throw new BaselineError(`--baseline ${path}: not a file`);
      const buffer = Buffer.alloc(Math.min(info.size, BASELINE_MAX_BYTES) + 1);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      if (bytesRead > BASELINE_MAX_BYTES)
        throw new BaselineError(
          `--baseline ${path}: larger than ${BASELINE_MAX_BYTES / 1024 / 1024} MiB, which no check --json output is`,
        );
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await file.close();
    }
  } catch (e) {
    if (e instanceof BaselineError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new BaselineError(
      `--baseline ${path}: cannot read it (${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : (code ?? String(e))})`,
    );
  }
  return parseBaseline(text, path);
}

/**
 * The report with the baseline applied: each finding it names is `accepted`, and each entry no
 * finding matches, though its check ran for its revision this time, is `stale`. An entry whose
 * check did not run (another `-r`, `--skip`, a target not reached) cannot be told gone, so it is
 * neither. Counts are left as they were: accepted findings are still found.
 */
export function applyBaseline(report: CheckReport, baseline: readonly BaselineKey[]): CheckReport {
  const wanted = new Map(baseline.map((k) => [keyOf(k), k]));
  const matched = new Set<string>();
  const findings: Finding[] = report.findings.map((f) => {
    const keys = findingKeys(f).filter((key) => wanted.has(key));
    if (keys.length === 0) return f;
    for (const key of keys) matched.add(key);
    return { ...f, accepted: true as const };
  });
  const ran = new Set(report.ran.map((r) => JSON.stringify([r.id, r.revision])));
  const ranAny = new Set(report.ran.map((r) => r.id));
  // an entry is stale only where its check ran in a revision it was found in, so `-r` or `--skip` never makes one
  const lookedFor = (k: BaselineKey) => {
    const revisions = k.revisions ?? (k.revision !== null || k.subject === undefined ? [k.revision] : []);
    return revisions.length === 0 ? ranAny.has(k.id) : revisions.some((r) => ran.has(JSON.stringify([k.id, r])));
  };
  const stale = [...wanted].filter(([key, k]) => !matched.has(key) && lookedFor(k)).map(([, k]) => k);
  return { ...report, findings, stale: [...report.stale, ...stale] };
}

/** An entry's key: by subject when it has one, else (an older file) by revision and absolute path. */
function keyOf(k: BaselineKey): string {
  return k.subject !== undefined
    ? JSON.stringify(["s", k.id, k.subject, k.method, k.subjectPath ?? null])
    : JSON.stringify(["p", k.id, k.revision, k.method, k.path]);
}

/** Every key a finding answers to: its subject's, and an older entry's for each revision it occurs in. */
function findingKeys(f: Finding): string[] {
  const keys = [keyOf({ ...f, subject: f.subject })];
  if (f.revisions.length === 0) keys.push(keyOf({ id: f.id, revision: null, method: f.method, path: f.path }));
  for (const r of f.revisions)
    keys.push(
      keyOf({
        id: f.id,
        revision: r,
        method: f.method,
        path: f.pathIn && r in f.pathIn ? (f.pathIn[r] ?? null) : f.path,
      }),
    );
  return keys;
}

/** `id subject method at path (revision)`: how a baseline entry is named to a person. */
export function keyWords(k: BaselineKey): string {
  if (k.subject !== undefined)
    return [
      k.id,
      k.subject,
      ...(k.method && k.subject !== `method:${k.method}` ? [k.method] : []),
      ...(k.subjectPath ? [`at ${k.subjectPath}`] : []),
    ].join(" ");
  return [
    k.id,
    ...(k.revision ? [`(${k.revision})`] : []),
    ...(k.method ? [k.method] : []),
    ...(k.path ? [`at ${k.path}`] : []),
  ].join(" ");
}
