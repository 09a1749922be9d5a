/**
 * Recording any of the library's transports: every message both ways written as a record, as
 * `tap --log` writes them, while the transport works as before. `observeTransport` is the seeing
 * through alone, for a caller that keeps what it sees itself (`check`).
 */
import { createWriteStream, openSync } from "node:fs";
import type { Sender } from "../codec/conversation.js";
import type { Message, RequestId } from "../codec/message.js";
import type { Transport } from "../peer/transport.js";
import { isHttpTransport } from "../peer/transport.js";
import { StreamTransport } from "../transport/stream.js";
import { RecordingWriteError } from "./errors.js";
import type { RecordedTransport } from "./recording.js";
import { RecordingWriter } from "./writer.js";

/** What an observer is shown: each message's text, as it went out or came in. */
export interface TransportObserver {
  sent(text: string, message?: Message | readonly Message[]): void;
  received(text: string): void;
  /** The transport was closed by its user. */
  closed?(): void | Promise<void>;
}

/** `transport`, with every message both ways shown to `observer` on its way. */
export function observeTransport(transport: Transport, observer: TransportObserver): Transport {
  const wrapped: Transport = {
    start: (sink) =>
      transport.start({
        ...sink,
        message: (data, read) => {
          observer.received(
            typeof data === "string"
              ? data
              : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8"),
          );
          sink.message(data, read);
        },
        defect: (d, answer) => sink.defect(d, answer),
        closed: (e) => sink.closed(e),
      }),
    send: (text: string, message?: Message | readonly Message[], related?: RequestId) => {
      observer.sent(text, message);
      return transport.send(text, message, related);
    },
    close: async () => {
      await transport.close();
      await observer.closed?.();
    },
  };
  // the optional parts the client looks for, as the channel has them (bound to it)
  for (const key of [
    "kind",
    "cancel",
    "paramHeaders",
    "negotiated",
    "openServerStream",
    "maxMessageBytes",
    "shutdown",
  ] as const) {
    const value = (transport as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value === "function")
      Object.defineProperty(wrapped, key, {
        value: (value as (...a: unknown[]) => unknown).bind(transport),
        enumerable: true,
        writable: true,
      });
    else
      Object.defineProperty(wrapped, key, {
        get: () => (transport as unknown as Record<string, unknown>)[key],
        set: (v) => ((transport as unknown as Record<string, unknown>)[key] = v),
        enumerable: true,
      });
  }
  return wrapped;
}

/** A JSON-RPC message's kind, as the record names it, read from its shape alone. */
function kindOf(text: string): string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return "invalid";
  }
  if (Array.isArray(v)) return "batch";
  if (typeof v !== "object" || v === null) return "invalid";
  const m = v as Record<string, unknown>;
  if (typeof m.method === "string") return m.id === undefined ? "notification" : "request";
  return m.error !== undefined ? "error" : m.result !== undefined ? "result" : "invalid";
}

/** Writes each message of a channel to a `RecordingWriter`, numbered per direction. */
class ChannelRecorder implements TransportObserver {
  private readonly no: Record<Sender, number> = { client: 0, server: 0 };

  constructor(
    readonly writer: RecordingWriter,
    /** Which side the observed transport is: what it sends comes from that side. */
    private readonly side: Sender = "client",
    private readonly conversation?: string,
  ) {}

  sent(text: string): void {
    this.write(this.side, text);
  }

  received(text: string): void {
    this.write(this.side === "client" ? "server" : "client", text);
  }

  private write(from: Sender, text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.writer.message({
      from,
      no: ++this.no[from],
      line: { bytes, crlf: false, overflow: false, size: bytes.length },
      kind: kindOf(text),
      defects: [],
      ...(this.conversation !== undefined ? { conversation: this.conversation } : {}),
    });
  }
}

export interface RecordTransportOptions {
  /** The side `transport` is. Default "client". */
  side?: Sender;
  /** The header's transport; default read from the transport (HTTP, a stream, else an in-process pair). */
  transport?: RecordedTransport;
  revision?: string;
  scenario?: string;
}

/**
 * `transport`, recording every message to `file` (created, or emptied) in the record format
 * `tap --log` writes; closing it closes the file. The file is opened before this returns: one
 * that cannot be written (a folder, a missing folder, no permission) throws a
 * `RecordingWriteError` at once, and a write that fails later rejects `close()` with one.
 */
export function recordTransport(transport: Transport, file: string, options: RecordTransportOptions = {}): Transport {
  const kind: RecordedTransport =
    options.transport ??
    (isHttpTransport(transport) ? "streamable-http" : transport instanceof StreamTransport ? "stdio" : "memory");
  let fd: number;
  try {
    fd = openSync(file, "w");
  } catch (e) {
    throw RecordingWriteError.of(file, e, true);
  }
  const out = createWriteStream("", { fd });
  // the traffic goes on (the writer never holds it up); the failure is the answer of close()
  let failed: RecordingWriteError | undefined;
  out.on("error", (e) => (failed ??= RecordingWriteError.of(file, e, false)));
  const writer = new RecordingWriter(out, {
    transport: kind,
    ...(options.revision !== undefined ? { revision: options.revision } : {}),
    ...(options.scenario !== undefined ? { scenario: options.scenario } : {}),
  });
  const recorder = new ChannelRecorder(writer, options.side ?? "client");
  return observeTransport(transport, {
    sent: (text) => recorder.sent(text),
    received: (text) => recorder.received(text),
    closed: async () => {
      const error = await writer.finish();
      failed ??= error ? RecordingWriteError.of(file, error, false) : undefined;
      if (failed) throw failed;
    },
  });
}

/**
 * One recording of every connection a command opens (`check --record`): each transport it wraps
 * is a conversation of its own (`c1`, `c2`…), as a new server process or HTTP session is.
 */
export class ConnectionsRecording {
  private opened = 0;

  constructor(readonly writer: RecordingWriter) {}

  wrap(transport: Transport): Transport {
    const recorder = new ChannelRecorder(this.writer, "client", `c${++this.opened}`);
    return observeTransport(transport, recorder);
  }
}
