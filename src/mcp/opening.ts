/**
 * The opening's own deadline, and what a person needs when it passes: which requests were sent
 * and when, and what (if anything) came back. A server that never answers fails here, at
 * `openTimeout`, with that evidence, instead of at a request's deadline with none.
 */
import type { Message } from "../codec/message.js";
import { ConnectionError, ConnectionErrorCode } from "../peer/errors.js";
import type { Transport, TransportSink } from "../peer/transport.js";
import { redact } from "../secrets/redact.js";

export const DEFAULT_OPEN_TIMEOUT = 30_000;

/** A request the opening sent, and how long after the start. */
export interface SentRequest {
  method: string;
  ms: number;
}

/**
 * `McpClient.connect` got no usable answer within `openTimeout`. `sent` names the opening's
 * requests, `received` counts the messages that came back (none answering them), `lastReceived`
 * is the last of them (cut to 200 characters), and a stdio server's stderr tail is in the message.
 */
export class OpeningTimeoutError extends ConnectionError {
  override readonly name = "OpeningTimeoutError";
  constructor(
    readonly timeoutMs: number,
    readonly sent: readonly SentRequest[],
    readonly received: number,
    readonly lastReceived: string | undefined,
    evidence: string | undefined,
  ) {
    const asked =
      sent.length === 0 ? "nothing sent" : `sent ${sent.map((s) => `${s.method} at ${s.ms} ms`).join(", ")}`;
    const came =
      received === 0
        ? "nothing came back"
        : `${received} message(s) came back, none an answer to them; the last: ${lastReceived}`;
    super(
      ConnectionErrorCode.OpeningTimeout,
      `the server did not open within ${timeoutMs} ms: ${asked}; ${came}${evidence ? `; ${evidence}` : ""}`,
    );
  }
}

/** Something a channel knows of the other side beyond its messages (a child's stderr tail). */
interface Evident {
  evidence?(): string | undefined;
}

/**
 * Watches the channels of one opening: the requests written on them and the messages read.
 * It is laid over each channel's `start` and `send` until `stop()`, after which the channel's
 * own `send` is back and the sink forwards without looking.
 */
export class OpeningWatch {
  readonly sent: SentRequest[] = [];
  received = 0;
  lastReceived: string | undefined;
  private watching = true;
  private readonly t0 = Date.now();
  private readonly restores: (() => void)[] = [];
  private latest: Transport | undefined;

  watch(transport: Transport): Transport {
    this.latest = transport;
    const start = transport.start;
    const send = transport.send;
    transport.start = (sink) => start.call(transport, this.sinkOver(sink));
    transport.send = (text, message, related) => {
      this.noteSent(text, message);
      return send.call(transport, text, message, related);
    };
    this.restores.push(() => {
      transport.send = send;
      transport.start = start;
    });
    return transport;
  }

  stop(): void {
    this.watching = false;
    for (const restore of this.restores) restore();
    this.restores.length = 0;
  }

  timedOut(timeoutMs: number): OpeningTimeoutError {
    const evidence = (this.latest as Evident | undefined)?.evidence?.();
    return new OpeningTimeoutError(timeoutMs, [...this.sent], this.received, this.lastReceived, evidence);
  }

  private noteSent(text: string, message: Message | readonly Message[] | undefined): void {
    if (!this.watching) return;
    let m = message;
    if (m === undefined) {
      try {
        m = JSON.parse(text) as Message;
      } catch {
        return;
      }
    }
    const method = !Array.isArray(m) ? (m as { method?: unknown; id?: unknown }) : undefined;
    if (typeof method?.method === "string" && method.id !== undefined)
      this.sent.push({ method: method.method, ms: Date.now() - this.t0 });
  }

  private sinkOver(sink: TransportSink): TransportSink {
    const message: TransportSink["message"] = (data, read) => {
      if (this.watching) {
        this.received++;
        const text = typeof data === "string" ? data : Buffer.from(data).toString("utf8");
        this.lastReceived = redact(text.length > 200 ? `${text.slice(0, 200)}…` : text);
      }
      sink.message(data, read);
    };
    const over: TransportSink = {
      message,
      defect: (d, answer) => sink.defect(d, answer),
      closed: (error) => sink.closed(error),
    };
    if (sink.decode) over.decode = (data) => sink.decode!(data);
    return over;
  }
}
