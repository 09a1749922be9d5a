/**
 * What a peer needs from a channel. Transports (memory, stdio, HTTP, …) implement it; the peer
 * only ever sees framed message texts going in and out.
 */
import type { Role } from "../codec/check.js";
import type { Decoded } from "../codec/decode.js";
import type { Defect } from "../codec/defects.js";
import type { Message, RequestId } from "../codec/message.js";
import type { Revision } from "../rules/revisions.js";

/**
 * A message a transport has decoded already (to route it), with the terms it was decoded
 * under: the peer takes it instead of reading the message again when its own terms are the same.
 */
export interface ReadMessage {
  readonly decoded: Decoded;
  readonly revision: Revision;
  /** Who sent it, as `decode` was told. */
  readonly role: Role | undefined;
  /** The size cap it was decoded with. */
  readonly maxBytes: number;
  /** The extensions it was decoded with (none when absent). */
  readonly extensions?: readonly string[];
}

export interface TransportSink {
  /**
   * One framed message as it arrived. `read`, when given, is this very data decoded (see
   * `ReadMessage`), so that it is not read a second time.
   */
  message(data: string | Uint8Array, read?: ReadMessage): void;
  /**
   * What the peer makes of `data` (its revision, role and cap), with no effect: for a transport
   * that must look into a message before handing it over (HTTP routes a body by whether it
   * answers the request sent), so the message is read once.
   */
  decode?(data: string | Uint8Array): ReadMessage;
  /**
   * Something arrived that cannot be a message at all (an over-long line, a broken frame).
   * `answer` says what is known of the message it was, when it answered a request: that
   * request then fails at once with a `MessageTooLargeError`.
   */
  defect(defect: Defect, answer?: DroppedAnswer): void;
  /** The channel ended; nothing more will arrive. */
  closed(error?: Error): void;
}

/** What a transport could still read of an answer it had to drop. */
export interface DroppedAnswer {
  id: RequestId;
  /** Its size in bytes, and the cap it passed. */
  size: number;
  limit: number;
}

/**
 * A channel, as small as a JSON-RPC channel can be: start delivering, send, close. Over a
 * stream, that is all there is; what only HTTP does is `HttpTransport`'s.
 */
export interface Transport {
  /** The largest message the channel delivers; the peer judges messages by the same cap. */
  readonly maxMessageBytes?: number;
  /** Begins delivering incoming messages to `sink`. Called once. */
  start(sink: TransportSink): void;
  /**
   * Writes one message (`message` is the same message, parsed, for channels that mirror parts
   * of it elsewhere, such as HTTP headers). Returns a promise when the write is not done at
   * once: the channel is congested (back-pressure) or, over HTTP, the exchange is under way. A
   * rejected promise fails the request the message carried; throws when the channel is closed.
   * `related` names the incoming request a message belongs to (its progress, a log line, a
   * request to the other side made while serving it): Streamable HTTP sends such a message on
   * that request's own response stream, since it has no other way back to the client.
   */
  send(text: string, message?: Message | readonly Message[], related?: RequestId): void | Promise<void>;
  close(): Promise<void>;
  /**
   * Closes the channel and ends what is behind it, as its transport says: a stdio server's
   * process gets its input closed, then SIGTERM, then SIGKILL. Resolves once it is gone (or,
   * for a process stuck in the kernel, after the last grace). A channel with nothing behind it
   * to end closes, or has no such method.
   */
  shutdown?(): Promise<void>;
}

/**
 * An HTTP channel: what the MCP client and the peer look for (`isHttpTransport`) beyond a plain
 * channel. Silence and failures read differently there (over a local stream, silence from a
 * server can mean a legacy server ignoring an unknown request; over HTTP it is an outage), and
 * the channel has means of its own: each is optional, as a server's side has none of them.
 */
export interface HttpTransport extends Transport {
  readonly kind: "http";
  /**
   * Cancels a request by the channel's own means (Streamable HTTP closes the request's stream).
   * Returns false when it has none, and the peer sends `notifications/cancelled`.
   */
  cancel?(id: RequestId): boolean;
  /** Extra headers for a message, set by the MCP client (the `Mcp-Param-*` mirror of tool parameters). */
  paramHeaders?: ((message: Message) => Record<string, string> | undefined) | undefined;
  /** Told the revision a legacy `initialize` settled on (HTTP sends it as a header from then on). */
  negotiated?(revision: Revision): void;
  /**
   * Opens the channel's way for the other side to reach this one unasked, where it needs opening
   * (a legacy Streamable HTTP session's GET stream): called once the session is open, by a
   * client that declared capabilities the server may call on (`roots`, `sampling`, `elicitation`)
   * or that listens for notifications. Resolves true once it is open, false if the server offers none.
   */
  openServerStream?(): Promise<boolean>;
}

/** Whether `transport` is an HTTP channel, with `HttpTransport`'s means. */
export function isHttpTransport(transport: Transport): transport is HttpTransport {
  return (transport as { kind?: unknown }).kind === "http";
}
