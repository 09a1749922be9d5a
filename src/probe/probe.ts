/**
 * `probe`: opens a server the way a dual-era client does, lists its tools, and says in one
 * verdict what it speaks or exactly why it fails, with the evidence. Never throws, never waits
 * past its one overall deadline, never reads past its byte cap.
 */
import type { LookupFunction } from "node:net";
import { defect, type Defect } from "../codec/defects.js";
import type { JsonObject } from "../codec/message.js";
import { McpClient, RevisionNotSpokenError, type ClientOptions, type ConnectStep } from "../mcp/client.js";
import { connectHttp, type HttpConnectOptions } from "../mcp/connect-http.js";
import { ClosedError, ResponseError, SpawnError, TimeoutError } from "../peer/errors.js";
import { LATEST_LEGACY_REVISION, LATEST_REVISION, LEGACY_REVISIONS, type Revision } from "../rules/revisions.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import { ChildServer, type SpawnOptions } from "../transport/child.js";
import { isHttpTransport, type HttpTransport, type Transport } from "../peer/transport.js";
import type { ExchangeRecord } from "../transport/http/client.js";
import { HttpError } from "../transport/http/error.js";
import { Abort } from "../transport/http/fetch.js";
import type { HostSlot } from "../auth/fetcher.js";
import { walkAuth } from "../auth/walk.js";
import { adviceFor } from "./advice.js";
import { classifyDefects, classifyFailure, type Classified } from "./classify.js";
import { redactFresh } from "../secrets/redact.js";
import { curlRepro, stdioRepro, type ReplayStep, type StdioReplay } from "./repro.js";
import { listSurface, type Surface } from "./surface.js";
import type { ProbeResult, ProbeTransport, TraceStep } from "./verdict.js";
import { VERSION } from "../version.js";
import { settlesWithin } from "../peer/within.js";

export interface ProbeOptions {
  /** Sent with every HTTP request (credentials): never printed, stored or put in a repro line. */
  headers?: Record<string, string>;
  /** One overall deadline, in milliseconds. Default 10,000. */
  timeout?: number;
  /** Speak exactly this revision. */
  revision?: Revision;
  /** Largest body read. Default 4 MiB. */
  maxBytes?: number;
  /** HTTP only: the transport to use, when known (a registry says `sse`). */
  transport?: "streamable-http" | "http+sse";
  /** stdio only: the child's environment. */
  env?: NodeJS.ProcessEnv;
  /** stdio only: the child's working directory. */
  cwd?: string;
  /**
   * Resolves to why a URL the sign-in walk comes across must not be called (a census of
   * untrusted targets refuses private addresses), or undefined to call it.
   */
  urlGuard?: (url: string) => Promise<string | undefined>;
  /** HTTP only: waits for the right to send each request of the sign-in walk to its host (a census's per-host limit). */
  hostSlot?: HostSlot;
  /** HTTP only: resolves host names instead of the system resolver (tests map many names to 127.0.0.1). */
  lookup?: LookupFunction;
  /**
   * HTTP only: false leaves the trace out of the verdict (a census stores none), so the request
   * bodies of every exchange are not parsed back and copied for nothing. Default true.
   */
  trace?: boolean;
  /**
   * Told each time an answer comes (over stdio, each time an opening step ends): a census tells
   * by it a server that went silent from a process of its own that fell behind.
   */
  onProgress?: () => void;
  /**
   * After the tools, also list the resources, resource templates and prompts the server declares,
   * and keep the whole surface in the verdict (`surface`): a census stores it to tell what changed.
   */
  surface?: boolean;
}

const DEFAULT_TIMEOUT = 10_000;
const CLIENT_INFO = { name: "mcp-wire-probe", version: VERSION };

/** What a probe learned while it ran, whatever the outcome. */
class Evidence {
  readonly started = Date.now();
  constructor(private readonly progress: (() => void) | undefined) {}
  readonly defects: Defect[] = [];
  /** For each defect, how many exchanges had completed when it came: which exchange it belongs to. */
  private readonly defectAt: number[] = [];
  readonly exchanges: ExchangeRecord[] = [];
  readonly steps: ConnectStep[] = [];
  client: McpClient | undefined;
  tools: number | null = null;
  /** The listed surface, when asked for (ProbeOptions.surface) and the tools were listed. */
  surface: Surface | undefined;
  /** What ended the opening, when it failed. */
  failure: unknown;

  elapsed(): number {
    return Date.now() - this.started;
  }

  private readonly waiters: { method: string; resolve: () => void }[] = [];

  exchange(x: ExchangeRecord): void {
    this.exchanges.push(x);
    // an answer came (an exchange cut off by the deadline ends too, having heard nothing)
    if (x.status !== undefined) this.progress?.();
    for (const w of this.waiters.filter((w) => w.method === x.method)) w.resolve();
  }

  hasRecorded(method: string): boolean {
    return this.exchanges.some((x) => x.method === method);
  }

