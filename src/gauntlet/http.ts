/**
 * The gauntlet server over HTTP: Streamable HTTP with legacy sessions (`Mcp-Session-Id`) and
 * stateless 2026-07-28 requests, and HTTP+SSE (a GET stream naming its POST endpoint) for
 * 2024-11-05 clients, on one path. It is its own front rather than the library's handler because a
 * scenario must be able to be wrong on purpose at the HTTP level (a session that answers 404, a
 * stream cut before its answer, bodies split inside characters, a 401), and everything else is
 * exact. Every request and answer is recorded; sessions and bodies are capped.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject, Message, RequestId } from "../codec/message.js";
import type { McpServer } from "../mcp/server.js";
import type { ReadMessage, Transport, TransportSink } from "../peer/transport.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { Judged } from "./judge.js";
import { META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { decodeHeaderValue } from "../transport/http/headers.js";
import { AnswerStream } from "./http-stream.js";
import type { WireHooks } from "./scenario.js";
import { RETRY_MS } from "./scenarios/http-only.js";
import { STREAM_CLOSED, type HttpFacts, type Tape } from "./tape.js";
import { Witness } from "./witness.js";
import { bodyBudget, readBody } from "./http-request.js";

const MAX_SESSIONS = 200;
const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Where one conversation's messages go back: the answer streams of its POSTs, or its GET stream. */
class SessionTransport implements Transport {
  private sink: TransportSink | undefined;
  /** Open answer streams by the id of the request they answer. */
  readonly streams = new Map<string, AnswerStream>();
  /** The session's GET stream (HTTP+SSE: every message goes there). */
  getStream: ServerResponse | undefined;
  closed = false;

  constructor(
    private readonly front: GauntletHttp,
    readonly session: Session,
  ) {}

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  deliver(text: string, read?: ReadMessage): void {
    this.sink?.message(text, read);
  }

  send(text: string, message?: Message | readonly Message[], related?: RequestId): void {
    this.front.sendFrom(this.session, text, message, related);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.getStream?.end();
    this.sink?.closed();
  }
}

interface Session {
  alias: string;
  id: string;
  /** Streamable HTTP, or the HTTP+SSE transport of 2024-11-05. */
  kind: "streamable" | "sse";
  witness: Witness;
  transport: SessionTransport;
}

export interface GauntletHttpOptions {
  /** The server core of the scenario's run. */
  server: McpServer;
  /** Whether it speaks 2026-07-28: if not, a 2026-07-28 request is answered as a legacy server does. */
  modern: boolean;
  /** Whether it speaks a legacy revision: if not, there are no sessions, and no HTTP+SSE. */
  legacy: boolean;
  wire: WireHooks;
  tape: Tape;
  /** The path the MCP endpoint is served at (its HTTP+SSE POSTs go to `<path>/messages`). */
  path: string;
}

export class GauntletHttp {
  private readonly sessions = new Map<string, Session>();
  private readonly budget = bodyBudget();
  /** Streams cut on purpose, by the id of their priming event. */
  private readonly cut = new Map<string, AnswerStream>();
  private opened = 0;
  private streams = 0;
  private challenged = false;
  private firstKind: Session["kind"] | undefined;
  /** One conversation for every stateless 2026-07-28 request. */
  private modernWitness: Witness | undefined;
  /** How many sessions have ended (for `--sessions N`). */
  ended = 0;
  /** Told when a session ends. */
  onSessionEnd: (() => void) | undefined;

  constructor(private readonly options: GauntletHttpOptions) {}

  /** Handles one request for this scenario's paths; false when the path is not its own. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    const base = this.options.path;
    if (path === METADATA_PATH || path === `${METADATA_PATH}${base}`) {
      this.metadata(req, res, path);
      return true;
    }
    if (path === base) {
      if (req.method === "POST") void this.post(req, res, undefined);
      else if (req.method === "GET") this.get(req, res);
      else if (req.method === "DELETE") this.delete(req, res);
      else this.refuse(res, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
      return true;
    }
    if (path === `${base}/messages`) {
      const session = this.sessions.get(query.get("sessionId") ?? "");
      if (req.method !== "POST") this.refuse(res, 405, "Method Not Allowed", { allow: "POST" });
      else if (!session || session.kind !== "sse") this.refuse(res, 404, "Unknown session");
      else void this.post(req, res, session);
      return true;
    }
    return false;
  }

  /** Ends every session. */
  close(): void {
    for (const s of this.sessions.values()) void s.transport.close();
    this.sessions.clear();
  }

