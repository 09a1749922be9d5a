/**
 * The server side of Streamable HTTP: one endpoint that serves 2026-07-28 clients statelessly
 * (each POST a request of its own) and legacy clients in `Mcp-Session-Id` sessions opened by
 * `initialize`. Written once against the primitives of http-exchange.ts; http-adapters.ts puts
 * it on node:http and on the Fetch API.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Decoded } from "../../codec/decode.js";
import { decode } from "../../codec/decode.js";
import type { ErrorObject, JsonObject, Message, RequestId } from "../../codec/message.js";
import { ClosedError } from "../../peer/errors.js";
import type { Peer } from "../../peer/peer.js";
import type { HttpTransport, ReadMessage, Transport, TransportSink } from "../../peer/transport.js";
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../../rules/error-codes.js";
import {
  LATEST_LEGACY_REVISION,
  LATEST_REVISION,
  META_PROTOCOL_VERSION,
  RULES,
  isRevision,
} from "../../rules/revisions.js";
import { fetchHandle, nodeRequest, nodeResponder } from "./adapters.js";
import { keepShape } from "../../peer/shapes.js";
import { Exchange, KEPT_EXCHANGE, errorText, type HttpRequestLike, type HttpResponder } from "./exchange.js";
import { H_PROTOCOL_VERSION, H_SESSION_ID } from "./headers.js";
import { checkModernRequest, type ParamHeader } from "./modern.js";
import { OriginPolicy } from "./origin.js";
import { ByteBudget } from "./budget.js";
import { RequestBody } from "./request-body.js";
import { Session, SessionTable } from "./sessions.js";

/** What the handler serves: an MCP server core (`McpServer` fits). */
export interface HttpServable {
  /** Serves one connection: here a single 2026-07-28 request, or one legacy session. */
  connect(transport: Transport): Peer;
  /**
   * Serves a single 2026-07-28 request, whose `_meta` names its protocol version: a peer that
   * never opens a session (`McpServer` shares one table of handlers among them). Default: `connect`.
   */
  connectRequest?(transport: Transport): Peer;
  /** A tool's `x-mcp-header` parameters, to check a 2026-07-28 call's `Mcp-Param-*` headers. */
  headerParams?(tool: string): readonly ParamHeader[] | undefined;
}

export interface HttpHandlerOptions {
  /**
   * Origins allowed to call, besides the request's own host and loopback origins (`localhost`,
   * `127.0.0.1`, `[::1]`): exact `scheme://host[:port]` strings, or "*" for any. A request whose
   * `Origin` is not allowed gets 403 (the DNS-rebinding defence the transport requires).
   */
  allowedOrigins?: readonly string[];
  /** Host names (`Host` header, port ignored) to accept; others get 403. Default: any. */
  allowedHosts?: readonly string[];
  /** Largest request body. Default 4 MiB; a larger one gets 413. */
  maxBodyBytes?: number;
  /**
   * Request-body bytes held at once, read or being parsed, over all requests. A body that does
   * not fit waits unread for up to 2 s, then gets 503 with Retry-After; part of it is kept for
   * bodies of 64 KiB or less, so ordinary requests never wait behind large ones. Default: four
   * times `maxBodyBytes`.
   */
  maxBufferedBytes?: number;
  /** Time allowed to receive a body. Default 10 s; a slower one gets 408. */
  bodyTimeoutMs?: number;
  /** Legacy sessions: closed after this long with nothing under way. Default 10 minutes. */
  sessionIdleMs?: number;
  /**
   * Legacy sessions: at most this many at once. Default 1,000. When full, a new session replaces
   * one that never got past `initialize`, or is refused with 503 and Retry-After: sessions in
   * use are never ended to make room.
   */
  maxSessions?: number;
  /** Legacy sessions one client (remote address) may hold at once. Default: a quarter of `maxSessions`. */
  maxSessionsPerClient?: number;
  /** Interval of the keep-alive comments on a legacy GET stream; 0 for none. Default 15 s. */
  keepAliveMs?: number;
  /** Serve legacy clients (`initialize`, sessions) too. Default true. */
  legacy?: boolean;
  /** Told about internal failures; the client only ever sees "Internal error". */
  onError?: (error: unknown) => void;
}

