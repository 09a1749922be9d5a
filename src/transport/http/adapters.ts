/**
 * The HTTP server handler on two kinds of server: node:http (`IncomingMessage`/`ServerResponse`)
 * and the Fetch API (`Request` → `Response`). Each adapter only translates; the protocol lives
 * in http-server.ts, once.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { keepShape } from "../../peer/shapes.js";
import { nextChunk } from "./chunks.js";
import type { HttpRequestLike, HttpResponder } from "./exchange.js";

/** A node:http request; `stopped` tells the responder to close the connection after answering. */
export interface NodeRequest extends HttpRequestLike {
  readonly stopped: boolean;
}

/** Every Host line of a request, joined by ", " (one line, nearly always: no list is made for it). */
function hostLines(raw: readonly string[]): string | undefined {
  let first: string | undefined;
  let more: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (first === undefined) first = raw[i + 1]!;
    else (more ??= [first]).push(raw[i + 1]!);
  }
  return more ? more.join(", ") : first;
}

/** A node:http request as the handler reads it (a class: one object per request, no closures). */
class NodeIncoming implements NodeRequest {
  readonly method: string;
  stopped = false;

  constructor(private readonly req: IncomingMessage) {
    this.method = req.method ?? "GET";
  }

  header(name: string): string | undefined {
    // node keeps only the first Host; a second one must still be seen (RFC 9112 §3.2: 400)
    if (name === "host") return hostLines(this.req.rawHeaders);
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
  }

  headerNames(): readonly string[] {
    return Object.keys(this.req.headers);
  }

  stopReading(): void {
    // unread, the rest never leaves the socket's buffers; the connection closes after the answer
    this.stopped = true;
    this.req.pause();
  }

  // asked for only when a legacy session opens: the socket's getter is a system call each time
  get remoteAddress(): string | undefined {
    return this.req.socket?.remoteAddress;
  }

  readNow(): Uint8Array | undefined | null {
    const req = this.req;
    const chunk = req.read() as Buffer | null;
    if (chunk !== null) return chunk;
    // complete with nothing left buffered: the end, even though its event has not fired yet
    return req.readableEnded || (req.complete && req.readableLength === 0) ? undefined : null;
  }

  readWhole(length: number): Uint8Array | null {
    const req = this.req;
    if (req.readableLength !== length) return null;
    return req.read() as Buffer | null;
  }

  read(): Promise<Uint8Array | undefined> {
    const req = this.req;
    const first = req.read() as Buffer | null;
    if (first !== null) return Promise.resolve(first);
    if (req.readableEnded) return Promise.resolve(undefined);
    if (req.destroyed) return Promise.reject(new Error("the client went away"));
    return nextChunk(
      req,
      () => req.read() as Buffer | null,
      () => new Error("the client went away"),
    );
  }
}

export function nodeRequest(req: IncomingMessage): NodeRequest {
  return new NodeIncoming(req);
}

/** The response side of a node:http exchange (a class, for the same reason as `NodeIncoming`). */
class NodeOutgoing implements HttpResponder {
  constructor(
    private readonly res: ServerResponse,
    private readonly request: NodeRequest,
  ) {}

  start(status: number, headers: Record<string, string>, flush?: boolean): void {
    this.res.writeHead(status, this.request.stopped ? { ...headers, connection: "close" } : headers);
    // a stream that may stay empty a while is open from its first byte; otherwise the headers
    // leave with the first write
    if (flush) this.res.flushHeaders();
  }

  write(chunk: string): boolean {
    return this.res.write(chunk);
  }

  drained(): Promise<void> {
    const res = this.res;
    return new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }

  end(chunk?: string): void {
    if (chunk === undefined) this.res.end();
    else this.res.end(chunk);
  }

  onAbort(listener: () => void): void {
    const res = this.res;
    if (res.destroyed) {
      if (!res.writableFinished) listener();
      return;
    }
    res.once("close", () => {
      if (!res.writableFinished) listener();
    });
  }
}

export function nodeResponder(res: ServerResponse, request: NodeRequest): HttpResponder {
  return new NodeOutgoing(res, request);
}

// made per request (see shapes.ts)
keepShape(
  new NodeOutgoing({} as ServerResponse, keepShape(new NodeIncoming({ method: "POST" } as IncomingMessage), "http")),
  "http",
);

