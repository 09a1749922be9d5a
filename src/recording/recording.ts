/**
 * The record format, version 1: one file that `tap --log`, `check --record`, `gauntlet --record`
 * and `recordTransport` write, and that `lint`, `mock` and `replay` read.
 *
 * How a command writes a recording: open a `Writable`, make one `RecordingWriter` over it with
 * the header's facts (`transport`, and `revision`/`scenario` when known), then hand it each
 * message as it crossed — `writer.message({ from, no, line, kind, defects, conversation?,
 * http?, session?, sse? })`, where `line` is the codec's `Line` (the bytes exactly) — and each
 * HTTP exchange that carried no message (a 202, a DELETE, a GET that opened a stream, a 405)
 * with `writer.exchange({ from, http, conversation?, session? })`; what a stdio server saw of its
 * own end with `writer.event({ from, event, conversation? })`. Pass real session ids in
 * `session`: the writer turns them into `s1`, `s2`…, and every text goes through `redact`, so
 * neither a session id nor a secret reaches the file. `await writer.close()` at the end. Never
 * write records by hand: the reader (`readRecording`) and `lint` only know what the writer
 * writes.
 *
 * The lines, in order: a header `{"recording": 1, "tool": "mcp-wire", "version", "transport",
 * "revision"?, "scenario"?}`, then one record a line: `{at, from, no, line, base64?, crlf?,
 * overflow?, size?, kind, conversation?, http?, sse?, defects}` for a message, `{at, from,
 * conversation?, http}` (no `line`) for a bodiless exchange, and `{at, from, conversation?,
 * event}` for an event. A log without a header (written
 * before the format had one) is read as version 1, its transport inferred from its records.
 */
import type { Sender } from "../codec/conversation.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";

/** The one version this build writes and reads. */
export const RECORDING_VERSION = 1;

export type RecordedTransport = "stdio" | "streamable-http" | "http+sse" | "memory";

export const TRANSPORTS: readonly RecordedTransport[] = ["stdio", "streamable-http", "http+sse", "memory"];

export interface RecordingHeader {
  recording: number;
  tool: "mcp-wire";
  version: string;
  transport: RecordedTransport;
  revision?: string;
  scenario?: string;
}

/** The HTTP exchange that carried a message (or was the record, when it carried none). */
export interface HttpContext {
  method: string;
  path: string;
  /** The answer's status; absent on what the client sent, except on a bodiless request's record. */
  status?: number;
  /** The recorder's number for the HTTP exchange, so an answer finds the requests it closes. */
  exchange?: number;
  /** The request's `MCP-Protocol-Version` header: the revision of a conversation that opens without initialize. */
  protocolVersion?: string;
  /** The answer's media type (`application/json`, `text/event-stream`), lower case, without parameters. */
  contentType?: string;
  /** The session, as an alias (`s1`, `s2`…): never the real id. */
  session?: string;
  /**
   * What the request's other MCP headers said, for a recording a client is judged by (`gauntlet`):
   * `Mcp-Method`, `Mcp-Name` (decoded), `Last-Event-ID`, and whether it carried `Mcp-Session-Id`.
   */
  mcpMethod?: string;
  mcpName?: string;
  lastEventId?: string;
  sessionHeader?: boolean;
}

/** How a message came in an event stream. */
export interface SseContext {
  id?: string;
  retry?: number;
}

/** One message record, as read back. */
export interface MessageRecord {
  type: "message";
  from: Sender;
  no: number;
  /** The text as written (`line`); empty on an overflow. */
  text: string;
  /** The bytes, when they were not UTF-8 and `text` could not hold them. */
  base64?: string;
  crlf: boolean;
  /** The size of a line over the recorder's cap, whose bytes were never kept. */
  overflow?: number;
  kind?: string;
  conversation?: string;
  http?: HttpContext;
  sse?: SseContext;
  defects: readonly Defect[];
  /** When it crossed (`at`), in milliseconds since the epoch, when the record says. */
  at?: number;
}

/** An HTTP exchange that carried no JSON-RPC message. */
export interface ExchangeRecord {
  type: "exchange";
  from: Sender;
  conversation?: string;
  http: HttpContext;
  /** When it crossed (`at`), in milliseconds since the epoch, when the record says. */
  at?: number;
}

/**
 * What a stdio server saw of its own end, for `gauntlet`'s `shutdown`: `stdin_end`,
 * `signal:SIGTERM`, `exit`. Players skip it: it carries no message.
 */
