/**
 * How a stdio server that opened no revision ended, in the words every output shares: the first
 * thing a person looks for when CI goes red is the server's own last words.
 */
import type { StdioEnd } from "./types.js";

/** "the server exited with status 1" / "was ended by SIGSEGV" / "never answered (still running)". */
export function endWords(end: StdioEnd): string {
  if (end.signal) return `the server was ended by ${end.signal}`;
  if (end.exitCode !== null) return `the server exited with status ${end.exitCode}`;
  return "the server never answered (it was still running)";
}

/** The sentence and the stderr lines, for outputs that show them as plain text. */
export function endText(end: StdioEnd): string {
  return end.stderrTail
    ? `${endWords(end)}; its stderr ends:\n${end.stderrTail}`
    : `${endWords(end)}; it wrote nothing to stderr`;
}