export interface HttpHandler {
  /** For `http.createServer(handler.node)` or a route of a node:http based framework. */
  readonly node: (req: IncomingMessage, res: ServerResponse) => void;
  /** For Fetch-API servers (Deno.serve, Bun.serve, Hono, …). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The same, on any request/response pair an adapter provides. Never rejects. */
  handle(req: HttpRequestLike, res: HttpResponder): Promise<void>;
  /** How many legacy sessions are open. */
  readonly sessions: number;
  /** Ends every legacy session (their open streams end); requests in progress are not waited for. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const SERVED: Promise<void> = Promise.resolve();
const DEFAULT_BODY_TIMEOUT = 10_000;
/** A body that finds the byte budget full waits this long for room, then gets 503. */
const BUDGET_WAIT_MS = 2_000;

/** HTTP status of a 2026-07-28 error answer (streamable-http "Request Metadata"). */
function modernStatus(message: Message): number {
  const code = (message as { error?: ErrorObject }).error?.code;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION)
    return 400;
  return 200;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

interface Accepts {
  readonly json: boolean;
  readonly sse: boolean;
}
const ACCEPTS_ANY: Accepts = { json: true, sse: true };
/** The last Accept header read and what it allows: a client sends the same one every time. */
let lastAccept: { header: string; accepts: Accepts } | undefined;

/** What an Accept header allows; absent or `*\/*` allows both. */
function accepts(header: string | undefined): Accepts {
  if (header === undefined) return ACCEPTS_ANY;
  if (lastAccept?.header === header) return lastAccept.accepts;
  const found = parseAccept(header);
  lastAccept = { header, accepts: found };
  return found;
}

function parseAccept(header: string): Accepts {
  if (header.trim() === "") return ACCEPTS_ANY;
  const types = header.split(",").map((t) => t.split(";")[0]!.trim().toLowerCase());
  const any = types.includes("*/*");
  return {
    json: any || types.includes("application/json") || types.includes("application/*"),
    sse: any || types.includes("text/event-stream") || types.includes("text/*"),
  };
}

/**
 * How a 2026-07-28 request's peer ends once its answer is sent: one error for all of them, since
 * building an Error (its stack) per request costs more than serving a small call.
 */
const ANSWERED = new ClosedError("the request has been answered");

/**
 * A 2026-07-28 request's own channel: one message in, its answer out on the exchange, then the
 * peer ends. The client closing the stream cancels the request (streamable-http "Cancellation").
 */
class RequestTransport implements HttpTransport {
  readonly kind = "http";
  private sink: TransportSink | undefined;

  constructor(
    private readonly exchange: Exchange,
    private readonly id: RequestId,
  ) {}

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  deliver(data: string | Uint8Array, read?: ReadMessage): void {
    const sink = this.sink;
    if (!sink) return;
    sink.message(data, read);
    // answered at once (a synchronous handler): nothing left for the client's going to cancel
    if (!this.exchange.done)
      this.exchange.onAbort(() => sink.closed(new ClosedError("the client closed the request's stream")));
  }

  send(text: string, message?: Message | readonly Message[]): void | Promise<void> {
    if (this.exchange.done) throw new ClosedError("the request's stream is closed");
    const m = message as Message | undefined;
    if (m && !Array.isArray(m) && (m as { method?: unknown }).method === undefined) {
      if ((m as { id?: RequestId }).id !== this.id) return; // not the answer this stream is for
      this.exchange.answer(text, modernStatus(m));
      this.sink?.closed(ANSWERED);
      return;
    }
    if (m && (m as { id?: unknown }).id !== undefined) {
      throw new Error("2026-07-28 servers send no requests to the client on a response stream");
    }
    return this.exchange.event(text);
  }

  async close(): Promise<void> {
    if (!this.exchange.done)
      this.exchange.answer(errorText({ code: INTERNAL_ERROR, message: "Internal error" }, this.id), 500);
    this.sink?.closed();
  }
}

// made per 2026-07-28 request (see shapes.ts)
keepShape(new RequestTransport(KEPT_EXCHANGE, 0), "http");

class StreamableHttpHandler {
  private readonly table: SessionTable;
  private readonly maxBody: number;
  private readonly bodyTimeout: number;
  private readonly budget: ByteBudget;
  private readonly keepAliveMs: number;
  private readonly legacy: boolean;
  private readonly origins: OriginPolicy;
  private readonly paramHeaders: ((tool: string) => readonly ParamHeader[] | undefined) | undefined;

