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

/** Names kept once each, by index. */
class Names {
  private readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.ids.set(name, id);
    }
    return id;
  }

  name(id: number): string {
    return this.names[id]!;
  }
}

/** A record's fields, side by side in one array (one cache line a record, touched once). */
const AT = 0;
const NO = 1;
/** `CLIENT | JUDGED | kind << 2 | conversation << 10` (kind and conversation by index, a conversation's plus one). */
const META = 2;
const CHUNK = 3;
const START = 4;
const LENGTH = 5;
const STRIDE = 6;

export class PlainRecords {
  private fields = new Float64Array(256 * STRIDE);
  /** The texts, in chunks filled in turn: a full one is never copied. */
  private readonly chunks: Buffer[] = [];
  private text = Buffer.alloc(0);
  private used = 0;
  /** Kinds and conversations, each kept once, the last of each remembered. */
  private readonly kinds = new Names();
  private readonly conversations = new Names();
  private lastKind = "";
  private lastKindId = 0;
  private lastConversation = "";
  private lastConversationId = 0;

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
    // a UTF-16 unit takes at most 3 bytes
    if (this.text.length - this.used < line.length * 3) this.more(line.length * 3);
    const start = this.used;
    const end = start + (this.text as unknown as Utf8Writer).utf8Write(line, start);
    // all ASCII reads back as it was; anything else is compared once
    if (end - start !== line.length && this.text.toString("utf8", start, end) !== line) return false;
    this.used = end;
    if (kind !== this.lastKind) {
      this.lastKind = kind;
      this.lastKindId = this.kinds.id(kind);
    }
    let c = 0;
    if (conversation !== undefined) {
      if (conversation !== this.lastConversation) {
        this.lastConversation = conversation;
        this.lastConversationId = this.conversations.id(conversation) + 1;
      }
      c = this.lastConversationId;
    }
    const o = i * STRIDE;
    if (o >= this.fields.length) this.grow(o);
    const f = this.fields;
    f[AT + o] = at;
    f[NO + o] = no;
    f[META + o] = (from === "client" ? CLIENT : 0) + (judged ? JUDGED : 0) + this.lastKindId * 4 + c * 1024;
    f[CHUNK + o] = this.chunks.length - 1;
    f[START + o] = start;
    f[LENGTH + o] = end - start;
    return true;
  }

  /** Record `i`, as the recording lists its members. */
  record(i: number): PlainRecord {
    const f = this.fields;
    const o = i * STRIDE;
    const meta = f[META + o]!;
    const conversation = Math.floor(meta / 1024);
    const start = f[START + o]!;
    const record: Partial<PlainRecord> = {
      from: (meta & CLIENT) !== 0 ? "client" : "server",
      line: this.chunks[f[CHUNK + o]!]!.toString("utf8", start, start + f[LENGTH + o]!),
      kind: this.kinds.name(Math.floor(meta / 4) % 256),
    };
    if (conversation > 0) record.conversation = this.conversations.name(conversation - 1);
    record.defects = NO_DEFECTS;
    record.at = isoAt(f[AT + o]!);
    record.no = f[NO + o]!;
    return record as PlainRecord;
  }

  judged(i: number): boolean {
    return (this.fields[META + i * STRIDE]! & JUDGED) !== 0;
  }

  private grow(need: number): void {
    let n = this.fields.length;
    while (n <= need) n *= 2;
    const fields = new Float64Array(n);
    fields.set(this.fields);
    this.fields = fields;
  }

  /** A new chunk with room for `need` bytes: small at first, for a tape that stays short. */
  private more(need: number): void {
    this.text = Buffer.allocUnsafe(Math.max(need, Math.min(CHUNK_BYTES, 16 * 1024 * 2 ** this.chunks.length)));
    this.chunks.push(this.text);
    this.used = 0;
  }
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
