/**
 * The one writer of recordings (see recording.ts for the format and how to use it). It never
 * holds up the traffic it records: when the file falls behind by more than its backlog, records
 * are dropped and counted instead of waited for.
 */
import { isUtf8 } from "node:buffer";
import type { Writable } from "node:stream";
import type { Sender } from "../codec/conversation.js";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { redact } from "../secrets/redact.js";
import { VERSION } from "../version.js";
import { RECORDING_VERSION, type HttpContext, type RecordedTransport, type SseContext } from "./recording.js";

/** A message as it crossed, for the writer: its bytes as read (`line`), or its `text`. */
export type MessageToRecord = MessageFacts & ({ line: Line; text?: undefined } | { text: string; line?: undefined });

interface MessageFacts {
  from: Sender;
  /** The line (stdio) or message (HTTP) number in its direction, from 1. */
  no: number;
  kind: string;
  defects: readonly Defect[];
  conversation?: string;
  http?: HttpContext;
  /** The real session id of the exchange: written as its alias, never as itself. */
  session?: string;
  sse?: SseContext;
  /** When it crossed (ms since the epoch), if not now: judging comes after, and on a busy machine well after. */
  at?: number;
}

/** An HTTP exchange that carried no message: a bodiless request (with its answer's status) or a bodiless answer. */
export interface ExchangeToRecord {
  from: Sender;
  http: HttpContext;
  conversation?: string;
  session?: string;
}

export interface RecordingWriterOptions {
  transport: RecordedTransport;
  revision?: string;
  scenario?: string;
  /** How far the file may fall behind, in bytes, before records are dropped (and counted). Default 64 MiB. */
  maxBacklog?: number;
  /** The file already holds a header (a restarted process appends): none is written. */
  append?: boolean;
}

/** Sessions aliased at most; past it the oldest alias is forgotten (a later use gets a new one). */
const MAX_SESSIONS = 100_000;

export class RecordingWriter {
  /** Records left out because the file fell behind. */
  dropped = 0;
  private readonly aliases = new Map<string, string>();
  private sessions = 0;
  private readonly maxBacklog: number;

  constructor(
    private readonly out: Writable,
    options: RecordingWriterOptions,
  ) {
    this.maxBacklog = options.maxBacklog ?? 64 * 1024 * 1024;
    // a file appended to (a restarted server's) has its header already
    if (options.append) return;
    const header: Record<string, unknown> = {
      recording: RECORDING_VERSION,
      tool: "mcp-wire",
      version: VERSION,
      transport: options.transport,
    };
    if (options.revision !== undefined) header.revision = options.revision;
    if (options.scenario !== undefined) header.scenario = redact(options.scenario);
    out.write(JSON.stringify(header) + "\n");
  }

  /** `s1`, `s2`…: the alias of a real session id, the same each time it is seen. */
  alias(session: string): string {
    let a = this.aliases.get(session);
    if (a === undefined) {
      a = `s${++this.sessions}`;
      if (this.aliases.size >= MAX_SESSIONS) this.aliases.delete(this.aliases.keys().next().value!);
      this.aliases.set(session, a);
    }
    return a;
  }

  message(m: MessageToRecord): void {
    this.write(messageRecord(m, this.http(m.http, m.session)));
  }

  exchange(e: ExchangeToRecord): void {
    const r: Record<string, unknown> = { at: new Date().toISOString(), from: e.from };
    if (e.conversation !== undefined) r.conversation = e.conversation;
    r.http = this.http(e.http, e.session);
    this.write(JSON.stringify(r) + "\n");
  }

  /** What a stdio server saw of its own end (see `EventRecord`). */
  event(e: { from: Sender; event: string; conversation?: string }): void {
    const r: Record<string, unknown> = { at: new Date().toISOString(), from: e.from };
    if (e.conversation !== undefined) r.conversation = e.conversation;
    r.event = e.event;
    this.write(JSON.stringify(r) + "\n");
  }

  /** Ends the file once everything is written; never rejects. */
  async close(): Promise<void> {
    await this.finish();
  }

  /** `close`, resolving with the error a write met, when one did. */
  finish(): Promise<Error | undefined> {
    const out = this.out;
    if (out.writableEnded) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      out.once("error", (e) => resolve(e));
      // a failed write reaches this callback before the stream's `error` event
      out.end((e?: Error | null) => resolve(e ?? undefined));
    });
  }

  private write(record: string): void {
    if (this.out.writableLength > this.maxBacklog) this.dropped++;
    else this.out.write(record);
  }

  /** The HTTP context as written: the path redacted and its HTTP+SSE `sessionId` aliased, the session as its alias. */
  private http(http: HttpContext | undefined, session: string | undefined): HttpContext | undefined {
    if (!http) return undefined;
    const out: HttpContext = { ...http, path: this.path(http.path) };
    delete out.session;
    if (session !== undefined) out.session = this.alias(session);
    return out;
  }

  private path(path: string): string {
    const q = path.indexOf("?");
    if (q === -1 || !/[?&]sessionId=/.test(path)) return redact(path);
    const params = new URLSearchParams(path.slice(q + 1));
    const id = params.get("sessionId");
    if (id !== null) params.set("sessionId", this.alias(id));
    return redact(`${path.slice(0, q)}?${params.toString()}`);
  }
}

/**
 * `line` holds the text exactly, so `mcp-wire lint` judges it again; bytes a string cannot hold
 * (not UTF-8) go in `base64` too, and a line over the cap, whose bytes were never kept, is
 * `overflow` with its `size`. Secrets (a URL's password, a token in a query) never reach the
 * file; what `redact` changes stays inside JSON strings, so lint still judges the same message.
 */
function messageRecord(m: MessageToRecord, http: HttpContext | undefined): string {
  const r: Record<string, unknown> = { at: new Date(m.at ?? Date.now()).toISOString(), from: m.from, no: m.no };
  if (m.line === undefined) {
    // a sender's own text, or one decoded already: a string that JSON.stringify or a UTF-8
    // decoder made is well-formed, so its bytes are what its UTF-8 encoding gives, and a large
    // message is not turned into bytes and back only to be written
    r.line = redact(m.text);
  } else if (m.line.overflow) {
    r.line = "";
    r.overflow = true;
    r.size = m.line.size;
  } else {
    r.line = redact(m.line.bytes.toString("utf8"));
    if (!isUtf8(m.line.bytes)) r.base64 = m.line.bytes.toString("base64");
  }
  if (m.line?.crlf) r.crlf = true;
  r.kind = m.kind;
  if (m.conversation !== undefined) r.conversation = m.conversation;
  if (http) r.http = http;
  if (m.sse && (m.sse.id !== undefined || m.sse.retry !== undefined)) r.sse = m.sse;
  r.defects = m.defects;
  return JSON.stringify(r) + "\n";
}
