/**
 * The HTTP client of every exchange of mcp-wire, on node:http and node:https with keep-alive
 * agents (the built-in `fetch` costs far more CPU per request, and to start): redirects followed
 * on the same origin only (so credentials never reach another host), and bodies read with a cap
 * (so a 1 GB answer costs no more than the cap).
 */
import * as http from "node:http";
import type { LookupFunction } from "node:net";
import * as https from "node:https";
import type * as net from "node:net";
import type { Duplex } from "node:stream";
import { urlToHttpOptions } from "node:url";
import * as zlib from "node:zlib";
import { BoundedMap } from "../../codec/bounded.js";
import { defect, type Defect } from "../../codec/defects.js";
import { settledOn } from "../../peer/settlers.js";
import { keepShape } from "../../peer/shapes.js";
import { nextChunk } from "./chunks.js";
import { HttpError, networkCode } from "./error.js";

const MAX_REDIRECTS = 5;
/** How long a TCP (and TLS) connection may take to open, as undici's `fetch` allowed. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * What `fetch` offers: servers behind CDNs and frameworks compress when asked, and a few
 * compress whatever is asked, so a client that cannot decode reads them as garbage.
 */
const ACCEPT_ENCODING = "gzip, deflate, br";

/**
 * A connection that does not open in time fails as undici's did (a deadline, not a hang). Armed
 * where the agent opens a connection, so a request on a kept-alive one pays nothing for it.
 */
function connectDeadline(socket: net.Socket, secure: boolean): void {
  if (!socket.connecting) return;
  const timer = setTimeout(
    () => socket.destroy(Object.assign(new Error(`connect timeout (${CONNECT_TIMEOUT_MS} ms)`), { code: "ETIMEDOUT" })),
    CONNECT_TIMEOUT_MS,
  );
  timer.unref();
  const clear = () => clearTimeout(timer);
  socket.once(secure ? "secureConnect" : "connect", clear);
  socket.once("close", clear);
}

type CreateConnection = (
  options: http.ClientRequestArgs,
  callback?: (err: Error | null, stream: Duplex) => void,
) => Duplex | null | undefined;

class HttpAgent extends http.Agent {
  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = (http.Agent.prototype.createConnection as CreateConnection).call(this, options, callback);
    if (socket) connectDeadline(socket as net.Socket, false);
    return socket;
  }
}

class HttpsAgent extends https.Agent {
  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = (https.Agent.prototype.createConnection as CreateConnection).call(this, options, callback);
    if (socket) connectDeadline(socket as net.Socket, true);
    return socket;
  }
}

/** Keep-alive agents shared by every exchange: a census reuses its connections. */
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

/** What hears an abort: a function, or an object whose `handleEvent` is called (as EventTarget allows). */
export type AbortListener = (() => void) | { handleEvent(): void };

/**
 * What a request can be aborted by: an AbortSignal, or an `Abort` (below), which costs a small
 * fraction of an AbortController, for callers that need one per request.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: AbortListener): void;
}

/**
 * An abort switch with AbortSignal's shape (`aborted`, `reason`, "abort" listeners) and nothing
 * more: an AbortController is an EventTarget, and making one per request cost several
 * microseconds of a loopback round trip.
 */
export class Abort implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: AbortListener[] | undefined;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason =
      reason ?? Object.assign(new Error("This operation was aborted"), { name: "AbortError", code: "ABORT_ERR" });
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners)
      for (const listener of listeners) {
        if (typeof listener === "function") listener();
        else listener.handleEvent();
      }
  }

  addEventListener(_type: "abort", listener: AbortListener, _options?: { once?: boolean }): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: AbortListener): void {
    const listeners = this.listeners;
    const i = listeners ? listeners.indexOf(listener) : -1;
    if (i >= 0) listeners!.splice(i, 1);
  }
}