  private facts(req: IncomingMessage, path: string, session?: Session): HttpFacts {
    const h = req.headers;
    // built member by member, in the order the recording lists them
    const facts: HttpFacts = { method: req.method ?? "GET", path };
    if (session) facts.session = session.alias;
    const version = h["mcp-protocol-version"];
    if (typeof version === "string") facts.protocolVersion = version;
    const method = h["mcp-method"];
    if (typeof method === "string") facts.mcpMethod = method;
    const name = h["mcp-name"];
    if (typeof name === "string") facts.mcpName = decodeHeaderValue(name) ?? name;
    const lastEventId = h["last-event-id"];
    if (typeof lastEventId === "string") facts.lastEventId = lastEventId;
    if (typeof h["mcp-session-id"] === "string") facts.sessionHeader = true;
    return facts;
  }

  /**
   * A POST: read, then routed by what it belongs to — the challenge a scenario opens with, an
   * HTTP+SSE session, a Streamable HTTP session, or none yet (an initialize, a 2026-07-28 request).
   */
  private async post(req: IncomingMessage, res: ServerResponse, sseSession: Session | undefined): Promise<void> {
    const text = await readBody(req, this.budget);
    if (typeof text !== "string") {
      // the rest of an unread body is never waited for: the connection ends with the answer
      this.refuse(res, text.status, text.reason, { connection: "close" });
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const session = sseSession ?? (typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined);
    const facts = this.facts(req, (req.url ?? "/").split("?")[0]!, session);
    if (this.options.wire.challenge && !this.challenged) this.challenge(req, res, text, facts, session);
    else if (sseSession) this.ssePost(res, text, facts, sseSession);
    else if (typeof sessionId === "string") this.sessionPost(req, res, text, facts, session);
    else this.sessionlessPost(req, res, text, facts);
  }

  /** The first request of a scenario that signs in: 401, naming where to read how. */
  private challenge(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    facts: HttpFacts,
    session?: Session,
  ): void {
    this.challenged = true;
    (session?.witness ?? this.modern()).message(text, "client", facts);
    this.answerStatus(res, facts, 401, {
      "www-authenticate": `Bearer resource_metadata="http://${req.headers.host}${METADATA_PATH}${this.options.path}"`,
    });
  }

  /** HTTP+SSE: every POST is accepted, its answer goes on the session's GET stream. */
  private ssePost(res: ServerResponse, text: string, facts: HttpFacts, session: Session): void {
    const judged = session.witness.message(text, "client", facts);
    this.answerStatus(res, facts, 202);
    this.deliver(session, text, judged, parsedOf(judged, text));
  }

  /** A POST that names a session: 404 when there is none (or the scenario ended it). */
  private sessionPost(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    facts: HttpFacts,
    session: Session | undefined,
  ): void {
    if (!session || this.options.wire.expired?.(session.alias)) {
      (session?.witness ?? this.modern()).message(text, "client", facts);
      this.answerStatus(res, facts, 404, {}, "Session not found");
      return;
    }
    // the session's judge reads the body once; what it parsed routes the POST
    const judged = session.witness.message(text, "client", facts);
    this.answerPost(req, res, text, facts, session, judged, parsedOf(judged, text));
  }

  /** A POST without a session: a 2026-07-28 request, an initialize that opens one, or neither (400). */
  private sessionlessPost(req: IncomingMessage, res: ServerResponse, text: string, facts: HttpFacts): void {
    const parsed = parseJson(text);
    const one = isObject(parsed) ? parsed : undefined;
    if (this.modernOf(one)) {
      this.modernPost(req, res, text, one, facts);
      return;
    }
    if (one?.method !== "initialize") {
      this.modern().message(text, "client", facts);
      this.answerStatus(res, facts, 400, {}, "Bad Request: no session; a legacy client opens with initialize");
      return;
    }
    const session = this.open("streamable");
    if (!session) {
      this.refuse(res, 503, "Too many sessions", { "retry-after": "1" });
      return;
    }
    facts.session = session.alias;
    const judged = session.witness.message(text, "client", facts);
    this.answerPost(req, res, text, facts, session, judged, parsed);
  }

  /** A session's POST: 202 for notifications and answers alone, else a stream for its requests' answers. */
  private answerPost(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    facts: HttpFacts,
    session: Session,
    judged: Judged,
    parsed: unknown,
  ): void {
    const ids = requestIds(parsed);
    if (ids.length === 0) {
      this.answerStatus(res, facts, 202);
      this.deliver(session, text, judged, parsed);
      return;
    }
    const stream = this.stream(req, res);
    const messages = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
    for (const id of ids) {
      const key = JSON.stringify(id);
      session.transport.streams.set(key, stream);
      const m = messages.find((x) => isObject(x) && x.id === id) as JsonObject | undefined;
      this.requestMethods.set(`${session.alias}:${key}`, String(m?.method));
    }
    const one = isObject(parsed) ? parsed : undefined;
    if (one && this.options.wire.cut?.(String(one.method), one.params as JsonObject | undefined)) {
      const { eventId } = stream.cut(RETRY_MS);
      this.cut.set(eventId, stream);
      session.witness.message(
        "",
        "server",
        { ...facts, status: 200, contentType: "text/event-stream" },
        { id: eventId, retry: RETRY_MS },
      );
    }
    if (session.kind === "streamable" && one?.method === "initialize") res.setHeader("mcp-session-id", session.id);
    this.deliver(session, text, judged, parsed);
  }

  /** A 2026-07-28 request, or a dual-era client's first `server/discover`: stateless. */
  private modernPost(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    one: JsonObject | undefined,
    facts: HttpFacts,
  ): void {
    const witness = this.modern();
    const judged = witness.message(text, "client", facts);
    if (!this.options.modern) {
      // a server bound to legacy revisions answers as a legacy server does: no session, no entry
      this.answerStatus(res, facts, 400, {}, "Bad Request: Server not initialized");
      return;
    }
    if (!one || one.id === undefined) {
      this.answerStatus(res, facts, 202);
      return;
    }
    const stream = this.stream(req, res);
    const transport = new RequestTransport(witness, stream, facts, this.options.wire.outgoing);
    // on 2026-07-28 a client that closes a request's stream has cancelled the request (the
    // server MUST take it so): recorded, since no notifications/cancelled will say it
    res.once("close", () => {
      if (stream.done) return;
      witness.event(`${STREAM_CLOSED}${JSON.stringify(one.id)}`);
      void transport.close();
    });
    this.options.server.connectRequest(transport);
    if (this.options.wire.incoming) transport.deliver(JSON.stringify(this.options.wire.incoming(one)));
    else transport.deliver(text, readOf(judged));
  }

  private modernOf(one: JsonObject | undefined): boolean {
    if (!one) return false;
    // a server of 2026-07-28 alone serves every request statelessly, initialize included (-32601)
    if (!this.options.legacy) return true;
    if (one.method === "server/discover") return true;
    const meta = isObject(one.params) && isObject(one.params._meta) ? one.params._meta : undefined;
    return meta?.[META_PROTOCOL_VERSION] !== undefined;
  }

  private modern(): Witness {
    return (this.modernWitness ??= new Witness(this.options.tape, "modern"));
  }

  private stream(req: IncomingMessage, res: ServerResponse): AnswerStream {
    const accept = String(req.headers.accept ?? "");
    const json = accept === "" || /application\/json|\*\/\*|application\/\*/.test(accept);
    return new AnswerStream(res, `st${++this.streams}`, this.options.wire.chunkBytes, json);
  }

  private deliver(session: Session, text: string, judged: Judged, parsed: unknown): void {
    const incoming = this.options.wire.incoming;
    if (incoming && isObject(parsed)) session.transport.deliver(JSON.stringify(incoming(parsed)));
    else session.transport.deliver(text, readOf(judged));
  }

  /** A message of the server's for a session's client: on its request's stream, or the GET stream. */
  sendFrom(
    session: Session,
    text: string,
    message: Message | readonly Message[] | undefined,
    related?: RequestId,
  ): void {
    const rewritten = message && !Array.isArray(message) ? this.options.wire.outgoing?.(message as Message) : undefined;
    // what the witness is told: the encoder's text with its message, or a scenario's rewrite alone
    const out = rewritten ?? text;
    const own = rewritten === undefined ? message : undefined;
    const m = message as { id?: RequestId; method?: string } | undefined;
    const isAnswer = session.kind === "streamable" && m !== undefined && m.method === undefined && m.id !== undefined;
    const key = session.kind === "sse" ? undefined : JSON.stringify(isAnswer ? m!.id : related);
    const stream = key !== undefined ? session.transport.streams.get(key) : undefined;
    if (!stream) {
      session.witness.sent(out, own, {
        method: "GET",
        path: this.options.path,
        session: session.alias,
        status: 200,
        contentType: "text/event-stream",
      });
      // HTTP+SSE names its events; a Streamable HTTP GET stream need not
      session.transport.getStream?.write(`${session.kind === "sse" ? "event: message\n" : ""}data: ${out}\n\n`);
      return;
    }
    const written = isAnswer ? stream.answer(out) : stream.event(out);
    session.witness.sent(
      out,
      own,
      {
        method: "POST",
        path: this.options.path,
        session: session.alias,
        status: written.status,
        contentType: written.contentType,
      },
      written.eventId ? { id: written.eventId } : undefined,
    );
    if (isAnswer) {
      session.transport.streams.delete(key!);
      const method = this.requestMethods.get(`${session.alias}:${key}`);
      this.requestMethods.delete(`${session.alias}:${key}`);
      this.options.wire.answered?.(session.alias, method ?? "");
    }
  }

  /** The method of each request in flight, for `wire.answered`. */
  readonly requestMethods = new Map<string, string>();

  private get(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? "/").split("?")[0]!;
    const sessionId = req.headers["mcp-session-id"];
    const lastEventId = req.headers["last-event-id"];
    const session = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
    const facts = this.facts(req, path, session);
    const witness = session?.witness ?? this.modern();
    if (typeof lastEventId === "string" && this.cut.has(lastEventId)) {
      witness.exchange("client", facts);
      const stream = this.cut.get(lastEventId)!;
      this.cut.delete(lastEventId);
      stream.resume(res);
      return;
    }
    if (typeof sessionId === "string") {
      if (!session || this.options.wire.expired?.(session.alias)) {
        witness.exchange("client", facts);
        this.answerStatus(res, facts, 404, {}, "Session not found");
        return;
      }
      witness.exchange("client", facts);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      session.transport.getStream = res;
      res.once("close", () => {
        if (session.transport.getStream === res) session.transport.getStream = undefined;
      });
      return;
    }
    if (!this.options.legacy || !String(req.headers.accept ?? "").includes("text/event-stream")) {
      this.modern().exchange("client", facts);
      this.answerStatus(res, facts, 405, { allow: "POST" });
      return;
    }
    this.openSse(req, res, facts);
  }

