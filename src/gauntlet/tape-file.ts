/**
 * A scenario's tape on disk, through the one writer and reader of the record format
 * (src/recording/). A stdio server appends its records synchronously, each on disk before the
 * server writes anything more to its client, so a process killed right after an answer still
 * leaves the call and the answer there; a restarted server appends to the same file (each process
 * its own conversation). Line numbers read back are the file's own.
 */
import { closeSync, createWriteStream, openSync, statSync, writevSync } from "node:fs";
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
    writer.message({
      from: r.from,
      no: r.no,
      text: r.line,
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
 * is the client's choice, known once it has connected. `sync`: records are written by the process
 * itself, appended after what an earlier process wrote, and each is on disk before the server
 * writes anything more to its client, or its turn ends (`HeldFile`): a stdio server killed with
 * SIGKILL has still written all its client could have seen it take.
 */
export class LiveRecording {
  private writer: RecordingWriter | undefined;
  private readonly fd: number | undefined;
  private held: HeldFile | undefined;
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
    tape.flush = () => this.held?.flush();
  }

  async close(): Promise<void> {
    await this.open().close();
    if (this.fd !== undefined) closeSync(this.fd);
  }

  private open(): RecordingWriter {
    if (this.writer) return this.writer;
    const header = typeof this.header === "function" ? this.header() : this.header;
    const fd = this.fd;
    const out = fd === undefined ? createWriteStream(this.path) : (this.held = new HeldFile(fd));
    return (this.writer = new RecordingWriter(out, writerOptions(header, this.append)));
  }
}

/** Past this many bytes held, they are written at once. */
const HOLD_BYTES = 256 * 1024;

/**
 * A stdio server's recording file, written synchronously: records are held until the server is
 * about to write to its client (`flush`), or the turn ends, so a call and its answer take one
 * write instead of two, and a record is never behind what the client can have seen.
 */
class HeldFile extends Writable {
  private held: Buffer[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(private readonly fd: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    this.held.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= HOLD_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    done();
  }

  override _final(done: (e?: Error | null) => void): void {
    this.flush();
    done();
  }

  /** Writes what is held. A failed write ends the stream with its error (the recording's close reports it). */
  flush(): void {
    if (this.held.length === 0 || this.destroyed) return;
    const held = this.held;
    this.held = [];
    this.bytes = 0;
    try {
      writevSync(this.fd, held);
    } catch (e) {
      this.destroy(e as Error);
    }
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
