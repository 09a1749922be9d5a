/**
 * Listening for what a server sends unasked (a list changed, a resource updated), the way each
 * revision has it. 2026-07-28: `subscriptions/listen`, one long-lived request per stream of
 * notifications; the server acknowledges it first (`notifications/subscriptions/acknowledged`,
 * carrying the request's id as the subscription's), then sends what was asked for, and ends it
 * with a result; the client ends it by cancelling the request. Before: list changes come
 * unasked where the server's capabilities say `listChanged`, resource updates after
 * `resources/subscribe`, and over Streamable HTTP what is tied to no request of the client's
 * comes only on the GET stream the client opens.
 */
import type { JsonObject, RequestId } from "../codec/message.js";
import { AbortedError, ClosedError, TimeoutError } from "../peer/errors.js";
import type { RequestOptions } from "../peer/peer.js";
import type { Revision } from "../rules/revisions.js";
import type { NotificationEvents } from "./events.js";
import { isObject } from "./meta.js";
import type { LegacyRevision, ModernRevision } from "./methods.js";

/** Which notifications a stream carries (all optional: left out is not asked for). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** `notifications/tasks` for these tasks (the tasks extension negotiated). */
  taskIds?: string[];
}

/**
 * A subscription's id in revision `R`: the id of its `subscriptions/listen` request on
 * 2026-07-28; none before, where nothing is sent to open one.
 */
export type SubscriptionId<R extends Revision> = [R] extends [ModernRevision]
  ? RequestId
  : [R] extends [LegacyRevision]
    ? undefined
    : RequestId | undefined;

const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** The longest a timer can wait (setTimeout fires at once past it): a stream lasts until someone ends it. */
const FOREVER = 2_147_483_647;
const DEFAULT_ACK_MS = 60_000;

/**
 * What a client listens to. `ended` resolves when it ends (by the server's result, `close()`,
 * or, before 2026-07-28, the connection's end), rejects if the connection fails a 2026-07-28 stream.
 */
export class Subscription<R extends Revision = Revision> {
  constructor(
    /** The JSON-RPC id of its `subscriptions/listen` request, which every notification on it carries (2026-07-28). */
    readonly id: SubscriptionId<R>,
    /** What the server agreed to send: a part of what was asked for. */
    readonly notifications: ListenFilter,
    readonly ended: Promise<void>,
    private readonly stop: () => void,
  ) {}

  /** Ends it: cancels the `subscriptions/listen` request (2026-07-28), or unsubscribes its resources (before). */
  close(): void {
    this.stop();
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
  open(filter: ListenFilter, options: RequestOptions): Promise<Subscription<ModernRevision>> {
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
      .then(
        (agreed) =>
          new Subscription<ModernRevision>(id!, agreed, ended, () =>
            controller.abort(new Error("closed by the client")),
          ),
      )
      .finally(() => clearTimeout(timer));
  }
}

/** What a legacy connection offers `listen`. */
export interface LegacyListenMeans {
  /** The server's capabilities, from `initialize`. */
  capabilities: JsonObject;
  /** Sends `resources/subscribe` or `resources/unsubscribe` for `uri`. */
  subscribe(method: "resources/subscribe" | "resources/unsubscribe", uri: string): Promise<unknown>;
  /** Opens the GET stream of a Streamable HTTP session (absent on channels that need none). */
  openServerStream: (() => Promise<boolean>) | undefined;
  /** Settles when the connection ends. */
  closed: Promise<unknown>;
}

const LIST_CAPABILITIES = [
  ["toolsListChanged", "tools"],
  ["promptsListChanged", "prompts"],
  ["resourcesListChanged", "resources"],
] as const;

/**
 * `listen` before 2026-07-28: what the filter asks for and the server's capabilities promise is
 * agreed, resources are subscribed one by one (where the server declares `resources.subscribe`),
 * and over Streamable HTTP the GET stream is opened before it resolves, so that nothing sent
 * after is missed. A subscription that fails part way unsubscribes what it had subscribed.
 */
export async function listenLegacy(
  filter: ListenFilter,
  means: LegacyListenMeans,
): Promise<Subscription<LegacyRevision>> {
  const agreed: ListenFilter = {};
  for (const [key, capability] of LIST_CAPABILITIES) {
    const declared = means.capabilities[capability];
    if (filter[key] === true && isObject(declared) && declared.listChanged === true) agreed[key] = true;
  }
  const resources = means.capabilities.resources;
  const uris: string[] = [];
  if (filter.resourceSubscriptions?.length && isObject(resources) && resources.subscribe === true) {
    try {
      for (const uri of filter.resourceSubscriptions) {
        await means.subscribe("resources/subscribe", uri);
        uris.push(uri);
      }
    } catch (e) {
      for (const uri of uris) void means.subscribe("resources/unsubscribe", uri).catch(() => undefined);
      throw e;
    }
    agreed.resourceSubscriptions = uris;
  }
  if (Object.keys(agreed).length > 0) await means.openServerStream?.();
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const ended = Promise.race([stopped, means.closed.then(() => undefined)]);
  let closed = false;
  return new Subscription<LegacyRevision>(undefined, agreed, ended, () => {
    if (closed) return;
    closed = true;
    stop();
    for (const uri of uris) void means.subscribe("resources/unsubscribe", uri).catch(() => undefined);
  });
}
