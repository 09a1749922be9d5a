/**
 * A recording played over HTTP. Streamable HTTP: each POST's answer comes back with its recorded
 * status and content type (JSON, or an event stream carrying the server's messages before the
 * answer, with their event ids and `retry`), `initialize` opens a session under a fresh id, a
 * GET opens the session's stream where one was recorded (else 405), DELETE ends it. A recording
 * of HTTP+SSE is played the way that transport works: a GET stream whose `endpoint` event names
 * where to POST, every answer on that stream. A stdio recording answers in JSON, or in a stream
 * when the server sent messages before the answer.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { RequestId } from "../codec/message.js";
import { H_SESSION_ID } from "../transport/http/headers.js";
import { progressTokenOf, type MockPlayer, type MockSession } from "./player.js";
import type { Played } from "./script.js";

/** One HTTP session of the mock: its player's session, its open GET stream, the sockets it was seen on. */
interface HttpSession {
  id: string;
  play: MockSession;
  stream?: ServerResponse;
  sockets: Set<Socket>;
  ended: boolean;
}

export interface MockHttpOptions {
  host?: string;
  port?: number;
  /** Called when a session ended (DELETE, or every connection it used closed). */
  sessionEnded?: () => void;
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

export class MockHttpServer {
  private readonly server: Server;
  private readonly sessions = new Map<string, HttpSession>();
  /** Per connection, how many requests came on it without a session (see `loose`). */
  private readonly unnamed = new WeakMap<Socket, number>();
  private readonly legacy: boolean;
  url = "";

  constructor(
    private readonly player: MockPlayer,
    private readonly options: MockHttpOptions = {},
  ) {
    this.legacy = player.script.legacy;
    this.server = createServer((req, res) => void this.serve(req, res).catch(() => res.destroy()));
  }

  /**
   * Whether a session is given to a client that opens with `initialize`: for a stdio recording
   * (so the order of its answers holds) and for one whose HTTP sessions were recorded, which a
   * file still being read may show only further on.
   */
  private async mintSessions(): Promise<boolean> {
    const script = this.player.script;
    const transport = script.header.transport;
    if (transport === "stdio" || transport === "memory") return true;
    for (;;) {
      if (script.conversations.some((c) => c.turns.some((t) => t.http?.session !== undefined))) return true;
      if (script.complete) return false;
      await script.more();
    }
  }

