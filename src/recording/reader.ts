/**
 * The one reader of recordings for the commands that play them (`mock`, `replay`): a file read
 * line by line with a cap on each line and on the whole, each line checked to be a record of a
 * version this build knows, in order. Every way a file can fail is a `RecordingError` with its
 * `reason`, raised at the first line that shows it; nothing is half-read.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { LineSplitter, type Line } from "../codec/lines.js";
import { VERSION } from "../version.js";
import { RecordingError } from "./errors.js";
import {
  RECORDING_VERSION,
  TRANSPORTS,
  recordOf,
  type EventRecord,
  type ExchangeRecord,
  type MessageRecord,
  type RecordedTransport,
  type RecordingHeader,
} from "./recording.js";

export interface ReadLimits {
  /** The longest line read. Default 16 MiB. */
  maxLineBytes?: number;
  /** The largest file read. Default 1 GiB. */
  maxBytes?: number;
}

export interface RecordingRead {
  header: RecordingHeader;
  /** The file had no header (written before the format had one): its transport was inferred. */
  inferred: boolean;
}

export type Recorded = MessageRecord | ExchangeRecord | EventRecord;

export const DEFAULT_MAX_LINE = 16 * 1024 * 1024;
export const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
/** How much is read at a time: small enough that a player has the first conversation soon. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Reads `file`, handing each record to `visit` in order (with its line number), and resolves
 * with the header (read or inferred). Rejects with a `RecordingError`; a symbolic link is
 * followed, a FIFO refused before it is opened. `chunk` is called after each part of the file
 * has been visited, `header` when the header line has been read: a caller may act on what it has
 * before the whole file is read.
 */
export async function readRecording(
  file: string,
  visit: (record: Recorded, lineNo: number) => void,
  limits: ReadLimits = {},
  chunk?: () => void,
  header?: (header: RecordingHeader) => void,
): Promise<RecordingRead> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  let size: number;
  try {
    const s = await stat(file);
    if (s.isFIFO())
      throw new RecordingError("not_a_file", file, "it is a FIFO (a named pipe), not a recording file: it is not read");
    if (!s.isFile()) throw new RecordingError("not_a_file", file, "it is not a regular file");
    size = s.size;
  } catch (e) {
    if (e instanceof RecordingError) throw e;
    throw new RecordingError("unreadable", file, errnoWords(e));
  }
  if (size > maxBytes)
    throw new RecordingError("too_large", file, `${size} bytes, over the ${maxBytes}-byte limit for a recording`);
  const reader = new LineReader(file, visit, header);
  const splitter = new LineSplitter(limits.maxLineBytes ?? DEFAULT_MAX_LINE, (line) => reader.line(line));
  let read = 0;
  let last = -1;
  try {
    for await (const part of createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
      const bytes = part as Buffer;
      read += bytes.length;
      if (read > maxBytes)
        throw new RecordingError(
          "too_large",
          file,
          `over the ${maxBytes}-byte limit for a recording (it grew while read)`,
        );
      if (bytes.length > 0) last = bytes[bytes.length - 1]!;
      splitter.push(bytes);
      chunk?.();
    }
  } catch (e) {
    if (e instanceof RecordingError) throw e;
    throw new RecordingError("unreadable", file, errnoWords(e));
  }
  reader.unterminated = last !== -1 && last !== 0x0a;
  splitter.end();
  return reader.end();
}

function errnoWords(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a folder, not a file";
  return e instanceof Error ? e.message : String(e);
}

/** Each line of one file, checked as it comes. */
class LineReader {
  private n = 0;
  private header: RecordingHeader | undefined;
  private records = 0;
  /** The last `no` per direction and conversation. */
  private readonly last = new Map<string, number>();
  private http = false;
  private sse = false;
  /** The file's last bytes had no newline after them: the next line handed over is its last. */
  unterminated = false;

  constructor(
    private readonly file: string,
    private readonly visit: (record: Recorded, lineNo: number) => void,
    private readonly seen?: (header: RecordingHeader) => void,
  ) {}

  line(line: Line): void {
    const n = ++this.n;
    if (line.overflow) throw this.fail("line_too_large", `a line of ${line.size} bytes, over the reader's limit`, n);
    const text = line.bytes.toString("utf8");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (this.unterminated)
        throw this.fail("truncated", "the recording ends in the middle of a record (was the recorder stopped?)", n);
      throw this.fail("invalid_json", "not JSON: a recording holds one JSON record a line", n);
    }
    const r = recordOf(value);
    if (r.type === "header") return this.onHeader(r.header, n);
    if (r.type === "other") {
      const what =
        typeof value === "object" && value !== null && "jsonrpc" in value
          ? "a bare JSON-RPC message: this is a plain capture, which `mcp-wire lint` reads but which cannot be played (record with `tap --log`)"
          : "not a record of a recording";
      throw this.fail("not_a_recording", what, n);
    }
    if (r.type === "message" && r.no > 0) {
      const key = `${r.from} ${r.conversation ?? ""}`;
      const before = this.last.get(key);
      if (before !== undefined && r.no <= before)
        throw this.fail(
          "out_of_order",
          `${r.from} message ${r.no} comes after message ${before} of the same direction${r.conversation !== undefined ? ` and conversation ${r.conversation}` : ""}`,
          n,
        );
      this.last.set(key, r.no);
    }
    if (r.http) {
      this.http = true;
      if (/[?&]sessionId=/.test(r.http.path)) this.sse = true;
    }
    this.records++;
    this.visit(r, n);
  }

  end(): RecordingRead {
    if (this.header) return { header: this.header, inferred: false };
    if (this.records === 0) throw this.fail("not_a_recording", "it holds no record");
    const transport: RecordedTransport = this.sse ? "http+sse" : this.http ? "streamable-http" : "stdio";
    return { header: { recording: RECORDING_VERSION, tool: "mcp-wire", version: "", transport }, inferred: true };
  }

  private onHeader(header: RecordingHeader, n: number): void {
    if (header.recording !== RECORDING_VERSION)
      throw this.fail(
        "unknown_version",
        `recording format ${JSON.stringify(header.recording)}${typeof header.version === "string" ? ` (written by mcp-wire ${header.version})` : ""}, which mcp-wire ${VERSION} does not know: it reads format ${RECORDING_VERSION}`,
        n,
      );
    if (!TRANSPORTS.includes(header.transport))
      throw this.fail(
        "not_a_recording",
        `its header names an unknown transport ${JSON.stringify(header.transport)}`,
        n,
      );
    if (this.header === undefined && this.records > 0)
      throw this.fail("not_a_recording", "a header after records: the header is the first line", n);
    if (this.header === undefined) {
      this.header = header;
      this.seen?.(header);
    }
  }

  private fail(reason: RecordingError["reason"], message: string, line?: number): RecordingError {
    return new RecordingError(reason, this.file, message, line);
  }
}
