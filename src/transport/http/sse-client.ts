/**
 * The client side of the deprecated HTTP+SSE transport (2024-11-05): a GET opens an event
 * stream whose first `endpoint` event names where to POST; every server message then arrives
 * as a `message` event on that stream.
 */
import type { Message } from "../../codec/message.js";
import { ClosedError, TimeoutError } from "../../peer/errors.js";
import type { HttpTransport, TransportSink } from "../../peer/transport.js";
import type { ExchangeRecord, HttpClientOptions } from "./client.js";
import { HttpError } from "./error.js";
import {
  Abort,
  excerpt,
  fetchSameOrigin,
  followAbort,
  readCapped,
  redirectDefect,
  type HttpResponse,
} from "./fetch.js";
import { SseReader } from "./sse-events.js";

export class SseClientTransport implements HttpTransport {
  readonly kind = "http";
  /** Where messages are POSTed, once the `endpoint` event has named it. */
  endpoint: string | undefined;
  private sink: TransportSink | undefined;
  // an Abort, not an AbortController: an EventTarget per transport cost more than its GET (a
  // dual-era client makes one of these for every server that refuses initialize with a 404)
  private readonly stream = new Abort();
  private readonly endpointReady: Promise<string>;
  private resolveEndpoint!: (url: string) => void;
  private rejectEndpoint!: (e: Error) => void;
  private isClosed = false;
  private readonly maxBytes: number;
  private readonly timeout: number;

  constructor(
    readonly url: string,
    private readonly options: HttpClientOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    this.timeout = options.timeout ?? 60_000;
    this.endpointReady = new Promise((resolve, reject) => {
      this.resolveEndpoint = resolve;
      this.rejectEndpoint = reject;
    });
    // the failure is reported through send(); an unobserved rejection must not crash anything
    this.endpointReady.catch(() => undefined);
  }

  start(sink: TransportSink): void {
    this.sink = sink;
    followAbort(this.options.signal, this.stream);
    void this.listen();
  }

