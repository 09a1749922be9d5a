/**
 * Recordings on disk in the record format, version 1: a header line, then one record per line. A
 * stdio server appends (a host restarts its servers; each process is its own conversation), so
 * the header is written only into an empty file. Reading checks the header and caps the size.
 */
import { appendFileSync, closeSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Tape, type TapeHeader, type TapeRecord } from "./tape.js";

/** The largest recording read back. */
export const MAX_RECORDING_BYTES = 512 * 1024 * 1024;

export class RecordingError extends Error {
  override readonly name = "RecordingError";
  readonly code = "recording_invalid";
}

export function headerLine(header: TapeHeader): string {
  return JSON.stringify(header) + "\n";
}

export function recordLine(record: TapeRecord): string {
  return JSON.stringify(record) + "\n";
}

/** The whole tape as the file's text. */
export function tapeText(tape: Tape): string {
  let out = headerLine(tape.header);
  for (const e of tape.entries) out += recordLine(e.record);
  return out;
}

export function writeTape(path: string, tape: Tape): void {
  writeFileSync(path, tapeText(tape));
}

/** A file that records as it goes, appending to what an earlier process wrote. */
export class AppendingRecording {
  private readonly fd: number;

  constructor(path: string, header: TapeHeader) {
    this.fd = openSync(path, "a");
    if (statSync(path).size === 0) appendFileSync(this.fd, headerLine(header));
  }

  /** Written at once and in full: a process killed right after still leaves it on disk. */
  write(record: TapeRecord): void {
    appendFileSync(this.fd, recordLine(record));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Reads a recording back, its records with the line numbers they have in the file. */
export function readTape(path: string): Tape {
  const size = statSync(path).size;
  if (size > MAX_RECORDING_BYTES)
    throw new RecordingError(`${path}: ${size} bytes, over the ${MAX_RECORDING_BYTES}-byte limit`);
  const lines = readFileSync(path, "utf8").split("\n");
  let header: TapeHeader | undefined;
  try {
    header = JSON.parse(lines[0] ?? "") as TapeHeader;
  } catch {
    header = undefined;
  }
  if (!header || typeof header !== "object" || header.recording === undefined)
    throw new RecordingError(`${path}: not a recording (its first line is no record-format header)`);
  if (header.recording !== 1)
    throw new RecordingError(
      `${path}: record format ${JSON.stringify(header.recording)}, which this version does not know`,
    );
  const tape = new Tape(header);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    let record: TapeRecord;
    try {
      record = JSON.parse(line) as TapeRecord;
    } catch {
      // a record cut short by a killed process: the ones before it still count
      continue;
    }
    if (typeof record === "object" && record !== null && (record.from === "client" || record.from === "server"))
      tape.adopt(record, i + 1);
  }
  return tape;
}