  constructor(
    private readonly server: HttpServable,
    private readonly options: HttpHandlerOptions,
  ) {
    this.table = new SessionTable({
      idleMs: options.sessionIdleMs ?? 10 * 60_000,
      max: options.maxSessions ?? 1000,
      ...(options.maxSessionsPerClient !== undefined ? { perClient: options.maxSessionsPerClient } : {}),
    });
    this.maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.bodyTimeout = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT;
    const budget = Math.max(1, options.maxBufferedBytes ?? 4 * this.maxBody);
    this.budget = new ByteBudget(budget, Math.min(1024 * 1024, Math.floor(budget / 4)));
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.legacy = options.legacy ?? true;
    this.origins = new OriginPolicy(options.allowedOrigins, options.allowedHosts);
    this.paramHeaders = server.headerParams ? (tool) => server.headerParams!(tool) : undefined;
  }

  get sessions(): number {
    return this.table.size;
  }

  close(): Promise<void> {
    return this.table.closeAll();
  }

  handle(req: HttpRequestLike, res: HttpResponder): Promise<void> {
    return this.serve(req, res) ?? SERVED;
  }

  /**
   * Serves one request; a promise (that never rejects) only while something is still to come: a
   * POST's body, nearly always one microtask away, costs one promise rather than a chain of
   * suspended async calls.
   */
  serve(req: HttpRequestLike, res: HttpResponder): void | Promise<void> {
    const host = req.header("host");
    const cors = this.origins.headersFor(req, host);
    const exchange = new Exchange(res, accepts(req.header("accept")), cors);
    try {
      const badHost = this.origins.hostProblem(req, host);
      if (badHost !== undefined) {
        this.refuse(exchange, 400, `Bad Request: ${badHost}`);
        return;
      }
      if (cors === undefined) {
        this.refuse(exchange, 403, "Forbidden: this Origin or Host may not call the server");
        return;
      }
      switch (req.method) {
        case "POST":
          return this.post(req, exchange);
        case "GET":
          this.get(req, exchange);
          return;
        case "DELETE":
          return this.delete(req, exchange).catch((e: unknown) => this.failed(exchange, e));
        case "OPTIONS":
          this.preflight(req, exchange);
          return;
        default:
          exchange.setHeader("allow", "GET, POST, DELETE");
          this.refuse(exchange, 405, `Method Not Allowed: ${req.method}`);
      }
    } catch (e) {
      this.failed(exchange, e);
    }
  }

  /** An internal failure: told to `onError`, and the client gets 500 if the response has not started. */
  private failed(exchange: Exchange, e: unknown): void {
    this.options.onError?.(e);
    try {
      if (!exchange.started)
        exchange.answer(errorText({ code: INTERNAL_ERROR, message: "Internal error" }, undefined), 500);
      else exchange.end();
    } catch {
      // the response itself cannot be written: nothing is left to tell the client
    }
  }

  private preflight(req: HttpRequestLike, exchange: Exchange): void {
    if (req.header("origin") === undefined) {
      exchange.setHeader("allow", "GET, POST, DELETE");
      this.refuse(exchange, 405, "Method Not Allowed: OPTIONS");
      return;
    }
    exchange.empty(204, this.origins.preflightHeaders(req));
  }

  /** An HTTP-level refusal, with a JSON-RPC error body (with no id unless one was read). */
  private refuse(
    exchange: Exchange,
    status: number,
    message: string,
    code = INVALID_REQUEST,
    id?: RequestId | null,
  ): void {
    exchange.answer(errorText({ code, message }, id), status);
  }

