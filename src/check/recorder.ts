/**
 * A transport seen through: every message the server sends is kept (capped) with the method it
 * answers, so `check` can validate each against the revision's schema, and over stdio a line
 * that is not a JSON-RPC message at all (a log line) is caught as it passes.
 */
import type { Message, RequestId } from "../codec/message.js";
import type { Transport } from "../peer/transport.js";
import { observeTransport, type ConnectionsRecording } from "../recording/record-transport.js";

/** One message from the server: its JSON value, and the method it is or answers. */
export interface Received {
  readonly value: unknown;
  /** The method of a request or notification, or of the request a response answers; undefined when unknown. */
  readonly method: string | undefined;
  /** A response's place among the answers to its method in this session (1 for the first). */
  readonly page?: number;
}

/** The most messages, and bytes of them, kept per session: the rest are counted, not validated. */
const MAX_KEPT = 5000;
export const MAX_KEPT_BYTES = 32 * 1024 * 1024;
/** How much of a foreign line is kept to recognise it again. */
const FOREIGN_START = 200;

export class Recorder {
  readonly received: Received[] = [];
  /** Lines (stdio) that are not JSON-RPC messages: their start, for the finding's message. */
  readonly foreign: string[] = [];
  /** The start of every foreign line (capped), to tell the codec's defects about the same line. */
  private readonly foreignStarts = new Set<string>();
  count = 0;
  /** Messages past the cap: counted, not kept (nor validated). */
  dropped = 0;
  private keptBytes = 0;
  private readonly methods = new Map<RequestId, string>();
  private readonly answers = new Map<string, number>();

  /** Requests sent and not answered yet. */
  private readonly pending = new Set<RequestId>();

  /**
   * `record`: every connection also written to a recording (`check --record`). `onWait`: told of
   * each request sent (its method: what is now awaited) and, with null, when none is awaited.
   */
  constructor(
    private readonly stdio: boolean,
    private readonly record?: ConnectionsRecording,
    private readonly onWait?: (method: string | null) => void,
  ) {}

  /** `transport`, with every message both ways passing through this recorder on its way. */
  wrap(channel: Transport): Transport {
    return observeTransport(this.record ? this.record.wrap(channel) : channel, {
      received: (text) => this.incoming(text),
      sent: (text, message) => this.outgoing(message ?? text),
    });
  }

  /** True when `excerpt` (a defect's, cut at 1 KiB) starts a line that was not a JSON-RPC message. */
  isForeign(excerpt: string | undefined): boolean {
    return excerpt !== undefined && this.foreignStarts.has(excerpt.slice(0, FOREIGN_START));
  }

  private markForeign(text: string): void {
    if (!this.stdio) return;
    if (this.foreign.length < 20) this.foreign.push(text.slice(0, 200));
    if (this.foreignStarts.size < 10_000) this.foreignStarts.add(text.slice(0, FOREIGN_START));
  }

  /** The method a request with `id` asked for, as sent. */
  methodOf(id: RequestId): string | undefined {
    return this.methods.get(id);
  }

  private outgoing(sent: Message | readonly Message[] | string): void {
    let message: unknown = sent;
    if (typeof sent === "string") {
      try {
        message = JSON.parse(sent);
      } catch {
        return;
      }
    }
    for (const m of Array.isArray(message) ? message : [message]) {
      const o = m as { id?: unknown; method?: unknown };
      if ((typeof o.id === "string" || typeof o.id === "number") && typeof o.method === "string") {
        this.methods.set(o.id, o.method);
        if (this.onWait && this.pending.size < 1000) this.pending.add(o.id);
        this.onWait?.(o.method);
      }
    }
  }

  private answered(id: unknown): void {
    if (!this.onWait || (typeof id !== "string" && typeof id !== "number") || !this.pending.delete(id)) return;
    if (this.pending.size === 0) this.onWait(null);
  }

  private incoming(text: string): void {
    this.count++;
    // a message too large to keep is not parsed either: the codec has judged it already
    if (this.received.length >= MAX_KEPT || this.keptBytes + text.length > MAX_KEPT_BYTES) {
      this.dropped++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.markForeign(text);
      return;
    }
    if (this.stdio && !isJsonRpc(value)) {
      this.markForeign(text);
      return;
    }
    if (this.received.length >= MAX_KEPT || this.keptBytes + text.length > MAX_KEPT_BYTES) return;
    this.keptBytes += text.length;
    for (const m of Array.isArray(value) ? value : [value]) {
      const o = m as { id?: unknown; method?: unknown };
      const method =
        typeof o?.method === "string"
          ? o.method
          : typeof o?.id === "string" || typeof o?.id === "number"
            ? this.methods.get(o.id)
            : undefined;
      const answer = typeof o?.method !== "string" && method !== undefined;
      if (answer) this.answered(o.id);
      const page = answer ? (this.answers.get(method) ?? 0) + 1 : undefined;
      if (answer) this.answers.set(method, page!);
      this.received.push({ value: m, method, ...(page !== undefined ? { page } : {}) });
    }
  }

  /** The message kept that answers request `id`, if any. */
  answerTo(id: RequestId): Received | undefined {
    return this.received.find((r) => (r.value as { id?: unknown } | null)?.id === id && r.page !== undefined);
  }
}

/** A JSON value that is (or, as a batch, holds only) objects with `"jsonrpc": "2.0"`. */
function isJsonRpc(value: unknown): boolean {
  const one = (v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v) && (v as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(value) ? value.length > 0 && value.every(one) : one(value);
}