/** What an exchange sends. */
export interface HttpRequestInit {
  method: "GET" | "POST" | "DELETE" | "OPTIONS";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortLike;
  /** Resolves host names instead of the system resolver (tests give many names one loopback address). */
  lookup?: LookupFunction | undefined;
}

/** The body of an answer, read chunk by chunk. */
export interface HttpBody {
  /** The next chunk; undefined at the end. Rejects if the connection breaks or the exchange is aborted. */
  read(): Promise<Uint8Array | undefined>;
  /**
   * The next chunk if it has arrived already, undefined at the end, null when it has to be
   * waited for (then `read`). Optional: it spares the promise of a wait that is not needed (a
   * small answer arrives with its headers).
   */
  readNow?(): Uint8Array | undefined | null;
  /** Stops reading: the rest is never received (the connection is closed). */
  cancel(): void;
}

/** An HTTP answer: the status, the headers and the body still to be read. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: HttpBody;
}

export interface FetchedResponse {
  response: HttpResponse;
  /** Where the answer finally came from, after same-origin redirects. */
  url: string;
  /** The redirects followed on the way, in order (empty when none). */
  redirects: readonly Redirect[];
}

export interface Redirect {
  status: number;
  from: string;
  to: string;
}

interface Target {
  readonly secure: boolean;
  /** What node:http makes of the URL (`urlToHttpOptions`), made once. */
  readonly options: http.RequestOptions;
  /** The Host header node:http would send: the host name (bracketed if IPv6), and the port unless it is the scheme's. */
  readonly host: string;
}

/** URLs parsed for node:http, by their text: a client sends to the same few again and again. */
const targets = new BoundedMap<string, Target>(256);

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    const secure = parsed.protocol === "https:";
    if (!secure && parsed.protocol !== "http:") {
      throw Object.assign(new Error(`unsupported URL scheme ${parsed.protocol} (only http: and https:)`), {
        code: "ERR_INVALID_PROTOCOL",
      });
    }
    target = { secure, options: urlToHttpOptions(parsed) as http.RequestOptions, host: parsed.host };
    targets.set(url, target);
  }
  return target;
}

/**
 * One HTTP request with node:http or node:https (no redirect followed). Resolves with the
 * answer once its headers have come; rejects with the system error (its `code` set) or, when
 * `signal` fires, with the signal's reason. Only http: and https: URLs are accepted.
 */
export function httpRequest(url: string, init: HttpRequestInit): Promise<HttpResponse> {
  let target: Target;
  try {
    target = targetOf(url);
  } catch (e) {
    return Promise.reject(e);
  }
  const signal = init.signal;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const sending = new Sending(target.secure, requestOptions(target, init), init.body, signal);
  const answer = settledOn(sending);
  if (!sending.send()) return answer;
  if (signal) signal.addEventListener("abort", sending, { once: true });
  sending.req!.end(init.body);
  return answer;
}

/**
 * What node:http is given: a literal (V8 makes an object that starts with a spread and then
 * takes more properties through a slow path, microseconds per request), with no key it does
 * not need (node:http copies these options three times per request), and the headers as the
 * [name, value, …] list node:http writes out as it is (given as an object, each header is
 * validated and stored one by one, then written from there).
 */
