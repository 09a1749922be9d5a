/**
 * The requests of the sign-in walk: GET for metadata and OPTIONS for a CORS preflight, nothing
 * else (the walk is passive and sends no credentials). Every body is read under the cap, every
 * request ends with the walk's one deadline, a URL the caller's guard refuses (a private address
 * in a census of untrusted targets) is never called, and a URL asked for twice is fetched once.
 */
import type { LookupFunction } from "node:net";
import { cannotBeJson, parseJson } from "../codec/parse.js";
import { Abort, excerpt, fetchSameOrigin, readCapped, type AbortLike } from "../transport/http/fetch.js";
import type { AuthStepRecord } from "./types.js";

/** The Origin a browser client would send from a page of its own. */
export const PROBE_ORIGIN = "https://mcp-wire.invalid";

export interface Fetched {
  url: string;
  status: number | null;
  headers: { get(name: string): string | null } | null;
  /** The body as JSON, when it parsed. */
  json?: unknown;
  /** Set when the body was read but is not JSON (its first bytes). */
  notJson?: string;
  /** Set when the body passed the cap: it was not read to its end, so it is neither `json` nor `notJson`. */
  tooLarge?: true;
  /** Set when no answer came, or the URL was not called. */
  error?: string;
  ms: number;
}

export interface FetcherOptions {
  /** When the walk must be over (Date.now() scale). */
  deadline: number;
  maxBytes: number;
  /** Resolves to the reason a URL must not be called, or undefined. */
  guard?: (url: string) => Promise<string | undefined>;
  signal?: AbortSignal;
  /** Resolves host names instead of the system resolver. */
  lookup?: LookupFunction | undefined;
  /** Sent as MCP-Protocol-Version, as the specification asks of discovery requests. */
  protocolVersion: string;
  /** Waits for the right to send a request to the URL's host (a census's per-host limit); see HostSlot. */
  hostSlot?: HostSlot;
}

/**
 * Resolves, once a request to `url`'s host may go, to the function that says it is over; rejects
 * when `signal` (the walk's deadline) fires first.
 */
export type HostSlot = (url: string, signal: AbortLike) => Promise<() => void>;

const NO_ANSWER = { status: null, headers: null };

/** What `parsedOrNot` gives for text that is not JSON (null and false are JSON). */
const NOT_JSON = Symbol("not JSON");

function parsedOrNot(text: string): unknown {
  // a "Not Found" page, the common answer to a well-known URL, is told without a SyntaxError
  if (cannotBeJson(text)) return NOT_JSON;
  try {
    return parseJson(text);
  } catch {
    return NOT_JSON;
  }
}

/*
 * Why the walk's requests end, made once: an Error made per walk captures a stack (async frames
 * and all) that nobody reads, since a request the walk ended is recorded by the signal's state.
 */
const DEADLINE_PASSED = new Error("no answer within the deadline");
const WALK_OVER = new Error("the walk is over");

export class Fetcher {
  readonly steps: AuthStepRecord[] = [];
  /** Every request sent, in order, for tests and traces. */
  readonly sent: { method: string; url: string }[] = [];
  private readonly cache = new Map<string, Promise<Fetched>>();
  // an Abort, not an AbortController: an EventTarget per walk, and a listener on it per request,
  // cost more than several of the walk's loopback requests
  private readonly controller = new Abort();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(private readonly options: FetcherOptions) {
    const left = Math.max(0, options.deadline - Date.now());
    this.timer = setTimeout(() => this.controller.abort(DEADLINE_PASSED), left);
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.controller.abort(signal.reason);
      else
        signal.addEventListener("abort", (this.onCallerAbort = () => this.controller.abort(signal.reason)), {
          once: true,
        });
    }
  }

  /** Stops every request still under way. */
  close(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.options.signal!.removeEventListener("abort", this.onCallerAbort);
    if (!this.controller.aborted) this.controller.abort(WALK_OVER);
  }

  get expired(): boolean {
    return this.controller.aborted;
  }

  /** GET `url` (once), recorded as `step`. */
  get(url: string, step: string, headers: Record<string, string> = {}): Promise<Fetched> {
    const key = `GET ${url}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.inSlot(url, () =>
        this.send("GET", url, step, {
          accept: "application/json",
          origin: PROBE_ORIGIN,
          "mcp-protocol-version": this.options.protocolVersion,
          ...headers,
        }),
      );
      this.cache.set(key, p);
    }
    return p;
  }

  /** The CORS preflight a browser sends before a POST carrying the MCP headers. */
  preflight(url: string, requestHeaders: string): Promise<Fetched> {
    return this.inSlot(url, () =>
      this.send("OPTIONS", url, "cors preflight", {
        origin: PROBE_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": requestHeaders,
      }),
    );
  }

  /**
   * Runs `send` once its host's slot is given, and gives it back when the answer is read. The
   * wait counts against the walk's deadline: when that passes first, `send` finds the walk
   * expired and records the request as unanswered without sending it.
   */
  private async inSlot(url: string, send: () => Promise<Fetched>): Promise<Fetched> {
    const slot = this.options.hostSlot;
    if (!slot) return send();
    let release: (() => void) | undefined;
    try {
      release = await slot(url, this.controller);
    } catch {
      // the deadline passed while waiting
    }
    try {
      return await send();
    } finally {
      release?.();
    }
  }

  private async send(
    method: "GET" | "OPTIONS",
    url: string,
    step: string,
    headers: Record<string, string>,
  ): Promise<Fetched> {
    const started = Date.now();
    const record = (f: Omit<Fetched, "ms">, ok: boolean): Fetched => {
      const ms = Date.now() - started;
      this.steps.push({ step, url, method, status: f.status, ms, ok, ...(f.error ? { error: f.error } : {}) });
      // each `f` is a literal made for this call: it takes the time itself (a copy that starts
      // with a spread and then takes a property is built through V8's slow path)
      const fetched = f as Fetched;
      fetched.ms = ms;
      return fetched;
    };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return record({ url, ...NO_ANSWER, error: "not a URL" }, false);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      return record({ url, ...NO_ANSWER, error: `not an http(s) URL` }, false);
    if (this.options.guard) {
      const refused = await this.options.guard(url).catch(() => undefined);
      if (refused) return record({ url, ...NO_ANSWER, error: `not called: ${refused}` }, false);
    }
    if (this.expired) return record({ url, ...NO_ANSWER, error: "no answer within the deadline" }, false);
    this.sent.push({ method, url });
    try {
      const { response } = await fetchSameOrigin(
        url,
        { method, headers, signal: this.controller, lookup: this.options.lookup },
        step,
      );
      const body = await readCapped(response, this.options.maxBytes);
      const status = response.status;
      const ok = status >= 200 && status < 300;
      if (body.truncated)
        return record(
          {
            url,
            status,
            headers: response.headers,
            tooLarge: true,
            error: `too_large: the body passed the ${this.options.maxBytes}-byte cap`,
          },
          false,
        );
      if (method === "OPTIONS") return record({ url, status, headers: response.headers }, ok);
      const json = parsedOrNot(body.bytes.toString("utf8"));
      if (json === NOT_JSON)
        return record({ url, status, headers: response.headers, notJson: excerpt(body.bytes, 120) }, ok);
      return record({ url, status, headers: response.headers, json }, ok);
    } catch (e) {
      const reason = this.controller.aborted
        ? "no answer within the deadline"
        : e instanceof Error
          ? e.message
          : String(e);
      return record({ url, ...NO_ANSWER, error: reason }, false);
    }
  }
}
