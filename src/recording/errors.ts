/**
 * A file that cannot be played or replayed as a recording: one class, one code, and a `reason`
 * a caller can branch on. The message names the file and, where there is one, the line.
 */

export type RecordingProblem =
  /** It holds something else: a plain capture, a program, prose. */
  | "not_a_recording"
  /** Its last line was cut off mid-record (a recorder that was killed). */
  | "truncated"
  /** Its header names a format version this build does not know (a newer mcp-wire wrote it). */
  | "unknown_version"
  /** It is a FIFO (or another file that is not a regular one): reading it could wait forever. */
  | "not_a_file"
  /** A line longer than the reader's cap. */
  | "line_too_large"
  /** The whole file is larger than the reader's cap. */
  | "too_large"
  /** A line that is not JSON. */
  | "invalid_json"
  /** A record numbered before the one that came ahead of it in its direction and conversation. */
  | "out_of_order"
  /** A side sent two requests with the same id in one conversation. */
  | "id_collision"
  /** The file could not be opened or read (no such file, permission denied). */
  | "unreadable";

export class RecordingError extends Error {
  override readonly name = "RecordingError";
  readonly code = "ERR_MCP_WIRE_RECORDING";
  constructor(
    readonly reason: RecordingProblem,
    readonly file: string,
    message: string,
    /** The line of the file the problem is on, from 1. */
    readonly line?: number,
  ) {
    super(`${file}${line !== undefined ? `, line ${line}` : ""}: ${message}`);
  }
}
