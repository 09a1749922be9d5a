/**
 * `check --surface FILE` on the command line: the recorded surface read (capped, judged before
 * the server is), and the surface written when it is recorded for the first time or rewritten
 * with `--update-surface` — never for a target that could not be checked.
 */
import { readFile, stat } from "node:fs/promises";
import type { CheckReport } from "../check/types.js";

/** A surface file larger than this is not read: 1,000 tools of 64 KiB each fit. */
const MAX_SURFACE_BYTES = 64 * 1024 * 1024;

export interface SurfacePlan {
  file: string;
  /** The recorded surface to compare with; absent when the file is recorded (or rewritten) this run. */
  before?: import("../check/surface-gate.js").SurfaceFile;
  /** Whether this run writes the file. */
  write: boolean;
}

/** What `--surface FILE` and `--update-surface` ask for, or why they cannot be done (one line). */
export async function planSurface(
  file: string | undefined,
  update: boolean | undefined,
): Promise<SurfacePlan | string | undefined> {
  if (file === undefined)
    return update ? "--update-surface goes with --surface FILE: name the file to rewrite" : undefined;
  const info = await stat(file).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? null : e));
  if (info instanceof Error) return `--surface ${file}: ${info.message}`;
  if (info === null || update) {
    const { checkOutput, outputProblem } = await import("./output-file.js");
    try {
      await checkOutput(file, { option: "--surface" });
    } catch (e) {
      return outputProblem(file, e);
    }
    return { file, write: true };
  }
  if (!info.isFile()) return `--surface ${file} is not a regular file`;
  if (info.size > MAX_SURFACE_BYTES) return `--surface ${file} is larger than ${MAX_SURFACE_BYTES / 1024 / 1024} MiB`;
  const { parseSurface } = await import("../check/surface-gate.js");
  const parsed = parseSurface(await readFile(file, "utf8"));
  if (typeof parsed === "string") return `--surface ${file} ${parsed}`;
  return { file, before: parsed, write: false };
}

/** Writes the surface the check listed when the plan says so; a line saying what failed, if anything did. */
export async function writeSurface(plan: SurfacePlan | undefined, report: CheckReport): Promise<string | undefined> {
  // a target that could not be checked leaves the file as it was
  if (!plan?.write || report.unchecked || !report.surface) return undefined;
  const { surfaceText } = await import("../check/surface-gate.js");
  const { outputProblem, writeOutput } = await import("./output-file.js");
  try {
    await writeOutput(plan.file, surfaceText(report.surface), { option: "--surface" });
  } catch (e) {
    return outputProblem(plan.file, e);
  }
  return undefined;
}
