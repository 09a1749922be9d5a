/**
 * Newline-delimited framing, as on MCP's stdio transport and in captures: bytes in any chunking
 * → one line at a time, with a cap on a line's size so a peer that never sends a newline cannot
 * exhaust memory. `\r\n` endings are accepted and reported.
 */

export interface Line {
  /** The line's bytes without its `\n` (and without a `\r` before it). Empty when `overflow`. */
  bytes: Buffer;
  /** The line ended in `\r\n`. */
  crlf: boolean;
  /** The line was longer than the cap: its bytes were dropped, `size` says how many there were. */
  overflow: boolean;
  size: number;
  /** For an overflow: the line's first bytes (up to 1 KiB), where a message's `id` usually is. */
  prefix?: Buffer;
  /**
   * For an overflow: the line's last bytes (up to 1 KiB, without a `\r` ending), where the `id`
   * is when a writer puts it last, as the official SDKs do (`{"result":…,"jsonrpc":"2.0","id":1}`).
   */
  suffix?: Buffer;
}

/** How much of each end of an over-long line is kept: enough for the envelope's first or last members. */
const PREFIX_BYTES = 1024;
const SUFFIX_BYTES = 1024;

const NL = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  /** Bytes of the current line dropped because it passed the cap (0: not overflowing). */
  private dropped = 0;
  private prefix: Buffer | undefined;
  /** The last bytes of an overflowing line so far (up to SUFFIX_BYTES), copied out of the chunks. */
  private suffix: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Line) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      if (nl === -1) {
        this.hold(chunk, start, chunk.length);
        return;
      }
      this.hold(chunk, start, nl);
      this.emit();
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.held > 0 || this.dropped > 0) this.emit();
  }

  private hold(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n === 0) return;
    if (this.dropped > 0) {
      this.dropped += n;
      this.keepSuffix([chunk.subarray(from, to)]);
      return;
    }
    if (this.held + n > this.maxLineBytes) {
      this.dropped = this.held + n;
      const head =
        this.parts.length > 0 ? Buffer.concat(this.parts, Math.min(this.held, PREFIX_BYTES)) : Buffer.alloc(0);
      this.prefix =
        head.length >= PREFIX_BYTES
          ? Buffer.from(head.subarray(0, PREFIX_BYTES))
          : Buffer.concat([head, chunk.subarray(from, Math.min(to, from + PREFIX_BYTES - head.length))]);
      this.suffix = Buffer.alloc(0);
      this.keepSuffix([...this.parts, chunk.subarray(from, to)]);
      this.parts = [];
      this.held = 0;
      return;
    }
    const part = from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to);
    // A tail left waiting for its newline is copied: a view would keep the whole chunk alive,
    // lines already emitted or dropped from it included, for as long as the peer stalls.
    this.parts.push(from > 0 && to === chunk.length ? Buffer.from(part) : part);
    this.held += n;
  }

  /** The overflowing line's last bytes, with `pieces` (its next bytes, in order) added: a copy, never a view. */
  private keepSuffix(pieces: readonly Buffer[]): void {
    // only the ends that reach into the last SUFFIX_BYTES are copied: a line may be 64 MiB
    const tail: Buffer[] = [];
    let n = 0;
    for (let i = pieces.length - 1; i >= 0 && n < SUFFIX_BYTES; i--) {
      const piece = pieces[i]!;
      const take = Math.min(piece.length, SUFFIX_BYTES - n);
      tail.unshift(piece.subarray(piece.length - take));
      n += take;
    }
    if (n < SUFFIX_BYTES) tail.unshift(this.suffix.subarray(Math.max(0, this.suffix.length - (SUFFIX_BYTES - n))));
    this.suffix = Buffer.concat(tail);
  }

  private emit(): void {
    if (this.dropped > 0) {
      const size = this.dropped;
      const prefix = this.prefix ?? Buffer.alloc(0);
      const suffix =
        this.suffix.length > 0 && this.suffix[this.suffix.length - 1] === CR
          ? this.suffix.subarray(0, this.suffix.length - 1)
          : this.suffix;
      this.dropped = 0;
      this.prefix = undefined;
      this.suffix = Buffer.alloc(0);
      this.onLine({ bytes: Buffer.alloc(0), crlf: false, overflow: true, size, prefix, suffix });
      return;
    }
    let bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.held);
    this.parts = [];
    this.held = 0;
    const crlf = bytes.length > 0 && bytes[bytes.length - 1] === CR;
    if (crlf) bytes = bytes.subarray(0, bytes.length - 1);
    this.onLine({ bytes, crlf, overflow: false, size: bytes.length });
  }
}
