/**
 * A dual-era MCP server core: one endpoint, both eras.
 *
 * A request whose `_meta` names a protocol version is served statelessly by the 2026-07-28
 * rules (`resultType` on every result, -32022 for an unsupported version, -32021 for a missing
 * client capability). An `initialize` opens a legacy session on that connection, negotiated as
 * the legacy lifecycle says; later requests without `_meta` are served in it.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { Peer, type PeerOptions, type RequestContext, type RequestHandler, type RequestOptions } from "../peer/peer.js";
import { keepShape } from "../peer/shapes.js";
import type { Transport } from "../peer/transport.js";
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../rules/error-codes.js";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  REVISIONS,
  RULES,
  isRevision,
  type Era,
  type Revision,
} from "../rules/revisions.js";
import { CoreMethods } from "./core-methods.js";
import { AnswerSeal, InputNeeded, inputRequired } from "./input.js";
import {
  LOG_LEVELS,
  META_LOG_LEVEL,
  isObject,
  missingCapabilities,
  type CallToolResult,
  type CreateTaskResult,
  type Implementation,
  type InputRequest,
  type LogLevel,
  type Tool,
} from "./meta.js";
import { INPUT_CAPABILITY, type InputMethod } from "./mrtr.js";
import { DEFAULT_PAGE_SIZE } from "./list-page.js";
import { PromptRegistry } from "./prompts.js";
import { ResourceRegistry } from "./resources.js";
import { Subscriptions, type SessionListener } from "./subscriptions.js";
import {
  TaskStore,
  type SessionLink,
  type TaskContext,
  type TaskOptions,
  type TaskStoreOptions,
  type TaskWork,
} from "./tasks.js";
import { headerParams, type HeaderParam } from "./tool-headers.js";
import { ToolRegistry } from "./tools.js";

export interface ServerOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** The revisions served, any order. Default: all five. */
  revisions?: readonly Revision[];
  /** Deadline for requests this server sends (none today; kept for the peer). */
  timeout?: number;
  maxInFlight?: number;
  onDefect?: PeerOptions["onDefect"];
  /** Capabilities to declare beyond those derived from what the server serves (both eras). */
  capabilities?: JsonObject;
  /**
   * Log messages through `context.log`: declares `logging`, serves the legacy
   * `logging/setLevel`, and sends a message only at or above the level the client asked for.
   */
  logging?: boolean;
  /** Items per page of every list (tools, resources, templates, prompts, tasks). Default 100. */
  pageSize?: number;
  /** Task lifetimes and poll interval (tools defined with `taskSupport` run as tasks). */
  tasks?: TaskStoreOptions;
}

/** What a handler knows about the request it serves. */
export interface ServeContext extends RequestContext {
  readonly era: Era;
  readonly revision: Revision;
  /** The client's capabilities: per request (modern) or from `initialize` (legacy). */
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: Implementation | undefined;
  /**
   * A 2026-07-28 retry (Multi Round-Trip Requests): the client's answers to the `inputRequests`
   * of an earlier `input_required` result, keyed as they were asked. Undefined on a first try.
   */
  readonly inputResponses: JsonObject | undefined;
  /** The `requestState` that earlier result carried, echoed back; its integrity is the handler's to check. */
  readonly requestState: string | undefined;
  /**
   * Sends a `notifications/message` tied to this request, if the server logs (`logging`) and the
   * client asked for this level: `logging/setLevel` in a legacy session, `_meta` logLevel on a
   * 2026-07-28 request (without it, nothing is sent, as that revision requires).
   */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client for input (an `elicitation/create`, `sampling/createMessage` or
   * `roots/list` request), as the era does it: a legacy session sends the request and resolves
   * with the answer; a 2026-07-28 request ends with an `input_required` result asking under
   * `key` (unique within the request), and the handler runs again on the client's retry, where
   * this resolves with the answer. A client that did not declare the capability gets -32021
   * (2026-07-28) or -32600 (legacy) instead of the question.
   */
  ask(key: string, request: InputRequest): Promise<JsonObject>;
  /** `ask` for an elicitation, keyed by its order in the handler. */
  elicit(params: JsonObject): Promise<JsonObject>;
  /** `ask` for a sampling request, keyed by its order in the handler. */
  createMessage(params: JsonObject): Promise<JsonObject>;
  /** `ask` for the client's roots, keyed by its order in the handler. */
  listRoots(): Promise<JsonObject>;
  /** Whether this request may be answered with a task (the client negotiated tasks for it). */
  readonly tasks: boolean;
  /**
   * Runs `work` as a task when the client negotiated tasks for this request, answering at once
   * with the task's handle (`resultType: "task"` on 2026-07-28, `{ task }` on 2025-11-25);
   * otherwise runs it here and answers with its result.
   */
  task(work: TaskWork, options?: TaskOptions): Promise<CallToolResult | CreateTaskResult>;
}

