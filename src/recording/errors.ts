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

/** Why a recording could not be written. */
export type RecordingWriteProblem =
  /** The path names a folder. */
  | "is_a_folder"
  /** A folder on the path does not exist. */
  | "no_folder"
  /** The file or its folder may not be written (or the file system is read-only). */
  | "permission_denied"
  /** The file opened, but a write to it failed later (the disk is full, the device went away). */
  | "write_failed";

/**
 * A recording that cannot be written: thrown by `recordTransport` at once when the file cannot
 * be opened for writing, and by the recorded transport's `close()` when a write failed on the
 * way, so a run is never left unrecorded without a word.
 */
export class RecordingWriteError extends Error {
  override readonly name = "RecordingWriteError";
  readonly code = "ERR_MCP_WIRE_RECORDING_WRITE";
  /** The operating system's reason (`EISDIR`, `ENOENT`, `EACCES`, `ENOSPC`…), when it gave one. */
  readonly osCode: string | undefined;

  constructor(
    readonly reason: RecordingWriteProblem,
    readonly file: string,
    cause: unknown,
  ) {
    const osCode = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`${file}: the recording cannot be written: ${WORDS[reason]}${osCode !== undefined ? ` (${osCode})` : ""}`, {
      cause,
    });
    this.osCode = osCode;
  }

  /** The error for a failed open (`opening`) or a failed write of `file`. */
  static of(file: string, cause: unknown, opening: boolean): RecordingWriteError {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const reason: RecordingWriteProblem = !opening
      ? "write_failed"
      : code === "EISDIR"
        ? "is_a_folder"
        : code === "ENOENT" || code === "ENOTDIR"
          ? "no_folder"
          : code === "EACCES" || code === "EPERM" || code === "EROFS"
            ? "permission_denied"
            : "write_failed";
    return new RecordingWriteError(reason, file, cause);
  }
}

const WORDS: Record<RecordingWriteProblem, string> = {
  is_a_folder: "it is a folder, not a file",
  no_folder: "a folder on its path does not exist",
  permission_denied: "permission denied",
  write_failed: "a write to it failed",
};
