/**
 * `subscriptions/listen` (2026-07-28): one long-lived request per stream of notifications. The
 * server acknowledges it first (`notifications/subscriptions/acknowledged`, carrying the
 * request's id as the subscription's), then sends what was asked for, and ends it with a
 * result; the client ends it by cancelling the request.
 */
import type { JsonObject, RequestId } from "../codec/message.js";
import { AbortedError, ClosedError, TimeoutError } from "../peer/errors.js";
import type { RequestOptions } from "../peer/peer.js";
import type { NotificationEvents } from "./events.js";
import { isObject } from "./meta.js";

/** Which notifications a stream carries (all optional: left out is not asked for). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** `notifications/tasks` for these tasks (the tasks extension negotiated). */
  taskIds?: string[];
}

const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** The longest a timer can wait (setTimeout fires at once past it): a stream lasts until someone ends it. */
const FOREVER = 2_147_483_647;
const DEFAULT_ACK_MS = 60_000;

/** An open stream. `ended` resolves when it ends (by the server's result, or `close()`), rejects if the connection fails it. */
export class Subscription {
  constructor(
    /** The JSON-RPC id of its `subscriptions/listen` request, which every notification on it carries. */
    readonly id: RequestId,
    /** What the server agreed to send: a part of what was asked for. */
    readonly notifications: ListenFilter,
    readonly ended: Promise<void>,
    private readonly controller: AbortController,
  ) {}

  close(): void {
    this.controller.abort(new Error("closed by the client"));
  }
}

export type SendListen = (params: JsonObject, options: RequestOptions) => Promise<JsonObject>;

export class Subscriptions {
  private readonly waiting = new Map<RequestId, (filter: ListenFilter) => void>();

  constructor(
    private readonly send: SendListen,
    events: NotificationEvents,
    private readonly ackMs: number | undefined,
  ) {
    events.on(ACKNOWLEDGED, (params) => {
      const meta = isObject(params._meta) ? params._meta : {};
      const id = meta[META_SUBSCRIPTION_ID];
      if (typeof id !== "string" && typeof id !== "number") return;
      const resolve = this.waiting.get(id);
      if (!resolve) return;
      this.waiting.delete(id);
      resolve(isObject(params.notifications) ? (params.notifications as ListenFilter) : {});
    });
  }

  /** Opens a stream; resolves once it is acknowledged, rejects if it ends or the deadline passes first. */
  open(filter: ListenFilter, options: RequestOptions): Promise<Subscription> {
    const controller = new AbortController();
    const outer = options.signal;
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
    let id: RequestId | undefined;
    let acknowledge!: (filter: ListenFilter) => void;
    const acknowledged = new Promise<ListenFilter>((resolve) => (acknowledge = resolve));
    const request = this.send(
      { notifications: filter as JsonObject },
      {
        ...options,
        signal: controller.signal,
        timeout: FOREVER,
        maxTotalTimeout: FOREVER,
        onId: (sent) => {
          id = sent;
          this.waiting.set(sent, acknowledge);
        },
      },
    );
    const ended = request.then(
      () => undefined,
      (e: unknown) => {
        if (id !== undefined) this.waiting.delete(id);
        // closed by the client: an end, not a failure
        if (e instanceof AbortedError && controller.signal.aborted && !outer?.aborted) return undefined;
        throw e;
      },
    );
    // a stream nobody waits on must not end the process with an unhandled rejection
    ended.catch(() => undefined);
    const ackMs = options.timeout ?? this.ackMs ?? DEFAULT_ACK_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new TimeoutError("subscriptions/listen (its acknowledgment)", ackMs);
        controller.abort(error);
        reject(error);
      }, ackMs);
    });
    const endedFirst = ended.then(() => {
      throw new ClosedError("subscriptions/listen: the server ended the stream before acknowledging it");
    });
    endedFirst.catch(() => undefined);
    return Promise.race([acknowledged, deadline, endedFirst])
      .then((agreed) => new Subscription(id!, agreed, ended, controller))
      .finally(() => clearTimeout(timer));
  }
}