export type MethodHandler = (params: JsonObject, context: ServeContext) => unknown;

export interface MethodOptions {
  /** Client capabilities the method cannot work without (modern requests get -32021). */
  requires?: JsonObject;
  /**
   * The eras that have the method (default both). A method 2026-07-28 removed, such as
   * `resources/subscribe`, is served in legacy sessions only: a modern request gets -32601.
   */
  eras?: readonly Era[];
}

interface MethodEntry {
  handler: MethodHandler;
  requires: JsonObject | undefined;
  eras: readonly Era[];
  /** Served by the core over a registry: declared only while the registry has something. */
  core?: () => boolean;
}

/** What a request's context needs beyond the era: per-request (modern) or per-session (legacy). */
interface ContextExtras {
  inputResponses?: JsonObject | undefined;
  requestState?: string | undefined;
  /** The least severe level the client wants; undefined: no log messages at all. */
  logLevel: LogLevel | undefined;
  logging: boolean;
  /** The request may be answered with a task. */
  tasks?: boolean;
  /** The legacy session the request came in. */
  session?: SessionLink;
  core?: Core;
}

/** What a context reaches of the server behind it. */
interface Core {
  readonly store: TaskStore;
  readonly seal: AnswerSeal;
}

const NO_EXTRAS: ContextExtras = { logLevel: undefined, logging: false };