function requestOptions(target: Target, init: HttpRequestInit): http.RequestOptions {
  const parts = target.options;
  const options: http.RequestOptions = {
    hostname: parts.hostname,
    port: parts.port,
    path: parts.path,
    method: init.method,
    headers: undefined,
    agent: target.secure ? httpsAgent : httpAgent,
  };
  if (init.lookup) options.lookup = init.lookup;
  // what fetch sent when the caller did not say
  let accept = false;
  let userAgent = false;
  let encoding = false;
  // names all in lower case cannot repeat one another; any other set goes as an object, which
  // node:http dedupes case-insensitively (and a URL's user:password becomes its Authorization),
  // as does a caller's own Host, Content-Length or Expect, which node:http treats apart
  let listed = parts.auth === undefined;
  const given = init.headers;
  if (given) {
    for (const name in given) {
      const lower = name.toLowerCase();
      if (lower !== name || lower === "host" || lower === "content-length" || lower === "expect") listed = false;
      if (lower === "accept") accept = true;
      else if (lower === "user-agent") userAgent = true;
      else if (lower === "accept-encoding") encoding = true;
    }
  }
  if (!listed) {
    const headers: Record<string, string | number> = {};
    if (given) for (const name in given) headers[name] = given[name]!;
    if (!accept) headers.accept = "*/*";
    if (!userAgent) headers["user-agent"] = "node";
    if (!encoding) headers["accept-encoding"] = ACCEPT_ENCODING;
    if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body, "utf8");
    options.headers = headers;
    if (parts.auth !== undefined) options.auth = parts.auth;
    return options;
  }
  // the same header lines, in the same order, node:http writes for the object above
  const list: (string | number)[] = [];
  if (given) for (const name in given) list.push(name, given[name]!);
  if (!accept) list.push("accept", "*/*");
  if (!userAgent) list.push("user-agent", "node");
  if (!encoding) list.push("accept-encoding", ACCEPT_ENCODING);
  if (init.body !== undefined) list.push("content-length", Buffer.byteLength(init.body, "utf8"));
  list.push("Host", target.host);
  options.headers = list as unknown as http.OutgoingHttpHeaders;
  return options;
}

/**
 * One request under way: one object, which is also its signal's listener, instead of a closure
 * per event (a loopback round trip is a few tens of microseconds: each allocation shows).
 */
class Sending {
  req: http.ClientRequest | undefined = undefined;
  res: http.IncomingMessage | undefined = undefined;
  settled = false;
  resolve: (response: HttpResponse) => void = ignore;
  reject: (e: unknown) => void = ignore;

  constructor(
    private readonly secure: boolean,
    private readonly options: http.RequestOptions,
    private readonly body: string | undefined,
    private readonly signal: AbortLike | undefined,
  ) {}

  /** Makes the request (again, after a reset); false if node:http refused it, the promise then rejected. */
  send(): boolean {
    let sent: http.ClientRequest;
    try {
      sent = (this.secure ? https : http).request(this.options);
    } catch (e) {
      this.settled = true;
      this.signal?.removeEventListener("abort", this);
      this.reject(e);
      return false;
    }
    this.req = sent;
    sent.on("error", (e) => this.failed(sent, e));
    // node:http emits 'response' once per request: `on` spares the wrapper `once` makes
    sent.on("response", (res: http.IncomingMessage) => this.responded(res));
    return true;
  }

  private failed(sent: http.ClientRequest, e: Error): void {
    // an error after the headers is the body's: it surfaces through read()
    if (this.settled || sent !== this.req) return;
    const signal = this.signal;
    // A kept-alive connection the server closed just as this request went out is reset before
    // any answer; the server closed it without reading the request, so it goes again on another
    // connection (node:http's own advice). Each such failure discards one pooled connection, so this ends.
    if (sent.reusedSocket && this.res === undefined && !signal?.aborted && isReset(e)) {
      if (this.send()) this.req.end(this.body);
      return;
    }
    this.settled = true;
    signal?.removeEventListener("abort", this);
    this.reject(signal?.aborted ? abortError(signal) : e);
  }

  private responded(incoming: http.IncomingMessage): void {
    this.res = incoming;
    this.settled = true;
    const signal = this.signal;
    // an Abort lives as long as its exchange, and an abort after the answer has ended keeps the
    // connection (see handleEvent): only a signal that outlives the exchange is let go of
    if (signal && !(signal instanceof Abort)) {
      const cleanup = () => signal.removeEventListener("abort", this);
      incoming.once("end", cleanup);
      incoming.once("close", cleanup);
    }
    this.resolve(new NodeResponse(incoming));
  }