  /** HTTP+SSE (2024-11-05): the GET stream is the session; it names the endpoint for its POSTs. */
  private openSse(req: IncomingMessage, res: ServerResponse, facts: HttpFacts): void {
    const session = this.open("sse");
    if (!session) {
      this.refuse(res, 503, "Too many sessions", { "retry-after": "1" });
      return;
    }
    session.witness.exchange("client", { ...facts, session: session.alias });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(`event: endpoint\ndata: ${this.options.path}/messages?sessionId=${session.id}\n\n`);
    session.transport.getStream = res;
    res.once("close", () => this.end(session));
    void req;
  }

  private delete(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? "/").split("?")[0]!;
    const sessionId = req.headers["mcp-session-id"];
    const session = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
    const facts = this.facts(req, path, session);
    (session?.witness ?? this.modern()).exchange("client", facts);
    if (!session || this.options.wire.expired?.(session.alias)) {
      this.answerStatus(res, facts, 404, {}, "Session not found");
      return;
    }
    this.answerStatus(res, facts, 200);
    this.end(session);
  }

  private metadata(req: IncomingMessage, res: ServerResponse, path: string): void {
    const facts: HttpFacts = { method: req.method ?? "GET", path };
    this.modern().exchange("client", facts);
    const origin = `http://${req.headers.host}`;
    const body = JSON.stringify({
      resource: `${origin}${this.options.path}`,
      authorization_servers: [`${origin}/gauntlet-authorization-server`],
      bearer_methods_supported: ["header"],
    });
    this.modern().exchange("server", { ...facts, status: 200, contentType: "application/json" });
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  }

  /**
   * The transport the client chose: HTTP+SSE when the first session it opened was one, else
   * Streamable HTTP (which a 2026-07-28 client, opening none, speaks too).
   */
  transport(): "streamable-http" | "http+sse" {
    return this.firstKind === "sse" ? "http+sse" : "streamable-http";
  }

  private open(kind: Session["kind"]): Session | undefined {
    if (this.sessions.size >= MAX_SESSIONS) return undefined;
    this.firstKind ??= kind;
    const alias = `s${++this.opened}`;
    const session = { alias, id: randomUUID(), kind } as Session;
    session.witness = new Witness(this.options.tape, alias);
    session.transport = new SessionTransport(this, session);
    this.sessions.set(session.id, session);
    const peer = this.options.server.connect(session.transport);
    // the requests in flight, so the end of one can be told to the scenario
    peer.ended.then(
      () => this.end(session),
      () => this.end(session),
    );
    return session;
  }

  private end(session: Session): void {
    if (!this.sessions.delete(session.id)) return;
    void session.transport.close();
    this.ended++;
    this.onSessionEnd?.();
  }

  private answerStatus(
    res: ServerResponse,
    facts: HttpFacts,
    status: number,
    headers: Record<string, string> = {},
    body?: string,
  ): void {
    const witness = facts.session
      ? [...this.sessions.values()].find((s) => s.alias === facts.session)?.witness
      : undefined;
    (witness ?? this.modern()).exchange("server", { ...facts, status });
    if (body !== undefined) res.writeHead(status, { "content-type": "text/plain", ...headers }).end(body);
    else res.writeHead(status, headers).end();
  }

  private refuse(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { "content-type": "text/plain", ...headers }).end(text);
  }
}

