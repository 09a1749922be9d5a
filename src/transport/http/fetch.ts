/**
 * The HTTP client of every exchange of mcp-wire, on node:http and node:https with keep-alive
 * agents (the built-in `fetch` costs far more CPU per request, and to start): redirects followed
 * on the same origin only (so credentials never reach another host), and bodies read with a cap
 * (so a 1 GB answer costs no more than the cap).
 */
import * as http from "node:http";
import * as https from "node:https";
import * as zlib from "node:zlib";
import { defect, type Defect } from "../../codec/defects.js";
import { HttpError, networkCode } from "./error.js";

const MAX_REDIRECTS = 5;
/** How long a TCP (and TLS) connection may take to open, as undici's `fetch` allowed. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * What `fetch` offers: servers behind CDNs and frameworks compress when asked, and a few
 * compress whatever is asked, so a client that cannot decode reads them as garbage.
 */
export const ACCEPT_ENCODING = "gzip, deflate, br";

/** Keep-alive agents shared by every exchange: a census reuses its connections. */
const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

/** What an exchange sends. */
export interface HttpRequestInit {
  method: "GET" | "POST" | "DELETE" | "OPTIONS";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** The body of an answer, read chunk by chunk. */
export interface HttpBody {
  /** The next chunk; undefined at the end. Rejects if the connection breaks or the exchange is aborted. */
  read(): Promise<Uint8Array | undefined>;
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
  redirects: Redirect[];
}

export interface Redirect {
  status: number;
  from: string;
  to: string;
}

/**
 * One HTTP request with node:http or node:https (no redirect followed). Resolves with the
 * answer once its headers have come; rejects with the system error (its `code` set) or, when
 * `signal` fires, with the signal's reason. Only http: and https: URLs are accepted.
 */
export function httpRequest(url: string, init: HttpRequestInit): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === "https:";
    if (!secure && target.protocol !== "http:") {
      reject(Object.assign(new Error(`unsupported URL scheme ${target.protocol} (only http: and https:)`), { code: "ERR_INVALID_PROTOCOL" }));
      return;
    }
    const signal = init.signal;
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const headers: Record<string, string | number> = { ...init.headers };
    const names = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
    // what fetch sent when the caller did not say
    if (!names.has("accept")) headers.accept = "*/*";
    if (!names.has("user-agent")) headers["user-agent"] = "node";
    if (!names.has("accept-encoding")) headers["accept-encoding"] = ACCEPT_ENCODING;
    if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body, "utf8");
    let req: http.ClientRequest;
    let res: http.IncomingMessage | undefined;
    let settled = false;
    const onAbort = () => {
      // an answer received whole and let go of is over: its connection stays with the agent
      if (res && released.has(res)) return;
      const e = abortError(signal!);
      if (res) res.destroy(e);
      req.destroy(e);
    };
    const cleanup = () => signal?.removeEventListener("abort", onAbort);
    try {
      req = (secure ? https : http).request(target, { method: init.method, headers, agent: secure ? httpsAgent : httpAgent });
    } catch (e) {
      reject(e);
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("socket", (socket) => {
      // a connection that does not open in time fails as undici's did (a deadline, not a hang)
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`connect timeout (${CONNECT_TIMEOUT_MS} ms)`), { code: "UND_ERR_CONNECT_TIMEOUT" })), CONNECT_TIMEOUT_MS);
      timer.unref();
      socket.once(secure ? "secureConnect" : "connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    req.on("error", (e) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(signal?.aborted ? abortError(signal) : e);
    });
    req.once("response", (incoming) => {
      res = incoming;
      settled = true;
      incoming.once("end", cleanup);
      incoming.once("close", cleanup);
      // an error after the headers is the body's: it surfaces through read()
      req.on("error", () => undefined);
      resolve(new NodeResponse(incoming));
    });
    req.end(init.body);
  });
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : Object.assign(new Error("This operation was aborted"), { name: "AbortError", code: "ABORT_ERR" });
}

class NodeResponse implements HttpResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: HttpBody;

  constructor(res: http.IncomingMessage) {
    this.status = res.statusCode ?? 0;
    const raw = res.headers;
    this.headers = {
      get(name: string): string | null {
        const v = raw[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      },
    };
    const coding = (raw["content-encoding"] ?? "").trim().toLowerCase();
    // identity (nearly every answer) is read as it comes: no zlib on the fast path
    this.body = coding === "" || coding === "identity" || !DECODERS.has(coding) ? new NodeBody(res) : new DecodedBody(res, coding);
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
  private sniff(): Promise<AsyncIterator<Buffer> | undefined> {
    return new Promise((resolve, reject) => {
      const res = this.res;
      const off = () => {
        res.off("data", onData);
        res.off("end", onEnd);
        res.off("error", onError);
      };
      const onData = (first: Buffer) => {
        off();
        res.pause();
        resolve(this.attach(first));
      };
      const onEnd = () => {
        off();
        resolve(undefined);
      };
      const onError = (e: Error) => {
        off();
        reject(e);
      };
      res.on("data", onData);
      res.once("end", onEnd);
      res.once("error", onError);
    });
  }

  private attach(first: Buffer | undefined): AsyncIterator<Buffer> {
    // sync flushes let a stream (SSE) be decoded event by event, as its chunks arrive, and a
    // body cut short yields what it held instead of an error, as fetch reads it
    const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const decoder =
      this.coding === "br"
        ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
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
      if (!res.complete) decoder.destroy(Object.assign(new Error("the connection closed before the body was complete"), { code: "ECONNRESET" }));
    });
    if (first) decoder.write(first);
    res.pipe(decoder);
    return decoder[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }
}