export interface EventRecord {
  type: "event";
  from: Sender;
  conversation?: string;
  event: string;
  http?: undefined;
  /** When it happened (`at`), in milliseconds since the epoch, when the record says. */
  at?: number;
}

export type RecordingLine =
  | { type: "header"; header: RecordingHeader }
  | MessageRecord
  | ExchangeRecord
  | EventRecord
  /** A JSON object that is none of the above: a message of a plain capture, or something else. */
  | { type: "other" };

const EMPTY = Buffer.alloc(0);

function asHttp(v: unknown): HttpContext | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const h = v as Record<string, unknown>;
  if (typeof h.method !== "string" || typeof h.path !== "string") return undefined;
  const out: HttpContext = { method: h.method, path: h.path };
  if (typeof h.status === "number") out.status = h.status;
  if (typeof h.exchange === "number") out.exchange = h.exchange;
  if (typeof h.protocolVersion === "string") out.protocolVersion = h.protocolVersion;
  if (typeof h.contentType === "string") out.contentType = h.contentType;
  if (typeof h.session === "string") out.session = h.session;
  if (typeof h.mcpMethod === "string") out.mcpMethod = h.mcpMethod;
  if (typeof h.mcpName === "string") out.mcpName = h.mcpName;
  if (typeof h.lastEventId === "string") out.lastEventId = h.lastEventId;
  if (h.sessionHeader === true) out.sessionHeader = true;
  return out;
}

function asSse(v: unknown): SseContext | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const s = v as Record<string, unknown>;
  const out: SseContext = {};
  if (typeof s.id === "string") out.id = s.id;
  if (typeof s.retry === "number") out.retry = s.retry;
  return out;
}

/** Whether `v` is a header line: it has a `recording` member and names mcp-wire. */
export function isHeader(v: Record<string, unknown>): boolean {
  return v.recording !== undefined && v.tool === "mcp-wire" && v.jsonrpc === undefined;
}

/**
 * What one parsed line of a recording is. A header is returned whatever its version: the
 * caller decides whether it knows it. A JSON-RPC message (`jsonrpc` present) is never a record.
 */
export function recordOf(value: unknown): RecordingLine {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { type: "other" };
  const v = value as Record<string, unknown>;
  if (isHeader(v)) return { type: "header", header: v as unknown as RecordingHeader };
  if ((v.from !== "client" && v.from !== "server") || v.jsonrpc !== undefined) return { type: "other" };
  const from: Sender = v.from;
  const http = asHttp(v.http);
  const conversation = typeof v.conversation === "string" ? v.conversation : undefined;
  const parsed = typeof v.at === "string" ? Date.parse(v.at) : NaN;
  const at = Number.isNaN(parsed) ? {} : { at: parsed };
  if (v.line === undefined) {
    if (!http && typeof v.event === "string")
      return { type: "event", from, event: v.event, ...(conversation !== undefined ? { conversation } : {}), ...at };
    if (!http) return { type: "other" };
    return { type: "exchange", from, http, ...(conversation !== undefined ? { conversation } : {}), ...at };
  }
  if (typeof v.line !== "string") return { type: "other" };
  const r: MessageRecord = {
    type: "message",
    from,
    no: typeof v.no === "number" ? v.no : 0,
    text: v.line,
    crlf: v.crlf === true,
    defects: Array.isArray(v.defects) ? (v.defects as Defect[]) : [],
    ...at,
  };
  if (typeof v.base64 === "string") r.base64 = v.base64;
  if (v.overflow === true && typeof v.size === "number") r.overflow = v.size;
  if (typeof v.kind === "string") r.kind = v.kind;
  if (conversation !== undefined) r.conversation = conversation;
  if (http) r.http = http;
  const sse = asSse(v.sse);
  if (sse) r.sse = sse;
  return r;
}

/**
 * The line a message record holds, exactly as it crossed, and the text to decode: a string when
 * it is one (a lone surrogate must reach JSON.parse as it was), else the bytes.
 */
export function recordedLine(r: MessageRecord): { line: Line; text: string | Buffer } {
  if (r.overflow !== undefined)
    return { line: { bytes: EMPTY, crlf: r.crlf, overflow: true, size: r.overflow }, text: "" };
  const bytes = r.base64 !== undefined ? Buffer.from(r.base64, "base64") : undefined;
  return {
    line: {
      bytes: bytes ?? Buffer.from(r.text, "utf8"),
      crlf: r.crlf,
      overflow: false,
      size: bytes?.length ?? r.text.length,
    },
    text: bytes ?? r.text,
  };
}