  /** Resolves once an exchange of `method` has been recorded. */
  recorded(method: string): Promise<void> {
    if (this.hasRecorded(method)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  step(s: ConnectStep): void {
    this.steps.push(s);
    this.progress?.();
  }

  defect(d: Defect): void {
    this.defects.push(d);
    this.defectAt.push(this.exchanges.length);
    this.defectStep.push(this.steps.length);
  }

  /** For each defect, how many opening steps had been recorded when it came (stdio's exchanges). */
  private readonly defectStep: number[] = [];

  /**
   * The defects worth reporting: all but the warnings on a refusal of `server/discover` that the
   * opening then fell back from. A legacy server answers an unknown request before initialize
   * however it likes (the official SDK's `400 {"id":null}` with -32000, say): that refusal is the
   * expected signal of the fallback, not a flaw of the server.
   */
  reportable(): Defect[] {
    const fellBack = (later: readonly { step?: string; method?: string }[], from: number) =>
      later.slice(from + 1).some((x) => (x.step ?? x.method) === "initialize");
    const refusedExchanges = new Set<number>();
    this.exchanges.forEach((x, i) => {
      if (
        x.method === "server/discover" &&
        x.httpMethod === "POST" &&
        (x.error !== undefined || (x.status ?? 0) >= 400) &&
        fellBack(this.exchanges, i)
      )
        refusedExchanges.add(i);
    });
    const refusedSteps = new Set<number>();
    if (this.exchanges.length === 0) {
      this.steps.forEach((step, i) => {
        if (step.step === "server/discover" && step.outcome === "error" && fellBack(this.steps, i)) refusedSteps.add(i);
      });
    }
    return this.defects.filter(
      (d, i) =>
        d.severity === "error" || !(refusedExchanges.has(this.defectAt[i]!) || refusedSteps.has(this.defectStep[i]!)),
    );
  }

  /**
   * The defects of the exchange that failed with `e`: over HTTP each answer is judged on its own,
   * so the -32000 a legacy server rightly sends to `server/discover` does not condemn the
   * `tools/list` that later stalls. Exchanges are recorded as they complete, so a defect belongs
   * to the exchange recorded next; one still under way has none recorded yet.
   */
  defectsOf(e: unknown): Defect[] {
    let index = this.exchanges.length;
    if (e instanceof HttpError) {
      const i = this.exchanges.findLastIndex((x) => x.error === e.message);
      index = i === -1 ? this.exchanges.length - 1 : i;
    }
    return this.defects.filter((_, i) => this.defectAt[i] === index);
  }

  /** Some sound JSON-RPC answer came back (a result, or an error the server meant to send). */
  get sawValidMessage(): boolean {
    // a reconnect is the client's own step: it says nothing about what the server sent
    return (
      this.steps.some((s) => s.step !== "reconnect" && (s.outcome === "ok" || s.outcome === "error")) ||
      this.exchanges.some((x) => x.status !== undefined && x.status < 300 && !x.error)
    );
  }
}

/** How long a probe waits, once its deadline has passed, for the aborted work to say where it stood. */
const SETTLE_MS = 200;
/** How much of a stdio probe's deadline is kept for ending the server process (at most). */
const STDIO_CLEANUP_MS = 300;
/** How long a failing stdio probe waits for the exit status of a process whose output ended. */
const EXIT_STATUS_MS = 50;
/** How long a legacy session may take to end politely (DELETE) before the probe returns anyway. */
const CLOSE_MS = 200;
/** Ends what a finished probe left under way; one reason for all, as nothing reads its stack. */
const PROBE_OVER = new Error("the probe is over");

export async function probeHttp(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  return new HttpProbe(url, options).run();
}

export async function probeStdio(
  command: string,
  args: readonly string[],
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  return new StdioProbe(command, args, options).run();
}

/**
 * One probe over named steps: open the server and list what it offers; when that fails, what may
 * still open it, else why it failed; then the verdict. How each step goes over its channel (and
 * what a channel adds: the sign-in walk, the server's process) is the subclass's.
 */
abstract class Probe {
  protected readonly timeout: number;
  protected readonly ev: Evidence;

  constructor(protected readonly options: ProbeOptions) {
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.ev = new Evidence(options.onProgress);
  }

  /** Opens the server speaking what was asked, and lists what it offers. */
  protected abstract openAndList(): Promise<void>;

  /** Why the opening failed with `e`, when nothing could still open the server; undefined when something did. */
  protected abstract recover(e: unknown): Promise<Classified | undefined>;

  /** A fresh client speaking exactly `revision` (without one, whatever the server speaks), what it says kept as evidence. */
  protected abstract open(revision: Revision | undefined, more?: Partial<ClientOptions>): Promise<McpClient>;

  /** The same, with nothing it says kept: only to learn what the server speaks. */
  protected abstract openUnrecorded(): Promise<McpClient>;

  /** Resolves with why the probe failed, or undefined when the server opened and listed its tools. */
  protected async attempt(): Promise<Classified | undefined> {
    try {
      await this.openAndList();
      return undefined;
    } catch (e) {
      return this.recover(e);
    }
  }

  /**
   * After a failed opening, what may still open the server (true when one did); else, when the
   * revision asked for is not spoken at all, what the server does speak, noted in `outcome`.
   */
  protected async fallBack(e: unknown, outcome: Classified, initializeRefused: boolean): Promise<boolean> {
    const open = (revision: Revision, more?: Partial<ClientOptions>) => this.open(revision, more);
    if (await reopened(this.ev, e, outcome, this.options, initializeRefused, open)) return true;
    if (e instanceof RevisionNotSpokenError && e.serverSpeaks.length === 0)
      await learnSpoken(outcome, e.requested, () => this.openUnrecorded());
    return false;
  }

  /** What the verdict says failed: nothing once the tools were listed, whatever the way there met. */
  protected failedWith(outcome: Classified | undefined, echoed: boolean): Classified | undefined {
    if (this.ev.tools !== null) return undefined;
    return echoed ? ECHO : (outcome ?? { class: "protocol_violation", detail: "other" });
  }
}

/** A probe over HTTP: one deadline ends every exchange, and a refusal to sign in is followed by the sign-in walk. */
class HttpProbe extends Probe {
  // an AbortController (an EventTarget) cost several microseconds a probe
  private readonly deadline = new Abort();
  private transport: ProbeTransport;

  constructor(
    private readonly url: string,
    options: ProbeOptions,
  ) {
    super(options);
    this.transport = options.transport ?? "streamable-http";
  }

  async run(): Promise<ProbeResult> {
    const bad = badUrl(this.url);
    if (bad) return this.badUrlResult(bad);
    const outcome = await withDeadline(this.attempt(), this.timeout, this.deadline, () => this.late());
    const result = await this.verdict(outcome);
    // a legacy session ends with a DELETE: polite, but not worth outliving the deadline for
    if (this.ev.client) await settlesWithin(this.ev.client.close(), CLOSE_MS);
    this.deadline.abort(PROBE_OVER);
    if (result.class === "auth_required") await this.walkSignIn(result);
    return redactFresh(result, this.options.headers);
  }

  /** Nothing is sent to what is not an http(s) URL. */
  private badUrlResult(why: string): ProbeResult {
    const result = finish(this.url, this.transport, this.ev, { class: "unreachable", detail: "bad_url" });
    result.trace.push({ step: "connect", ms: 0, error: why });
    return redactFresh(result, this.options.headers);
  }

  private late(): Classified {
    return { class: "timeout", detail: stalledStep(this.ev) };
  }

  private connectOptions(revision: Revision | undefined): HttpConnectOptions {
    const { ev, options } = this;
    // a literal, then what is optional: V8 builds an object that starts with a spread and then
    // takes more properties through a slow path
    const o: HttpConnectOptions = {
      fresh: true,
      timeout: Math.max(1, this.timeout - ev.elapsed()),
      signal: this.deadline,
      clientInfo: CLIENT_INFO,
      onExchange: (x: ExchangeRecord) => ev.exchange(x),
      onDefect: (r: { defect: Defect }) => ev.defect(r.defect),
      onStep: (step: ConnectStep) => void ev.steps.push(step),
      schema: true,
      // the sign-in walk reads the metadata itself, under the census's guard
      readSignIn: false,
    };
    if (options.headers) o.headers = options.headers;
    if (revision) o.revision = revision;
    if (options.transport) o.transport = options.transport;
    if (options.maxBytes) o.maxBytes = options.maxBytes;
    if (options.lookup) o.lookup = options.lookup;
    return o;
  }

  protected async openAndList(): Promise<void> {
    const connection = await connectHttp(this.url, this.connectOptions(this.options.revision));
    this.transport = connection.transport;
    this.ev.client = connection.client;
    await listed(this.ev, connection.client, this.timeout, this.options.surface);
  }

  protected async open(revision: Revision | undefined, more: Partial<HttpConnectOptions> = {}): Promise<McpClient> {
    return (await connectHttp(this.url, { ...this.connectOptions(revision), ...more })).client;
  }

  protected async openUnrecorded(): Promise<McpClient> {
    const { onExchange: _x, onDefect: _d, onStep: _s, ...quiet } = this.connectOptions(undefined);
    return (await connectHttp(this.url, quiet)).client;
  }

  protected async recover(caught: unknown): Promise<Classified | undefined> {
    const { ev } = this;
    // a deadline that the HTTP exchange saw run out carries its evidence (step, status)
    const e = caught instanceof TimeoutError && caught.cause instanceof HttpError ? caught.cause : caught;
    ev.failure = e;
    if (e instanceof HttpError && e.step === "GET stream") this.transport = "http+sse";
    const outcome = classifyFailure(e, ev.defectsOf(e), ev.sawValidMessage);
    const initializeRefused =
      e instanceof ResponseError && ev.exchanges[ev.exchanges.length - 1]?.method === "initialize";
    if (await this.fallBack(e, outcome, initializeRefused)) {
      if (ev.client?.era === "modern") this.transport = "streamable-http";
      return undefined;
    }
    // past the deadline, a fallback or a retry cut short by it must not leave an earlier
    // refusal standing in for the silence that ran the clock out
    return this.deadline.aborted && outcome.class !== "timeout" ? this.late() : outcome;
  }

  private async verdict(outcome: Classified | undefined): Promise<ProbeResult> {
    const { ev } = this;
    // an answer on an SSE stream is read before that exchange is over (its stream still has to be
    // let go of): the trace waits a moment for it
    // (nearly always it is in already: then no timer and no race)
    if (ev.tools !== null && !ev.hasRecorded("tools/list")) await settlesWithin(ev.recorded("tools/list"), 100);
    const echo = ev.exchanges.some(
      (x) => x.requestBody !== undefined && x.bodyExcerpt?.trim() === x.requestBody.trim(),
    );
    const failed = this.failedWith(outcome, echo);
    const result = finish(this.url, this.transport, ev, failed, this.options.trace !== false);
    if (failed) {
      const record = failingExchange(ev.exchanges);
      if (record) result.repro = curlRepro(record, this.options.headers);
    }
    return result;
  }

  /** What a client signing in would meet, from the refusal on, within what is left of the deadline. */
  private async walkSignIn(result: ProbeResult): Promise<void> {
    const { ev, options } = this;
    result.auth = await walkAuth({
      ...refusalOf(ev, this.url),
      rules: authRulesRevision(options, ev),
      timeout: this.timeout - ev.elapsed(),
      ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
      ...(options.urlGuard ? { guard: options.urlGuard } : {}),
      ...(options.hostSlot ? { hostSlot: options.hostSlot } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    result.elapsedMs = ev.elapsed();
    result.advice = adviceFor(result.class, result);
  }
}

/** The refusal the sign-in walk starts from: its status, its challenge, its JSON-RPC error. */
function refusalOf(
  ev: Evidence,
  url: string,
): {
  endpoint: string;
  status: number | null;
  wwwAuthenticate: string | null;
  rpcError: { code: number; message: string } | null;
} {
  const e = ev.failure;
  if (e instanceof HttpError) {
    return {
      endpoint: e.url || url,
      status: e.status ?? null,
      wwwAuthenticate: e.wwwAuthenticate ?? null,
      rpcError: e.rpcError ? { code: e.rpcError.code, message: e.rpcError.message } : null,
    };
  }
  const last = [...ev.exchanges].reverse().find((x) => x.status !== undefined);
  const rpc = e instanceof ResponseError ? { code: e.code, message: e.message } : null;
  return { endpoint: last?.url ?? url, status: last?.status ?? null, wwwAuthenticate: null, rpcError: rpc };
}

/**
 * Whose authorization rules judge the sign-in: the revision asked for, else the one the server
 * negotiated, else the newest of the era it showed. A server that refuses the modern request
 * the same way as initialize has shown no era: the newest revision's rules apply.
 */
function authRulesRevision(options: ProbeOptions, ev: Evidence): Revision {
  if (options.revision) return options.revision;
  if (ev.client?.revision) return ev.client.revision;
  const discover = ev.exchanges.find((x) => x.method === "server/discover");
  // refused the same way (a 401, or the same key-refusing JSON-RPC error): no era shown
  const refusal =
    ev.failure instanceof ResponseError
      ? ev.failure.code
      : ev.failure instanceof HttpError
        ? ev.failure.rpcError?.code
        : undefined;
  const refusedDiscover =
    discover?.status === 401 ||
    discover?.status === 403 ||
    (refusal !== undefined && (discover?.bodyExcerpt ?? "").replace(/\s/g, "").includes(`"code":${refusal}`));
  const legacy = ev.exchanges.some((x) => x.method === "initialize") && discover !== undefined && !refusedDiscover;
  return legacy ? LATEST_LEGACY_REVISION : LATEST_REVISION;
}

/** Why `url` cannot be called at all, if it cannot (nothing is sent, nothing resolved). */
function badUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a URL: ${JSON.stringify(url.slice(0, 200))}`;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:"
    ? undefined
    : `only http and https URLs can be probed, not ${parsed.protocol}`;
}

/**
 * A probe over stdio: every process the opening starts is kept, to say how it ended and to end it
 * within the deadline.
 */
class StdioProbe extends Probe {
  private readonly children: ChildServer[] = [];
  private readonly spawnOptions: SpawnOptions;
  /** How much of the deadline is kept for ending the processes. */
  private readonly cleanupMs: number;
  /** Past the deadline the opening may still try to restart the server: it must not. */
  private over = false;
  private spawnError: unknown;
  private echoed = false;

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    options: ProbeOptions,
  ) {
    super(options);
    // the probe's --max-bytes cap holds over stdio as over HTTP, per line (docs/probe.md); a client
    // library may read more
    this.spawnOptions = {
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      maxLineBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      group: true,
    };
    // the deadline covers the cleanup too: the work stops early enough for a server that ignores
    // stdin closing and SIGTERM to be killed before it passes
    this.cleanupMs = Math.min(STDIO_CLEANUP_MS, Math.floor(this.timeout / 10));
  }

  async run(): Promise<ProbeResult> {
    const workMs = Math.max(1, this.timeout - this.cleanupMs - EXIT_STATUS_MS);
    const outcome = await withDeadline(this.attempt(), workMs, undefined, () => stalledStdio(this.ev, this.children));
    this.over = true;
    const result = await this.verdict(outcome);
    // stdin closed, then SIGTERM, then SIGKILL, a third of the cleanup's time apart
    await Promise.all(this.children.map((c) => c.shutdown(Math.max(1, Math.floor(this.cleanupMs / 3)))));
    // a command line may carry a URL with a password, and a server's stderr may echo it
    return redactFresh(result, this.options.headers);
  }

  /** A fresh server process, its output watched for an echo. */
  private spawn(): Transport {
    if (this.over) throw new ClosedError("the probe is over");
    let child: ChildServer;
    try {
      child = new ChildServer(this.command, this.args, this.spawnOptions);
    } catch (e) {
      // spawn throws at once for what it can tell without trying (an empty command, a NUL byte)
      this.spawnError ??= e;
      throw e;
    }
    this.children.push(child);
    return watchEcho(child.transport, () => (this.echoed = true));
  }

  private clientOptions(revision: Revision | undefined): ClientOptions {
    const { ev } = this;
    return {
      clientInfo: CLIENT_INFO,
      timeout: Math.max(1, this.timeout - ev.elapsed()),
      // after this much silence initialize goes beside server/discover; both stay open, so a
      // legacy server that ignores discover opens quickly and a slow modern one is still modern
      probeTimeout: Math.min(1000, Math.floor(this.timeout / 3)),
      ...(revision ? { revision } : {}),
      onDefect: (r: { defect: Defect }) => ev.defect(r.defect),
      onStep: (step: ConnectStep) => ev.step(step),
      schema: true,
    };
  }

  protected async openAndList(): Promise<void> {
    const { ev, options } = this;
    ev.client = await this.open(options.revision);
    await listed(ev, ev.client, this.timeout, options.surface);
    await freshModern(ev, this.timeout, options.surface, (revision) => this.open(revision));
  }

  protected open(revision: Revision | undefined, more: Partial<ClientOptions> = {}): Promise<McpClient> {
    return McpClient.connect(() => this.spawn(), { ...this.clientOptions(revision), ...more });
  }

  protected openUnrecorded(): Promise<McpClient> {
    const { onDefect: _d, onStep: _s, ...quiet } = this.clientOptions(undefined);
    return McpClient.connect(() => this.spawn(), quiet);
  }

  protected async recover(e: unknown): Promise<Classified | undefined> {
    const { ev } = this;
    if (this.spawnError !== undefined)
      return { class: "unreachable", detail: "spawn", note: spawnNote(this.command, this.spawnError) };
    const outcome = classifyStdioFailure(e, ev, this.children);
    const last = ev.steps[ev.steps.length - 1];
    const initializeRefused = e instanceof ResponseError && last?.step === "initialize" && last.outcome === "error";
    return (await this.fallBack(e, outcome, initializeRefused)) ? undefined : outcome;
  }

  private async verdict(outcome: Classified | undefined): Promise<ProbeResult> {
    const { ev, children, spawnError } = this;
    const failed = this.failedWith(outcome, this.echoed);
    // a process whose output just ended is usually a moment from its exit status: wait for it
    // briefly, so the trace says how it ended
    if (failed) await settlesWithin(Promise.all(children.map((c) => c.exited)), EXIT_STATUS_MS);
    const result = finish([this.command, ...this.args].join(" "), "stdio", ev, failed);
    result.trace = stdioTrace(ev.steps, children, ev);
    if (spawnError !== undefined)
      result.trace.push({
        step: "spawn",
        ms: 0,
        error: spawnError instanceof Error ? spawnError.message : String(spawnError),
      });
    if (failed)
      result.repro = stdioRepro(this.command, this.args, {
        ...replayOf(failed, ev, this.options.revision),
        clientInfo: CLIENT_INFO,
      });
    return result;
  }
}

/** The operating system's reason a command could not start, as the sentence that leads the advice. */
function spawnNote(command: string, error: unknown): string {
  return `${new SpawnError(command, error instanceof Error ? error : new Error(String(error))).message}.`;
}

/**
 * The step a failed stdio probe stopped at, to replay: listing the tools of a session that opened,
 * the first request to a server that would not run, the step that stalled, else the last one the
 * opening recorded as failing.
 */
function replayOf(failed: Classified, ev: Evidence, asked: Revision | undefined): StdioReplay {
  if (ev.client) return { step: "tools/list", revision: ev.client.revision };
  // a server that could not start or died at once: its first request shows it
  if (failed.class === "unreachable") return asked ? { revision: asked } : {};
  const replayable = (s: string | undefined): s is ReplayStep =>
    s === "server/discover" || s === "initialize" || s === "tools/list";
  const stalled = failed.class === "timeout" ? failed.detail : undefined;
  const lastFailed = [...ev.steps].reverse().find((s) => s.outcome !== "ok" && s.step !== "reconnect")?.step;
  // a discover left unanswered while initialize was sent beside it: initialize is what failed last
  const step = replayable(stalled)
    ? stalled
    : lastFailed === "notifications/initialized"
      ? "initialize"
      : replayable(lastFailed)
        ? lastFailed
        : undefined;
  // initialize is replayed offering what the probe offered (the revision asked for, or the latest legacy one)
  return { ...(step ? { step } : {}), ...(asked ? { revision: asked } : {}) };
}

function classifyStdioFailure(e: unknown, ev: Evidence, children: ChildServer[]): Classified {
  const first = children[0]?.status;
  if (first?.error)
    return { class: "unreachable", detail: "spawn", note: spawnNote(children[0]!.command, first.error) };
  const last = children[children.length - 1];
  const c = classifyFailure(e, ev.defects, ev.sawValidMessage);
  if (c.class === "unreachable" || (last?.status && c.class === "protocol_violation" && c.detail === "other"))
    return { class: "unreachable", detail: "exited" };
  return c;
}

/**
 * Resolves with `work`, or when the deadline passes first: with what the aborted work says
 * within a short grace (an exchange cut off knows which step it was), else with `late()`.
 * Without an abort controller, `late()` at once.
 */
async function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  abort: { abort(reason: unknown): void } | undefined,
  late: () => T,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<{ late: true }>((resolve) => {
    timer = setTimeout(() => resolve({ late: true }), ms);
  });
  try {
    const first = await Promise.race([work.then((value) => ({ value })), expired]);
    if ("value" in first) return first.value;
    if (!abort) return late();
    abort.abort(new Error(`the probe's ${ms} ms deadline passed`));
    const settled = await Promise.race([
      work.then((value) => ({ value })),
      new Promise<{ late: true }>((resolve) => (timer = setTimeout(() => resolve({ late: true }), SETTLE_MS))),
    ]);
    return "value" in settled ? settled.value : late();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * With `-r`, a server that does not speak the era asked for at all: a plain detection (any
 * revision) finds what it speaks, for the verdict to name. Its session is ended at once.
 */
async function learnSpoken(outcome: Classified, requested: Revision, open: () => Promise<McpClient>): Promise<void> {
  let client: McpClient | undefined;
  try {
    client = await open();
    outcome.note = `The server does not speak ${requested}; it speaks ${client.revision} (${client.era === "legacy" ? "legacy, opened with initialize" : "modern, no handshake"}).`;
  } catch {
    // nothing learned: the verdict says what the server answered
  } finally {
    if (client) await settlesWithin(client.close(), CLOSE_MS);
  }
}

/**
 * A legacy server that answers `initialize` with a version error, instead of naming a version
 * it supports as the legacy lifecycle says, gets each older revision in turn (`open` opens a
 * fresh connection speaking exactly that one), within the same deadline. True when one worked.
 */
async function retryOlderRevisions(
  options: ProbeOptions,
  ev: Evidence,
  outcome: Classified,
  open: (revision: Revision) => Promise<McpClient>,
): Promise<boolean> {
  if (outcome.class !== "rpc_error" || outcome.detail !== "unsupported_version" || options.revision) return false;
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  for (const revision of LEGACY_REVISIONS.slice(1)) {
    if (ev.elapsed() >= timeout) return false;
    let client: McpClient | undefined;
    try {
      client = await open(revision);
      ev.client = client;
      await listed(ev, client, timeout, options.surface);
      ev.defect(
        defect(
          "version_not_negotiated",
          "",
          `initialize offering ${LEGACY_REVISIONS[0]} got a JSON-RPC error instead of a version the server supports; ${revision} worked. The legacy lifecycle says a server answers with a version it supports (basic/lifecycle)`,
        ),
      );
      return true;
    } catch {
      // a session this revision opened is ended before the next revision is tried
      if (client) await settlesWithin(client.close(), CLOSE_MS);
    }
  }
  return false;
}

/**
 * After an opening failed, what may still open the server within the deadline (`open` opens a
 * fresh connection speaking exactly a revision, with more options): each older legacy revision
 * when `initialize` was refused, and 2026-07-28 without `server/discover` when discover was
 * refused. True when one worked.
 */
async function reopened(
  ev: Evidence,
  e: unknown,
  outcome: Classified,
  options: ProbeOptions,
  initializeRefused: boolean,
  open: (revision: Revision, more?: Partial<ClientOptions>) => Promise<McpClient>,
): Promise<boolean> {
  if (initializeRefused && (await retryOlderRevisions(options, ev, outcome, (revision) => open(revision)))) return true;
  if (!modernMayLackDiscover(ev, e, options.revision)) return false;
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  // over HTTP this opens Streamable HTTP: without discover the opening sends nothing that could fail
  return withoutDiscover(ev, timeout, options.surface, (held) =>
    open(LATEST_REVISION, { ...held.sinks, discover: false }),
  );
}

/**
 * An opening that failed after `server/discover` was refused with a JSON-RPC error (and, without
 * `-r`, `initialize` after it): a server that speaks 2026-07-28 but lacks discover looks so.
 */
function modernMayLackDiscover(ev: Evidence, e: unknown, asked: Revision | undefined): boolean {
  if (asked !== undefined && asked !== LATEST_REVISION) return false;
  if (e instanceof RevisionNotSpokenError && e.serverSpeaks.length > 0) return false;
  const discover = ev.steps.find((s) => s.step === "server/discover");
  if (discover?.outcome !== "error") return false;
  if (asked !== undefined) return true;
  return ev.steps.some((s) => s.step === "initialize" && s.outcome !== "ok");
}

/** What an attempt said, held back until it is known to count. */
class Held {
  readonly defects: Defect[] = [];
  readonly exchanges: ExchangeRecord[] = [];
  readonly sinks = {
    onDefect: (r: { defect: Defect }) => void this.defects.push(r.defect),
    onExchange: (x: ExchangeRecord) => void this.exchanges.push(x),
  };

  flush(ev: Evidence): void {
    for (const x of this.exchanges) ev.exchange(x);
    for (const d of this.defects) ev.defect(d);
  }
}

/**
 * The server spoken to in 2026-07-28 without `server/discover` (`open` makes that client, what it
 * says going to the sinks of `held`): when a `tools/list` carrying the revision's `_meta` gets a
 * 2026-07-28 result (`resultType` present, which an SDK v1 server answering in the legacy shape
 * does not send), the server is modern, its tools are listed, and the missing discover is an
 * error. Otherwise nothing it said is kept. True when it answered as 2026-07-28.
 */
async function withoutDiscover(
  ev: Evidence,
  timeout: number,
  surface: boolean | undefined,
  open: (held: Held) => Promise<McpClient>,
): Promise<boolean> {
  const held = new Held();
  let client: McpClient | undefined;
  try {
    client = await open(held);
    const first = await client.request("tools/list", {}, { timeout: Math.max(1, timeout - ev.elapsed()) });
    if (typeof first.resultType !== "string" || !Array.isArray(first.tools)) throw new Error("not a 2026-07-28 result");
    ev.client = client;
    await listed(ev, client, timeout, surface);
  } catch {
    if (client) await settlesWithin(client.close(), CLOSE_MS);
    ev.client = undefined;
    ev.tools = null;
    ev.surface = undefined;
    return false;
  }
  held.flush(ev);
  ev.defect(
    defect(
      "discover_missing",
      "",
      `server/discover was refused, yet the server answers ${client.revision} requests (tools/list with its _meta got a ${client.revision} result): servers MUST implement server/discover (${client.revision} server/discover), and dual-era clients, which send it first, take this server for a legacy one`,
    ),
  );
  return true;
}

/**
 * A process that answered the `initialize` sent beside a late `server/discover` is legacy for its
 * lifetime, though discover named a modern revision: a fresh process speaking exactly that
 * revision, within what is left of the deadline, shows whether the server is modern. The legacy
 * session already listed stands when it does not.
 */
async function freshModern(
  ev: Evidence,
  timeout: number,
  surface: boolean | undefined,
  open: (revision: Revision) => Promise<McpClient>,
): Promise<void> {
  const legacy = ev.client;
  const modern = legacy?.discoveredModern;
  if (!legacy || modern === undefined) return;
  const kept = { tools: ev.tools, surface: ev.surface };
  let client: McpClient | undefined;
  try {
    client = await open(modern);
    await listed(ev, client, timeout, surface);
    ev.client = client;
  } catch {
    if (client) await settlesWithin(client.close(), CLOSE_MS);
    ev.tools = kept.tools;
    ev.surface = kept.surface;
    return;
  }
  await settlesWithin(legacy.close(), CLOSE_MS);
}

/** Lists the tools (every page), and with `surface` the rest of what the server offers. */
async function listed(ev: Evidence, client: McpClient, timeout: number, surface: boolean | undefined): Promise<void> {
  const left = () => Math.max(1, timeout - ev.elapsed());
  const tools = await client.listTools({ timeout: left() });
  ev.tools = tools.length;
  if (surface) ev.surface = await listSurface(client, tools, left);
}

function finish(
  target: string,
  transport: ProbeTransport,
  ev: Evidence,
  failed: Classified | undefined,
  withTrace = true,
): ProbeResult {
  const client = failed ? undefined : ev.client;
  const lastHttp = [...ev.exchanges].reverse().find((x) => x.status !== undefined);
  const cls = failed ? failed.class : "ok";
  const detail = failed ? failed.detail : (client?.era ?? "legacy");
  const http =
    failed?.http ?? (lastHttp ? { status: lastHttp.status!, contentType: lastHttp.contentType ?? "" } : null);
  const result: ProbeResult = {
    target,
    class: cls,
    detail,
    era: client?.era ?? ev.client?.era ?? null,
    revision: client?.revision ?? ev.client?.revision ?? null,
    transport,
    http: transport === "stdio" ? null : http,
    rpcError: failed?.rpcError ?? null,
    tools: ev.tools,
    server: serverOf(ev.client),
    defects: dedupe(ev.reportable()),
    advice: "",
    elapsedMs: ev.elapsed(),
    trace: withTrace ? ev.exchanges.map(traceStep) : [],
  };
  if (!failed && ev.surface) result.surface = ev.surface;
  result.advice = failed?.advice ?? adviceFor(cls, result);
  if (failed?.note) result.advice = `${failed.note} ${result.advice}`;
  return result;
}

function serverOf(client: McpClient | undefined): ProbeResult["server"] {
  const info = client?.serverInfo;
  return info ? { name: String(info.name), version: String(info.version ?? "") } : null;
}

/**
 * Each defect once: the probe may send the same request once per revision it tries, and a server
 * that breaks a rule breaks it in every answer, the message naming each revision's rules in turn.
 * The same code at the same place is one defect, said as it was first seen.
 */
function dedupe(defects: Defect[]): Defect[] {
  const seen = new Set<string>();
  return defects
    .filter((d) => {
      const key = `${d.code}|${d.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, 50);
}

function traceStep(x: ExchangeRecord): TraceStep {
  const step: TraceStep = { step: x.httpMethod === "POST" ? x.method : `${x.httpMethod} ${x.url}`, ms: x.ms };
  if (x.requestBody) {
    try {
      step.request = JSON.parse(x.requestBody) as JsonObject;
    } catch {
      step.request = x.requestBody;
    }
  }
  if (x.status !== undefined) step.status = x.status;
  if (x.contentType !== undefined) step.contentType = x.contentType;
  if (x.bodyExcerpt !== undefined) step.bodyExcerpt = x.bodyExcerpt;
  if (x.error) step.error = x.error;
  return step;
}

function stdioTrace(steps: readonly ConnectStep[], children: ChildServer[], ev: Evidence): TraceStep[] {
  const trace: TraceStep[] = steps.map((s) => ({
    step: s.step,
    ms: s.ms,
    ...(s.outcome !== "ok" ? { error: `${s.outcome}${s.detail ? `: ${s.detail}` : ""}` } : {}),
  }));
  if (ev.tools !== null) trace.push({ step: "tools/list", ms: 0 });
  children.forEach((child, i) => {
    const tail = child.stderrTail().slice(-2048);
    const status = child.status;
    if (tail || status) {
      trace.push({
        step: `process ${i + 1}${status ? ` exited (${status.error ? status.error.message : (status.signal ?? `code ${status.code}`)})` : ""}`,
        ms: 0,
        ...(tail ? { bodyExcerpt: tail } : {}),
      });
    }
  });
  return trace;
}

/** The step that was under way when the deadline passed. */
function stalledStep(ev: Evidence): string {
  const steps = ["server/discover", "initialize", "tools/list"];
  const done = new Set(ev.exchanges.filter((x) => x.status !== undefined && !x.error).map((x) => x.method));
  if (ev.exchanges.length === 0) return "connect";
  if (ev.client) return "tools/list";
  const failed = ev.exchanges.filter((x) => x.error).map((x) => x.method);
  return steps.find((s) => !done.has(s) && !failed.includes(s)) ?? "initialize";
}

/**
 * The verdict when the deadline passes on stdio: broken answers seen on the way outrank the
 * silence; otherwise the step under way stalled.
 */
function stalledStdio(ev: Evidence, children: ChildServer[]): Classified {
  const broken = classifyDefects(ev.defects, ev.sawValidMessage);
  if (broken) return broken;
  if (children.length === 0) return { class: "timeout", detail: "connect" };
  const done = new Set(ev.steps.filter((s) => s.outcome === "ok").map((s) => s.step));
  const detail = ev.client
    ? "tools/list"
    : done.has("initialize")
      ? "tools/list"
      : ev.steps.some((s) => s.step === "server/discover")
        ? "initialize"
        : "server/discover";
  return { class: "timeout", detail };
}

/**
 * A program that repeats what it is sent (`cat`, an HTTP echo) is not a server, but its answer
 * is a well-formed JSON-RPC message: our own request, and then our own "method not found" reply
 * to it, which reads exactly like a server refusing with -32601. The envelope is sound, so it is
 * not `not_jsonrpc`; what is broken is the conversation (a request came back where an answer was
 * due), so it is a `protocol_violation`, with detail `echo`.
 */
const ECHO: Classified = { class: "protocol_violation", detail: "echo" };

/** `transport`, telling `onEcho` when a message arrives that is byte for byte one it sent. */
function watchEcho(transport: Transport, onEcho: () => void): Transport {
  const sent = new Set<string>();
  const watched: Transport = {
    start: (sink) =>
      transport.start({
        ...sink,
        message: (data) => {
          if (sent.size > 0 && sent.has((typeof data === "string" ? data : Buffer.from(data).toString("utf8")).trim()))
            onEcho();
          sink.message(data);
        },
        defect: (d) => sink.defect(d),
        closed: (e) => sink.closed(e),
      }),
    send: (text, message, related) => {
      // the opening exchange is all an echo needs to show itself: a few messages suffice
      if (sent.size < 16) sent.add(text.trim());
      return transport.send(text, message, related);
    },
    close: () => transport.close(),
  };
  // the optional parts the peer and the client look for, as the channel has them: its cap, and
  // an HTTP channel's means
  const keys = isHttpTransport(transport)
    ? (["maxMessageBytes", "kind", "cancel", "paramHeaders", "negotiated", "openServerStream"] as const)
    : (["maxMessageBytes"] as const);
  for (const key of keys) {
    const value: unknown = (transport as Partial<HttpTransport>)[key];
    if (value !== undefined)
      Object.defineProperty(watched, key, {
        value: typeof value === "function" ? value.bind(transport) : value,
        enumerable: true,
        writable: true,
      });
  }
  return watched;
}

/** The exchange a repro line should replay: the last one that failed, or the last one. */
function failingExchange(exchanges: readonly ExchangeRecord[]): ExchangeRecord | undefined {
  return (
    [...exchanges].reverse().find((x) => x.error !== undefined && x.httpMethod === "POST") ??
    exchanges[exchanges.length - 1]
  );
}
