/**
 * A dual-era MCP client: finds out which era a server speaks the way the 2026-07-28
 * specification tells a dual-era client to, then speaks it.
 *
 * Modern (2026-07-28): no handshake; every request carries `_meta` with the protocol version,
 * the client's capabilities and identity. Legacy (2024-11-05 … 2025-11-25): `initialize`, then
 * `notifications/initialized`, then requests in that session.
 */
import { defect, type Defect } from "../codec/defects.js";
import type { JsonObject } from "../codec/message.js";
import {
  ClosedError,
  ConnectionError,
  ConnectionErrorCode,
  ResponseError,
  ServerExitedError,
  SpawnError,
} from "../peer/errors.js";
import {
  DEFAULT_TIMEOUT as DEFAULT_REQUEST_TIMEOUT,
  Peer,
  type DefectReport,
  type RequestOptions,
} from "../peer/peer.js";
import { isHttpTransport, type HttpTransport, type Transport } from "../peer/transport.js";
import { METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION } from "../rules/error-codes.js";
import {
  LEGACY_REVISIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  RULES,
  isRevision,
  type Era,
  type Revision,
} from "../rules/revisions.js";
import { HttpError } from "../transport/http/error.js";
import { StreamableHttpTransport } from "../transport/http/client.js";
import { headerParams, paramHeaders, type HeaderParam } from "./tool-headers.js";
import {
  MODERN_ERROR_CODES,
  MODERN_REVISIONS,
  isObject,
  mutualRevision,
  type CallToolResult,
  type CompleteRef,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type ListPromptsResult,
  type ListResourceTemplatesResult,
  type ListResourcesResult,
  type ListToolsResult,
  type LogLevel,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "./meta.js";
import { NotificationEvents, type NotificationListener } from "./events.js";
import { Subscriptions, listenLegacy, type ListenFilter, type Subscription } from "./listen.js";
import {
  MethodNotInRevisionError,
  revisionHas,
  type IfAnyTasks,
  type IfLegacy,
  type IfModern,
  type IfTasks,
  type LegacyRevision,
  type ModernRevision,
} from "./methods.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import {
  TaskWait,
  TasksNotNegotiatedError,
  taskRefusal,
  tasksNegotiated,
  toolRefusal,
  type AnyTask,
  type CancelTaskResultOf,
  type CreateTaskResultOf,
  type LegacyTask,
  type ListTasksResult,
  type TaskMethod,
  type TaskOf,
  type TaskTerms,
  type TaskWaitOptions,
} from "./task-client.js";
import { walkPages, type WalkOptions } from "./pages.js";
import { DEFAULT_OPEN_TIMEOUT, OpeningWatch } from "./opening.js";
import {
  DEFAULT_MAX_INPUT_ROUNDS,
  INPUT_METHODS,
  handlerOf,
  inputCapabilities,
  inputRounds,
  type InputHandlers,
} from "./mrtr.js";
import { VERSION } from "../version.js";
import { InputTasks } from "./input-tasks.js";
import type { TaskStoreOptions } from "./tasks.js";

export interface ClientOptions<R extends Revision = Revision> {
  clientInfo?: Implementation;
  /** Declared as given, over those the `inputHandlers` imply. */
  capabilities?: JsonObject;
  /**
   * Answers to what a server asks of the client: the `inputRequests` of a 2026-07-28
   * `input_required` result, or a legacy server's own request. Each declares its capability
   * (`elicitation`, `sampling`, `roots`); a server asking for one without a handler fails the
   * request with an `InputRequiredError`.
   */
  inputHandlers?: InputHandlers;
  /** How many times one request is sent again with answers before it fails. Default 8. */
  maxInputRounds?: number;
  /**
   * Speak exactly this revision: no detection, no fallback, no other version accepted. The
   * client's type then has only that revision's methods.
   */
  revision?: R;
  /** The channel carries only the legacy era (HTTP+SSE): `initialize` at once, any legacy revision accepted. */
  legacyOnly?: boolean;
  /**
   * `false`, with a modern `revision`: send no `server/discover` and take the server to speak that
   * revision (a client "is free to invoke any RPC inline", 2026-07-28 versioning). The server's
   * capabilities are then unknown (`{}`). With any other `revision`, `connect` throws a `TypeError`.
   */
  discover?: boolean;
  /**
   * Over a stream: how long `server/discover` may go unanswered before `initialize` is sent
   * beside it (both then stay open, and the first proper answer decides). Default 1 s.
   */
  probeTimeout?: number;
  /**
   * Declare tasks: on 2026-07-28 the `io.modelcontextprotocol/tasks` extension in each request's
   * capabilities, on 2025-11-25 the `tasks` capability (empty: this client runs no tasks of its
   * own). Where the server declares them too, `callTool` follows a task to its result, and the
   * task methods (`getTask`, `cancelTask`, …) may be used. Default off.
   */
  tasks?: boolean;
  /**
   * Let a 2025-11-25 server ask for sampling or elicitation as a task: the `tasks` capability then
   * declares each of those the `inputHandlers` answer (and `tasks/list`, `tasks/cancel`); a request
   * carrying `task` is answered at once with the task's handle, its handler runs as the task (its
   * `signal` aborted by `tasks/cancel`), and the server's `tasks/get`, `tasks/result`, `tasks/list`
   * and `tasks/cancel` are served. The object form sets the tasks' lifetime (`ttlMs`, default
   * 5 minutes: a server asking for less gets what it asked), the suggested `pollIntervalMs`
   * (default 500) and `maxTasks` (default 10,000). Other revisions have no tasks a client runs.
   * Default off.
   */
  inputTasks?: boolean | TaskStoreOptions;
  /** Default deadline of each request. Default 60 s. */
  timeout?: number;
  /**
   * Deadline of the whole opening (era probe, fallback, handshake): past it `connect` fails with
   * an `OpeningTimeoutError` naming what was sent and what came back. Default 30 s.
   */
  openTimeout?: number;
  /** Everything wrong the server sent, as the codec names it. */
  onDefect?: (report: DefectReport) => void;
  /** Also judge every answer against its revision's official schema.json (`schema_invalid` through `onDefect`). */
  schema?: boolean;
  /** Each step of the opening as it completes (a probe shows them even if the opening stalls). */
  onStep?: (step: ConnectStep) => void;
}

/** Opens a fresh channel to the server (for stdio, spawns the process). Called again if the
 * era probe cost the first one its life. */
export type Connector = () => Transport | Promise<Transport>;

/** One step of the opening, for a person reading what happened. */
export interface ConnectStep {
  step: "server/discover" | "initialize" | "notifications/initialized" | "reconnect";
  outcome: "ok" | "error" | "timeout" | "closed" | "invalid";
  detail?: string;
  ms: number;
}

/** The opening failed in a way that is not a JSON-RPC error from the server. */
export class NegotiationError extends ConnectionError {
  override readonly name = "NegotiationError";
  constructor(message: string) {
    super(ConnectionErrorCode.Negotiation, message);
  }
}

/**
 * A client told to speak exactly one revision (`revision`) met a server that does not speak it:
 * it chose another in `initialize`, or lists others, or does not speak that era at all.
 * `serverSpeaks` holds what the server named instead (empty when it named nothing).
 */
export class RevisionNotSpokenError extends ConnectionError {
  override readonly name = "RevisionNotSpokenError";
  constructor(
    readonly requested: Revision,
    readonly serverSpeaks: readonly string[],
    why: string,
  ) {
    super(ConnectionErrorCode.RevisionNotSpoken, `the server does not speak ${requested}: ${why}`);
  }
}

const DEFAULT_INFO: Implementation = { name: "mcp-wire", version: VERSION };
/**
 * How long `server/discover` may go unanswered over a stream before `initialize` is sent beside
 * it. Short, since a late discover answer still wins: a legacy server that ignores discover opens
 * quickly, and a slow modern one loses nothing.
 */