  /** A POST; throws only before anything is waited for, and the promise it returns never rejects. */
  private post(req: HttpRequestLike, exchange: Exchange): void | Promise<void> {
    const type = req.header("content-type");
    // as clients send it nearly always; anything else is parsed
    if (type !== "application/json" && type?.split(";")[0]!.trim().toLowerCase() !== "application/json") {
      this.refuse(exchange, 415, "Unsupported Media Type: the body must be application/json");
      return;
    }
    const accept = exchange.accepts;
    if (!accept.json && !accept.sse) {
      this.refuse(exchange, 406, "Not Acceptable: the client must accept application/json or text/event-stream");
      return;
    }
    const declared = req.readWhole === undefined ? undefined : this.smallDeclared(req);
    if (declared === undefined) return this.postRead(req, exchange).catch((e: unknown) => this.failed(exchange, e));
    if (this.bodyNow(req, exchange, declared)) return;
    // node:http pushes the body that came with the headers just after the request event
    return SERVED.then(() => {
      try {
        if (this.bodyNow(req, exchange, declared)) return;
        return this.postRead(req, exchange).catch((e: unknown) => this.failed(exchange, e));
      } catch (e) {
        this.failed(exchange, e);
      }
    });
  }

  /** A declared body length that `bodyNow` may take whole: not empty, not too large. */
  private smallDeclared(req: HttpRequestLike): number | undefined {
    const header = req.header("content-length");
    if (header === undefined) return undefined;
    const declared = Number(header);
    return Number.isSafeInteger(declared) && declared > 0 && declared <= this.maxBody ? declared : undefined;
  }

  /**
   * Serves the body if all `declared` bytes of it are here already and fit the byte budget now
   * (as for nearly every small request); false, having taken nothing, when it must be read.
   */
  private bodyNow(req: HttpRequestLike, exchange: Exchange, declared: number): boolean {
    if (!this.budget.tryTake(declared)) return false;
    const body = req.readWhole!(declared);
    if (body === null) {
      this.budget.release(declared);
      return false;
    }
    try {
      this.serveBody(req, exchange, body);
    } finally {
      this.budget.release(declared);
    }
    return true;
  }

  private async postRead(req: HttpRequestLike, exchange: Exchange): Promise<void> {
    const read = await this.readBody(req, exchange);
    if (read === undefined) return;
    try {
      this.serveBody(req, exchange, read.body);
    } finally {
      // parsed and handed over by now: the raw bytes are no longer this server's to hold
      this.budget.release(read.held);
    }
  }

  private serveBody(req: HttpRequestLike, exchange: Exchange, body: Uint8Array): void {
    const sessionId = req.header(H_SESSION_ID);
    const session = sessionId === undefined ? undefined : this.table.get(sessionId);
    const revision = session?.revision ?? LATEST_LEGACY_REVISION;
    const decoded = decode(body, { revision, role: "client", maxBytes: this.maxBody });
    if (decoded.kind === "invalid") {
      // up to 2025-06-18 an error answering an unreadable id carries id null (JSON-RPC); later ones omit it
      this.refuseInvalid(
        exchange,
        decoded,
        session?.revision !== undefined && !RULES[session.revision].errorIdOptional ? null : undefined,
      );
      return;
    }
    // handed to the peer with the body, which then need not read it again (nor decode its text)
    const read: ReadMessage = { decoded, revision, role: "client", maxBytes: this.maxBody };
    const single = decoded.kind === "batch" ? undefined : (decoded.message as Message);
    if (single && this.isModern(single, req)) {
      this.serveModern(req, exchange, single, decoded.kind, body, read);
      return;
    }
    if (!this.legacy) {
      this.refuse(
        exchange,
        400,
        `Bad Request: this server speaks ${LATEST_REVISION} only; every request carries _meta["${META_PROTOCOL_VERSION}"]`,
        INVALID_REQUEST,
        idOf(single),
      );
      return;
    }
    if (sessionId === undefined) {
      if (decoded.kind === "request" && (single as { method: string }).method === "initialize") {
        this.openSession(exchange, single as Message & { id: RequestId }, body, read, req.remoteAddress ?? "");
        return;
      }
      this.refuse(
        exchange,
        400,
        "Bad Request: no Mcp-Session-Id; a legacy client opens a session with initialize first",
        INVALID_REQUEST,
        idOf(single),
      );
      return;
    }
    if (!session) {
      this.refuse(
        exchange,
        404,
        "Session not found: it ended or never existed; open a new one with initialize",
        INVALID_REQUEST,
        idOf(single),
      );
      return;
    }
    if (!this.versionHeaderFits(req, session, exchange, idOf(single))) return;
    this.serveInSession(session, exchange, decoded, body, read);
  }

