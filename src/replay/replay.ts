/**
 * `replay`: the client side of each recorded conversation sent again to a live server — a new
 * server process (stdio) or a new HTTP session per conversation, fresh ids, a fresh progress
 * token where one was recorded — and each answer compared with the recorded one. The server's
 * own requests meanwhile get the answers the client gave them in the recording.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { RecordingError } from "../recording/errors.js";
import { Peer } from "../peer/peer.js";
import { isHttpTransport, type Transport } from "../peer/transport.js";
import { isRevision, LATEST_REVISION, type Revision } from "../rules/revisions.js";
import { settled, type ScriptConversation, type Script, type Turn } from "../mock/script.js";
import { comparable, differences, type Difference, type Ignore } from "./compare.js";

export interface ReplayOptions {
  /** Opens a fresh connection to the server for one conversation. */
  connect: () => Transport;
  /**
   * Another way to the same server, tried when the first conversation cannot reach it through
   * `connect` (a URL that speaks the other HTTP transport); used for every conversation after
   * it when it could.
   */
  fallback?: () => Transport;
  ignores: readonly Ignore[];
  /** Methods whose requests are not sent (side effects). */
  skip: ReadonlySet<string>;
  /** Deadline of each request. Default 30 s. */
  timeout?: number;
}

export interface ReplayedRequest {
  method: string;
  /** The request's params as recorded (canonical). */
  params: string;
  status: "equal" | "different" | "skipped" | "unrecorded";
  differences: Difference[];
  /** The live answer, as `{result}` or `{error}`, for `--update`. */
  live?: unknown;
  /** The recorded answer's line in the file. */
  lineNo?: number;
}

export interface ReplayedConversation {
  id: string;
  requests: ReplayedRequest[];
}

export interface ReplayReport {
  conversations: ReplayedConversation[];
  differences: number;
  /** The server could not be reached: why. */
  unreachable?: string;
}

/**
 * Replays every conversation of `script`, one after another. A script still being read
 * (`openScript`) is replayed as it is read: each request is sent once its recorded answer is in.
 */
export async function replay(script: Script, options: ReplayOptions): Promise<ReplayReport> {
  const report: ReplayReport = { conversations: [], differences: 0 };
  let connect = options.connect;
  for (let i = 0; ; i++) {
    while (i >= script.conversations.length && !script.complete) await script.more();
    const c = script.conversations[i];
    if (!c) break;
    let done = await replayConversation(script, c, connect, options);
    if (done.unreachable !== undefined && report.conversations.length === 0 && options.fallback) {
      const other = await replayConversation(script, c, options.fallback, options);
      // when neither reaches it, the first way's refusal is the better evidence of what is wrong
      if (other.unreachable === undefined) [done, connect] = [other, options.fallback];
    }
    report.conversations.push(done.conversation);
    report.differences += done.conversation.requests.filter((r) => r.status === "different").length;
    if (done.unreachable !== undefined) {
      report.unreachable = done.unreachable;
      break;
    }
  }
  return report;
}

/** Whether an error means the server was never reached, rather than that it answered. */
function unreachable(e: unknown, answered: number): string | undefined {
  if (e instanceof ResponseError) return undefined;
  if (answered > 0) return undefined;
  return e instanceof Error ? e.message : String(e);
}