  async listen(): Promise<string> {
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const { address, port } = server.address() as AddressInfo;
    const host = address.includes(":") ? `[${address}]` : address;
    this.url = `http://${host}:${port}${this.legacy ? "/sse" : (this.player.script.postPath ?? "/mcp")}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) s.play.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === "GET") return this.legacy ? this.openLegacy(res, req) : this.get(req, res);
    if (req.method === "DELETE") return this.delete(req, res);
    if (req.method !== "POST") return void res.writeHead(405, { allow: "GET, POST, DELETE" }).end();
    const body = await readBody(req);
    if (body === undefined) return void res.writeHead(413).end();
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    if (this.legacy) return this.postLegacy(req, res, message);
    const named = req.headers[H_SESSION_ID] as string | undefined;
    let session = named !== undefined ? this.sessions.get(named) : undefined;
    if (named !== undefined && !session)
      return json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
    if (session) this.seen(session, req);
    else {
      session = this.newSession();
      this.loose(req.socket);
    }
    const m = message as { id?: RequestId; method?: unknown; params?: unknown };
    if (typeof m !== "object" || m === null || Array.isArray(m) || typeof m.method !== "string") {
      if (typeof m === "object" && m !== null) session.play.reply((m as { id?: unknown }).id);
      return void res.writeHead(202).end();
    }
    if (m.id === undefined) return this.notification(session, res, m.method, m.params);
    return this.request(session, req, res, m.id, m.method, m.params, named === undefined);
  }

  private newSession(): HttpSession {
    return { id: randomUUID(), play: this.player.session(), sockets: new Set(), ended: false };
  }

  /**
   * A request that came without a session: it is one of its own, ended with its connection. A
   * count per connection, not a listener per request, so a client's thousands of requests on one
   * kept-alive connection hold nothing.
   */
  private loose(socket: Socket): void {
    const n = this.unnamed.get(socket);
    this.unnamed.set(socket, (n ?? 0) + 1);
    if (n !== undefined) return;
    socket.once("close", () => {
      const ended = this.unnamed.get(socket) ?? 0;
      this.unnamed.delete(socket);
      for (let i = 0; i < ended; i++) this.options.sessionEnded?.();
    });
  }

  /** A session ends when its last connection closes, unless DELETE ended it first. */
  private seen(s: HttpSession, req: IncomingMessage): void {
    const socket = req.socket;
    if (s.sockets.has(socket)) return;
    s.sockets.add(socket);
    socket.once("close", () => {
      s.sockets.delete(socket);
      if (s.sockets.size === 0) this.end(s);
    });
  }

  private end(s: HttpSession): void {
    if (s.ended) return;
    s.ended = true;
    s.play.close();
    s.stream?.end();
    this.sessions.delete(s.id);
    this.options.sessionEnded?.();
  }

  private async notification(s: HttpSession, res: ServerResponse, method: string, params: unknown): Promise<void> {
    const { turn } = await s.play.find("notification", method, params);
    res.writeHead(turn?.bodilessStatus ?? 202).end();
    if (turn) await s.play.play([...turn.before, ...turn.after], (text, p) => this.toStream(s, text, p), undefined);
  }

  private async request(
    s: HttpSession,
    req: IncomingMessage,
    res: ServerResponse,
    id: RequestId,
    method: string,
    params: unknown,
    opening: boolean,
  ): Promise<void> {
    const found = await s.play.find("request", method, params);
    const { key } = found;
    // an answer given again past its recorded times comes alone: its notifications happened once
    const turn = found.turn && found.repeated ? { ...found.turn, before: [], after: [] } : found.turn;
    const headers: Record<string, string> = {};
    if (opening && method === "initialize" && (await this.mintSessions())) {
      this.sessions.set(s.id, s);
      this.seen(s, req);
      this.unnamed.set(req.socket, (this.unnamed.get(req.socket) ?? 1) - 1);
      headers[H_SESSION_ID] = s.id;
    }
    if (!turn) return json(res, 200, JSON.parse(s.play.unmatched(id, method, key)), headers);
    const token = progressTokenOf(params);
    const answer = s.play.answer(turn, id);
    const exchange = turn.http?.exchange;
    const here = (p: Played) => exchange === undefined || p.exchange === undefined || p.exchange === exchange;
    const accepts = /text\/event-stream/.test(req.headers.accept ?? "");
    const stream =
      accepts &&
      (turn.http?.contentType !== undefined ? turn.http.contentType === "text/event-stream" : turn.before.length > 0);
    const status = turn.http?.status ?? 200;
    if (!stream) {
      await s.play.play(turn.before, (text, p) => this.toStream(s, text, p), token);
      if (answer === undefined) res.writeHead(turn.bodilessStatus ?? 202, headers).end();
      else res.writeHead(status, { ...headers, "content-type": "application/json" }).end(answer);
      return s.play.play(turn.after, (text, p) => this.toStream(s, text, p), token);
    }
    res.writeHead(status, { ...headers, ...SSE_HEADERS });
    res.flushHeaders();
    const out = (text: string, p?: Played) => (p && !here(p) ? this.toStream(s, text, p) : event(res, text, p));
    await s.play.play(turn.before, out, token);
    if (answer !== undefined) event(res, answer, turn.answer);
    const later = turn.after.filter(here);
    await s.play.play(later, out, token);
    res.end();
    await s.play.play(
      turn.after.filter((p) => !here(p)),
      (text, p) => this.toStream(s, text, p),
      token,
    );
  }

  /** A message outside any request's stream: on the session's GET stream when one is open; otherwise it has no way to the client. */
  private toStream(s: HttpSession, text: string, p?: Played): void {
    if (s.stream && !s.stream.writableEnded) event(s.stream, text, p);
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    const named = req.headers[H_SESSION_ID] as string | undefined;
    const s = named !== undefined ? this.sessions.get(named) : undefined;
    const recorded = s?.play.conversation?.getStream;
    if (!s || recorded === undefined || recorded !== 200)
      return void res.writeHead(recorded ?? 405, recorded === undefined ? { allow: "POST, DELETE" } : {}).end();
    this.seen(s, req);
    s.stream = res;
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
  }

  private delete(req: IncomingMessage, res: ServerResponse): void {
    const named = req.headers[H_SESSION_ID] as string | undefined;
    const s = named !== undefined ? this.sessions.get(named) : undefined;
    if (!s) return void res.writeHead(404).end();
    res.writeHead(s.play.conversation?.deleteStatus ?? 200).end();
    this.end(s);
  }

  /** HTTP+SSE: the GET opens a session, its first event names the endpoint to POST to. */
  private openLegacy(res: ServerResponse, req: IncomingMessage): void {
    const s = this.newSession();
    this.seen(s, req);
    this.sessions.set(s.id, s);
    s.stream = res;
    res.writeHead(200, SSE_HEADERS);
    res.write(`event: endpoint\ndata: ${this.player.script.postPath ?? "/messages"}?sessionId=${s.id}\n\n`);
    res.on("close", () => this.end(s));
  }

  private postLegacy(req: IncomingMessage, res: ServerResponse, message: unknown): void {
    const id = new URL(req.url ?? "/", "http://mock.invalid").searchParams.get("sessionId");
    const s = id !== null ? this.sessions.get(id) : undefined;
    if (!s || !s.stream) return void res.writeHead(404).end("Session not found");
    res.writeHead(202).end("Accepted");
    const stream = s.stream;
    for (const m of Array.isArray(message) ? message : [message])
      void s.play.receive(m, (text, p) => event(stream, text, p)).catch(() => undefined);
  }
}

/** One `message` event, with its recorded event id and `retry`. */
function event(res: ServerResponse, text: string, p?: Played): void {
  if (res.writableEnded || res.destroyed) return;
  let head = "";
  if (p?.sse?.retry !== undefined) head += `retry: ${p.sse.retry}\n`;
  if (p?.sse?.id !== undefined) head += `id: ${p.sse.id}\n`;
  res.write(`${head}event: message\ndata: ${text}\n\n`);
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(value));
}

/** The request's body, or undefined past the cap. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > DEFAULT_MAX_BYTES) return undefined;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}