  /**
   * Reads the body within the size cap, the deadline and the server's byte budget; undefined
   * when it answered already. The bytes taken from the budget are in `held`, for the caller to
   * give back once the body is parsed.
   */
  private async readBody(
    req: HttpRequestLike,
    exchange: Exchange,
  ): Promise<{ body: Uint8Array; held: number } | undefined> {
    const header = req.header("content-length");
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > this.maxBody) {
      req.stopReading();
      this.refuse(exchange, 413, `Content Too Large: the body may be at most ${this.maxBody} bytes`);
      return undefined;
    }
    const known = declared !== undefined && Number.isSafeInteger(declared) && declared >= 0;
    const reading = new RequestBody(req, this.budget, this.maxBody, this.bodyTimeout, known ? declared : undefined);
    const read = await reading.read(this.budgetWait());
    if (typeof read !== "string") return { body: read, held: reading.held };
    switch (read) {
      case "busy":
        return this.refuseBusy(req, exchange, reading.held);
      case "gone":
        this.budget.release(reading.held);
        return undefined; // the client went away mid-body: nobody to answer
      case "too_large":
        this.budget.release(reading.held);
        req.stopReading();
        this.refuse(exchange, 413, `Content Too Large: the body may be at most ${this.maxBody} bytes`);
        return undefined;
      case "timeout":
        this.budget.release(reading.held);
        req.stopReading();
        this.refuse(exchange, 408, `Request Timeout: the body did not arrive within ${this.bodyTimeout} ms`);
        return undefined;
    }
  }

  /** 503 for a body that found no room in the byte budget in time; gives back the `held` bytes it had. */
  private refuseBusy(req: HttpRequestLike, exchange: Exchange, held: number): undefined {
    this.budget.release(held);
    req.stopReading();
    exchange.setHeader("retry-after", "1");
    this.refuse(exchange, 503, "Service Unavailable: too many request bodies in progress; retry shortly");
    return undefined;
  }

  /** How long a body waits for room in the byte budget before it is refused with 503. */
  private budgetWait(): number {
    return Math.min(this.bodyTimeout, BUDGET_WAIT_MS);
  }

  private refuseInvalid(exchange: Exchange, decoded: Decoded, unreadable: null | undefined): void {
    const unparsable = decoded.defects.some((d) => d.code === "parse_error" || d.code === "invalid_utf8");
    if (unparsable) {
      this.refuse(exchange, 400, "Parse error: the body is not JSON", PARSE_ERROR, unreadable);
      return;
    }
    const batch = decoded.defects.some((d) => d.code === "batch_not_allowed");
    const why = batch
      ? "a batch; send one JSON-RPC message per request"
      : (decoded.defects.find((d) => d.severity === "error")?.message ?? "not a JSON-RPC message");
    const value = decoded.value;
    const id =
      isObject(value) && (typeof value.id === "string" || (typeof value.id === "number" && Number.isInteger(value.id)))
        ? (value.id as RequestId)
        : unreadable;
    this.refuse(exchange, 400, `Invalid Request: ${why}`, INVALID_REQUEST, id);
  }

  /**
   * 2026-07-28 traffic: the body's `_meta` names a protocol version, or the MCP-Protocol-Version
   * header names one that is not a legacy revision (a modern client that forgot `_meta` gets
   * told so, rather than treated as a legacy client without a session).
   */
  private isModern(message: Message, req: HttpRequestLike): boolean {
    const params = (message as { params?: unknown }).params;
    if (isObject(params) && isObject(params._meta) && params._meta[META_PROTOCOL_VERSION] !== undefined) return true;
    if ((message as { method?: unknown }).method === undefined) return false;
    const version = req.header(H_PROTOCOL_VERSION);
    return version !== undefined && !(isRevision(version) && RULES[version].era === "legacy");
  }