async function replayConversation(
  script: Script,
  c: ScriptConversation,
  connect: () => Transport,
  options: ReplayOptions,
): Promise<{ conversation: ReplayedConversation; unreachable?: string }> {
  const out: ReplayedConversation = { id: c.id, requests: [] };
  const transport = connect();
  const peer = new Peer(transport, { revision: revisionOf(c), role: "client", timeout: options.timeout ?? 30_000 });
  answerAsRecorded(peer, c);
  let answered = 0;
  try {
    for (let i = 0; ; i++) {
      while ((i >= c.turns.length || !settled(script, c.turns[i]!)) && !script.complete) await script.more();
      const turn = c.turns[i];
      if (!turn) break;
      const params = paramsOf(turn);
      if (options.skip.has(turn.method)) {
        if (turn.kind === "request") out.requests.push(entry(turn, "skipped"));
        continue;
      }
      if (turn.kind === "notification") {
        await peer.notify(turn.method, params);
        // where the recorded client opened its GET stream: a server may send its own requests only there
        if (turn.method === "notifications/initialized" && c.getStream === 200 && isHttpTransport(transport))
          transport.openServerStream?.();
        continue;
      }
      let live: unknown;
      try {
        const result = await peer.request(
          turn.method,
          params,
          hasProgress(turn) ? { onProgress: () => undefined } : {},
        );
        live = { result };
        if (turn.method === "initialize") negotiated(transport, result);
      } catch (e) {
        const why = unreachable(e, answered);
        if (why !== undefined) return { conversation: out, unreachable: why };
        if (!(e instanceof ResponseError)) throw e;
        live = { error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
      }
      answered++;
      out.requests.push(compare(turn, live, options.ignores));
    }
  } catch (e) {
    // the rest of the recording is broken: not the server's doing
    if (e instanceof RecordingError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    out.requests.push({
      method: "(connection)",
      params: "{}",
      status: "different",
      differences: [{ path: "/", recorded: "an answer", live: why }],
    });
  } finally {
    await transport.close().catch(() => undefined);
  }
  return { conversation: out };
}

/** The revision the conversation opened with (its `initialize`), which its messages are shaped by. */
function revisionOf(c: ScriptConversation): Revision {
  const init = c.turns.find((t) => t.method === "initialize");
  const v = init
    ? (JSON.parse(init.text) as { params?: { protocolVersion?: unknown } }).params?.protocolVersion
    : undefined;
  return typeof v === "string" && isRevision(v) ? v : LATEST_REVISION;
}

function entry(turn: Turn, status: ReplayedRequest["status"]): ReplayedRequest {
  return {
    method: turn.method,
    params: turn.key,
    status,
    differences: [],
    ...(turn.answer?.lineNo !== undefined ? { lineNo: turn.answer.lineNo } : {}),
  };
}

function compare(turn: Turn, live: unknown, ignores: readonly Ignore[]): ReplayedRequest {
  if (!turn.answer) return { ...entry(turn, "unrecorded"), live };
  const recordedValue = JSON.parse(turn.answer.text) as Record<string, unknown>;
  const recorded = "error" in recordedValue ? { error: recordedValue.error } : { result: recordedValue.result };
  const diffs = differences(comparable(turn.method, recorded, ignores), comparable(turn.method, live, ignores));
  return { ...entry(turn, diffs.length === 0 ? "equal" : "different"), differences: diffs, live };
}

/** The recorded params, without the recorded progress token (a fresh one is the peer's). */
function paramsOf(turn: Turn): JsonObject | undefined {
  const m = JSON.parse(turn.text) as { params?: JsonObject };
  if (!m.params) return undefined;
  const meta = m.params._meta as JsonObject | undefined;
  if (meta && "progressToken" in meta) {
    const { progressToken: _, ...rest } = meta;
    const params = { ...m.params };
    if (Object.keys(rest).length > 0) params._meta = rest;
    else delete params._meta;
    return params;
  }
  return m.params;
}

function hasProgress(turn: Turn): boolean {
  return turn.text.includes('"progressToken"');
}

/**
 * The server's own requests get the answers the recorded client gave, method by method, in
 * order: looked up when asked, among the turns read so far (a request is sent only once its turn
 * is all read, and what the server asks during it was recorded within it).
 */
function answerAsRecorded(peer: Peer, c: ScriptConversation): void {
  const replies = (method: string): string[] => {
    const list: string[] = [];
    for (const t of c.turns)
      for (const p of [...t.before, ...t.after]) if (p.request === method && p.reply !== undefined) list.push(p.reply);
    return list;
  };
  peer.handle("ping", () => ({}));
  for (const method of SERVER_REQUESTS) {
    let n = 0;
    peer.handle(method, () => {
      const list = replies(method);
      if (list.length === 0) throw new ResponseError(-32601, `the recording holds no answer to ${method}`);
      const r = JSON.parse(list[Math.min(n++, list.length - 1)]!) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      };
      if (r.error) throw new ResponseError(r.error.code, r.error.message, r.error.data);
      return r.result;
    });
  }
}

/** What a legacy server asks of its client: the requests a replay answers as recorded. */
const SERVER_REQUESTS = ["sampling/createMessage", "elicitation/create", "roots/list"] as const;

/** Over HTTP, the revision `initialize` settled on goes in every later request's header. */
function negotiated(transport: Transport, result: unknown): void {
  const v = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  if (isHttpTransport(transport) && typeof v === "string" && isRevision(v)) transport.negotiated?.(v as Revision);
}