/** A request's context with what the server core learned about its era. */
class Context implements ServeContext {
  constructor(
    private readonly incoming: RequestContext,
    readonly era: Era,
    readonly revision: Revision,
    readonly clientCapabilities: JsonObject,
    readonly clientInfo: Implementation | undefined,
    private readonly extras: ContextExtras = NO_EXTRAS,
  ) {}
  get id() {
    return this.incoming.id;
  }
  get method() {
    return this.incoming.method;
  }
  get signal() {
    return this.incoming.signal;
  }
  get inputResponses() {
    return this.extras.inputResponses;
  }
  get requestState() {
    return this.extras.requestState;
  }
  progress(progress: number, total?: number, message?: string) {
    return this.incoming.progress(progress, total, message);
  }
  notify(method: string, params?: JsonObject) {
    return this.incoming.notify(method, params);
  }
  request<T = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Promise<T> {
    if (this.era === "modern") {
      // 2026-07-28 has no server-to-client requests: the answer says what input it needs
      return Promise.reject(
        new Error(
          `${method}: a 2026-07-28 server cannot send requests to the client; return an input_required result instead`,
        ),
      );
    }
    return this.incoming.request<T>(method, params, options);
  }
  log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    const wanted = this.extras.logLevel;
    if (!this.extras.logging || wanted === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted))
      return Promise.resolve();
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.incoming.notify("notifications/message", params).catch(() => undefined);
  }

  /** The questions this request asked that have no answer yet (2026-07-28). */
  asked: Record<string, InputRequest> | undefined;
  private answersSoFar: JsonObject | undefined;
  private asks = 0;

  /** Every answer the client gave this request: earlier rounds' (sealed in the state) and this one's. */
  answers(): JsonObject {
    if (this.answersSoFar) return this.answersSoFar;
    const earlier = this.extras.core?.seal.open(this.extras.requestState) ?? {};
    return (this.answersSoFar = { ...earlier, ...this.extras.inputResponses });
  }

  ask(key: string, request: InputRequest): Promise<JsonObject> {
    const capability = INPUT_CAPABILITY[request.method as InputMethod] as string | undefined;
    if (capability !== undefined && this.clientCapabilities[capability] === undefined) {
      const missing = missingCapabilities({ [capability]: {} }, this.clientCapabilities)!;
      if (this.era === "modern") return Promise.reject(missing);
      return Promise.reject(new ResponseError(INVALID_REQUEST, missing.message, missing.data));
    }
    if (this.era === "legacy") return this.incoming.request<JsonObject>(request.method, request.params ?? {});
    const answer = this.answers()[key];
    if (isObject(answer)) return Promise.resolve(answer);
    (this.asked ??= {})[key] = request;
    return Promise.reject(new InputNeeded());
  }
  elicit(params: JsonObject): Promise<JsonObject> {
    return this.ask(`elicitation-${++this.asks}`, { method: "elicitation/create", params });
  }
  createMessage(params: JsonObject): Promise<JsonObject> {
    return this.ask(`sampling-${++this.asks}`, { method: "sampling/createMessage", params });
  }
  listRoots(): Promise<JsonObject> {
    return this.ask(`roots-${++this.asks}`, { method: "roots/list", params: {} });
  }

  get tasks(): boolean {
    return this.extras.tasks === true;
  }
  /** The legacy session the request came in, for the core's own methods. */
  get session(): Session | undefined {
    return this.extras.session as Session | undefined;
  }

  task(work: TaskWork, options: TaskOptions = {}): Promise<CallToolResult | CreateTaskResult> {
    const core = this.extras.core;
    if (!this.extras.tasks || !core) {
      const inline: TaskContext = {
        taskId: undefined,
        signal: this.signal,
        input: (requests) => {
          const keys = Object.keys(requests);
          return Promise.all(keys.map((k) => this.ask(k, requests[k]!))).then((answers) =>
            Object.fromEntries(keys.map((k, i) => [k, answers[i]!])),
          );
        },
        status: () => undefined,
      };
      return Promise.resolve().then(() => work(inline));
    }
    try {
      const task = core.store.create(work, options, this.era === "legacy" ? this.extras.session : undefined);
      return Promise.resolve(
        this.era === "modern" ? { resultType: "task", ...task.modern() } : { task: task.legacy() },
      );
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

/** The legacy session a request came in (undefined on 2026-07-28), for the core's own methods. */
export function sessionOf(context: ServeContext): Session | undefined {
  return context instanceof Context ? context.session : undefined;
}

// made per request served (see shapes.ts)
keepShape(new Context({} as RequestContext, "modern", "2026-07-28", {}, undefined), "roundtrip");

/** One connection's legacy session, if `initialize` opened one. */
export interface Session extends SessionLink, SessionListener {
  revision: Revision;
  clientCapabilities: JsonObject;
  clientInfo: Implementation | undefined;
  /** Set by `logging/setLevel`; until then every level is sent. */
  logLevel: LogLevel;
  /** What every request's context takes from the session: replaced, never changed, when the level is set. */
  extras: ContextExtras;
}

/** Results a 2026-07-28 client may cache: the schema requires `ttlMs` and `cacheScope` on them. */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

const LIFECYCLE = new Set(["initialize", "server/discover", "ping"]);

export class McpServer {
  readonly tools = new ToolRegistry();
  readonly resources = new ResourceRegistry();
  readonly prompts = new PromptRegistry();
  /** Legacy sessions and 2026-07-28 listen streams, told about changes. */
  readonly subscriptions = new Subscriptions();
  readonly taskStore: TaskStore;
  readonly pageSize: number;
  private readonly seal = new AnswerSeal();
  private readonly core: Core;
  private readonly methods = new Map<string, MethodEntry>();
  private readonly revisions: readonly Revision[];
  private readonly modern: readonly Revision[];
  private readonly legacy: readonly Revision[];
  private readonly serverInfoMeta: JsonObject;

  constructor(readonly options: ServerOptions) {
    const served = new Set(options.revisions ?? REVISIONS);
    // newest first: what discovery and negotiation offer
    this.revisions = [...REVISIONS].reverse().filter((r) => served.has(r));
    this.modern = this.revisions.filter((r) => RULES[r].era === "modern");
    this.legacy = this.revisions.filter((r) => RULES[r].era === "legacy");
    this.serverInfoMeta = { [META_SERVER_INFO]: options.serverInfo };
    this.pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    this.taskStore = new TaskStore(options.tasks ?? {}, (task) => {
      if (task.session) task.session.notify("notifications/tasks/status", task.legacy());
      else this.subscriptions.taskChanged(task.taskId, () => task.detailed());
    });
    this.core = { store: this.taskStore, seal: this.seal };
    this.method("tools/list", (params, context) => this.tools.list(params, context, this.pageSize));
    this.method("tools/call", (params, context) => this.tools.call(params, context));
    new CoreMethods(this).register((name, handler, options, served) => {
      this.method(name, handler, options);
      this.methods.get(name)!.core = served;
    });
    this.tools.changes.onChange(() => this.subscriptions.listChanged("tools"));
    this.resources.changes.onChange(() => this.subscriptions.listChanged("resources"));
    this.prompts.changes.onChange(() => this.subscriptions.listChanged("prompts"));
  }

  /** Serves another method, in both eras unless `options.eras` says otherwise. */
  method(name: string, handler: MethodHandler, options: MethodOptions = {}): void {
    this.methods.set(name, { handler, requires: options.requires, eras: options.eras ?? ["legacy", "modern"] });
    this.requestPeerOptions = undefined;
  }

  /** Tells every subscriber of `uri` it changed (legacy subscriptions and 2026-07-28 listen streams). */
  resourceUpdated(uri: string): void {
    this.subscriptions.resourceUpdated(uri);
  }

  /** Ends every `subscriptions/listen` stream gracefully, as a server shutting down should. */
  close(): void {
    this.subscriptions.close();
  }

  /** The capabilities `initialize` declares, derived from what the server serves. */
  get capabilities(): JsonObject {
    return this.capabilitiesFor("legacy");
  }

  /** Whether tasks are on: a tool was defined with `taskSupport`. */
  get tasksEnabled(): boolean {
    return this.tools.tasks;
  }

  /**
   * The capabilities declared to an era: each feature whose methods the server serves, plus
   * `options.capabilities`. Resource subscriptions are legacy-only (2026-07-28 replaced them
   * with `subscriptions/listen`, which this core does not serve).
   */
  capabilitiesFor(era: Era, revision?: Revision): JsonObject {
    const caps: JsonObject = {};
    // 2026-07-28 announces changes only on listen streams, which this core serves
    if (this.tools.size > 0) caps.tools = { listChanged: true };
    if (this.serves("resources/list", era) || this.serves("resources/read", era)) {
      const subscribe =
        era === "modern" ? this.serves("subscriptions/listen", era) : this.serves("resources/subscribe", era);
      caps.resources = subscribe ? { subscribe: true, listChanged: true } : { listChanged: true };
    }
    if (this.serves("prompts/list", era) || this.serves("prompts/get", era)) caps.prompts = { listChanged: true };
    if (this.serves("completion/complete", era)) caps.completions = {};
    if (this.options.logging) caps.logging = {};
    if (this.tools.tasks) {
      if (era === "modern") caps.extensions = { [TASKS_EXTENSION]: {} };
      else if (revision === "2025-11-25") caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    }
    const extra = this.options.capabilities;
    if (extra && isObject(extra.extensions) && isObject(caps.extensions))
      return { ...caps, ...extra, extensions: { ...caps.extensions, ...extra.extensions } };
    return { ...caps, ...extra };
  }

  /**
   * The `Mcp-Param-*` headers a 2026-07-28 HTTP call of tool `name` must carry (its
   * `x-mcp-header` parameters), or undefined for an unknown tool or one whose annotations are
   * invalid (clients drop such a tool, so there is nothing to check a call of it against).
   */
  headerParams(name: string): readonly HeaderParam[] | undefined {
    const tool = this.tools.get(name);
    if (!tool) return undefined;
    // a definition is walked once, not on every call of the tool
    let params = this.paramsByTool.get(tool);
    if (params === undefined) {
      const found = headerParams(tool);
      params = "params" in found ? found.params : null;
      this.paramsByTool.set(tool, params);
    }
    return params ?? undefined;
  }

  private readonly paramsByTool = new WeakMap<Tool, readonly HeaderParam[] | null>();

  private serves(method: string, era: Era): boolean {
    const entry = this.methods.get(method);
    return entry !== undefined && entry.eras.includes(era) && (entry.core?.() ?? true);
  }

  /** Serves one connection (a stdio pipe, an in-memory pair). Returns its peer. */
  connect(transport: Transport): Peer {
    const peer = new Peer(transport, this.peerOptions());
    let session: Session | undefined;

    if (this.legacy.length > 0) {
      peer.handle("initialize", (params) => {
        if (hasModernMeta(params)) throw removedIn2026("initialize");
        const p = params ?? {};
        const requested = p.protocolVersion;
        // the legacy lifecycle: echo a version we support, otherwise offer our newest
        const revision = isRevision(requested) && this.legacy.includes(requested) ? requested : this.legacy[0]!;
        if (session) this.endSession(session);
        session = this.openSession(peer, revision, p);
        peer.revision = revision;
        const result: JsonObject = {
          protocolVersion: revision,
          capabilities: this.capabilitiesFor("legacy", revision),
          serverInfo: this.options.serverInfo,
        };
        if (this.options.instructions) result.instructions = this.options.instructions;
        return result;
      });
      peer.handle("ping", (params) => {
        if (hasModernMeta(params)) throw removedIn2026("ping");
        return {};
      });
      if (this.options.logging) {
        peer.handle("logging/setLevel", (params) => {
          if (hasModernMeta(params)) throw removedIn2026("logging/setLevel");
          if (!session) throw this.missingMeta();
          const level = params?.level;
          if (!isLogLevel(level))
            throw new ResponseError(INVALID_PARAMS, `Unknown log level: ${JSON.stringify(level)}`);
          session.logLevel = level;
          session.extras = { ...session.extras, logLevel: level };
          return {};
        });
      }
    }
    if (this.modern.length > 0) {
      peer.handle("server/discover", (params, context) => this.discover(params, context));
    }
    for (const [name, entry] of this.methods) {
      if (LIFECYCLE.has(name)) continue;
      const modern = entry.eras.includes("modern");
      const legacy = entry.eras.includes("legacy");
      peer.handle(name, (params, context) => {
        if (hasModernMeta(params) || !session) {
          if (!modern && hasModernMeta(params)) throw removedIn2026(name);
          return this.callModern(entry, params, context);
        }
        if (!legacy)
          throw new ResponseError(METHOD_NOT_FOUND, `Method not found: ${name} is served to 2026-07-28 requests only`);
        // a 2025-11-25 client asks for a task with the call's `task` parameter
        const extras =
          name === "tools/call" && isObject(params?.task) && session.revision === "2025-11-25" && this.tools.tasks
            ? { ...session.extras, tasks: true }
            : session.extras;
        return entry.handler(
          params ?? {},
          new Context(context, "legacy", session.revision, session.clientCapabilities, session.clientInfo, extras),
        );
      });
    }
    void peer.ended.then(() => {
      if (session) this.endSession(session);
    });
    return peer;
  }

  private openSession(peer: Peer, revision: Revision, params: JsonObject): Session {
    const session: Session = {
      revision,
      clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
      clientInfo: isObject(params.clientInfo) ? (params.clientInfo as Implementation) : undefined,
      logLevel: "debug",
      extras: { logLevel: "debug", logging: this.options.logging === true, core: this.core },
      uris: new Set(),
      request: (method, p) => peer.request<JsonObject>(method, p),
      notify: (method, p) => void peer.notify(method, p).catch(() => undefined),
    };
    session.extras = { ...session.extras, session };
    this.subscriptions.addSession(session);
    return session;
  }

  private endSession(session: Session): void {
    this.subscriptions.removeSession(session);
    this.taskStore.dropSession(session);
  }

  /**
   * Serves a single 2026-07-28 request (a Streamable HTTP POST): a peer that opens no session,
   * so it shares one table of handlers with every other such peer instead of registering its
   * own. `initialize`, `ping` and `logging/setLevel` are -32601 there, as 2026-07-28 has them.
   */
  connectRequest(transport: Transport): Peer {
    return new Peer(
      transport,
      (this.requestPeerOptions ??= { ...this.peerOptions(), handlers: this.statelessHandlers() }),
    );
  }

  private peerOptions(): PeerOptions {
    return (this.basePeerOptions ??= {
      revision: this.legacy[0] ?? this.modern[0]!,
      role: "server",
      ...(this.options.timeout !== undefined ? { timeout: this.options.timeout } : {}),
      ...(this.options.maxInFlight !== undefined ? { maxInFlight: this.options.maxInFlight } : {}),
      ...(this.options.onDefect ? { onDefect: this.options.onDefect } : {}),
    });
  }

  private basePeerOptions: PeerOptions | undefined;
  /** Made when first needed, and again after `method` adds one. */
  private requestPeerOptions: PeerOptions | undefined;

  /** What `connect`'s handlers do while no session is open, as one table every request shares. */
  private statelessHandlers(): Map<string, RequestHandler> {
    const handlers = new Map<string, RequestHandler>();
    if (this.legacy.length > 0) {
      for (const name of ["initialize", "ping", ...(this.options.logging ? ["logging/setLevel"] : [])]) {
        handlers.set(name, () => {
          throw removedIn2026(name);
        });
      }
    }
    if (this.modern.length > 0) {
      handlers.set("server/discover", (params, context) => this.discover(params, context));
    }
    for (const [name, entry] of this.methods) {
      if (LIFECYCLE.has(name)) continue;
      const modern = entry.eras.includes("modern");
      handlers.set(name, (params, context) => {
        if (!modern && hasModernMeta(params)) throw removedIn2026(name);
        return this.callModern(entry, params, context);
      });
    }
    return handlers;
  }

  private discover(params: JsonObject | undefined, context: RequestContext): JsonObject | Promise<JsonObject> {
    return this.modernCall(params, context, () => {
      const result: JsonObject = {
        supportedVersions: [...this.revisions],
        capabilities: this.capabilitiesFor("modern"),
        ttlMs: 60_000,
        cacheScope: "public",
      };
      if (this.options.instructions) result.instructions = this.options.instructions;
      return result;
    });
  }

  /** A method's handler run as a stateless 2026-07-28 request. */
  private callModern(
    entry: MethodEntry,
    params: JsonObject | undefined,
    context: RequestContext,
  ): JsonObject | Promise<JsonObject> {
    return this.modernCall(
      params,
      context,
      (modernContext) => entry.handler(params ?? {}, modernContext),
      entry.requires,
    );
  }

  /** A stateless 2026-07-28 request: checks its `_meta`, runs it, stamps the result. */
  private modernCall(
    params: JsonObject | undefined,
    context: RequestContext,
    run: (context: ServeContext) => unknown,
    requires?: JsonObject,
  ): JsonObject | Promise<JsonObject> {
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const requested = meta?.[META_PROTOCOL_VERSION];
    if (typeof requested !== "string") throw this.missingMeta();
    if (!isRevision(requested) || !this.modern.includes(requested)) {
      throw new ResponseError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
        supported: [...this.revisions],
        requested,
      });
    }
    const capabilities = meta![META_CLIENT_CAPABILITIES];
    if (!isObject(capabilities)) {
      throw new ResponseError(
        INVALID_PARAMS,
        `Missing _meta["${META_CLIENT_CAPABILITIES}"]: every request declares the client's capabilities ({} for none)`,
      );
    }
    const missing = missingCapabilities(requires, capabilities);
    if (missing) throw missing;
    const logLevel = meta![META_LOG_LEVEL];
    if (logLevel !== undefined && !isLogLevel(logLevel))
      throw new ResponseError(
        INVALID_PARAMS,
        `Unknown log level in _meta["${META_LOG_LEVEL}"]: ${JSON.stringify(logLevel)}`,
      );
    const { inputResponses, requestState } = params!;
    if (inputResponses !== undefined && !isObject(inputResponses))
      throw new ResponseError(
        INVALID_PARAMS,
        "inputResponses must be an object keyed like the inputRequests it answers",
      );
    if (requestState !== undefined && typeof requestState !== "string")
      throw new ResponseError(INVALID_PARAMS, "requestState must be the string the server sent");
    const info = meta![META_CLIENT_INFO];
    const extensions = capabilities.extensions;
    const extras: ContextExtras = {
      inputResponses,
      requestState,
      logLevel,
      logging: this.options.logging === true,
      core: this.core,
      tasks: this.tools.tasks && isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined,
    };
    const modernContext = new Context(
      context,
      "modern",
      requested,
      capabilities,
      isObject(info) ? (info as Implementation) : undefined,
      extras,
    );
    const cacheable = CACHEABLE.has(context.method);
    let result: unknown;
    try {
      result = run(modernContext);
    } catch (e) {
      return this.stamp(this.askedFor(e, modernContext), cacheable);
    }
    return result instanceof Promise
      ? result.then(
          (r) => this.stamp(r, cacheable),
          (e: unknown) => this.stamp(this.askedFor(e, modernContext), cacheable),
        )
      : this.stamp(result, cacheable);
  }

  /** The `input_required` result for a handler that stopped to ask (`context.ask`); any other error as it was. */
  private askedFor(e: unknown, context: Context): JsonObject {
    if (!(e instanceof InputNeeded) || !context.asked) throw e;
    return inputRequired(context.asked, context.answers(), this.seal);
  }

  private missingMeta(): ResponseError {
    const legacyHint = this.legacy.length > 0 ? "; a legacy client opens with initialize instead" : "";
    return new ResponseError(
      INVALID_PARAMS,
      `Missing _meta["${META_PROTOCOL_VERSION}"]: every request names its protocol version${legacyHint}`,
      { supported: [...this.revisions] },
    );
  }

  /**
   * Every modern result says its type and, as the spec asks, who answered; a cacheable one
   * carries caching hints, by default "stale at once, this client only", the safe reading.
   */
  private stamp(result: unknown, cacheable: boolean): JsonObject {
    const r: JsonObject = isObject(result) ? result : {};
    const meta = isObject(r._meta) ? { ...r._meta, [META_SERVER_INFO]: this.options.serverInfo } : this.serverInfoMeta;
    if (cacheable && r.resultType !== "input_required" && (r.ttlMs === undefined || r.cacheScope === undefined)) {
      return { resultType: "complete", ttlMs: 0, cacheScope: "private", ...r, _meta: meta };
    }
    // one literal, no properties added afterwards: adding to a spread copy is many times slower
    return { resultType: "complete", ...r, _meta: meta };
  }
}

/** -32601 for a method 2026-07-28 removed, asked for by a request that speaks that revision. */
function removedIn2026(method: string): ResponseError {
  return new ResponseError(METHOD_NOT_FOUND, `Method not found: ${method} is not part of 2026-07-28`);
}

function isLogLevel(v: unknown): v is LogLevel {
  return typeof v === "string" && (LOG_LEVELS as readonly string[]).includes(v);
}

function hasModernMeta(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return isObject(meta) && meta[META_PROTOCOL_VERSION] !== undefined;
}
