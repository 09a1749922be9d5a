/**
 * Reading an SSE stream with a cap on each event, for every reader of one (the HTTP clients, the
 * tap). The bytes are cut into events at blank lines (HTML Living Standard, "Server-sent events",
 * parsing an event stream) and each event's fields are read by eventsource-parser. An event over
 * the cap is never held: its bytes are counted and dropped, and once it ends the reader goes on
 * with the next one, so a large event costs no memory and stops no stream. A reader that gives
 * up on the stream instead (a client) asks `overflowing` after each chunk.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

export type SseEvent = EventSourceMessage;

export interface SseHandlers {
  event(event: SseEvent): void;
  /** The server's `retry` field: how long to wait before reconnecting. */
  retry?(ms: number): void;
  /** An event of `size` bytes passed the cap and was dropped unread; called once it ended (or the stream did). */
  tooLarge?(size: number): void;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const NEWLINE = Buffer.from("\n");

/** The first CR or LF at or after `from`, or -1. */
function lineBreak(b: Buffer, from: number): number {
  const lf = b.indexOf(LF, from);
  const cr = b.indexOf(CR, from);
  return cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
}

/**
 * The size of an event is the bytes of its field lines, each counted with one line break;
 * comment lines (keep-alives) belong to no event and count for nothing.
 */
export class SseReader {
  private parts: Buffer[] = [];
  private held = 0;
  /** Bytes of the current event once it passed the cap (0: it has not). */
  private dropped = 0;
  /** Where the current line stands: nothing read of it yet, a field, or a comment. */
  private line: "start" | "field" | "comment" = "start";
  /** The last chunk ended in CR: an LF starting the next one ends the same line. */
  private afterCR = false;
  /** Bytes of the stream before the current chunk. */
  private offset = 0;
  /** The event held began with the stream's first byte, where a byte order mark may stand. */
  private first = false;
  private readonly parser: EventSourceParser;

  constructor(
    private readonly maxBytes: number,
    private readonly handlers: SseHandlers,
  ) {
    // no buffer limit of its own: it is only ever given one whole event, at most the cap
    this.parser = createParser({ onEvent: (e) => handlers.event(e), onRetry: (ms) => handlers.retry?.(ms) });
  }

  /** The event being read passed the cap. */
  get overflowing(): boolean {
    return this.dropped > 0;
  }

  push(chunk: Uint8Array): void {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let i = 0;
    if (this.afterCR && b.length > 0) {
      this.afterCR = false;
      if (b[0] === LF) i = 1;
    }
    while (i < b.length) {
      const end = lineBreak(b, i);
      if (end === -1) {
        this.take(b, i, b.length, false);
        break;
      }
      if (end === i && this.line === "start") this.dispatch();
      else this.take(b, i, end, true);
      i = end + 1;
      if (b[end] === CR) {
        if (i === b.length) this.afterCR = true;
        else if (b[i] === LF) i++;
      }
    }
    this.offset += b.length;
  }

  /** The stream ended: an event cut off is dropped, as the standard says; one over the cap is still reported. */
  end(): void {
    const dropped = this.dropped;
    this.parts = [];
    this.held = 0;
    this.dropped = 0;
    this.line = "start";
    this.afterCR = false;
    if (dropped > 0) this.handlers.tooLarge?.(dropped);
  }

  /** Bytes `from`–`to` of `b` belong to the current line; `complete`: a line break follows them. */
  private take(b: Buffer, from: number, to: number, complete: boolean): void {
    if (this.line === "start" && to > from) {
      this.line = b[from] === COLON ? "comment" : "field";
      if (this.held === 0) this.first = this.offset + from === 0;
    }
    if (this.line === "field") {
      const n = to - from + (complete ? 1 : 0);
      if (this.dropped > 0) this.dropped += n;
      else if (this.held + n > this.maxBytes) {
        this.dropped = this.held + n;
        this.parts = [];
        this.held = 0;
      } else {
        if (to > from) {
          // a tail waiting for its line break is copied: a view would keep the whole chunk alive
          this.parts.push(from > 0 && to === b.length ? Buffer.from(b.subarray(from, to)) : b.subarray(from, to));
        }
        if (complete) this.parts.push(NEWLINE);
        this.held += n;
      }
    }
    if (complete) this.line = "start";
  }

  /** A blank line: the event is complete. */
  private dispatch(): void {
    if (this.dropped > 0) {
      const size = this.dropped;
      this.dropped = 0;
      this.handlers.tooLarge?.(size);
      return;
    }
    if (this.held === 0) return;
    let text = Buffer.concat(this.parts, this.held).toString("utf8");
    // the standard drops one byte order mark at the stream's start (decoded here, not by the parser)
    if (this.first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.parts = [];
    this.held = 0;
    this.parser.feed(`${text}\n`);
  }
}