  async send(text: string, message?: Message | readonly Message[]): Promise<void> {
    if (this.isClosed) throw new ClosedError("the HTTP+SSE transport is closed");
    const method =
      message && !Array.isArray(message) && typeof (message as { method?: unknown }).method === "string"
        ? (message as { method: string }).method
        : "message";
    const endpoint = await this.endpointReady;
    const t0 = Date.now();
    const record: ExchangeRecord = {
      method,
      httpMethod: "POST",
      url: endpoint,
      ms: 0,
      requestBody: text.length > 64 * 1024 ? `${text.slice(0, 64 * 1024)}…` : text,
    };
    // ended by the stream's end (close, the caller's signal) or by the timeout, as AbortSignal.timeout words it
    const signal = new Abort();
    const unfollow = followAbort(this.stream, signal);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signal.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    }, this.timeout);
    try {
      const { response, url, redirects } = await fetchSameOrigin(
        endpoint,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...this.options.headers },
          body: text,
          signal,
          lookup: this.options.lookup,
        },
        method,
      );
      for (const r of redirects) this.sink?.defect(redirectDefect(r));
      record.status = response.status;
      record.contentType = response.headers.get("content-type") ?? "";
      const body = await readCapped(response, 64 * 1024);
      record.bodyExcerpt = excerpt(body.bytes, 256);
      if (response.status < 200 || response.status >= 300) {
        throw new HttpError(
          {
            failure: "status",
            step: method,
            url,
            status: response.status,
            contentType: record.contentType,
            bodyExcerpt: excerpt(body.bytes),
          },
          `HTTP ${response.status} from the message endpoint`,
        );
      }
    } catch (e) {
      record.error = e instanceof Error ? e.message : String(e);
      // the POST's deadline is its request's: one TimeoutError whichever timer fires first (docs/errors.md)
      const isRequest =
        message !== undefined &&
        !Array.isArray(message) &&
        (message as { id?: unknown }).id !== undefined &&
        method !== "message";
      if (timedOut && isRequest && e instanceof HttpError && e.failure === "timeout")
        throw new TimeoutError(method, this.timeout, undefined, { cause: e });
      throw e;
    } finally {
      clearTimeout(timer);
      unfollow?.();
      record.ms = Date.now() - t0;
      this.options.onExchange?.(record);
    }
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    const closed = new ClosedError("the HTTP+SSE transport is closed");
    this.stream.abort(closed);
    this.rejectEndpoint(closed);
    this.sink?.closed();
  }

  private async listen(): Promise<void> {
    const t0 = Date.now();
    const record: ExchangeRecord = { method: "GET stream", httpMethod: "GET", url: this.url, ms: 0 };
    const opening = setTimeout(
      () =>
        this.rejectEndpoint(
          new HttpError(
            { failure: "timeout", step: "GET stream", url: this.url },
            `no endpoint event within ${this.timeout} ms`,
          ),
        ),
      this.timeout,
    );
    try {
      const { response, url } = await fetchSameOrigin(
        this.url,
        {
          method: "GET",
          headers: { accept: "text/event-stream", ...this.options.headers },
          signal: this.stream,
          lookup: this.options.lookup,
        },
        "GET stream",
      );
      const contentType = response.headers.get("content-type") ?? "";
      record.status = response.status;
      record.contentType = contentType;
      if (response.status !== 200 || !contentType.includes("text/event-stream")) {
        const body = await readCapped(response, 64 * 1024);
        record.bodyExcerpt = excerpt(body.bytes, 256);
        throw new HttpError(
          {
            failure: response.status === 200 ? "not_jsonrpc" : "status",
            step: "GET stream",
            url,
            status: response.status,
            contentType,
            bodyExcerpt: excerpt(body.bytes),
          },
          `expected an event stream, got HTTP ${response.status} (${contentType || "no content type"})`,
        );
      }
      this.options.onExchange?.({ ...record, ms: Date.now() - t0 });
      await this.readStream(response, url);
      // without an endpoint this is a failure, and the requests waiting on it should say which
      const early =
        this.endpoint === undefined
          ? new HttpError(
              { failure: "no_response", step: "GET stream", url },
              "the event stream ended before an endpoint event",
            )
          : undefined;
      if (early) this.rejectEndpoint(early);
      this.end(early);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.rejectEndpoint(error);
      if (!(e instanceof HttpError) || record.status === undefined) {
        record.error = error.message;
        record.ms = Date.now() - t0;
        this.options.onExchange?.(record);
      }
      this.end(error);
    } finally {
      clearTimeout(opening);
    }
  }

  private async readStream(response: HttpResponse, base: string): Promise<void> {
    let failure: Error | undefined;
    const reader = new SseReader(this.maxBytes, {
      event: (event) => {
        if (event.event === "endpoint") {
          const target = new URL(event.data.trim(), base);
          if (target.origin !== new URL(base).origin) {
            failure = new HttpError(
              { failure: "redirect", step: "GET stream", url: base, location: target.href },
              `the endpoint event names another origin (${target.origin}): not used`,
            );
            return;
          }
          this.endpoint = target.href;
          this.resolveEndpoint(target.href);
        } else if ((event.event === undefined || event.event === "message") && event.data.length > 0) {
          this.sink?.message(event.data);
        }
      },
    });
    const body = response.body;
    try {
      while (!failure) {
        const value = await body.read();
        if (value === undefined) break;
        reader.push(value);
        if (reader.passedCap)
          failure = new HttpError(
            { failure: "too_large", step: "GET stream", url: base },
            `an SSE event passed the ${this.maxBytes}-byte cap`,
          );
      }
    } finally {
      body.cancel();
    }
    if (failure) throw failure;
  }

  private end(error?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.sink?.closed(error);
  }
}
