/**
 * Reading an SSE stream with a cap on each event, for every reader of one (the HTTP clients, the
 * tap). The bytes are cut into events at blank lines (HTML Living Standard, "Server-sent events",
 * parsing an event stream) and each event's fields are read by eventsource-parser. An event over
 * the cap is never held: its bytes are counted and dropped, and once it ends the reader goes on
 * with the next one, so a large event costs no memory and stops no stream. A reader that gives
 * up on the stream instead (a client) asks `passedCap` after each chunk.
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

/**
 * The size of an event is the bytes of its field lines, each counted with one line break;
 * comment lines (keep-alives) belong to no event and count for nothing. An event's lines are
 * kept as the bytes that came, line breaks and all, and handed to the parser whole.
 */
export class SseReader {
  /** The current event's bytes from earlier chunks (or from before a comment line). */
  private parts: Buffer[] = [];
  /** The current event's size so far. */
  private held = 0;
  /** Bytes of the current event once it passed the cap (0: it has not). */
  private dropped = 0;
  /** Some event passed the cap, since the stream began. */
  private passed = false;
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

  /** An event passed the cap, since the stream began (its end may not have come yet). */
  get passedCap(): boolean {
    return this.passed;
  }

  push(chunk: Uint8Array): void {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let i = 0;
    if (this.afterCR && b.length > 0) {
      this.afterCR = false;
      if (b[0] === LF) i = 1;
    }
    // the next CR and LF, each searched for again only once passed: linear in the chunk
    let cr = b.indexOf(CR, i);
    let lf = b.indexOf(LF, i);
    /** Where the event's bytes not yet in `parts` start in this chunk (-1: none). */
    let run = this.line === "field" && this.dropped === 0 ? i : -1;
    /**
     * Events wholly in this chunk, not yet parsed: `ready` to `readyEnd` (-1: none), fed to the
     * parser in one piece, with the comments and blank lines between them, which it skips.
     */
    let ready = -1;
    let readyEnd = -1;
    const flush = () => {
      if (ready !== -1) this.feed(b, ready, readyEnd);
      ready = -1;
    };
    while (i < b.length) {
      if (cr !== -1 && cr < i) cr = b.indexOf(CR, i);
      if (lf !== -1 && lf < i) lf = b.indexOf(LF, i);
      const brk = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      const end = brk === -1 ? b.length : brk;
      if (this.line === "start") {
        if (end === i) {
          // a blank line: the event is complete
          if (this.dropped === 0 && this.parts.length === 0) {
            if (this.held > 0) {
              if (ready === -1) ready = run;
              readyEnd = brk + 1;
              this.held = 0;
            }
          } else {
            flush();
            this.dispatch(run === -1 ? undefined : b.subarray(run, i));
          }
          run = -1;
        } else if (b[i] === COLON) {
          this.line = "comment";
          if (run !== -1) this.parts.push(b.subarray(run, i));
          run = -1;
        } else {
          this.line = "field";
          if (this.held === 0 && this.dropped === 0) this.first = this.offset + i === 0;
          if (run === -1 && this.dropped === 0) run = i;
        }
      }
      if (this.line === "field") {
        const n = end - i + (brk === -1 ? 0 : 1);
        if (this.dropped > 0) this.dropped += n;
        else if (this.held + n > this.maxBytes) {
          this.dropped = this.held + n;
          this.passed = true;
          this.parts = [];
          this.held = 0;
          run = -1;
        } else this.held += n;
      }
      if (brk === -1) break;
      this.line = "start";
      i = brk + 1;
      if (b[brk] === CR) {
        if (i === b.length) this.afterCR = true;
        else if (b[i] === LF) i++;
      }
    }
    flush();
    if (run !== -1) {
      // a tail waiting for the rest of its event is copied: a view would keep the whole chunk alive
      this.parts.push(run === 0 ? b : Buffer.from(b.subarray(run)));
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

  /** The blank line that ends the event came; `last`: its bytes in the current chunk. */
  private dispatch(last: Buffer | undefined): void {
    if (this.dropped > 0) {
      const size = this.dropped;
      this.dropped = 0;
      this.handlers.tooLarge?.(size);
      return;
    }
    if (this.held === 0) return;
    if (last) this.parts.push(last);
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.held = 0;
    // the event's bytes end with its last line's break: one more makes the blank line that dispatches it
    this.feed(bytes, 0, bytes.length, true);
  }

  /**
   * Parses `b` from `from` to `to`: whole events, ended by their blank line (or, `open`, by
   * their last line's break). The parser waits on a CR that ends what it is given (an LF may
   * follow to make CRLF), so a lone CR at the end is made CRLF, and the events are not held up.
   */
  private feed(b: Buffer, from: number, to: number, open = false): void {
    let text = b.toString("utf8", from, to);
    // the standard drops one byte order mark at the stream's start (decoded here, not by the parser)
    if ((open ? this.first : this.offset + from === 0) && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const lastCR = b[to - 1] === CR;
    this.parser.feed(open ? text + (lastCR ? "\r\n" : "\n") : lastCR ? `${text}\n` : text);
  }
}