  private serveModern(
    req: HttpRequestLike,
    exchange: Exchange,
    message: Message,
    kind: Decoded["kind"],
    body: Uint8Array,
    read: ReadMessage,
  ): void {
    if (kind === "notification") {
      // 2026-07-28 defines no client notifications over HTTP (cancelling is closing the stream)
      exchange.empty(202);
      return;
    }
    if (kind !== "request") {
      this.refuse(
        exchange,
        400,
        `Invalid Request: a ${LATEST_REVISION} client sends no responses`,
        INVALID_REQUEST,
        idOf(message),
      );
      return;
    }
    const request = message as { id: RequestId; method: string; params?: JsonObject };
    const refused = checkModernRequest(request.method, request.params, req, this.paramHeaders);
    if (refused) {
      exchange.answer(errorText(refused, request.id), 400);
      return;
    }
    const transport = new RequestTransport(exchange, request.id);
    if (this.server.connectRequest) this.server.connectRequest(transport);
    else this.server.connect(transport);
    transport.deliver(body, read);
  }

  private openSession(
    exchange: Exchange,
    message: Message & { id: RequestId },
    body: Uint8Array,
    read: ReadMessage,
    client: string,
  ): void {
    const session = new Session((t) => this.server.connect(t), client);
    const refused = this.table.add(session);
    if (refused !== undefined) {
      void session.close();
      exchange.setHeader("retry-after", "5");
      const why =
        refused === "full"
          ? "too many sessions in use"
          : "this client has too many sessions in use; end some (DELETE) first";
      this.refuse(exchange, 503, `Service Unavailable: ${why}`, INVALID_REQUEST, message.id);
      return;
    }
    exchange.setHeader(H_SESSION_ID, session.id);
    session.transport.beforeAnswer = (answer, on) => {
      if (on !== exchange || (answer as { id?: unknown }).id !== message.id) return;
      session.transport.beforeAnswer = undefined;
      const result = (answer as { result?: unknown }).result;
      if (result !== undefined) {
        session.negotiated(result);
        return;
      }
      // a refused initialize opens nothing
      on.removeHeader(H_SESSION_ID);
      void this.table.delete(session.id);
    };
    session.transport.deliver(body, read, exchange, [message.id]);
  }

  /** After negotiation (2025-06-18 on), a version header must name the session's revision. */
  private versionHeaderFits(
    req: HttpRequestLike,
    session: Session,
    exchange: Exchange,
    id: RequestId | undefined,
  ): boolean {
    const header = req.header(H_PROTOCOL_VERSION);
    if (header === undefined || session.revision === undefined || header === session.revision) return true;
    this.refuse(
      exchange,
      400,
      `Bad Request: MCP-Protocol-Version ${JSON.stringify(header.slice(0, 40))} is not this session's ${session.revision}`,
      INVALID_REQUEST,
      id,
    );
    return false;
  }

  private serveInSession(
    session: Session,
    exchange: Exchange,
    decoded: Decoded,
    body: Uint8Array,
    read: ReadMessage,
  ): void {
    if (decoded.kind === "request" && (decoded.message as { method: string }).method !== "notifications/cancelled") {
      // one request, nearly always: the checks below for just it, with no lists
      const { id, method } = decoded.message as { id: RequestId; method: string };
      if (method === "initialize") {
        this.refuse(exchange, 400, "Invalid Request: this session is already initialized", INVALID_REQUEST, id);
        return;
      }
      if (session.transport.awaits(id)) {
        this.refuse(
          exchange,
          400,
          `Invalid Request: id ${JSON.stringify(id)} is already in use by a request awaiting its answer`,
          INVALID_REQUEST,
          id,
        );
        return;
      }
      session.transport.deliver(body, read, exchange, [id]);
      return;
    }
    const messages = decoded.kind === "batch" ? (decoded.message as Message[]) : [decoded.message as Message];
    if (decoded.kind === "batch" && decoded.items!.every((i) => i.kind === "invalid")) {
      // JSON-RPC 2.0 §6: `[1,2,3]` gets three -32600s; no request in it has an id to carry them
      const ids = (messages as unknown[]).map(brokenMemberId).filter((id) => id !== undefined);
      if (ids.length > 0) {
        exchange.answer(
          `[${ids.map((id) => errorText({ code: INVALID_REQUEST, message: "Invalid Request" }, id)).join(",")}]`,
          400,
        );
        return;
      }
    }
    const ids: RequestId[] = [];
    for (const m of messages) {
      if (!isObject(m)) continue; // a broken member, answered by the session's peer
      const { id, method } = m as { id?: RequestId; method?: string };
      if (method === undefined || id === undefined) continue;
      if (method === "initialize") {
        this.refuse(exchange, 400, "Invalid Request: this session is already initialized", INVALID_REQUEST, id);
        return;
      }
      if (session.transport.awaits(id) || ids.includes(id)) {
        this.refuse(
          exchange,
          400,
          `Invalid Request: id ${JSON.stringify(id)} is already in use by a request awaiting its answer`,
          INVALID_REQUEST,
          id,
        );
        return;
      }
      ids.push(id);
    }
    if (ids.length === 0) {
      // notifications and the client's answers (to sampling, elicitation, roots) are accepted as is
      session.transport.deliver(body, read);
      exchange.empty(202);
    } else {
      session.transport.deliver(body, read, exchange, ids);
    }
    for (const m of messages) {
      if (!isObject(m)) continue;
      const { method, params } = m as { method?: string; params?: JsonObject };
      const target = params?.requestId;
      if (method === "notifications/cancelled" && (typeof target === "string" || typeof target === "number"))
        session.transport.cancelled(target);
    }
  }

