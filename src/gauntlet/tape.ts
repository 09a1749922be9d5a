/**
 * A scenario's recording as it is made and as it is read back: every message either side sent,
 * every HTTP exchange that carried none, and what the server saw of its own end (stdin closing, a
 * signal), in order. Line numbers are the recording's own (the header is line 1), so evidence
 * points at the file `--record DIR` keeps. A flooding client cannot grow it without bound: past
 * the cap, records are counted instead of kept.
 */
import type { Defect } from "../codec/defects.js";
import type { Sender } from "../codec/conversation.js";

/** What an HTTP record says of the exchange that carried it (never a real session id). */
export interface HttpFacts {
  method: string;
  path: string;
  status?: number;
  contentType?: string;
  /** The session's alias (`s1`, `s2`, …). */
  session?: string;
  /** The request's `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Last-Event-ID` headers. */
  protocolVersion?: string;
  mcpMethod?: string;
  mcpName?: string;
  lastEventId?: string;
  /** A request that carried `Mcp-Session-Id` (the alias is only known for live sessions). */
  sessionHeader?: boolean;
}

/**
 * One record. The tape's own records have every member, those that do not apply `undefined`, in
 * this order: they all share one shape, and none grows a second store for members added later.
 */
export interface TapeRecord {
  at: string;
  from: Sender;
  /** The message's number in its direction, from 1. */
  no: number;
  /** The message's text as it crossed; absent on an exchange or event without one. */
  line?: string | undefined;
  kind?: string | undefined;
  /** Which server process (stdio) or connection the record belongs to. */
  conversation?: string | undefined;
  http?: HttpFacts | undefined;
  sse?: { id?: string; retry?: number } | undefined;
  /**
   * What the server saw that carried no message: its own end (`stdin_end`, `signal:SIGTERM`,
   * `exit`), or a client that closed a 2026-07-28 request's stream before its answer
   * (`STREAM_CLOSED` and the request's id as JSON).
   */
  event?: string | undefined;
  defects?: readonly Defect[] | undefined;
}

/** A record as a witness makes it: every member, in `TapeRecord`'s order; the tape sets its time and number. */
export function unstamped(
  from: Sender,
  line: string | undefined,
  kind: string | undefined,
  conversation: string | undefined,
  http: HttpFacts | undefined,
  sse: TapeRecord["sse"],
  event: string | undefined,
  defects: readonly Defect[] | undefined,
): TapeRecord {
  return { at: "", from, no: 0, line, kind, conversation, http, sse, event, defects };
}

/** The event of a 2026-07-28 request's stream closed by the client before its answer: a cancellation. */
export const STREAM_CLOSED = "stream_closed:";

export interface TapeHeader {
  recording: 1;
  tool: "mcp-wire";
  version: string;
  transport: "stdio" | "streamable-http" | "http+sse";
  revision?: string;
  scenario?: string;
}

/** Records past this many are counted, not kept. */
const MAX_RECORDS = 20_000;
/** Nor past this many bytes of message text. */
const MAX_TAPE_BYTES = 96 * 1024 * 1024;

/** One entry of the tape with its parsed message, as scorers read it. */
export interface Entry {
  readonly record: TapeRecord;
  /** Its 1-based line in the recording. */
  readonly line: number;
  /** The parsed JSON of `record.line`, when it was JSON. */
  readonly value: unknown;
}

export class Tape {
  readonly entries: Entry[] = [];
  /** Records left out because the tape was full. */
  dropped = 0;
  private bytes = 0;
  private readonly counts: Record<Sender, number> = { client: 0, server: 0 };

  /** Told of every record kept, as it is kept (a stdio server's file holds it until `flush`). */
  sink: ((record: TapeRecord) => void) | undefined;
  /** Told when what was kept must be on disk now: the server is about to write to its client. */
  flush: (() => void) | undefined;

  constructor(readonly header: TapeHeader) {}

  /**
   * Adds a record made by `unstamped`, which the tape takes as it is (its time and number are set
   * on it); returns its line number, or 0 when the tape was full. `judged`: the line was read as
   * a message (a leading byte-order mark skipped), so its value is read the same way.
   */
  add(record: TapeRecord, judged = false): number {
    const no = record.line !== undefined ? ++this.counts[record.from] : 0;
    const size = record.line?.length ?? 0;
    if (this.entries.length >= MAX_RECORDS || this.bytes + size > MAX_TAPE_BYTES) {
      this.dropped++;
      return 0;
    }
    this.bytes += size;
    record.at = isoNow();
    record.no = no;
    const line = this.entries.length + 2;
    this.entries.push(new TapeEntry(record, line, judged));
    this.sink?.(record);
    return line;
  }

  /** Adds records read from a file, keeping their line numbers. */
  adopt(record: TapeRecord, line: number): void {
    this.entries.push(new TapeEntry(record, line, false));
  }
}

/**
 * An entry whose value is parsed when a scorer first asks: a run keeps only its lines, not a
 * second copy of every message as objects, which the collector would have to carry meanwhile.
 */
class TapeEntry implements Entry {
  private parsed: unknown;
  private read = false;

  constructor(
    readonly record: TapeRecord,
    readonly line: number,
    private readonly skipBom: boolean,
  ) {}

  get value(): unknown {
    if (!this.read) {
      this.read = true;
      const text = this.record.line;
      this.parsed = parseLine(this.skipBom && text?.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    }
    return this.parsed;
  }
}

// many records cross in one millisecond: its ISO string is made once, and a new millisecond of
// the same second only changes the last digits (toISOString on every one of a slow exchange's
// records is a measurable part of an HTTP round trip)
let isoMs = -1;
let isoText = "";
let isoSecond = -1;
let isoPrefix = "";
function isoNow(): string {
  return isoOf(Date.now());
}

/** `new Date(ms).toISOString()` for a time in years 1970–9999, made from the last one's where it can. */
export function isoOf(ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== isoSecond) {
      isoSecond = second;
      isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    const milli = ms - second * 1000;
    isoText = `${isoPrefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
  }
  return isoText;
}

function parseLine(line: string | undefined): unknown {
  if (line === undefined || line.length === 0) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
