/**
 * The plain message records of a tape, kept compactly: their text as UTF-8 in one growing buffer
 * outside the JavaScript heap, their few other fields in typed columns. A run of thousands of
 * round trips otherwise keeps two strings and two objects per round trip alive, and every one of
 * them is copied by the collector on its way to the old generation while the client waits. The
 * record objects scorers read are made from the columns when they first ask.
 */
import type { Sender } from "../codec/conversation.js";
import type { Defect } from "../codec/defects.js";

/** What a sound message's record holds: one list for all of them, not one kept per record. */
export const NO_DEFECTS: readonly Defect[] = Object.freeze([]);

const CHUNK_BYTES = 256 * 1024;
const CLIENT = 1;
/** The line was read as a message: its value is read the same way (a leading byte-order mark skipped). */
const JUDGED = 2;

/** A plain message record as the columns give it back. */
export interface PlainRecord {
  from: Sender;
  line: string;
  kind: string;
  conversation?: string;
  defects: readonly Defect[];
  at: string;
  no: number;
}

export class PlainRecords {
  private flags = new Uint8Array(256);
  private kinds = new Int32Array(256);
  private conversations = new Int32Array(256);
  private nos = new Int32Array(256);
  private times = new Float64Array(256);
  /** Which of `chunks` holds each record's text, where it starts there and its length in bytes. */
  private where = new Int32Array(256);
  private starts = new Int32Array(256);
  private lengths = new Int32Array(256);
  /** The texts, in chunks filled in turn: a full one is never copied. */
  private readonly chunks: Buffer[] = [];
  private text = Buffer.alloc(0);
  private used = 0;
  /** Kinds and conversations, each kept once: a record holds their indexes (a conversation's plus one, 0 for none). */
  private readonly interned: string[] = [];
  private readonly internedIds = new Map<string, number>();

  /**
   * Keeps record `i` (records are kept in order; an index may be skipped, never reused). False
   * when its text would not read back as the same string (a lone surrogate), for the caller to
   * keep it as it is.
   */
  keep(
    i: number,
    from: Sender,
    line: string,
    kind: string,
    conversation: string | undefined,
    judged: boolean,
    at: number,
    no: number,
  ): boolean {
    if (i >= this.flags.length) this.grow(i);
    // a UTF-16 unit takes at most 3 bytes
    if (this.text.length - this.used < line.length * 3) this.more(line.length * 3);
    const start = this.used;
    const end = start + (this.text as unknown as Utf8Writer).utf8Write(line, start);
    // all ASCII reads back as it was; anything else is compared once
    if (end - start !== line.length && this.text.toString("utf8", start, end) !== line) return false;
    this.used = end;
    this.where[i] = this.chunks.length - 1;
    this.starts[i] = start;
    this.lengths[i] = end - start;
    this.flags[i] = (from === "client" ? CLIENT : 0) | (judged ? JUDGED : 0);
    this.kinds[i] = this.intern(kind);
    this.conversations[i] = conversation === undefined ? 0 : this.intern(conversation) + 1;
    this.nos[i] = no;
    this.times[i] = at;
    return true;
  }

  /** Record `i`, as the recording lists its members. */
  record(i: number): PlainRecord {
    const conversation = this.conversations[i]!;
    const record: Partial<PlainRecord> = {
      from: (this.flags[i]! & CLIENT) !== 0 ? "client" : "server",
      line: this.chunks[this.where[i]!]!.toString("utf8", this.starts[i]!, this.starts[i]! + this.lengths[i]!),
      kind: this.interned[this.kinds[i]!]!,
    };
    if (conversation > 0) record.conversation = this.interned[conversation - 1]!;
    record.defects = NO_DEFECTS;
    record.at = isoAt(this.times[i]!);
    record.no = this.nos[i]!;
    return record as PlainRecord;
  }

  judged(i: number): boolean {
    return (this.flags[i]! & JUDGED) !== 0;
  }

  private intern(name: string): number {
    let id = this.internedIds.get(name);
    if (id === undefined) {
      id = this.interned.push(name) - 1;
      this.internedIds.set(name, id);
    }
    return id;
  }

  private grow(need: number): void {
    let n = this.flags.length;
    while (n <= need) n *= 2;
    this.flags = grown(this.flags, new Uint8Array(n));
    this.kinds = grown(this.kinds, new Int32Array(n));
    this.conversations = grown(this.conversations, new Int32Array(n));
    this.nos = grown(this.nos, new Int32Array(n));
    this.times = grown(this.times, new Float64Array(n));
    this.where = grown(this.where, new Int32Array(n));
    this.starts = grown(this.starts, new Int32Array(n));
    this.lengths = grown(this.lengths, new Int32Array(n));
  }

  /** A new chunk with room for `need` bytes: small at first, for a tape that stays short. */
  private more(need: number): void {
    this.text = Buffer.allocUnsafe(Math.max(need, Math.min(CHUNK_BYTES, 16 * 1024 * 2 ** this.chunks.length)));
    this.chunks.push(this.text);
    this.used = 0;
  }
}

function grown<T extends Uint8Array | Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

// many records cross in one millisecond: its ISO string is made once
let isoMs = -1;
let isoText = "";
/** The ISO time of `ms`. */
export function isoAt(ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

/** Node's UTF-8 writer without the argument checks of `write`, which cost more than the copy for a short line. */
interface Utf8Writer {
  utf8Write(text: string, offset: number): number;
}
