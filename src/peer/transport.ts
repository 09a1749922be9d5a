/**
 * What a peer needs from a channel. Transports (memory, stdio, HTTP, …) implement it; the peer
 * only ever sees framed message texts going in and out.
 */
import type { Defect } from "../codec/defects.js";
import type { RequestId } from "../codec/message.js";

export interface TransportSink {
  /** One framed message as it arrived. */
  message(data: string | Uint8Array): void;
  /** Something arrived that cannot be a message at all (an over-long line, a broken frame). */
  defect(defect: Defect): void;
  /** The channel ended; nothing more will arrive. */
  closed(error?: Error): void;
}

export interface Transport {
  /** Begins delivering incoming messages to `sink`. Called once. */
  start(sink: TransportSink): void;
  /**
   * Writes one message. Returns a promise only when the channel is congested, resolved once it
   * can take more (back-pressure); throws when the channel is closed.
   */
  send(text: string): void | Promise<void>;
  /**
   * Cancels a request by the channel's own means (Streamable HTTP closes the request's stream).
   * Returns false when the channel has none, and the peer sends `notifications/cancelled`.
   */
  cancel?(id: RequestId): boolean;
  close(): Promise<void>;
}