  /** The signal fired. */
  handleEvent(): void {
    const res = this.res;
    // an answer received whole and let go of, or read to its last byte, is over: its connection
    // stays with the agent (resumed, a body read to its last byte ends and gives it back)
    if (res && (released.has(res) || (res.complete && res.readableLength === 0))) {
      if (!res.readableEnded) res.resume();
      return;
    }
    const e = abortError(this.signal!);
    if (res) res.destroy(e);
    this.req!.destroy(e);
  }
}

function ignore(): void {}

/** Why an answer's body stopped before its end: its error, or a close as streams name it. */
function prematureClose(res: http.IncomingMessage): Error {
  return res.errored ?? Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

function isReset(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE";
}

function abortError(signal: AbortLike): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error("This operation was aborted"), { name: "AbortError", code: "ABORT_ERR" });
}

class NodeHeaders {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}

  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }
}

class NodeResponse implements HttpResponse {
  readonly status: number;
  readonly headers: NodeHeaders;
  readonly body: HttpBody;

  constructor(res: http.IncomingMessage) {
    this.status = res.statusCode ?? 0;
    const raw = res.headers;
    this.headers = new NodeHeaders(raw);
    const coding = raw["content-encoding"];
    const lower = coding === undefined ? "" : coding.trim().toLowerCase();
    // identity (nearly every answer) is read as it comes: no zlib on the fast path
    this.body =
      lower === "" || lower === "identity" || !DECODERS.has(lower) ? new NodeBody(res) : new DecodedBody(res, lower);
  }
}

/** Answers received whole whose rest was drained by `cancel`, their connections left to the agent. */
const released = new WeakSet<http.IncomingMessage>();

/** Lets go of an answer: drained when it has all come (the connection stays open), else closed. */
function release(res: http.IncomingMessage): void {
  if (res.complete) {
    released.add(res);
    res.resume();
  } else res.destroy();
}

/** The content codings `ACCEPT_ENCODING` offers; any other is left as it came. */
const DECODERS = new Set(["gzip", "x-gzip", "deflate", "br"]);

/**
 * A compressed body, decoded as it streams in: callers see decoded bytes only, so every cap
 * they apply counts what the body expands to (a small bomb ends at the cap, not in memory),
 * and the decoder only runs as far as the caller reads (the pipe's back-pressure).
 */
class DecodedBody implements HttpBody {
  private decoder: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress | undefined;
  private readonly ready: Promise<AsyncIterator<Buffer> | undefined>;
  private done = false;

  constructor(
    private readonly res: http.IncomingMessage,
    private readonly coding: string,
  ) {
    this.ready = coding === "deflate" ? this.sniff() : Promise.resolve(this.attach(undefined));
    this.ready.catch(() => undefined);
  }

  async read(): Promise<Uint8Array | undefined> {
    if (this.done) return undefined;
    let next: IteratorResult<Buffer>;
    try {
      const iterator = await this.ready;
      if (!iterator || this.done) {
        this.done = true;
        return undefined;
      }
      next = await iterator.next();
    } catch (e) {
      this.cancel();
      throw decodingError(e, this.coding);
    }
    if (next.done) {
      this.done = true;
      return undefined;
    }
    return next.value;
  }

  cancel(): void {
    this.done = true;
    if (this.decoder) {
      this.res.unpipe(this.decoder);
      this.decoder.destroy();
    }
    if (this.res.readableEnded || this.res.destroyed) return;
    release(this.res);
  }

  /**
   * "deflate" should be zlib-wrapped (RFC 9110), but some servers send raw deflate, which fetch
   * reads too: the first byte tells them apart.
   */
  private async sniff(): Promise<AsyncIterator<Buffer> | undefined> {
    const res = this.res;
    // read() hands out the Buffers node:http received
    const first = (await nextChunk(
      res,
      () => res.read() as Buffer | null,
      () => prematureClose(res),
    )) as Buffer | undefined;
    return first === undefined ? undefined : this.attach(first);
  }

