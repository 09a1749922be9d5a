/**
 * Every file mcp-wire writes for a person (`report --html`, `check --junit/--sarif/--markdown`,
 * the demo's page) goes through here, so none of them can destroy something it did not make:
 *
 * - each such file carries a generator mark (`generatorComment`, or the SARIF log's
 *   `properties.generator`); an existing file without the mark is refused unless `--force`;
 * - a symbolic link is never written through, with or without `--force`: the path is checked
 *   with lstat, and the content goes to a fresh file beside it (created exclusively, so not
 *   through a link planted under its name) that is then renamed over the path, and a rename
 *   replaces a link rather than following it;
 * - a half-written file never replaces a whole one: a failure leaves the old file as it was.
 *
 * docs/report.md tells users the rule.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { cannotWrite } from "./file-errors.js";

/** What marks a file as mcp-wire's own, in each format's way of saying who made it. */
const GENERATOR = "mcp-wire";

/** The mark as a comment, for HTML, XML and Markdown. */
export function generatorComment(): string {
  return `<!-- generator: ${GENERATOR} -->`;
}

/** How far into a file the mark is looked for: every writer puts it near the top. */
const MARK_WITHIN = 16 * 1024;
// the last form: report pages written before the mark existed, which `npm start` rewrites
const MARKED = new RegExp(
  `<!-- generator: ${GENERATOR} -->|<meta name="generator" content="${GENERATOR}">|"generator"\\s*:\\s*"${GENERATOR}"|^<!doctype html>\\n<html lang="en">\\n<head>\\n<meta charset="utf-8">\\n<meta http-equiv="Content-Security-Policy" content="[^"]*">\\n<meta name="viewport" content="width=device-width, initial-scale=1">\\n<meta name="referrer" content="no-referrer">\\n<title>mcp-wire report: `,
);

/** Whether this text, the start of a file, carries mcp-wire's generator mark. */
export function hasGeneratorMark(head: string): boolean {
  return MARKED.test(head);
}

/** A file mcp-wire will not write; `message` is one line for a person. */
export class OutputRefused extends Error {
  override readonly name = "OutputRefused";
  readonly code = "ERR_MCP_WIRE_OUTPUT_REFUSED";
}

export interface OutputOptions {
  /** Overwrite an existing regular file even without the mark (`--force`). */
  force?: boolean;
  /** The option that named the file, for the message: "--html". */
  option?: string;
}

/**
 * Refuses, before any work, a path mcp-wire must not write: a symbolic link, something that is
 * not a regular file, or a file it did not write (unless `force`). A path that does not exist yet
 * is fine. Throws OutputRefused; other failures (a folder that cannot be read) are thrown as they are.
 */
export async function checkOutput(path: string, options: OutputOptions = {}): Promise<void> {
  const named = options.option ? `${options.option} ${path}` : path;
  let info;
  try {
    info = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  if (info.isSymbolicLink())
    throw new OutputRefused(`${named} is a symbolic link: mcp-wire does not write through one; name the file itself`);
  if (info.isDirectory()) throw new OutputRefused(`${named} is a folder: name a file`);
  if (!info.isFile()) throw new OutputRefused(`${named} is not a regular file: name a file`);
  if (options.force) return;
  if (!hasGeneratorMark(await head(path))) {
    throw new OutputRefused(
      `${named} exists and was not written by mcp-wire: name another file, or add --force to replace it`,
    );
  }
}

/** The start of a regular file, opened without following a link and read up to a cap. */
async function head(path: string): Promise<string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(MARK_WITHIN);
    const { bytesRead } = await file.read(buffer, 0, MARK_WITHIN, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await file.close();
  }
}

/**
 * Writes `content` (one string, or chunks as they are made, so a large page never sits in memory
 * whole) to `path` under the rules above. Throws OutputRefused for a path it must not write, and
 * the file system's error otherwise; either way an existing file is left as it was.
 */
export async function writeOutput(
  path: string,
  content: string | Iterable<string> | AsyncIterable<string>,
  options: OutputOptions = {},
): Promise<void> {
  await checkOutput(path, options);
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  let file: FileHandle | undefined = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    if (typeof content === "string") await file.writeFile(content, "utf8");
    else for await (const chunk of content) await file.write(chunk, null, "utf8");
    await file.close();
    file = undefined;
    // the path may have changed while the content was made: judge it again just before
    await checkOutput(path, options);
    await rename(temporary, path);
  } catch (e) {
    await file?.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw e;
  }
}

/** One output file a command may write: its option, the path given (if any), and how to make it. */
export type OutputJob = readonly [option: string, path: string | undefined, render: () => Promise<string>];

/** Writes each job whose path was given; the line saying what failed, if one did (the others are still written). */
export async function writeOutputs(jobs: readonly OutputJob[], force: boolean): Promise<string | undefined> {
  let failed: string | undefined;
  for (const [option, path, render] of jobs) {
    if (path === undefined) continue;
    try {
      await writeOutput(path, await render(), { force, option });
    } catch (e) {
      failed = outputProblem(path, e);
    }
  }
  return failed;
}

/** One line for a person: the refusal itself, or what the file system said. */
export function outputProblem(path: string, e: unknown): string {
  return e instanceof OutputRefused ? e.message : cannotWrite(path, e);
}
