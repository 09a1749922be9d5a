/**
 * mcp-wire/peer: the JSON-RPC engine (requests with deadlines, cancellation, progress, serving)
 * over any transport, and the transports that are not HTTP: an in-memory pair and
 * newline-delimited streams (stdio, pipes, sockets). See docs/library.md.
 */
export { Peer } from "../peer/peer.js";
export type {
  PeerOptions,
  RequestOptions,
  RequestContext,
  RequestHandler,
  NotificationHandler,
  Progress,
  DefectReport,
} from "../peer/peer.js";
export { isHttpTransport } from "../peer/transport.js";
export type { Transport, HttpTransport, TransportSink, DroppedAnswer, ReadMessage } from "../peer/transport.js";
export { createMemoryPair } from "../transport/memory.js";
export { StreamTransport } from "../transport/stream.js";
export type { StreamTransportOptions } from "../transport/stream.js";
