/**
 * Newline-delimited JSON-RPC over a pair of byte streams: MCP's stdio transport, and any
 * socket or pipe that reuses its framing.
 */
import type { Readable, Writable } from "node:stream";
import { defect } from "../codec/defects.js";
import { LineSplitter } from "../codec/lines.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import { ClosedError } from "../peer/errors.js";
import type { Transport, TransportSink } from "../peer/transport.js";

export interface StreamTransportOptions {
  /** Longest line accepted; longer ones are dropped and reported as `too_large`. Default 4 MiB. */
  maxLineBytes?: number;
}

export class StreamTransport implements Transport {
  private sink: TransportSink | undefined;
  private drained: Promise<void> | undefined;
  private isClosed = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: StreamTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  }

  start(sink: TransportSink): void {
    this.sink = sink;
    const splitter = new LineSplitter(this.maxLineBytes, (line) => {
      if (line.overflow) {
        sink.defect(defect("too_large", "", `a line of ${line.size} bytes, over the ${this.maxLineBytes}-byte limit: dropped`));
      } else if (line.bytes.length > 0) {
        sink.message(line.bytes);
      }
    });
    this.input.on("data", (chunk: Buffer | string) => splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
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
    if (this.isClosed || this.output.destroyed || this.output.writableEnded) throw new ClosedError("the output stream is closed");
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

  async close(): Promise<void> {
    if (!this.output.writableEnded && !this.output.destroyed) this.output.end();
    this.ended();
  }

  private ended(error?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.sink?.closed(error);
  }
}
