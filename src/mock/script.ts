/**
 * A recording read as a script to play: its conversations, each a list of turns. A turn is a
 * request the client sent (or a notification), with the server's answer and what the server
 * sent around it: its notifications and requests before the answer (on the answer's stream, or
 * between the request and the answer on stdio) and after it, until the client spoke again. The
 * answers stay text until they are played; only the client's side is read for matching.
 */
import type { RequestId } from "../codec/message.js";
import { RecordingError } from "../recording/errors.js";
import { open, stat, type FileHandle } from "node:fs/promises";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINE,
  readRecording,
  type ReadLimits,
  type Recorded,
} from "../recording/reader.js";
import type { RecordingHeader, SseContext } from "../recording/recording.js";
import { canonical } from "./match.js";

/** Something the server sent, as recorded, to send again. */
export interface Played {
  /** The message's text as recorded. */
  text: string;
  /** A request of the server's own (`sampling/createMessage`, `roots/list`): sent with a fresh id and waited on. */
  request?: string;
  /** The client's recorded answer to that request, for `replay`. */
  reply?: string;
  /** The line of the file it was read from, for `replay --update`. */
  lineNo?: number;
  /** How long after the message before it the server sent it, in ms (capped): a play keeps the server's pace. */
  gap?: number;
  /** The HTTP exchange it came in, and how. */
  exchange?: number;
  sse?: SseContext;
}

export interface Turn {
  kind: "request" | "notification";
  method: string;
  /** The request as sent, for `replay`. */
  text: string;
  id?: RequestId;
  /** Canonical JSON of the params without `_meta`: what matching compares. */
  key: string;
  /** The recorded params hold a redacted value, which matches any string. */
  wild: boolean;
  answer?: Played;
  /** The answer is an error. */
  error: boolean;
  before: Played[];
  after: Played[];
  /** How it went over HTTP: the answer's status and content type, the session it was in. */
  http?: { exchange?: number; status?: number; contentType?: string; session?: string };
  /** Over HTTP, the status a bodiless answer (a 202) had. */
  bodilessStatus?: number;
  /** The client spoke again after it in its conversation: what the server sent after it is all read. */
  closed?: boolean;
}

export interface ScriptConversation {
  id: string;
  turns: Turn[];
  /** A GET stream was opened in it (and answered with this status). */
  getStream?: number;
  /** The answer to DELETE. */
  deleteStatus?: number;
}

export interface Script {
  file: string;
  header: RecordingHeader;
  /** The conversations with a request of the client's, in the file's order: all of them once `complete`. */
  conversations: ScriptConversation[];
  /**
   * HTTP+SSE, whatever the header says (a tap in front of an HTTP server learns which transport
   * it is only from the traffic): the POSTs went to an endpoint naming its session.
   */
  legacy: boolean;
  /** The path of the first POST, where the mock takes its own. */
  postPath?: string;
  /** The whole file has been read: what is not in `conversations` now is not in the recording. */
  complete: boolean;
  /** Resolves once more of the file has been read (or all of it); rejects with the `RecordingError` the rest of the file holds. */
  more(): Promise<void>;
}

/** Whether a turn is all read: answered (or a notification) and closed, or the file read to its end. */
export function settled(script: Script, turn: Turn): boolean {
  return script.complete || (turn.closed === true && (turn.kind === "notification" || turn.answer !== undefined));
}

/** Messages the client sent with the same id while one was still open, per conversation: a recording that cannot be played. */
class Builder {
  readonly conversations = new Map<string, ScriptConversation>();
  /** The conversations holding a request of the client's, in the order their first turn came. */
  readonly playable: ScriptConversation[] = [];
  private readonly state = new Map<
    string,
    {
      open: Map<string, Turn>;
      used: Set<string>;
      anchor?: Turn;
      serverRequests: Map<string, Played>;
      at?: number;
      unclosed: Turn[];
    }
  >();

  constructor(private readonly file: string) {}

  add(r: Recorded, lineNo: number): void {
    const cid = r.conversation ?? "";
    let c = this.conversations.get(cid);
    if (!c) {
      c = { id: cid, turns: [] };
      this.conversations.set(cid, c);
      this.state.set(cid, { open: new Map(), used: new Set(), serverRequests: new Map(), unclosed: [] });
    }
    const st = this.state.get(cid)!;
    if (r.type === "exchange") return this.exchange(c, st, r);
    if (r.type === "event") return;
    const before = st.at;
    if (r.at !== undefined) st.at = r.at;
    if (r.overflow !== undefined || r.base64 !== undefined) return; // bytes never kept, or not text: nothing to play
    let value: unknown;
    try {
      value = JSON.parse(r.text);
    } catch {
      return;
    }
    for (const m of Array.isArray(value) ? value : [value]) {
      if (typeof m !== "object" || m === null) continue;
      const text = Array.isArray(value) ? JSON.stringify(m) : r.text;
      if (r.from === "client") this.client(c, st, m as Record<string, unknown>, text, r, lineNo);
      else this.server(st, m as Record<string, unknown>, text, r, gapOf(before, r.at), lineNo);
    }
  }

