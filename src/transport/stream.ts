/**
 * Newline-delimited JSON-RPC over a pair of byte streams: MCP's stdio transport, and any
 * socket or pipe that reuses its framing.
 */
import type { Readable, Writable } from "node:stream";
import { defect } from "../codec/defects.js";
import { LineSplitter } from "../codec/lines.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import { ClosedError } from "../peer/errors.js";
import type { RequestId } from "../codec/message.js";
import type { Transport, TransportSink } from "../peer/transport.js";

export interface StreamTransportOptions {
  /**
   * Longest line accepted; longer ones are dropped and reported as `too_large`, and a request
   * they answer fails at once. Default 4 MiB.
   */
  maxLineBytes?: number;
  /**
   * Says why the streams ended on their own (a child process's exit status and stderr): the
   * channel's closing waits for it, and the error it gives is what pending requests fail with.
   */
  explainEnd?: () => Promise<Error | undefined>;
  /** What else is known of the other side, for an error to show (a child process's stderr tail). */
  evidence?: () => string | undefined;
  /** Ends what is behind the streams once they are closed (a child process): `shutdown()` waits for it. */
  endOther?: () => Promise<unknown>;
}

export class StreamTransport implements Transport {
  private sink: TransportSink | undefined;
  /** How the channel ended, when it ended before `start`: told to the sink as it starts. */
  private closedEarly: { why: Error | undefined } | undefined;
  private drained: Promise<void> | undefined;
  private isClosed = false;
  /** This side closed the channel: its end needs no explaining. */
  private closing = false;
  private readonly maxLineBytes: number;
  private readonly explainEnd: (() => Promise<Error | undefined>) | undefined;
  get maxMessageBytes(): number {
    return this.maxLineBytes;
  }

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: StreamTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_BYTES;
    this.explainEnd = options.explainEnd;
    this.describe = options.evidence;
    this.endOther = options.endOther;
  }

  private readonly endOther: (() => Promise<unknown>) | undefined;

  private readonly describe: (() => string | undefined) | undefined;

  /** What else is known of the other side (a child process's stderr tail), for an error message. */
  evidence(): string | undefined {
    return this.describe?.();
  }

  start(sink: TransportSink): void {
    this.sink = sink;
    // ended before anyone listened (a command that could not be started fails at once): said now
    if (this.closedEarly !== undefined) {
      const why = this.closedEarly.why;
      queueMicrotask(() => sink.closed(why));
      return;
    }
    const splitter = new LineSplitter(this.maxLineBytes, (line) => {
      if (line.overflow) {
        const head = line.prefix ? peekEnvelope(line.prefix) : {};
        const tail = line.suffix ? peekEnvelopeEnd(line.suffix) : {};
        const id = head.id ?? tail.id;
        const d = defect(
          "too_large",
          "",
          `a line of ${line.size} bytes, over the ${this.maxLineBytes}-byte limit: dropped`,
        );
        // only an answer fails a request: a request or notification names a method
        sink.defect(
          d,
          id !== undefined && !head.method && !tail.method
            ? { id, size: line.size, limit: this.maxLineBytes }
            : undefined,
        );
      } else if (line.bytes.length > 0) {
        sink.message(line.bytes);
      }
    });
    this.input.on("data", (chunk: Buffer | string) =>
      splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
    );
    this.input.once("end", () => {
      splitter.end();
      this.ended();
    });
    this.input.once("close", () => this.ended());
    this.input.once("error", (e) => this.ended(e));
    this.output.once("error", (e) => this.ended(e));
    this.output.once("close", () => this.ended());
  }

  send(text: string): void | Promise<void> {
    if (this.isClosed || this.output.destroyed || this.output.writableEnded)
      throw new ClosedError("the output stream is closed");
    if (this.output.write(text + "\n")) return;
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        this.drained = undefined;
        this.output.off("drain", done);
        this.output.off("close", done);
        resolve();
      };
      this.output.on("drain", done);
      this.output.on("close", done);
    });
    return this.drained;
  }

  /**
   * Ends the channel because of `error`, before the streams end on their own: what is behind
   * them failed in a way their end cannot tell (a process that could not be started).
   */
  fail(error: Error): void {
    this.ended(error);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.output.writableEnded && !this.output.destroyed) this.output.end();
    this.ended();
  }

  /** Closes the streams, then waits for what is behind them to end (see `endOther`). */
  async shutdown(): Promise<void> {
    await this.close();
    await this.endOther?.();
  }

  private ended(error?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const explain = this.explainEnd;
    if (error === undefined && !this.closing && explain !== undefined) {
      explain().then(
        (why) => this.tellClosed(why),
        () => this.tellClosed(undefined),
      );
      return;
    }
    this.tellClosed(error);
  }

  private tellClosed(why: Error | undefined): void {
    if (this.sink) this.sink.closed(why);
    else this.closedEarly = { why };
  }
}