  private get(req: HttpRequestLike, exchange: Exchange): void {
    const session = this.sessionFor(req, exchange, "GET");
    if (!session) return;
    if (!accepts(req.header("accept")).sse) {
      this.refuse(exchange, 406, "Not Acceptable: the GET stream is text/event-stream");
      return;
    }
    if (!session.transport.openStream(exchange, this.keepAliveMs)) {
      this.refuse(exchange, 409, "Conflict: this session already has a GET stream open");
    }
  }

  private async delete(req: HttpRequestLike, exchange: Exchange): Promise<void> {
    const session = this.sessionFor(req, exchange, "DELETE");
    if (!session) return;
    await this.table.delete(session.id);
    exchange.empty(204);
  }

  /** The legacy session a GET or DELETE names, or undefined once it has answered the request. */
  private sessionFor(req: HttpRequestLike, exchange: Exchange, method: string): Session | undefined {
    const sessionId = req.header(H_SESSION_ID);
    if (sessionId === undefined || !this.legacy) {
      // 2026-07-28 has neither the GET stream nor sessions to end
      exchange.setHeader("allow", "POST");
      this.refuse(
        exchange,
        405,
        `Method Not Allowed: ${method} needs a legacy session (Mcp-Session-Id); ${LATEST_REVISION} clients only POST`,
      );
      return undefined;
    }
    const session = this.table.get(sessionId);
    if (!session) {
      this.refuse(exchange, 404, "Session not found: it ended or never existed");
      return undefined;
    }
    return this.versionHeaderFits(req, session, exchange, undefined) ? session : undefined;
  }
}

/**
 * The id of the -32600 that answers one broken batch member (null when it has none readable), or
 * undefined when the member gets no answer: a notification or a response, as the peer judges them.
 */
function brokenMemberId(m: unknown): RequestId | null | undefined {
  if (!isObject(m)) return null;
  const id = m.id;
  if (m.method === undefined && (m.result !== undefined || m.error !== undefined)) return undefined;
  if (typeof m.method === "string" && id === undefined) return undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

function idOf(message: Message | undefined): RequestId | undefined {
  const id = (message as { id?: unknown } | undefined)?.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * A Streamable HTTP endpoint for `server`: mount `handler.node` on node:http or
 * `handler.fetch` on a Fetch-API server, at the path of your MCP endpoint.
 */
export function createHttpHandler(server: HttpServable, options: HttpHandlerOptions = {}): HttpHandler {
  const core = new StreamableHttpHandler(server, options);
  const handle = (req: HttpRequestLike, res: HttpResponder) => core.handle(req, res);
  return {
    node: (req, res) => {
      const request = nodeRequest(req);
      void core.serve(request, nodeResponder(res, request));
    },
    fetch: (request) => fetchHandle(request, handle),
    handle,
    get sessions() {
      return core.sessions;
    },
    close: () => core.close(),
  };
}