  private exchange(c: ScriptConversation, st: { anchor?: Turn }, r: Extract<Recorded, { type: "exchange" }>): void {
    const { method, status } = r.http;
    if (r.from === "client" && method === "GET" && status !== undefined) c.getStream = status;
    else if (r.from === "client" && method === "DELETE" && status !== undefined) c.deleteStatus = status;
    else if (r.from === "server" && status !== undefined && st.anchor && st.anchor.http?.exchange === r.http.exchange)
      st.anchor.bodilessStatus = status;
  }

  private client(
    c: ScriptConversation,
    st: {
      open: Map<string, Turn>;
      used: Set<string>;
      anchor?: Turn;
      serverRequests: Map<string, Played>;
      unclosed: Turn[];
    },
    m: Record<string, unknown>,
    text: string,
    r: Extract<Recorded, { type: "message" }>,
    lineNo: number,
  ): void {
    if (typeof m.method !== "string") {
      // the client's answer to a request of the server's
      const p = st.serverRequests.get(idKey(m.id));
      if (p) p.reply = text;
      return;
    }
    const params = (m.params ?? {}) as Record<string, unknown>;
    const key = canonical(params);
    const turn: Turn = {
      kind: m.id === undefined ? "notification" : "request",
      method: m.method,
      text,
      key,
      wild: key.includes("<redacted>"),
      error: false,
      before: [],
      after: [],
    };
    if (r.http) {
      turn.http = {};
      if (r.http.exchange !== undefined) turn.http.exchange = r.http.exchange;
      if (r.http.session !== undefined) turn.http.session = r.http.session;
    }
    if (turn.kind === "request") {
      const k = idKey(m.id);
      if (st.used.has(k))
        throw new RecordingError(
          "id_collision",
          this.file,
          `the client sent request id ${JSON.stringify(m.id)} twice in one conversation${c.id ? ` (${c.id})` : ""}: answers cannot be told apart`,
          lineNo,
        );
      st.used.add(k);
      turn.id = m.id as RequestId;
      st.open.set(k, turn);
    }
    for (const t of st.unclosed) t.closed = true;
    st.unclosed = [turn];
    c.turns.push(turn);
    if (c.turns.length === 1) this.playable.push(c);
    st.anchor = turn;
  }

  private server(
    st: { open: Map<string, Turn>; anchor?: Turn; serverRequests: Map<string, Played> },
    m: Record<string, unknown>,
    text: string,
    r: Extract<Recorded, { type: "message" }>,
    gap: number | undefined,
    lineNo: number,
  ): void {
    const played: Played = { text, lineNo };
    if (gap !== undefined && gap > 0) played.gap = gap;
    if (r.http?.exchange !== undefined) played.exchange = r.http.exchange;
    if (r.sse) played.sse = r.sse;
    if (typeof m.method !== "string") {
      const turn = st.open.get(idKey(m.id));
      if (!turn) return;
      st.open.delete(idKey(m.id));
      turn.answer = played;
      turn.error = m.error !== undefined;
      turn.http ??= {};
      if (r.http?.status !== undefined) turn.http.status = r.http.status;
      if (r.http?.contentType !== undefined) turn.http.contentType = r.http.contentType;
      return;
    }
    if (m.id !== undefined) {
      played.request = m.method;
      st.serverRequests.set(idKey(m.id), played);
    }
    this.owner(st, m, r)?.[0].push(played);
  }

  /** Where a server's own message goes: the request it serves (its stream, its progress token), else the client's last message. */
  private owner(
    st: { open: Map<string, Turn>; anchor?: Turn },
    m: Record<string, unknown>,
    r: Extract<Recorded, { type: "message" }>,
  ): [Played[]] | undefined {
    const token = ((m.params as Record<string, unknown> | undefined)?.progressToken ?? undefined) as unknown;
    for (const turn of st.open.values()) {
      if (r.http?.exchange !== undefined && turn.http?.exchange === r.http.exchange) return [turn.before];
      if (token !== undefined && progressTokenOf(turn) === JSON.stringify(token)) return [turn.before];
    }
    const a = st.anchor;
    if (!a) return undefined;
    return [a.answer || a.kind === "notification" ? a.after : a.before];
  }
}