/**
 * The top-level `id` in the first bytes of a JSON object, and whether a `method` member came
 * before the bytes ran out: enough to tell which request an over-long answer was for, without
 * parsing what was dropped. Strings are skipped whole, so an `"id"` inside a value never counts.
 */
export function peekEnvelope(bytes: Uint8Array): { id?: RequestId; method?: true } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const out: { id?: RequestId; method?: true } = {};
  let depth = 0;
  let i = 0;
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < text.length; j++) {
      if (text[j] === "\\") j++;
      else if (text[j] === '"') return j;
    }
    return -1;
  };
  const skipSpace = (from: number): number => {
    while (from < text.length && " \t\r\n".includes(text[from]!)) from++;
    return from;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(i);
      if (end === -1) break;
      const after = skipSpace(end + 1);
      if (depth === 1 && text[after] === ":") {
        const key = text.slice(i + 1, end);
        if (key === "method") out.method = true;
        if (key === "id") {
          const v = skipSpace(after + 1);
          if (text[v] === '"') {
            const vEnd = stringEnd(v);
            if (vEnd !== -1) {
              try {
                out.id = JSON.parse(text.slice(v, vEnd + 1)) as string;
              } catch {
                // not a JSON string: no id to read
              }
            }
          } else {
            const num = /^-?\d+(?=[\s,}])/.exec(text.slice(v, v + 32));
            if (num && Number.isSafeInteger(Number(num[0]))) out.id = Number(num[0]);
          }
        }
      }
      i = end + 1;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return out;
}

/**
 * The top-level `id` in the last bytes of a JSON object, and whether a `method` member is among
 * them: read backwards from the closing brace over the members whose values are strings,
 * numbers or literals, and no further than the first member that nests (`"result":{…}`), whose
 * inside cannot be told from its end. Enough for a writer that puts `id` last, as the official
 * SDKs do (`{"result":{…},"jsonrpc":"2.0","id":7}`).
 */
export function peekEnvelopeEnd(bytes: Uint8Array): { id?: RequestId; method?: true } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const out: { id?: RequestId; method?: true } = {};
  let i = text.length - 1;
  const skipSpace = () => {
    while (i >= 0 && " \t\r\n".includes(text[i]!)) i--;
  };
  /** The string that ends at `i` (its closing quote), or undefined when its start was cut off. */
  const stringBack = (): string | undefined => {
    const end = i;
    for (let j = end - 1; j >= 0; j--) {
      if (text[j] !== '"') continue;
      let slashes = 0;
      while (j - 1 - slashes >= 0 && text[j - 1 - slashes] === "\\") slashes++;
      if (slashes % 2 === 1) continue; // an escaped quote, inside the string
      // a quote at the very start may have lost its backslash where the bytes were cut
      if (j === 0) return undefined;
      i = j - 1;
      return text.slice(j, end + 1);
    }
    return undefined;
  };
  skipSpace();
  if (text[i] !== "}") return out;
  i--;
  for (;;) {
    skipSpace();
    let value: string | undefined;
    if (text[i] === '"') {
      value = stringBack();
    } else {
      const end = i + 1;
      while (i >= 0 && /[\w.+-]/.test(text[i]!)) i--;
      // a literal that runs into the start may have been cut
      value = i >= 0 && i + 1 < end ? text.slice(i + 1, end) : undefined;
    }
    // a value that nests, or the text's cut-off start: nothing before it can be read
    if (value === undefined) return out;
    skipSpace();
    if (text[i] !== ":") return out;
    i--;
    skipSpace();
    if (text[i] !== '"') return out;
    const key = stringBack();
    if (key === undefined) return out;
    if (key === '"method"') out.method = true;
    else if (key === '"id"') {
      if (value.startsWith('"')) {
        try {
          out.id = JSON.parse(value) as string;
        } catch {
          // not a JSON string: no id to read
        }
      } else if (/^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) {
        out.id = Number(value);
      }
    }
    skipSpace();
    if (text[i] !== ",") return out;
    i--;
  }
}
