/**
 * Who hears about changes: legacy sessions (every list change; `notifications/resources/updated`
 * for the URIs each subscribed to with `resources/subscribe`) and 2026-07-28
 * `subscriptions/listen` streams (only what each stream's filter asked for, each message
 * carrying the stream's subscription id).
 */
import type { JsonObject, RequestId } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import { isObject, missingCapabilities } from "./meta.js";

export type ListKind = "tools" | "resources" | "prompts";

/** `_meta` key naming the `subscriptions/listen` request a message belongs to. */
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** A legacy session as the hub sees it. */
export interface SessionListener {
  notify(method: string, params: JsonObject): void;
  /** The URIs `resources/subscribe` asked for. */
  readonly uris: Set<string>;
}

interface Stream {
  id: RequestId;
  notify(method: string, params: JsonObject): void;
  lists: Set<ListKind>;
  uris: Set<string>;
  taskIds: Set<string>;
  end: () => void;
}

/** What the server can honour on a listen stream. */
export interface ListenSupport {
  lists: ReadonlySet<ListKind>;
  resources: boolean;
  tasks: boolean;
}

const FILTER_KEYS: Record<ListKind, string> = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
};

const TASKS_REQUIRED: JsonObject = { extensions: { [TASKS_EXTENSION]: {} } };

/** The strings of an optional string array parameter; -32602 for anything else. */
function strings(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new ResponseError(INVALID_PARAMS, `notifications.${name} must be an array of strings`);
  return value as string[];
}

export class Subscriptions {
  private readonly sessions = new Set<SessionListener>();
  private readonly streams = new Set<Stream>();

  addSession(session: SessionListener): void {
    this.sessions.add(session);
  }

  removeSession(session: SessionListener): void {
    this.sessions.delete(session);
  }

  /**
   * Serves one `subscriptions/listen` request: acknowledges the part of its filter the server
   * honours, then holds the stream open until the client cancels it (`signal`) or the server
   * closes, which answers it as the graceful end the spec describes.
   */
  listen(
    id: RequestId,
    params: JsonObject,
    clientCapabilities: JsonObject,
    support: ListenSupport,
    signal: AbortSignal,
    notify: (method: string, params: JsonObject) => Promise<void>,
  ): Promise<JsonObject> {
    const filter = params.notifications;
    if (!isObject(filter)) throw new ResponseError(INVALID_PARAMS, "notifications must be an object");
    const lists = new Set<ListKind>();
    const ack: JsonObject = {};
    for (const kind of support.lists) {
      if (filter[FILTER_KEYS[kind]] !== true) continue;
      lists.add(kind);
      ack[FILTER_KEYS[kind]] = true;
    }
    const uris = support.resources ? strings(filter.resourceSubscriptions, "resourceSubscriptions") : [];
    if (uris.length > 0) ack.resourceSubscriptions = uris;
    const taskIds = strings(filter.taskIds, "taskIds");
    if (taskIds.length > 0) {
      const missing = missingCapabilities(TASKS_REQUIRED, clientCapabilities);
      if (missing) throw missing;
      if (support.tasks) ack.taskIds = taskIds;
    }
    const meta = { [META_SUBSCRIPTION_ID]: id };
    const tagged = (method: string, p: JsonObject) => void notify(method, { ...p, _meta: meta }).catch(() => undefined);
    return notify("notifications/subscriptions/acknowledged", { _meta: meta, notifications: ack }).then(
      () =>
        new Promise<JsonObject>((resolve, reject) => {
          const stream: Stream = {
            id,
            notify: tagged,
            lists,
            uris: new Set(uris),
            taskIds: new Set(support.tasks ? taskIds : []),
            end: () => {
              this.streams.delete(stream);
              resolve({ _meta: meta });
            },
          };
          if (signal.aborted) return reject(signal.reason);
          this.streams.add(stream);
          signal.addEventListener(
            "abort",
            () => {
              this.streams.delete(stream);
              reject(signal.reason);
            },
            { once: true },
          );
        }),
    );
  }

  listChanged(kind: ListKind): void {
    const method = `notifications/${kind}/list_changed`;
    for (const session of this.sessions) session.notify(method, {});
    for (const stream of this.streams) if (stream.lists.has(kind)) stream.notify(method, {});
  }

  resourceUpdated(uri: string): void {
    for (const session of this.sessions)
      if (session.uris.has(uri)) session.notify("notifications/resources/updated", { uri });
    for (const stream of this.streams)
      if (stream.uris.has(uri)) stream.notify("notifications/resources/updated", { uri });
  }

  /** A 2026-07-28 task changed: `detailed` is what `tasks/get` would answer now. */
  taskChanged(taskId: string, detailed: () => JsonObject): void {
    let params: JsonObject | undefined;
    for (const stream of this.streams)
      if (stream.taskIds.has(taskId)) stream.notify("notifications/tasks", (params ??= detailed()));
  }

  /** Ends every listen stream gracefully. */
  close(): void {
    for (const stream of [...this.streams]) stream.end();
  }
}
