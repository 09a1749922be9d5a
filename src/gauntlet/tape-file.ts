/**
 * A scenario's tape on disk, through the one writer and reader of the record format
 * (src/recording/). A stdio server appends each record as it happens, synchronously, so a process
 * killed right after still leaves it on disk, and a restarted server appends to the same file
 * (each process its own conversation). Line numbers read back are the file's own.
 */
import { closeSync, createWriteStream, openSync, statSync, writeSync } from "node:fs";
import { Writable } from "node:stream";
import { readRecording, type Recorded } from "../recording/reader.js";
import { RecordingWriter } from "../recording/writer.js";
import { Tape, type TapeHeader, type TapeRecord } from "./tape.js";

function writerOptions(header: TapeHeader, append = false) {
  return {
    transport: header.transport,
    ...(header.revision !== undefined ? { revision: header.revision } : {}),
    ...(header.scenario !== undefined ? { scenario: header.scenario } : {}),
    ...(append ? { append } : {}),
  };
}

/** Hands one tape record to the writer. */
function put(writer: RecordingWriter, r: TapeRecord): void {
  const conversation = r.conversation !== undefined ? { conversation: r.conversation } : {};
  const session = r.http?.session !== undefined ? { session: r.http.session } : {};
  if (r.line !== undefined) {
    const bytes = Buffer.from(r.line, "utf8");
    writer.message({
      from: r.from,
      no: r.no,
      line: { bytes, crlf: false, overflow: false, size: bytes.length },
      kind: r.kind ?? "invalid",
      defects: r.defects ?? [],
      ...conversation,
      ...(r.http ? { http: r.http } : {}),
      ...session,
      ...(r.sse ? { sse: r.sse } : {}),
    });
  } else if (r.http) {
    writer.exchange({ from: r.from, http: r.http, ...conversation, ...session });
  } else if (r.event !== undefined) {
    writer.event({ from: r.from, event: r.event, ...conversation });
  }
}

/**
 * A recording written as the tape is made, so each record's time is when it crossed. Its header
 * is asked for when the first record comes (or at close, if none came): over HTTP the transport
 * is the client's choice, known once it has connected. `sync`: each record is on disk before the
 * next (a stdio server killed with SIGKILL has still written all it saw), appended after what an
 * earlier process wrote.
 */
export class LiveRecording {
  private writer: RecordingWriter | undefined;
  private readonly fd: number | undefined;
  private readonly append: boolean = false;

  constructor(
    private readonly path: string,
    private readonly header: TapeHeader | (() => TapeHeader),
    sync = false,
  ) {
    if (!sync) return;
    this.fd = openSync(path, "a");
    this.append = statSync(path).size > 0;
  }

  /** Records what the tape keeps from now on. */
  follow(tape: Tape): void {
    tape.sink = (record) => put(this.open(), record);
  }

  async close(): Promise<void> {
    await this.open().close();
    if (this.fd !== undefined) closeSync(this.fd);
  }

  private open(): RecordingWriter {
    if (this.writer) return this.writer;
    const header = typeof this.header === "function" ? this.header() : this.header;
    const fd = this.fd;
    const out =
      fd === undefined
        ? createWriteStream(this.path)
        : new Writable({
            write(chunk: Buffer, _encoding, done) {
              writeSync(fd, chunk);
              done();
            },
          });
    return (this.writer = new RecordingWriter(out, writerOptions(header, this.append)));
  }
}

function tapeRecord(r: Recorded): TapeRecord {
  // the time it crossed, which checks that measure a wait (sse_resume.retry_respected) need
  const at = r.at === undefined ? "" : new Date(r.at).toISOString();
  const base = { at, from: r.from, ...(r.conversation !== undefined ? { conversation: r.conversation } : {}) };
  if (r.type === "event") return { ...base, no: 0, event: r.event };
  if (r.type === "exchange") return { ...base, no: 0, http: r.http };
  return {
    ...base,
    no: r.no,
    line: r.text,
    ...(r.kind !== undefined ? { kind: r.kind } : {}),
    ...(r.http ? { http: r.http } : {}),
    ...(r.sse ? { sse: r.sse } : {}),
    defects: r.defects,
  };
}

/** Reads a recording back, its records with the line numbers they have in the file. Rejects with a RecordingError. */
export async function readTape(path: string): Promise<Tape> {
  const records: [TapeRecord, number][] = [];
  const { header } = await readRecording(path, (r, line) => records.push([tapeRecord(r), line]));
  const tape = new Tape({
    recording: 1,
    tool: "mcp-wire",
    version: header.version,
    transport: header.transport === "memory" ? "stdio" : header.transport,
    ...(header.revision !== undefined ? { revision: header.revision } : {}),
    ...(header.scenario !== undefined ? { scenario: header.scenario } : {}),
  });
  for (const [record, line] of records) tape.adopt(record, line);
  return tape;
}