  private attach(first: Buffer | undefined): AsyncIterator<Buffer> {
    // sync flushes let a stream (SSE) be decoded event by event, as its chunks arrive, and a
    // body cut short yields what it held instead of an error, as fetch reads it
    const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const decoder =
      this.coding === "br"
        ? zlib.createBrotliDecompress({
            flush: zlib.constants.BROTLI_OPERATION_FLUSH,
            finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
          })
        : this.coding === "deflate"
          ? (first![0]! & 0x0f) === 8
            ? zlib.createInflate(flush)
            : zlib.createInflateRaw(flush)
          : zlib.createGunzip(flush);
    this.decoder = decoder;
    const res = this.res;
    // pipe() passes on neither the source's failure nor its early end: the decoder is told
    res.on("error", (e) => decoder.destroy(e));
    res.once("close", () => {
      if (!res.complete)
        decoder.destroy(
          Object.assign(new Error("the connection closed before the body was complete"), { code: "ECONNRESET" }),
        );
    });
    if (first) decoder.write(first);
    res.pipe(decoder);
    return decoder[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }
}

/**
 * An identity body, read straight from the IncomingMessage: what has arrived is taken at once
 * (a small answer is complete by the time its headers are handled), and only a wait costs a
 * promise and listeners (a stream's async iterator costs several times the rest of the read).
 */
class NodeBody implements HttpBody {
  private done = false;

  constructor(private readonly res: http.IncomingMessage) {}

  readNow(): Uint8Array | undefined | null {
    if (this.done) return undefined;
    const res = this.res;
    if (res.readableEnded) {
      this.done = true;
      return undefined;
    }
    if (res.destroyed) return null; // read() says how it ended
    const chunk = res.read() as Buffer | null;
    if (chunk !== null) return chunk;
    // complete with nothing left buffered: the end (that read() has set 'end' on its way)
    if (res.complete && res.readableLength === 0) {
      this.done = true;
      return undefined;
    }
    return null;
  }

  read(): Promise<Uint8Array | undefined> {
    const now = this.readNow();
    if (now !== null) return Promise.resolve(now);
    const res = this.res;
    if (res.destroyed)
      return res.readableEnded && !res.errored ? Promise.resolve(undefined) : Promise.reject(prematureClose(res));
    return nextChunk(
      res,
      () => this.readNow(),
      () => prematureClose(res),
    );
  }

