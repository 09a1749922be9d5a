/** `mcp-wire lint`: prints each line's defects and a summary; exit 1 on any defect at or above `--fail-on` (default error). */
import { printable } from "../codec/printable.js";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { lintStream, NotACaptureError, summaryLine, type LintRecord } from "../lint/lint.js";
import type { Revision } from "../rules/revisions.js";
import { atOrAbove } from "../check/fail-on.js";
import type { FailOn } from "../check/types.js";
import { FOUND_PROBLEMS, OK, USAGE_ERROR } from "./exit.js";
import { cannotRead } from "./file-errors.js";
import { paint, writeErr, writeOut } from "./output.js";

export async function runLint(
  file: string | undefined,
  opts: { revision?: Revision; json?: boolean; schema?: boolean; failOn?: FailOn },
): Promise<number> {
  const failOn = opts.failOn ?? "error";
  const input: Readable = file === undefined || file === "-" ? process.stdin : createReadStream(file);
  const opened = await new Promise<Error | null>((resolve) => {
    if (input === process.stdin) return resolve(null);
    input.once("open", () => resolve(null)).once("error", resolve);
  });
  if (opened) {
    writeErr(`mcp-wire lint: ${cannotRead(file!, opened)}\n`);
    return USAGE_ERROR;
  }
  const colour = !opts.json && process.stdout.isTTY === true;
  let errors = false;
  try {
    const summary = await lintStream(
      input,
      { ...(opts.revision ? { revision: opts.revision } : {}), ...(opts.schema ? { schema: true } : {}) },
      (r) => {
        if (r.defects.some((d) => atOrAbove(d.severity, failOn))) errors = true;
        if (opts.json) return writeOut(JSON.stringify(r) + "\n");
        if (r.defects.length === 0) return;
        return writeOut(formatRecord(r, colour));
      },
    );
    const name = file === undefined || file === "-" ? "the input" : file;
    // nothing to lint is no error, but a summary of zeros would hide that the file was empty
    const line =
      summary.messages > 0
        ? summaryLine(summary)
        : summary.blank > 0
          ? `${name} holds no message to lint, only ${summary.blank} blank line${summary.blank === 1 ? "" : "s"}`
          : `${name} is empty: no message to lint`;
    if (opts.json) writeErr(line + "\n");
    else await writeOut(line + "\n");
  } catch (e) {
    if (e instanceof NotACaptureError) {
      const name = file === undefined || file === "-" ? "standard input" : file;
      writeErr(
        `mcp-wire lint: ${name} is not a capture of JSON-RPC messages: ${e.message.replace("FILE", file ?? "FILE")} (lint reads one message a line, as a stdio server writes them or tap --log records them)\n`,
      );
      return USAGE_ERROR;
    }
    writeErr(`mcp-wire lint: ${cannotRead(file ?? "standard input", e)}\n`);
    return USAGE_ERROR;
  }
  return errors ? FOUND_PROBLEMS : OK;
}

function formatRecord(r: LintRecord, colour: boolean): string {
  const head = `line ${r.line}: ${r.kind}${r.from ? ` from ${r.from}` : ""}`;
  const rows = r.defects.map((d) => {
    const sev =
      d.severity === "error"
        ? paint("red", "error  ", colour)
        : d.severity === "warning"
          ? paint("yellow", "warning", colour)
          : paint("dim", "info   ", colour);
    // a path is a peer's keys: as able to carry a terminal or CI command as its messages
    return `  ${sev} ${d.code}${d.path ? ` at ${printable(d.path)}` : ""}: ${printable(d.message)}`;
  });
  return `${head}\n${rows.join("\n")}\n`;
}