/** Serves one Fetch-API request: resolves with the Response as soon as its status is known. */
export function fetchHandle(
  request: Request,
  handle: (req: HttpRequestLike, res: HttpResponder) => Promise<void>,
): Promise<Response> {
  const res = new FetchOutgoing(request);
  void handle(new FetchIncoming(request), res);
  return res.response;
}

const encoder = new TextEncoder();

/** A Fetch-API request as the handler reads it. */
class FetchIncoming implements HttpRequestLike {
  readonly method: string;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(private readonly request: Request) {
    this.method = request.method;
    this.reader = request.body?.getReader();
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? (name === "host" ? this.host() : undefined);
  }

  headerNames(): readonly string[] {
    return [...this.request.headers.keys()];
  }

  async read(): Promise<Uint8Array | undefined> {
    if (!this.reader) return undefined;
    const { value, done } = await this.reader.read();
    return done ? undefined : value;
  }

  stopReading(): void {
    this.reader?.cancel().catch(() => undefined);
  }

  /** A Fetch-API server may leave Host out of the headers: the request's URL has it. */
  private host(): string | undefined {
    try {
      return new URL(this.request.url).host;
    } catch {
      return undefined;
    }
  }
}

/**
 * The response side of a Fetch-API exchange: the Response is given as soon as its status is
 * known, its body a stream the handler writes to, which pulls (the client reading) release.
 */
class FetchOutgoing implements HttpResponder {
  readonly response: Promise<Response>;
  private respond!: (response: Response) => void;
  private readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private ended = false;
  private aborted = false;
  private responded = false;
  private abortListener: (() => void) | undefined;
  /** Writers waiting for the client to read. */
  private waiting: (() => void)[] = [];

  constructor(private readonly request: Request) {
    this.response = new Promise<Response>((resolve) => (this.respond = resolve));
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        pull: () => this.release(),
        cancel: () => this.abort(),
      },
      { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
    );
    request.signal?.addEventListener("abort", this.abort, { once: true });
  }

  start(status: number, headers: Record<string, string>): void {
    // these statuses never carry a body, and the Response constructor refuses one
    const bodiless = status === 202 || status === 204 || status === 304;
    this.responded = true;
    this.respond(new Response(bodiless ? null : this.body, { status, headers }));
  }

  write(chunk: string): boolean {
    if (this.ended || this.aborted) return true;
    this.controller.enqueue(encoder.encode(chunk));
    return (this.controller.desiredSize ?? 1) > 0;
  }

  drained(): Promise<void> {
    if (this.aborted || this.ended || (this.controller.desiredSize ?? 1) > 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  end(chunk?: string): void {
    if (this.ended) return;
    if (chunk !== undefined && !this.aborted) this.controller.enqueue(encoder.encode(chunk));
    this.ended = true;
    this.request.signal?.removeEventListener("abort", this.abort);
    if (!this.aborted) this.controller.close();
  }

  onAbort(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListener = listener;
  }

  private release(): void {
    for (const w of this.waiting) w();
    this.waiting = [];
  }

  /** The client went away (its signal, or it cancelled the body). */
  private readonly abort = (): void => {
    if (this.ended || this.aborted) return;
    this.aborted = true;
    this.release();
    this.abortListener?.();
    // nobody reads it, but the promise must settle: 499, nginx's "client closed request"
    if (!this.responded) this.respond(new Response(null, { status: 499 }));
  };
}

/** The deadlines of a node:http server in front of the handler. */
export interface NodeServerTimeouts {
  /** Time for a request's headers to arrive. Default 10 s. */
  headersTimeoutMs?: number;
  /** Time for a whole request (headers and body) to arrive. Default 30 s. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long. Default 5 s. */
  keepAliveTimeoutMs?: number;
}

/**
 * Options for `http.createServer` that hold its deadlines on time. node:http checks the header
 * and request deadlines only every `connectionsCheckingInterval` (30 s by default), so a client
 * dripping its headers byte by byte (slowloris) keeps its socket for up to 40 s against a 10 s
 * header deadline; checked every second or so, it is gone within the deadline and a second.
 */
export function nodeServerOptions(timeouts: NodeServerTimeouts = {}): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = timeouts.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(headersTimeout, timeouts.requestTimeoutMs ?? 30_000);
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs ?? 5_000,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}