  cancel(): void {
    this.done = true;
    if (this.res.readableEnded || this.res.destroyed) return;
    // a body already received is drained, to leave the connection to the agent; otherwise it is closed
    release(this.res);
  }
}

/** A body whose coding is broken says so; a broken connection or an abort stays what it was. */
function decodingError(e: unknown, coding: string): Error {
  const code = String((e as { code?: unknown } | undefined)?.code ?? "");
  if (
    !(e instanceof Error) ||
    !(code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code.startsWith("ERR__ERROR"))
  )
    return e instanceof Error ? e : new Error(String(e));
  return Object.assign(new Error(`the ${coding} body cannot be decoded: ${e.message}`, { cause: e }), {
    code: "ERR_CONTENT_DECODING",
  });
}

/**
 * A request that follows redirects to the same origin only (the method and body kept, as
 * 307/308 say, since re-sending a JSON-RPC message as GET means nothing); one to another
 * origin is refused with an HttpError naming the target.
 */
export function fetchSameOrigin(url: string, init: HttpRequestInit, step: string): Promise<FetchedResponse> {
  // nearly every answer is no redirect: one promise and no loop for it
  return httpRequest(url, init).then(
    (response) =>
      isRedirect(response) ? followRedirects(url, init, step, response) : { response, url, redirects: NO_REDIRECTS },
    (e: unknown) => {
      throw asNetworkError(e, step, url, init.signal);
    },
  );
}

const NO_REDIRECTS: readonly Redirect[] = Object.freeze([]);

/** An answer that sends the request elsewhere (3xx with a Location, 304 aside). */
export function isRedirect(response: HttpResponse): boolean {
  const status = response.status;
  return status >= 300 && status < 400 && status !== 304 && !!response.headers.get("location");
}

/** Follows the redirect `first` is, and those after it, on the same origin only (see fetchSameOrigin). */
export async function followRedirects(
  url: string,
  init: HttpRequestInit,
  step: string,
  first: HttpResponse,
): Promise<FetchedResponse> {
  let current = url;
  const redirects: Redirect[] = [];
  for (let hop = 0; ; hop++) {
    let response: HttpResponse;
    if (hop === 0) response = first;
    else {
      try {
        response = await httpRequest(current, init);
      } catch (e) {
        throw asNetworkError(e, step, current, init.signal);
      }
    }
    if (!isRedirect(response)) return { response, url: current, redirects };
    const location = response.headers.get("location")!;
    response.body.cancel();
    const target = new URL(location, current);
    const base = { step, url: current, status: response.status, location: target.href };
    if (target.origin !== new URL(current).origin) {
      throw new HttpError(
        { ...base, failure: "redirect" },
        `HTTP ${response.status} redirect to another origin (${target.origin}), not followed: credentials are never sent elsewhere`,
      );
    }
    if (hop >= MAX_REDIRECTS)
      throw new HttpError({ ...base, failure: "redirect" }, `more than ${MAX_REDIRECTS} redirects`);
    redirects.push({ status: response.status, from: current, to: target.href });
    current = target.href;
  }
}

/** Only a trailing slash added or removed: the commonest redirect in front of an MCP endpoint. */
function isTrailingSlashRedirect(r: Redirect): boolean {
  const from = new URL(r.from);
  const to = new URL(r.to);
  if (from.origin !== to.origin || from.search !== to.search) return false;
  return from.pathname + "/" === to.pathname || to.pathname + "/" === from.pathname;
}

/**
 * The warning a followed redirect of a POST earns: it worked here, but a client that does not
 * re-send a redirected POST (or turns it into a GET, as browsers do on 301 and 302) fails.
 */
export function redirectDefect(r: Redirect): Defect {
  const from = new URL(r.from);
  const to = new URL(r.to);
  const what = isTrailingSlashRedirect(r)
    ? to.pathname.endsWith("/")
      ? "only adds a trailing slash"
      : "only removes the trailing slash"
    : "stays on the same origin";
  return defect(
    "redirect",
    "",
    `POST ${from.pathname}${from.search} was answered with HTTP ${r.status} to ${to.pathname}${to.search}, which ${what}: followed, but many clients do not follow a redirected POST (and 301/302 turn it into a GET); configure clients with the final URL, or serve the endpoint at both`,
  );
}

/** What a request that got no answer is reported as: a timeout when its signal ended it, else the network failure. */
export function asNetworkError(e: unknown, step: string, url: string, signal: AbortLike | undefined): HttpError {
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof HttpError) return reason;
    return new HttpError(
      { failure: "timeout", step, url },
      `no HTTP answer: ${reason instanceof Error ? reason.message : "aborted"}`,
      { cause: e },
    );
  }
  const code = networkCode(e);
  const what = code ? describeNetworkCode(code) : e instanceof Error ? e.message : String(e);
  return new HttpError(
    { failure: "network", step, url, ...(code ? { networkCode: code } : {}) },
    `no HTTP answer from ${new URL(url).host}: ${what}`,
    { cause: e },
  );
}