/** A 2026-07-28 request's channel: its answer (and anything before it) on its own stream. */
class RequestTransport implements Transport {
  private sink: TransportSink | undefined;

  constructor(
    private readonly witness: Witness,
    private readonly stream: AnswerStream,
    private readonly facts: HttpFacts,
    private readonly outgoing: WireHooks["outgoing"],
  ) {}

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  deliver(text: string, read?: ReadMessage): void {
    this.sink?.message(text, read);
  }

  send(text: string, message?: Message | readonly Message[]): void {
    if (this.stream.done) return;
    const m = message as { id?: RequestId; method?: string; error?: { code?: number } } | undefined;
    const isAnswer = m !== undefined && m.method === undefined;
    const rewritten = m ? this.outgoing?.(m as Message) : undefined;
    const out = rewritten ?? text;
    const written = isAnswer ? this.stream.answer(out, modernStatus(m.error?.code)) : this.stream.event(out);
    this.witness.sent(
      out,
      rewritten === undefined ? message : undefined,
      { ...this.facts, status: written.status, contentType: written.contentType },
      written.eventId ? { id: written.eventId } : undefined,
    );
    if (isAnswer) this.sink?.closed();
  }

  async close(): Promise<void> {
    this.sink?.closed();
  }
}

/** What the judge read, for the peer to take instead of reading the message again. */
function readOf(judged: Judged): ReadMessage {
  return { decoded: judged.decoded, revision: judged.revision, role: "client", maxBytes: DEFAULT_MAX_BYTES };
}

/** HTTP status of a 2026-07-28 error answer. */
function modernStatus(code: number | undefined): number {
  if (code === -32601) return 404;
  if (code === -32020 || code === -32021 || code === -32022) return 400;
  return 200;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The body as JSON.parse reads it: what the judge's decode parsed, when it parsed the text as it
 * stands (no byte-order mark skipped), so a body is parsed once; else parsed here.
 */
function parsedOf(judged: Judged, text: string): unknown {
  const value = judged.decoded.message ?? judged.decoded.value;
  return value !== undefined && text.charCodeAt(0) !== 0xfeff ? value : parseJson(text);
}

/** The ids of the requests in a body (one message or a batch). */
function requestIds(parsed: unknown): RequestId[] {
  if (!Array.isArray(parsed)) return isRequest(parsed) ? [parsed.id as RequestId] : [];
  const ids: RequestId[] = [];
  for (const m of parsed) if (isRequest(m)) ids.push(m.id as RequestId);
  return ids;
}

function isRequest(m: unknown): m is JsonObject {
  return isObject(m) && typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number");
}