const DEFAULT_PROBE_TIMEOUT = 1000;

type DiscoverVerdict =
  { era: "modern"; revision: Revision } | { era: "legacy"; why: string; legacyRevision?: Revision };

/**
 * A stream's opening when `server/discover` went unanswered long enough that `initialize` was
 * sent beside it: both requests in flight, and what each needs to finish or be withdrawn.
 */
interface OpeningRace {
  connector: Connector;
  preferred: Revision;
  /** The revision `initialize` offered. */
  offer: Revision;
  /** When discover and initialize were sent. */
  t0: number;
  tInit: number;
  discovering: Promise<JsonObject>;
  discoverAbort: AbortController;
  initializing: Promise<JsonObject>;
  initAbort: AbortController;
}

/** True if `p` settles (either way) within `ms`. */
function answeredWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = p.then(
    () => true,
    () => true,
  );
  return Promise.race([
    settled,
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The lists a server pages, each with the array its pages hold. */
const LIST_KEYS = {
  "tools/list": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts",
  "tasks/list": "tasks",
} as const;
export type ListMethod = keyof typeof LIST_KEYS;
export interface ListResults {
  "tools/list": ListToolsResult;
  "resources/list": ListResourcesResult;
  "resources/templates/list": ListResourceTemplatesResult;
  "prompts/list": ListPromptsResult;
  "tasks/list": ListTasksResult;
}
interface ListItems {
  "tools/list": Tool;
  "resources/list": Resource;
  "resources/templates/list": ResourceTemplate;
  "prompts/list": Prompt;
  "tasks/list": LegacyTask;
}

/** A request's options, and where a whole-list walk starts and how many pages it may take. */
export type ListOptions = RequestOptions & WalkOptions;

export interface CallToolOptions extends RequestOptions {
  /** `false`: ask for no progress (no `progressToken`), so only `timeout` bounds the call. Default: asked for. */
  progress?: boolean;
  /**
   * Run the call as a task and follow it to its result (tasks negotiated). On 2025-11-25 the
   * call asks for one (`ttl`: how long the server should keep it, in ms); on 2026-07-28 the server
   * decides, and a task it makes of any call is followed anyway. Default: not asked for, though a
   * 2025-11-25 tool listed with `execution.taskSupport: "required"` runs as one.
   */
  task?: boolean | { ttl?: number };
  /** The longest a call that became a task may take in all, in ms (see `TaskWaitOptions`). Default 30 minutes. */
  taskTimeout?: number;
  /** Between polls of a task whose server suggests no interval, in ms. Default 1000. */
  pollInterval?: number;
  /** Each state of the task the call became, as the client sees it. */
  onTaskStatus?: (task: AnyTask) => void;
}

/** How a task is started by `callToolTask`: `ttl` asks a 2025-11-25 server to keep it that long (ms). */
export interface CallToolTaskOptions extends RequestOptions {
  ttl?: number;
}

function ignoreProgress(): void {}
/** What a call without options is sent with: progress asked for, and each notification restarts the deadline. */
const PROGRESS_DEFAULTS: RequestOptions = { onProgress: ignoreProgress, resetTimeoutOnProgress: true };

export class McpClient<R extends Revision = Revision> {
  era!: Era;
  /** The negotiated revision. */
  revision!: R;
  serverInfo: Implementation | undefined;
  capabilities: JsonObject = {};
  instructions: string | undefined;
  /** Versions a modern server said it supports. */
  supportedVersions: string[] = [];
  /**
   * The modern revision a `server/discover` answer named on a stream whose process then answered
   * the `initialize` sent beside it: this process is legacy, and only a fresh one can be spoken
   * to in that modern revision.
   */
  discoveredModern: Revision | undefined;
  readonly steps: ConnectStep[] = [];
  readonly defects: Defect[] = [];
  /** Tools dropped from `listTools` because their `x-mcp-header` annotations break the rules. */
  readonly rejectedTools: string[] = [];
  private peer!: Peer;
  private transport: Transport | undefined;
  /** The same transport when it is an HTTP one: its means, and how silence reads on it. */
  private http: HttpTransport | undefined;
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  /** An `initialize` sent beside a late `server/discover` may still be answered after modern won. */
  private lateInitialize = false;
  /** True until the era and revision are settled. */
  private opening = true;
  private readonly clientInfo: Implementation;
  private readonly clientCapabilities: JsonObject;
  /** What each era's requests declare: with tasks, the extension (modern) or the capability (2025-11-25). */
  private readonly modernCapabilities: JsonObject;
  private readonly taskCapabilities: JsonObject;
  /** The tasks this client runs for a 2025-11-25 server (`inputTasks`). */
  private inputTasks: InputTasks | undefined;
  /** How each tool listed by a 2025-11-25 server may run as a task (`execution.taskSupport`, null when absent). */
  private readonly toolTasks = new Map<string, string | null>();
  private readonly events = new NotificationEvents();
  private readonly subscriptions: Subscriptions;

  private constructor(private readonly options: ClientOptions<R>) {
    this.clientInfo = options.clientInfo ?? DEFAULT_INFO;
    this.clientCapabilities = { ...inputCapabilities(options.inputHandlers), ...options.capabilities };
    const base = this.clientCapabilities;
    // what the caller declared itself wins over what the tasks option adds
    this.modernCapabilities =
      options.tasks === true
        ? { ...base, extensions: { [TASKS_EXTENSION]: {}, ...(isObject(base.extensions) ? base.extensions : {}) } }
        : base;
    this.taskCapabilities = this.legacyTaskCapabilities(base);
    this.subscriptions = new Subscriptions(
      (params, requestOptions) => this.request("subscriptions/listen", params, requestOptions),
      this.events,
      options.timeout,
    );
  }

  /**
   * What a 2025-11-25 `initialize` declares: the `tasks` capability where the client runs tasks
   * (`inputTasks`, for the handlers it has) or follows them (`tasks`); one the caller gave wins.
   */
  private legacyTaskCapabilities(base: JsonObject): JsonObject {
    const { inputTasks, inputHandlers } = this.options;
    if (base.tasks !== undefined) return base;
    const receiving =
      inputTasks !== undefined && inputTasks !== false
        ? InputTasks.capability({
            "sampling/createMessage": handlerOf(inputHandlers, "sampling/createMessage"),
            "elicitation/create": handlerOf(inputHandlers, "elicitation/create"),
          })
        : undefined;
    if (receiving) {
      this.inputTasks = new InputTasks(inputTasks === true ? {} : (inputTasks as TaskStoreOptions));
      return { ...base, tasks: receiving };
    }
    return this.options.tasks === true ? { ...base, tasks: {} } : base;
  }

  /**
   * Connects and settles the era and revision. Rejects with a typed error if no era works, and
   * with an `OpeningTimeoutError` if the server has not opened within `openTimeout`.
   */
  static async connect<R extends Revision = Revision>(
    connector: Connector,
    options: ClientOptions<R> = {},
  ): Promise<McpClient<R>> {
    const client = new McpClient<R>(options);
    const watch = new OpeningWatch();
    const openTimeout = options.openTimeout ?? DEFAULT_OPEN_TIMEOUT;
    let expired = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(watch.timedOut(openTimeout));
      }, openTimeout);
    });
    const watched: Connector = async () => {
      // an opening given up on starts nothing more
      if (expired) throw watch.timedOut(openTimeout);
      return watch.watch(await connector());
    };
    try {
      await Promise.race([client.open(watched), deadline]);
    } catch (e) {
      // the caller never gets this client: close what it opened, and end a stdio server it
      // started (stdin, SIGTERM, SIGKILL) without holding up the failure
      await client.peer?.close().catch(() => undefined);
      void client.transport?.shutdown?.().catch(() => undefined);
      throw e;
    } finally {
      clearTimeout(timer);
      watch.stop();
    }
    return client;
  }

  private record(step: ConnectStep): void {
    this.steps.push(step);
    this.options.onStep?.(step);
  }

  private newPeer(transport: Transport, revision: Revision): Peer {
    this.transport = transport;
    this.http = isHttpTransport(transport) ? transport : undefined;
    const peer = new Peer(transport, {
      revision,
      role: "client",
      ...(this.options.timeout !== undefined ? { timeout: this.options.timeout } : {}),
      ...(this.options.schema === true ? { schema: true } : {}),
      onDefect: (report) => {
        if (this.lateInitialize && isInitializeAnswer(report.excerpt)) return;
        // while the era is being found, a modern error (a modern-only server refusing the
        // initialize sent beside discover, naming what it supports) is no legacy code misused
        if (this.opening && report.defect.code === "error_code_legacy" && isModernErrorAnswer(report.excerpt)) return;
        if (this.defects.length < 100) this.defects.push(report.defect);
        this.options.onDefect?.(report);
      },
    });
    // a legacy server asks as a request of its own what a modern one asks in input_required:
    // the declared capability holds in either era
    for (const method of INPUT_METHODS) {
      const handler = handlerOf(this.options.inputHandlers, method);
      if (!handler) continue;
      // where the client runs tasks, a 2025-11-25 server may ask for sampling or elicitation as one
      if (this.inputTasks) peer.handle(method, this.inputTasks.serve(peer, method, handler));
      else peer.handle(method, (params, context) => handler(params ?? {}, { signal: context.signal }));
    }
    this.inputTasks?.attach(peer, this.taskCapabilities.tasks);
    // a legacy server may ping the client at any time (basic/utilities/ping: it MUST answer)
    peer.handle("ping", answerPing);
    this.events.attach(peer);
    return peer;
  }

  private async open(connector: Connector): Promise<void> {
    const forced = this.options.revision;
    if (this.options.discover === false) {
      if (!forced || RULES[forced].era !== "modern")
        throw new TypeError("discover: false needs a modern revision to speak (the revision option)");
      this.peer = this.newPeer(await connector(), forced);
      return this.settleModern(forced);
    }
    if (forced && RULES[forced].era === "legacy") {
      this.peer = this.newPeer(await connector(), forced);
      return this.initialize(forced);
    }
    if (this.options.legacyOnly && !forced) {
      this.peer = this.newPeer(await connector(), LEGACY_REVISIONS[0]!);
      return this.initialize(LEGACY_REVISIONS[0]!);
    }
    const preferred = forced ?? MODERN_REVISIONS[0]!;
    this.peer = this.newPeer(await connector(), preferred);
    if (!forced && this.http === undefined) return this.openStream(connector, preferred);
    let verdict: DiscoverVerdict;
    try {
      verdict = await this.discover(preferred, forced !== undefined);
    } catch (e) {
      // a modern server that lists only revisions other than the one asked for
      if (forced && e instanceof NegotiationError && this.supportedVersions.length > 0)
        throw new RevisionNotSpokenError(
          forced,
          this.supportedVersions,
          `it supports ${this.supportedVersions.join(", ")}`,
        );
      throw e;
    }
    if (verdict.era === "modern") return this.settleModern(verdict.revision);
    if (forced) {
      const named = this.supportedVersions;
      throw new RevisionNotSpokenError(
        forced,
        named,
        named.length > 0 ? `it supports ${named.join(", ")}` : `server/discover: ${verdict.why}`,
      );
    }
    return this.fallBack(connector, verdict.legacyRevision ?? LEGACY_REVISIONS[0]!);
  }

  private settleModern(revision: Revision): void {
    this.era = "modern";
    this.revision = revision as R;
    this.peer.revision = revision;
    // a task is a sound answer only where both sides declared the extension
    if (tasksNegotiated(this.terms())) this.peer.extensions = [TASKS_EXTENSION];
  }

  /** `initialize` after `server/discover` said legacy, on this connection or, if it died, a fresh one. */
  private async fallBack(connector: Connector, offer: Revision): Promise<void> {
    if (this.peer.closed) {
      // Some servers exit on any request before initialize: start a fresh one for the session.
      return this.initializeAgain(connector, "the server closed after server/discover", offer);
    }
    try {
      await this.initialize(offer);
    } catch (e) {
      // Others answer the probe with an error and then exit: the end of their output can come
      // after that answer, so the probe's toll shows only as initialize finding the pipe closed.
      if (!(e instanceof ClosedError)) throw e;
      await this.initializeAgain(connector, "the server closed after answering server/discover", offer);
    }
  }

  /**
   * Over a stream, silence from `server/discover` may be a legacy server ignoring it, or a
   * modern one still starting (an npx download, a JVM). So silence does not end the probe:
   * after `probeTimeout`, `initialize` is sent beside it, both stay open for the whole deadline,
   * and the first proper answer decides. A slow modern server reads both in order and answers
   * discover first; a legacy one answers initialize at once.
   */
  private async openStream(connector: Connector, preferred: Revision): Promise<void> {
    const t0 = Date.now();
    const discoverAbort = new AbortController();
    const discovering = this.peer.request(
      "server/discover",
      this.withMeta(preferred, {}),
      this.waitOptions(discoverAbort.signal),
    );
    discovering.catch(() => undefined);
    const waitMs = this.options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT;
    if (await answeredWithin(discovering, waitMs)) {
      const verdict = await this.judgeDiscover(discovering, preferred, false, false, t0);
      if (verdict.era === "modern") return this.settleModern(verdict.revision);
      return this.fallBack(connector, verdict.legacyRevision ?? LEGACY_REVISIONS[0]!);
    }
    this.record({
      step: "server/discover",
      outcome: "timeout",
      detail: `no answer within ${waitMs} ms yet: initialize sent beside it, and the first proper answer decides`,
      ms: Date.now() - t0,
    });
    const race = this.initializeBeside({ connector, preferred, t0, discovering, discoverAbort });
    const first = await Promise.race([
      discovering.then(
        () => "discover" as const,
        () => "discover" as const,
      ),
      race.initializing.then(
        () => "initialize" as const,
        () => "initialize" as const,
      ),
    ]);
    return first === "initialize" ? this.initializeAnsweredFirst(race) : this.discoverAnsweredFirst(race);
  }

  /** Sends `initialize` beside a `server/discover` still unanswered. */
  private initializeBeside(discover: Omit<OpeningRace, "offer" | "tInit" | "initializing" | "initAbort">): OpeningRace {
    const offer = LEGACY_REVISIONS[0]!;
    const initAbort = new AbortController();
    const tInit = Date.now();
    // initialize is a legacy message, sent and judged as one; a discover answer that wins sets
    // the revision back
    this.peer.revision = offer;
    const initializing = this.peer.request(
      "initialize",
      this.initializeParams(offer),
      this.waitOptions(initAbort.signal),
    );
    initializing.catch(() => undefined);
    return { ...discover, offer, tInit, initializing, initAbort };
  }

  /** The race of discover and initialize, won by initialize's answer. */
  private async initializeAnsweredFirst(race: OpeningRace): Promise<void> {
    const { connector, preferred, offer, t0, tInit, discovering, discoverAbort, initializing } = race;
    const refused = await initializing.then(
      () => undefined,
      (e: unknown) => e,
    );
    // A modern-only server may refuse initialize while its discover answer is on the way:
    // only a refusal in modern terms (or "no such method") waits for it.
    const modernRefusal =
      refused instanceof ResponseError && (MODERN_ERROR_CODES.has(refused.code) || refused.code === METHOD_NOT_FOUND);
    if (refused === undefined || !modernRefusal) {
      try {
        await this.finishInitialize(offer, initializing, tInit);
      } catch (e) {
        discoverAbort.abort(new Error("initialize failed"));
        if (!(e instanceof ClosedError)) throw e;
        return this.initializeAgain(connector, "the server closed after server/discover", offer);
      }
      // the session is open: the discover request it never answered is withdrawn
      discoverAbort.abort(new Error("the server answered initialize instead"));
      return;
    }
    let verdict: DiscoverVerdict;
    try {
      verdict = await this.judgeDiscover(discovering, preferred, false, false, t0);
    } catch (e) {
      await this.finishInitialize(offer, initializing, tInit);
      throw e;
    }
    if (verdict.era === "modern") return this.settleModern(verdict.revision);
    return this.finishInitialize(offer, initializing, tInit);
  }

  /** The race of discover and initialize, won by discover's answer. */
  private async discoverAnsweredFirst(race: OpeningRace): Promise<void> {
    const { connector, preferred, offer, t0, tInit, discovering, initializing, initAbort } = race;
    let verdict: DiscoverVerdict;
    try {
      verdict = await this.judgeDiscover(discovering, preferred, false, false, t0);
    } catch (e) {
      initAbort.abort(e);
      throw e;
    }
    if (verdict.era === "modern") {
      // "An initialize request selects legacy semantics, scoped to the stdio process"
      // (2026-07-28 versioning): a dual-era server that read initialize after discover serves
      // this process in the legacy revision it negotiates, whatever discover said. Only a
      // refused (or never answered) initialize leaves the process modern.
      // a modern server's refusal of initialize (say -32022) is no legacy answer to judge
      this.lateInitialize = true;
      const opened = await initializing.then(
        () => true,
        () => false,
      );
      if (opened && !this.peer.closed) {
        this.lateInitialize = false;
        this.discoveredModern = verdict.revision;
        return this.finishInitialize(offer, initializing, tInit);
      }
      return this.settleModern(verdict.revision);
    }
    if (!this.peer.closed) {
      try {
        return await this.finishInitialize(offer, initializing, tInit);
      } catch (e) {
        if (!(e instanceof ClosedError)) throw e;
      }
    }
    return this.initializeAgain(connector, "the server closed after server/discover", offer);
  }

  /** Request options for a wait that lasts the whole deadline: the client's `timeout`, or the peer's own. */
  private waitOptions(signal: AbortSignal): RequestOptions {
    return this.options.timeout === undefined ? { signal } : { signal, timeout: this.options.timeout };
  }

  /**
   * The one documented reason the connector runs twice: some servers exit on any request before
   * `initialize` (as rmcp's do), so after one closed following the era probe, a fresh one is
   * started for `initialize`. If that one ends too, its error says it was the second start.
   */
  private async initializeAgain(connector: Connector, detail: string, offer: Revision): Promise<void> {
    const first = await this.peer.ended;
    const how =
      first instanceof ServerExitedError ? ` (${first.message.split("\n")[0]!.split("; its stderr")[0]})` : "";
    await this.reconnect(connector, `${detail}${how}: started again for initialize`);
    try {
      await this.initialize(offer);
    } catch (e) {
      if (e instanceof ServerExitedError)
        throw e.noted(
          "it was started twice: the first ended after server/discover, and a server that exits on anything before initialize is started again for it",
        );
      throw e;
    }
  }

  private async reconnect(connector: Connector, detail: string): Promise<void> {
    const t0 = Date.now();
    this.peer = this.newPeer(await connector(), LEGACY_REVISIONS[0]!);
    this.record({ step: "reconnect", outcome: "ok", detail, ms: Date.now() - t0 });
  }

  /**
   * `server/discover` with the modern `_meta`: modern evidence, or the reason to fall back.
   * `retried`: this is already the one retry a -32022 earns.
   */
  private discover(revision: Revision, exact: boolean, retried = false): Promise<DiscoverVerdict> {
    const t0 = Date.now();
    // over HTTP silence is an outage, not a legacy server: the probe waits as long as any
    // request; a client that speaks exactly one revision has no fallback, so it waits too
    const timeout =
      this.http !== undefined || exact ? this.options.timeout : (this.options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT);
    const answer = this.peer.request(
      "server/discover",
      this.withMeta(revision, {}),
      timeout === undefined ? {} : { timeout },
    );
    return this.judgeDiscover(answer, revision, exact, retried, t0);
  }

  private async judgeDiscover(
    answer: Promise<JsonObject>,
    revision: Revision,
    exact: boolean,
    retried: boolean,
    t0: number,
  ): Promise<DiscoverVerdict> {
    const step = (outcome: ConnectStep["outcome"], detail?: string) =>
      this.record({ step: "server/discover", outcome, ...(detail ? { detail } : {}), ms: Date.now() - t0 });
    try {
      const result = await answer;
      if (!Array.isArray(result.supportedVersions)) {
        // not a DiscoverResult: some legacy servers answer any unknown method with `{}`
        step("invalid", "a result without supportedVersions is no DiscoverResult");
        return { era: "legacy", why: "server/discover answered with something that is not a DiscoverResult" };
      }
      const supported: unknown[] = result.supportedVersions;
      this.supportedVersions = supported.filter((v): v is string => typeof v === "string");
      this.learnServer(result);
      const modern = exact
        ? supported.includes(revision)
          ? revision
          : undefined
        : mutualRevision(MODERN_REVISIONS, supported);
      step("ok", `supportedVersions ${JSON.stringify(supported)}`);
      if (modern) return { era: "modern", revision: modern };
      const legacy = mutualRevision(LEGACY_REVISIONS, supported);
      return legacy
        ? { era: "legacy", why: `the server supports no modern revision mcp-wire speaks`, legacyRevision: legacy }
        : this.noMutual(supported);
    } catch (caught) {
      // "If the body contains a recognized modern JSON-RPC error, the server speaks a modern
      // version" (2026-07-28 Streamable HTTP, backward compatibility), even one without our id
      const body = caught instanceof HttpError && caught.failure === "no_response" ? caught.rpcError : undefined;
      const e =
        body && MODERN_ERROR_CODES.has(body.code) ? ResponseError.received(body.code, body.message, body.data) : caught;
      if (e instanceof ResponseError && MODERN_ERROR_CODES.has(e.code)) {
        step("error", `${e.code} ${e.message}`);
        const data = e.data as { supported?: unknown } | undefined;
        const supported =
          e.code === UNSUPPORTED_PROTOCOL_VERSION && Array.isArray(data?.supported) ? data.supported : [];
        this.supportedVersions = supported.filter((v): v is string => typeof v === "string");
        const modern = mutualRevision(exact ? [revision] : MODERN_REVISIONS, supported);
        // "retry using the advertised supported versions" (2026-07-28 Streamable HTTP, backward
        // compatibility), once, even with the version just refused: only an answer to the
        // retry gives the server's capabilities and identity
        if (modern && !retried) return this.discover(modern, true, true);
        if (modern)
          throw new NegotiationError(`the server refused ${modern} twice with -32022, though it lists it as supported`);
        const legacy = mutualRevision(LEGACY_REVISIONS, supported);
        if (legacy) return { era: "legacy", why: "the server offers only legacy revisions", legacyRevision: legacy };
        return this.noMutual(supported);
      }
      const outcome = e instanceof ResponseError ? "error" : codeOutcome(e);
      step(outcome, e instanceof Error ? e.message : String(e));
      // a server that could not be started says nothing of its era, and starting it again would fail the same way
      if (e instanceof SpawnError) throw e;
      if (this.http !== undefined && !isHttpLegacyEvidence(e)) throw e;
      return { era: "legacy", why: e instanceof Error ? e.message : String(e) };
    }
  }

  private noMutual(supported: readonly unknown[]): never {
    throw new NegotiationError(`the server supports ${JSON.stringify(supported)}, none of which mcp-wire speaks`);
  }

  private initialize(offer: Revision): Promise<void> {
    this.peer.revision = offer;
    const t0 = Date.now();
    return this.finishInitialize(offer, this.peer.request("initialize", this.initializeParams(offer)), t0);
  }

  private initializeParams(offer: Revision): JsonObject {
    return { protocolVersion: offer, capabilities: this.legacyCapabilities(offer), clientInfo: this.clientInfo };
  }

  /** The capabilities an `initialize` offering `revision` declares: tasks only where it has them. */
  private legacyCapabilities(revision: Revision): JsonObject {
    return revision === "2025-11-25" ? this.taskCapabilities : this.clientCapabilities;
  }

  /** Judges the answer to an `initialize` already sent, and completes the legacy opening. */
  private async finishInitialize(offer: Revision, answer: Promise<JsonObject>, t0: number): Promise<void> {
    let result: JsonObject;
    try {
      result = await answer;
    } catch (e) {
      this.record({
        step: "initialize",
        outcome: e instanceof ResponseError ? "error" : codeOutcome(e),
        detail: e instanceof Error ? e.message : String(e),
        ms: Date.now() - t0,
      });
      throw e;
    }
    const chosen = result.protocolVersion;
    if (!isRevision(chosen) || RULES[chosen].era !== "legacy") {
      this.record({
        step: "initialize",
        outcome: "invalid",
        detail: `protocolVersion ${JSON.stringify(chosen)}`,
        ms: Date.now() - t0,
      });
      throw new NegotiationError(
        `initialize: the server chose protocol version ${JSON.stringify(chosen)}, which mcp-wire does not know`,
      );
    }
    const forced = this.options.revision;
    if (forced && chosen !== forced) {
      // "If the client does not support the version in the server's response, it SHOULD
      // disconnect" (basic/lifecycle): one that speaks exactly one revision supports no other
      this.record({
        step: "initialize",
        outcome: "invalid",
        detail: `protocolVersion ${chosen}, not the ${forced} asked for`,
        ms: Date.now() - t0,
      });
      throw new RevisionNotSpokenError(forced, [chosen], `it chose ${chosen}`);
    }
    this.record({ step: "initialize", outcome: "ok", detail: `protocolVersion ${chosen}`, ms: Date.now() - t0 });
    this.checkLatest(offer, chosen);
    this.era = "legacy";
    this.revision = chosen as R;
    this.peer.revision = chosen;
    this.http?.negotiated?.(chosen);
    this.learnServer(result);
    await this.peer.notify("notifications/initialized");
    this.record({ step: "notifications/initialized", outcome: "ok", ms: Date.now() - t0 });
    // a server can only ask what the client declared it may, and over Streamable HTTP it can
    // only ask on a stream the client opened
    if (SERVER_REQUEST_CAPABILITIES.some((c) => this.clientCapabilities[c] !== undefined))
      void this.http?.openServerStream?.();
  }

  /**
   * A server that does not speak the version offered answers with "the latest version it
   * supports" (basic/lifecycle): one that listed a newer initialize-era version (in a
   * DiscoverResult or a -32022's `data.supported`) and chose an older one gets a warning.
   */
  private checkLatest(offer: Revision, chosen: Revision): void {
    if (chosen === offer) return;
    const listed = this.supportedVersions.filter((v) => isRevision(v) && RULES[v].era === "legacy").sort();
    const latest = listed[listed.length - 1];
    if (latest === undefined || chosen >= latest) return;
    const d = defect(
      "initialize_version_not_latest",
      "/result/protocolVersion",
      `initialize asked for ${JSON.stringify(offer)} and the server chose ${JSON.stringify(chosen)}, though it lists ${JSON.stringify(latest)} as supported: a server that does not speak the requested version should answer with the latest it supports (${chosen} basic/lifecycle)`,
    );
    if (this.defects.length < 100) this.defects.push(d);
    try {
      this.options.onDefect?.({ defect: d });
    } catch {
      // a listener's failure must not disturb the opening
    }
  }

  private learnServer(result: JsonObject): void {
    const meta = isObject(result._meta) ? result._meta : undefined;
    const info = result.serverInfo ?? meta?.[META_SERVER_INFO];
    if (isObject(info) && typeof info.name === "string") this.serverInfo = info as Implementation;
    if (isObject(result.capabilities)) this.capabilities = result.capabilities;
    if (typeof result.instructions === "string") this.instructions = result.instructions;
  }

  /** The modern request `_meta`, built once per revision: it is the same on every request. */
  private readonly metaByRevision = new Map<Revision, JsonObject>();

  private metaOf(revision: Revision): JsonObject {
    let base = this.metaByRevision.get(revision);
    if (!base) {
      base = {
        [META_PROTOCOL_VERSION]: revision,
        [META_CLIENT_CAPABILITIES]: this.modernCapabilities,
        [META_CLIENT_INFO]: this.clientInfo,
      };
      this.metaByRevision.set(revision, base);
    }
    return base;
  }

  private withMeta(revision: Revision, params: JsonObject): JsonObject {
    const base = this.metaOf(revision);
    const meta = isObject(params._meta) ? { ...params._meta, ...base } : base;
    // a copy that starts as a spread and then takes `_meta` goes through a slow path in V8 (µs a
    // request); Object.assign is fast, but it would set a prototype from a "__proto__" key
    if (!Object.hasOwn(params, "__proto__")) {
      const out = Object.assign({}, params);
      out._meta = meta;
      return out;
    }
    return { ...params, _meta: meta };
  }

  /**
   * Sends any request in the connection's era. A modern request gets its `_meta`, and while the
   * answer is `input_required` the `inputHandlers` answer it and it is sent again: what resolves
   * is the complete result.
   */
  request<T extends JsonObject = JsonObject>(
    method: string,
    params: JsonObject = {},
    options?: RequestOptions,
  ): Promise<T> {
    if (this.era !== "modern") return this.sendLegacy<T>(method, params, options);
    return this.sendModern<T>(method, this.withMeta(this.revision, params), params, options);
  }

  /**
   * A legacy request. Over Streamable HTTP a 404 to a request in a session means the session is
   * gone: the client "MUST start a new session by sending a new InitializeRequest without a
   * session ID attached" (2025-03-26 … 2025-11-25 transports), and then sends the request again,
   * once (the 404 says the server never took it).
   */
  private sendLegacy<T extends JsonObject>(method: string, params: JsonObject, options?: RequestOptions): Promise<T> {
    const answer = this.peer.request<T>(method, params, options);
    const http = this.http;
    if (!(http instanceof StreamableHttpTransport) || http.sessionId === undefined) return answer;
    const session = http.sessionId;
    return answer.catch(async (e: unknown) => {
      if (!(e instanceof HttpError) || e.status !== 404) throw e;
      await this.renewSession(http, session);
      return this.peer.request<T>(method, params, options);
    });
  }

  /** A new session in place of `expired`, once however many requests found it gone. */
  private renewSession(http: StreamableHttpTransport, expired: string): Promise<void> {
    if (http.sessionId !== expired) return this.renewing ?? Promise.resolve();
    http.sessionId = undefined;
    const t0 = Date.now();
    this.renewing = this.initialize(this.revision).then(() =>
      this.record({
        step: "reconnect",
        outcome: "ok",
        detail: "the session expired (HTTP 404): a new one opened with initialize",
        ms: Date.now() - t0,
      }),
    );
    return this.renewing;
  }

  private renewing: Promise<void> | undefined;

  /**
   * A modern request already carrying its `_meta` (`sent`); `params` is what the caller asked
   * for, which an `input_required` answer's retries start from.
   */
  private sendModern<T extends JsonObject>(
    method: string,
    sent: JsonObject,
    params: JsonObject,
    options: RequestOptions | undefined,
  ): Promise<T> {
    // nearly every answer is complete: the rounds' and the tasks' machinery is made only for one that is not
    return this.peer
      .request(method, sent, options)
      .then((result) =>
        result.resultType === "input_required"
          ? this.inputRounds(method, params, result, options).then((last) => this.taskOrResult(method, last, options))
          : result.resultType === "task"
            ? this.taskOrResult(method, result, options)
            : result,
      ) as Promise<T>;
  }

  /**
   * A 2026-07-28 call the server made a task is followed to its result, where tasks were
   * negotiated (the peer reports a task answer anywhere else, and it is given as it came).
   */
  private taskOrResult(
    method: string,
    result: JsonObject,
    options: CallToolOptions | undefined,
  ): Promise<JsonObject> | JsonObject {
    if (result.resultType !== "task" || method !== "tools/call" || typeof result.taskId !== "string") return result;
    if (!tasksNegotiated(this.terms())) return result;
    return this.followTask(result as unknown as AnyTask, options ?? {});
  }

  /** Follows `first` to its end with the wait options a call carries. */
  private followTask(first: AnyTask, options: CallToolOptions & TaskWaitOptions): Promise<CallToolResult> {
    const wait: TaskWaitOptions = {};
    if (options.signal) wait.signal = options.signal;
    if (options.taskTimeout !== undefined) wait.taskTimeout = options.taskTimeout;
    if (options.pollInterval !== undefined) wait.pollInterval = options.pollInterval;
    const onStatus = options.onStatus ?? options.onTaskStatus;
    if (onStatus) wait.onStatus = onStatus;
    if (options.timeout !== undefined) wait.timeout = options.timeout;
    return new TaskWait(
      {
        era: this.era,
        request: (method, params, requestOptions) => this.taskCall(method as TaskMethod, params, requestOptions),
        onStatus: (listener) => this.onTaskStatus(listener as (task: AnyTask) => void),
        handlers: this.options.inputHandlers,
        timeout: this.options.timeout ?? DEFAULT_REQUEST_TIMEOUT,
      },
      first.taskId,
      wait,
    ).run(first);
  }

  /** What each side declared, which decides which task methods may be sent. */
  private terms(): TaskTerms {
    return {
      revision: this.revision,
      client: this.era === "modern" ? this.modernCapabilities : this.legacyCapabilities(this.revision),
      server: this.capabilities,
    };
  }

  /** Whether both sides declared tasks: the extension on 2026-07-28, the capability on 2025-11-25. */
  get tasksNegotiated(): boolean {
    return tasksNegotiated(this.terms());
  }

  /** Sends a task method if the revision has it and tasks are negotiated; refuses before sending otherwise. */
  private taskCall<T extends JsonObject>(method: TaskMethod, params: JsonObject, options?: RequestOptions): Promise<T> {
    if (method !== "tools/call" && !revisionHas(this.revision, method))
      return Promise.reject(new MethodNotInRevisionError(method, this.revision));
    const refused = taskRefusal(method, this.terms());
    if (refused) return Promise.reject(refused);
    return this.request<T>(method, params, options);
  }

  private inputRounds(
    method: string,
    params: JsonObject,
    first: JsonObject,
    options: RequestOptions | undefined,
  ): Promise<JsonObject> {
    return inputRounds(
      method,
      params,
      first,
      (p) => this.peer.request(method, this.withMeta(this.revision, p), options),
      {
        handlers: this.options.inputHandlers,
        maxRounds: this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
        ...(options?.signal ? { signal: options.signal } : {}),
      },
    );
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.peer.notify(method, params);
  }

  /**
   * Sends `method` if the negotiated revision has it; rejects with a `MethodNotInRevisionError`
   * without sending anything otherwise.
   */
  private call<T extends JsonObject>(method: string, params: JsonObject, options?: RequestOptions): Promise<T> {
    if (!revisionHas(this.revision, method)) return Promise.reject(new MethodNotInRevisionError(method, this.revision));
    return this.request<T>(method, params, options);
  }

  /** One page of `method`'s list, from `cursor` (the first page without one). */
  private async page<M extends ListMethod>(
    method: M,
    cursor: string | undefined,
    options: RequestOptions | undefined,
  ): Promise<ListResults[M]> {
    const params = cursor === undefined ? {} : { cursor };
    const result =
      method === "tasks/list"
        ? await this.taskCall<ListResults[M]>(method, params, options)
        : await this.call<ListResults[M]>(method, params, options);
    if (method === "tools/list" && Array.isArray(result.tools)) {
      if (this.revision === "2025-11-25") this.learnTaskSupport(result.tools as Tool[]);
      const tools = (result.tools as Tool[]).filter((tool) => this.acceptTool(tool));
      if (tools.length !== result.tools.length) return { ...result, tools };
    }
    return result;
  }

  /**
   * The pages of a list, each fetched when the loop asks for the next: memory holds one page,
   * however long the list. Follows `nextCursor` until there is none, and fails with a
   * `PaginationError` on a cursor the server gave before or past `maxPages` (default 1000).
   */
  pages<M extends ListMethod>(method: M, options: ListOptions = {}): AsyncGenerator<ListResults[M], void, undefined> {
    return walkPages(
      method,
      LIST_KEYS[method],
      (cursor) => this.page(method, cursor, options),
      this.era === "modern",
      options,
    );
  }

  private async listAll<M extends ListMethod>(method: M, options: ListOptions): Promise<ListItems[M][]> {
    const items: ListItems[M][] = [];
    for await (const page of this.pages(method, options))
      for (const item of page[LIST_KEYS[method]] as ListItems[M][]) items.push(item);
    return items;
  }

  /** Every tool, all pages (see `pages`). Over HTTP on 2026-07-28, tools whose `x-mcp-header` annotations break the rules are left out (`rejectedTools`). */
  listTools(options: ListOptions = {}): Promise<Tool[]> {
    return this.listAll("tools/list", options);
  }

  /** One page of tools: the first, or the one `cursor` names. */
  listToolsPage(params: { cursor?: string } = {}, options?: RequestOptions): Promise<ListToolsResult> {
    return this.page("tools/list", params.cursor, options);
  }

  /** Every resource, all pages (see `pages`). */
  listResources(options: ListOptions = {}): Promise<Resource[]> {
    return this.listAll("resources/list", options);
  }

  listResourcesPage(params: { cursor?: string } = {}, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.page("resources/list", params.cursor, options);
  }

  /** Every resource template, all pages (see `pages`). */
  listResourceTemplates(options: ListOptions = {}): Promise<ResourceTemplate[]> {
    return this.listAll("resources/templates/list", options);
  }

  listResourceTemplatesPage(
    params: { cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.page("resources/templates/list", params.cursor, options);
  }

  /** Every prompt, all pages (see `pages`). */
  listPrompts(options: ListOptions = {}): Promise<Prompt[]> {
    return this.listAll("prompts/list", options);
  }

  listPromptsPage(params: { cursor?: string } = {}, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.page("prompts/list", params.cursor, options);
  }

  readResource(params: { uri: string } & JsonObject, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.call("resources/read", params, options);
  }

  getPrompt(
    params: { name: string; arguments?: Record<string, string> } & JsonObject,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return this.call("prompts/get", params, options);
  }

  /** `completion/complete`: values for one argument of a prompt or resource template. */
  complete(
    params: { ref: CompleteRef; argument: { name: string; value: string } } & JsonObject,
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    return this.call("completion/complete", params, options);
  }

  /** Asks for `notifications/resources/updated` on `uri` (before 2026-07-28; then, `listen`). */
  async subscribeResource(
    this: IfLegacy<R, McpClient<R>>,
    params: { uri: string } & JsonObject,
    options?: RequestOptions,
  ): Promise<void> {
    await (this as McpClient).call("resources/subscribe", params, options);
  }

  async unsubscribeResource(
    this: IfLegacy<R, McpClient<R>>,
    params: { uri: string } & JsonObject,
    options?: RequestOptions,
  ): Promise<void> {
    await (this as McpClient).call("resources/unsubscribe", params, options);
  }

  /** `logging/setLevel` (before 2026-07-28, where each request asks for its own log level). */
  async setLoggingLevel(this: IfLegacy<R, McpClient<R>>, level: LogLevel, options?: RequestOptions): Promise<void> {
    await (this as McpClient).call("logging/setLevel", { level }, options);
  }

  /** `ping` (before 2026-07-28, which has none). */
  async ping(this: IfLegacy<R, McpClient<R>>, options?: RequestOptions): Promise<void> {
    await (this as McpClient).call("ping", {}, options);
  }

  /**
   * Listens for what the server sends unasked: list changes, resource updates. Resolves once
   * the server will send them, with what it agreed to (a part of `filter`); the notifications
   * arrive through `on`, and `close()` ends it. On 2026-07-28 a `subscriptions/listen` stream,
   * acknowledged by the server (`options.timeout` bounds the wait for that). Before, nothing is
   * sent for list changes (the server's `listChanged` capabilities say which come),
   * `resources/subscribe` asks for each of `resourceSubscriptions`, and over Streamable HTTP the
   * session's GET stream is opened first, the one channel a server has for what is tied to no
   * request (it stays open until the client closes, and a new session after a 404 gets a new one).
   */
  listen(filter: ListenFilter, options: RequestOptions = {}): Promise<Subscription<R>> {
    if (this.era === "modern") {
      // task status notifications are the tasks extension's: asked for only where it is negotiated
      const refused = filter.taskIds?.length ? taskRefusal("notifications/tasks", this.terms()) : undefined;
      if (refused) return Promise.reject(refused);
      return this.subscriptions.open(filter, options) as Promise<Subscription> as Promise<Subscription<R>>;
    }
    return listenLegacy(filter, {
      capabilities: this.capabilities,
      subscribe: (method, uri) => this.request(method, { uri }, options),
      openServerStream: this.http?.openServerStream?.bind(this.http),
      closed: this.peer.ended,
    }) as Promise<Subscription> as Promise<Subscription<R>>;
  }

  /** Whether the connection speaks 2026-07-28 (narrows the client's type to it). */
  isModern(): this is McpClient<ModernRevision> {
    return this.era === "modern";
  }

  /** Whether the connection speaks a revision before 2026-07-28 (narrows the client's type to them). */
  isLegacy(): this is McpClient<LegacyRevision> {
    return this.era === "legacy";
  }

  /**
   * Listens for a notification from the server (`notifications/tools/list_changed`,
   * `notifications/resources/updated`, `notifications/message`, …). Returns the way to stop.
   */
  on(method: string, listener: NotificationListener): () => void {
    return this.events.on(method, listener);
  }

  /**
   * Listens for the status notifications of tasks (2025-11-25 `notifications/tasks/status`,
   * 2026-07-28 `notifications/tasks`, which a `listen({ taskIds })` stream carries): each gives
   * the whole task as it stands. Returns the way to stop.
   */
  onTaskStatus(listener: (task: AnyTask) => void): () => void {
    const deliver = (params: JsonObject) => {
      if (typeof params.taskId === "string" && typeof params.status === "string") listener(params as AnyTask);
    };
    const stops = [
      this.events.on("notifications/tasks/status", deliver),
      this.events.on("notifications/tasks", deliver),
    ];
    return () => stops.forEach((stop) => stop());
  }

  /** `tasks/get`: a task as it stands (on 2026-07-28 with its result, error or input requests inlined). */
  getTask(this: IfAnyTasks<R, McpClient<R>>, taskId: string, options?: RequestOptions): Promise<TaskOf<R>> {
    return (this as McpClient).taskCall("tasks/get", { taskId }, options) as Promise<TaskOf<R>>;
  }

  /** `tasks/result` (2025-11-25): waits for the task's end, then answers as the call would have. */
  getTaskResult(this: IfTasks<R, McpClient<R>>, taskId: string, options?: RequestOptions): Promise<CallToolResult> {
    return (this as McpClient).taskCall("tasks/result", { taskId }, options);
  }

  /** Every task the server holds for this client (2025-11-25 `tasks/list`), all pages (see `pages`). */
  listTasks(this: IfTasks<R, McpClient<R>>, options: ListOptions = {}): Promise<LegacyTask[]> {
    return (this as McpClient).listAll("tasks/list", options);
  }

  /** One page of `tasks/list` (2025-11-25). */
  listTasksPage(
    this: IfTasks<R, McpClient<R>>,
    params: { cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<ListTasksResult> {
    return (this as McpClient).page("tasks/list", params.cursor, options);
  }

  /** `tasks/cancel`: 2025-11-25 answers with the cancelled task, 2026-07-28 acknowledges (cancelling is cooperative there). */
  cancelTask(
    this: IfAnyTasks<R, McpClient<R>>,
    taskId: string,
    options?: RequestOptions,
  ): Promise<CancelTaskResultOf<R>> {
    return (this as McpClient).taskCall("tasks/cancel", { taskId }, options) as Promise<CancelTaskResultOf<R>>;
  }

  /** `tasks/update` (2026-07-28): answers a task's input requests, keyed as they were asked. */
  async updateTask(
    this: IfModern<R, McpClient<R>>,
    taskId: string,
    inputResponses: JsonObject,
    options?: RequestOptions,
  ): Promise<void> {
    await (this as McpClient).taskCall("tasks/update", { taskId, inputResponses }, options);
  }

  /**
   * Starts `tools/call` as a task and gives the server's first answer without waiting: the task
   * (`{ task }` on 2025-11-25, the task with `resultType: "task"` on 2026-07-28), or the tool's
   * result when the server answered at once instead (on 2026-07-28 the server decides). Refused
   * before anything is sent where tasks are not negotiated, or the tool's listing forbids it.
   */
  callToolTask(
    this: IfAnyTasks<R, McpClient<R>>,
    params: { name: string; arguments?: JsonObject },
    options: CallToolTaskOptions = {},
  ): Promise<CreateTaskResultOf<R> | CallToolResult> {
    return (this as McpClient).startTask(params.name, params.arguments ?? {}, options) as Promise<
      CreateTaskResultOf<R> | CallToolResult
    >;
  }

  /**
   * Follows a task to its end and gives what the call would have answered: polls `tasks/get` at
   * the interval the server suggests (sooner when a status notification for it comes), answers a
   * 2026-07-28 task's input requests through `inputHandlers` and `tasks/update`, and on
   * 2025-11-25 takes the result from `tasks/result`. A `failed` task rejects with the call's
   * `ResponseError`, a `cancelled` one with a `TaskCancelledError`; the `signal` or `taskTimeout`
   * sends `tasks/cancel` and rejects with an `AbortedError` or `TimeoutError`.
   */
  async awaitTask(
    this: IfAnyTasks<R, McpClient<R>>,
    task: string | AnyTask | CreateTaskResultOf<R>,
    options: TaskWaitOptions = {},
  ): Promise<CallToolResult> {
    const self = this as McpClient;
    let first: AnyTask;
    if (typeof task === "string") first = await self.taskCall<AnyTask>("tasks/get", { taskId: task }, options);
    else if (isObject((task as { task?: unknown }).task)) first = (task as { task: AnyTask }).task;
    else first = task as AnyTask;
    const refused = taskRefusal("tasks/get", self.terms());
    if (refused) throw refused;
    return self.followTask(first, options);
  }

  /** Sends `tools/call` as a task, once what is negotiated allows it. */
  private startTask(name: string, args: JsonObject, options: CallToolTaskOptions): Promise<JsonObject> {
    const refused = taskRefusal("tools/call", this.terms()) ?? toolRefusal(name, this.toolTasks.get(name));
    if (refused) return Promise.reject(refused);
    const { ttl, ...requestOptions } = options;
    if (this.era === "modern") {
      if (ttl !== undefined)
        return Promise.reject(
          new TasksNotNegotiatedError(
            "tools/call",
            "revision",
            "2026-07-28 has no ttl a client may ask for: the server decides whether a call becomes a task, and for how long",
          ),
        );
      // the first answer as it came, once any input it asks for is given: a task, or the tool's result
      const params = { name, arguments: args };
      return this.peer
        .request("tools/call", this.withMeta(this.revision, params), requestOptions)
        .then((first) =>
          first.resultType === "input_required" ? this.inputRounds("tools/call", params, first, requestOptions) : first,
        );
    }
    const task: JsonObject = ttl === undefined ? {} : { ttl };
    return this.sendLegacy("tools/call", { name, arguments: args, task }, requestOptions);
  }

  /** A call as a task, followed to its end. */
  private async callAsTask(name: string, args: JsonObject, options: CallToolOptions): Promise<CallToolResult> {
    const { task, taskTimeout: _t, pollInterval: _p, onTaskStatus: _s, progress: _g, ...requestOptions } = options;
    const ttl = typeof task === "object" ? task.ttl : undefined;
    const first = await this.startTask(name, args, ttl === undefined ? requestOptions : { ...requestOptions, ttl });
    if (this.era === "modern") return this.taskOrResult("tools/call", first, options) as Promise<CallToolResult>;
    return isObject(first.task) && typeof first.task.taskId === "string"
      ? this.followTask(first.task as unknown as AnyTask, options)
      : (first as CallToolResult);
  }

  /** Remembers how each tool listed by a 2025-11-25 server may run as a task. */
  private learnTaskSupport(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (typeof tool?.name !== "string") continue;
      const execution = (tool as { execution?: unknown }).execution;
      const support = isObject(execution) ? execution.taskSupport : undefined;
      this.toolTasks.set(tool.name, typeof support === "string" ? support : null);
    }
  }

  /**
   * Over HTTP a tool's `x-mcp-header` parameters are mirrored into headers; a tool whose
   * annotations break the rules is left out, as the 2026-07-28 transport page requires.
   */
  private acceptTool(tool: Tool): boolean {
    const http = this.http;
    if (http === undefined || this.era !== "modern") return true;
    const found = headerParams(tool);
    if ("error" in found) {
      this.rejectedTools.push(found.error);
      return false;
    }
    if (found.params.length > 0) {
      this.toolHeaders.set(tool.name, found.params);
      http.paramHeaders ??= (m) => {
        const p = (m as { method?: string; params?: JsonObject }).params;
        const params =
          (m as { method?: string }).method === "tools/call" && typeof p?.name === "string"
            ? this.toolHeaders.get(p.name)
            : undefined;
        return params ? paramHeaders(p!.arguments, params) : undefined;
      };
    }
    return true;
  }

  /**
   * `tools/call`, as `callTool(name, args, options)` or, as the official SDK writes it,
   * `callTool({ name, arguments }, options)`. It asks for progress unless `progress: false`, so
   * that a long call that reports progress is not cut off: each notification restarts the
   * deadline, up to `maxTotalTimeout`.
   */
  callTool(name: string, args?: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;
  callTool(params: { name: string; arguments?: JsonObject }, options?: CallToolOptions): Promise<CallToolResult>;
  callTool(
    nameOrParams: string | { name: string; arguments?: JsonObject },
    argsOrOptions?: JsonObject | CallToolOptions,
    maybeOptions?: CallToolOptions,
  ): Promise<CallToolResult> {
    let name: string;
    let args: JsonObject;
    let given: CallToolOptions | undefined;
    if (typeof nameOrParams === "string") {
      name = nameOrParams;
      args = (argsOrOptions as JsonObject | undefined) ?? {};
      given = maybeOptions;
    } else {
      name = nameOrParams.name;
      args = nameOrParams.arguments ?? {};
      given = argsOrOptions as CallToolOptions | undefined;
    }
    if (given?.task || (this.toolTasks.size > 0 && this.toolTasks.get(name) === "required" && this.tasksNegotiated))
      return this.callAsTask(name, args, given ?? {});
    const options = this.withProgress(given);
    if (this.era !== "modern") return this.sendLegacy<CallToolResult>("tools/call", { name, arguments: args }, options);
    // the params and their `_meta` in one literal: no copy made to add it
    return this.sendModern<CallToolResult>(
      "tools/call",
      { name, arguments: args, _meta: this.metaOf(this.revision) },
      { name, arguments: args },
      options,
    );
  }

  /** The options of a request that asks for progress and lets it restart the deadline. */
  private withProgress(options: CallToolOptions | undefined): RequestOptions | undefined {
    if (options === undefined) return PROGRESS_DEFAULTS;
    if (options.progress === false) return options;
    if (options?.onProgress !== undefined && options.resetTimeoutOnProgress !== undefined) return options;
    return {
      ...options,
      onProgress: options?.onProgress ?? ignoreProgress,
      resetTimeoutOnProgress: options?.resetTimeoutOnProgress ?? true,
    };
  }

  get closed(): boolean {
    return this.peer.closed;
  }

  /**
   * Ends the connection. Over stdio the server's process goes as every revision says: its input
   * closed, then SIGTERM, then SIGKILL, each after a grace; this resolves once it is gone.
   */
  async close(): Promise<void> {
    await this.peer.close();
    await this.transport?.shutdown?.();
  }
}

/**
 * Over HTTP only a 4xx without a modern error body says "legacy" (2026-07-28 Streamable HTTP,
 * backward compatibility): silence is an outage, 401/403 and 5xx are failures, a web page is
 * not MCP at all.
 */
function isHttpLegacyEvidence(e: unknown): boolean {
  if (e instanceof ResponseError) return true;
  if (!(e instanceof HttpError)) return false;
  const s = e.status;
  if (s === undefined || s === 401 || s === 403 || s >= 500) return false;
  if (e.failure === "status") return s >= 400;
  return e.failure === "no_response";
}

function answerPing(): JsonObject {
  return {};
}

/** Capabilities that let a server send requests of its own to the client. */
const SERVER_REQUEST_CAPABILITIES = ["roots", "sampling", "elicitation"] as const;

/** The text of a result to `initialize` (judged by the rules of the era it was sent in, not those that won). */
function isInitializeAnswer(excerpt: string | undefined): boolean {
  if (!excerpt || !excerpt.includes('"protocolVersion"')) return false;
  try {
    const m = JSON.parse(excerpt) as { result?: { protocolVersion?: unknown; serverInfo?: unknown } };
    return typeof m.result?.protocolVersion === "string" && m.result.serverInfo !== undefined;
  } catch {
    // an excerpt is cut at 1 KiB: an answer that long still names its version near the start
    return /^\s*\{\s*"(jsonrpc|id|result)"[^]*"result"\s*:\s*\{\s*"protocolVersion"/.test(excerpt);
  }
}

/** The text of an error answer whose code is one of the modern revision's own. */
function isModernErrorAnswer(excerpt: string | undefined): boolean {
  if (!excerpt) return false;
  try {
    const m = JSON.parse(excerpt) as { error?: { code?: unknown } };
    return typeof m.error?.code === "number" && MODERN_ERROR_CODES.has(m.error.code);
  } catch {
    return false;
  }
}

function codeOutcome(e: unknown): ConnectStep["outcome"] {
  if (e instanceof HttpError)
    return e.failure === "timeout"
      ? "timeout"
      : e.failure === "not_jsonrpc" || e.failure === "no_response"
        ? "invalid"
        : "error";
  const code = (e as ClosedError | undefined)?.code;
  if (code === ConnectionErrorCode.Timeout) return "timeout";
  if (code === ConnectionErrorCode.Closed || code === ConnectionErrorCode.ServerExited) return "closed";
  if (code === ConnectionErrorCode.InvalidResponse) return "invalid";
  return "error";
}