class NodeBody implements HttpBody {
  private iterator: AsyncIterator<Buffer> | undefined;
  private done = false;

  constructor(private readonly res: http.IncomingMessage) {}

  async read(): Promise<Uint8Array | undefined> {
    if (this.done) return undefined;
    this.iterator ??= this.res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const next = await this.iterator.next();
    if (next.done) {
      this.done = true;
      return undefined;
    }
    return next.value;
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
  if (!(e instanceof Error) || !(code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code.startsWith("ERR__ERROR"))) return e instanceof Error ? e : new Error(String(e));
  return Object.assign(new Error(`the ${coding} body cannot be decoded: ${e.message}`, { cause: e }), { code: "ERR_CONTENT_DECODING" });
}

/**
 * A request that follows redirects to the same origin only (the method and body kept, as
 * 307/308 say, since re-sending a JSON-RPC message as GET means nothing); one to another
 * origin is refused with an HttpError naming the target.
 */
export async function fetchSameOrigin(url: string, init: HttpRequestInit, step: string): Promise<FetchedResponse> {
  let current = url;
  const redirects: Redirect[] = [];
  for (let hop = 0; ; hop++) {
    let response: HttpResponse;
    try {
      response = await httpRequest(current, init);
    } catch (e) {
      throw asNetworkError(e, step, current, init.signal);
    }
    if (response.status < 300 || response.status >= 400 || response.status === 304) return { response, url: current, redirects };
    const location = response.headers.get("location");
    if (!location) return { response, url: current, redirects };
    response.body.cancel();
    const target = new URL(location, current);
    const base = { step, url: current, status: response.status, location: target.href };
    if (target.origin !== new URL(current).origin) {
      throw new HttpError({ ...base, failure: "redirect" }, `HTTP ${response.status} redirect to another origin (${target.origin}), not followed: credentials are never sent elsewhere`);
    }
    if (hop >= MAX_REDIRECTS) throw new HttpError({ ...base, failure: "redirect" }, `more than ${MAX_REDIRECTS} redirects`);
    redirects.push({ status: response.status, from: current, to: target.href });
    current = target.href;
  }
}

/** Only a trailing slash added or removed: the commonest redirect in front of an MCP endpoint. */
export function isTrailingSlashRedirect(r: Redirect): boolean {
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
  const what = isTrailingSlashRedirect(r) ? (to.pathname.endsWith("/") ? "only adds a trailing slash" : "only removes the trailing slash") : "stays on the same origin";
  return defect(
    "redirect",
    "",
    `POST ${from.pathname}${from.search} was answered with HTTP ${r.status} to ${to.pathname}${to.search}, which ${what}: followed, but many clients do not follow a redirected POST (and 301/302 turn it into a GET); configure clients with the final URL, or serve the endpoint at both`,
  );
}

function asNetworkError(e: unknown, step: string, url: string, signal: AbortSignal | null | undefined): HttpError {
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof HttpError) return reason;
    return new HttpError({ failure: "timeout", step, url }, `no HTTP answer: ${reason instanceof Error ? reason.message : "aborted"}`, { cause: e });
  }
  const code = networkCode(e);
  const what = code ? describeNetworkCode(code) : e instanceof Error ? e.message : String(e);
  return new HttpError({ failure: "network", step, url, ...(code ? { networkCode: code } : {}) }, `no HTTP answer from ${new URL(url).host}: ${what}`, { cause: e });
}

function describeNetworkCode(code: string): string {
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host name does not resolve (${code})`;
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") return `the connection was reset (${code})`;
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
  const body = response.body;
  const parts: Uint8Array[] = [];
  let held = 0;
  try {
    for (;;) {
      const value = await body.read();
      if (value === undefined) break;
      if (held + value.byteLength > cap) {
        parts.push(value.subarray(0, cap - held));
        held = cap;
        body.cancel();
        return { bytes: Buffer.concat(parts, held), truncated: true };
      }
      parts.push(value);
      held += value.byteLength;
    }
  } catch (e) {
    body.cancel();
    throw e;
  }
  return { bytes: Buffer.concat(parts, held), truncated: false };
}

/** The first bytes of a body, as text a person can read in a report. */
export function excerpt(bytes: Uint8Array, max = 512): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max * 4)).toString("utf8");
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Makes `controller` abort when `outer` does (the caller's overall deadline or Ctrl-C), without
 * leaving a listener on `outer` once `controller` has aborted for its own reasons.
 */
export function followAbort(outer: AbortSignal | undefined, controller: AbortController): void {
  if (!outer) return;
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener("abort", () => controller.abort(outer.reason), { once: true, signal: controller.signal });
}