/** The longest pause a play keeps: a server that took minutes is not waited on for minutes. */
const MAX_GAP_MS = 200;

function gapOf(before: number | undefined, at: number | undefined): number | undefined {
  if (before === undefined || at === undefined) return undefined;
  return Math.min(Math.max(at - before, 0), MAX_GAP_MS);
}

function progressTokenOf(turn: Turn): string | undefined {
  const m = /"progressToken":("[^"]*"|-?\d+)/.exec(turn.text);
  return m ? m[1] : undefined;
}

function idKey(id: unknown): string {
  return typeof id === "string" ? `s${id}` : `n${String(id)}`;
}

/**
 * Opens `file` as a script that goes on reading in the background: it resolves once the file is
 * known to be a recording (its first lines are records, its last line is whole, it is no FIFO)
 * and its first conversation can be played, so a mock answers before a long file is all read.
 * What the rest of the file holds wrong (an invalid line, records out of order, colliding ids)
 * makes `more()` reject with its `RecordingError`.
 */
export async function openScript(file: string, limits: ReadLimits = {}): Promise<Script> {
  await refuseTruncated(file, limits);
  const b = new Builder(file);
  // a log written before the header existed has its transport inferred at the end: it is read whole first
  let headed = false;
  let wake: (() => void)[] = [];
  let failure: unknown;
  const script: Script = {
    file,
    header: { recording: 1, tool: "mcp-wire", version: "", transport: "stdio" },
    conversations: b.playable,
    legacy: false,
    complete: false,
    more: () =>
      failure !== undefined
        ? Promise.reject(failure)
        : script.complete
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) =>
              wake.push(() => (failure !== undefined ? reject(failure) : resolve())),
            ),
  };
  const progressed = () => {
    const waiting = wake;
    wake = [];
    for (const w of waiting) w();
  };
  const read = readRecording(
    file,
    (r, n) => {
      if (r.http?.method === "POST") {
        script.postPath ??= r.http.path.split("?")[0]!;
        if (/[?&]sessionId=/.test(r.http.path)) script.legacy = true;
      }
      b.add(r, n);
    },
    limits,
    progressed,
    (header) => {
      script.header = header;
      headed = true;
      if (header.transport === "http+sse") script.legacy = true;
    },
  ).then(({ header }) => {
    script.header = header;
    if (header.transport === "http+sse") script.legacy = true;
    if (b.playable.length === 0)
      throw new RecordingError("not_a_recording", file, "it holds no request of a client's: nothing to play");
    script.complete = true;
  });
  read.catch((e: unknown) => (failure = e)).finally(progressed);
  // playable: a conversation to play and, over HTTP, the path its POSTs went to
  const stream = () => script.header.transport === "stdio" || script.header.transport === "memory";
  while (!script.complete && !(headed && b.playable.length > 0 && (stream() || script.postPath !== undefined)))
    await script.more();
  return script;
}

/**
 * A recording whose last line is cut off is refused before anything is played: only its tail is
 * read (a line at most), and the whole file only to name the line when it is cut.
 */
async function refuseTruncated(file: string, limits: ReadLimits): Promise<void> {
  let handle: FileHandle;
  try {
    const s = await stat(file);
    // the reader names what is wrong with a file that is not a regular one, or too large
    if (!s.isFile() || s.size === 0 || s.size > (limits.maxBytes ?? DEFAULT_MAX_BYTES)) return;
    handle = await open(file, "r");
  } catch {
    return; // the reader says why it cannot be read
  }
  try {
    const size = (await handle.stat()).size;
    const maxLine = limits.maxLineBytes ?? DEFAULT_MAX_LINE;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    const span = Math.min(size, maxLine + 1);
    const tail = Buffer.alloc(span);
    await handle.read(tail, 0, span, size - span);
    const cut = tail.lastIndexOf(0x0a);
    // a last line over the reader's limit is the reader's to name
    if (cut === -1 && span < size) return;
    const text = tail.subarray(cut + 1).toString("utf8");
    if (text.trim() === "") return;
    try {
      JSON.parse(text);
      return;
    } catch {
      const whole = await handle.readFile();
      let lines = 1;
      for (let i = whole.indexOf(0x0a); i !== -1; i = whole.indexOf(0x0a, i + 1)) lines++;
      throw new RecordingError(
        "truncated",
        file,
        "the recording ends in the middle of a record (was the recorder stopped?)",
        lines,
      );
    }
  } finally {
    await handle.close();
  }
}