function describeNetworkCode(code: string): string {
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host name does not resolve (${code})`;
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE")
    return `the connection was reset (${code})`;
  if (code.includes("CERT") || code.includes("TLS") || code.includes("SSL")) return `TLS failed (${code})`;
  return code;
}

export interface CappedBody {
  bytes: Buffer;
  /** The body went past the cap; `bytes` holds the first `cap` bytes. */
  truncated: boolean;
}

/** Reads a body up to `cap` bytes; past it, stops reading and cancels the rest. */
export async function readCapped(response: HttpResponse, cap: number): Promise<CappedBody> {
  return readBody(response, cap);
}

/**
 * `readCapped`, with no promise when the whole body has arrived already (a small answer comes
 * with its headers): the body itself then, a promise only when part of it has to be waited for.
 */
export function readBody(response: HttpResponse, cap: number): CappedBody | Promise<CappedBody> {
  const body = response.body;
  if (!body.readNow) return readRest(body, cap, undefined, undefined, 0);
  let first: Uint8Array | undefined;
  let parts: Uint8Array[] | undefined;
  let held = 0;
  for (;;) {
    const value = body.readNow();
    if (value === null) return readRest(body, cap, first, parts, held);
    if (value === undefined) return whole(first, parts, held);
    if (held + value.byteLength > cap) return truncated(body, cap, first, parts, held, value);
    // one chunk (a small answer) is kept as it came: no list, no copy
    if (first === undefined && parts === undefined) first = value;
    else (parts ??= [first!]).push(value);
    held += value.byteLength;
  }
}

async function readRest(
  body: HttpBody,
  cap: number,
  first: Uint8Array | undefined,
  parts: Uint8Array[] | undefined,
  held: number,
): Promise<CappedBody> {
  try {
    for (;;) {
      let value = body.readNow ? body.readNow() : null;
      if (value === null) value = await body.read();
      if (value === undefined) break;
      if (held + value.byteLength > cap) return truncated(body, cap, first, parts, held, value);
      if (first === undefined && parts === undefined) first = value;
      else (parts ??= [first!]).push(value);
      held += value.byteLength;
    }
  } catch (e) {
    body.cancel();
    throw e;
  }
  return whole(first, parts, held);
}

function truncated(
  body: HttpBody,
  cap: number,
  first: Uint8Array | undefined,
  parts: Uint8Array[] | undefined,
  held: number,
  value: Uint8Array,
): CappedBody {
  parts ??= first ? [first] : [];
  parts.push(value.subarray(0, cap - held));
  body.cancel();
  return { bytes: Buffer.concat(parts, cap), truncated: true };
}

function whole(first: Uint8Array | undefined, parts: Uint8Array[] | undefined, held: number): CappedBody {
  if (parts) return { bytes: Buffer.concat(parts, held), truncated: false };
  if (first === undefined) return { bytes: Buffer.alloc(0), truncated: false };
  return {
    bytes: Buffer.isBuffer(first) ? first : Buffer.from(first.buffer, first.byteOffset, first.byteLength),
    truncated: false,
  };
}

/** The first bytes of a body, as text a person can read in a report. */
export function excerpt(bytes: Uint8Array, max = 512): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max * 4)).toString("utf8");
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Makes `inner` abort when `outer` does (the caller's overall deadline or Ctrl-C). Returns what
 * stops following, for an exchange that ends first (so a long-lived signal does not gather a
 * listener per exchange); the listener also goes once `inner` aborts for its own reasons.
 */
export function followAbort(outer: AbortLike | undefined, inner: AbortController | Abort): (() => void) | undefined {
  if (!outer) return undefined;
  if (outer.aborted) {
    inner.abort(outer.reason);
    return undefined;
  }
  const onAbort = () => inner.abort(outer.reason);
  const unfollow = () => outer.removeEventListener("abort", onAbort);
  outer.addEventListener("abort", onAbort, { once: true });
  (inner instanceof Abort ? inner : inner.signal).addEventListener("abort", unfollow, { once: true });
  return unfollow;
}

// an answer, its headers and its body are made per exchange, and an Abort per request (see shapes.ts)
keepShape(new Abort(), "census-cpu");
keepShape(new Sending(false, {}, undefined, undefined), "http");
keepShape(new NodeResponse({ statusCode: 200, headers: {} } as http.IncomingMessage), "http");
