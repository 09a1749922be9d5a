/**
 * What both transports of `check` share: the options, one run's findings and tallies, what one
 * revision's attempt left behind, and how the codec's defects and a failed opening become findings
 * and outcomes.
 */
import type { LookupFunction } from "node:net";
import type { JsonObject } from "../codec/message.js";
import { RevisionNotSpokenError, type ClientOptions, type ConnectStep, type McpClient } from "../mcp/client.js";
import { ConnectionError, ResponseError } from "../peer/errors.js";
import type { DefectReport } from "../peer/peer.js";
import type { ProbeResult } from "../probe/verdict.js";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { redactFresh } from "../secrets/redact.js";
import type { ChildServer } from "../transport/child.js";
import { HttpError } from "../transport/http/error.js";
import { CLIENT_INFO } from "./http-checks.js";
import { Findings, selection } from "./findings.js";
import { MAX_KEPT_BYTES, Recorder, type Received } from "./recorder.js";
import type { ConnectionsRecording } from "../recording/record-transport.js";
import { isRuleId } from "./rules.js";
import { validateReceived } from "./schema-checks.js";
import { readOnlyPass, type Listed, type OptIns } from "./session.js";
import { compareSurfaces, surfaceOf, type SurfaceFile } from "./surface-gate.js";
import type { CallReport, CheckReport, RevisionOutcome, StdioEnd } from "./types.js";

export interface CheckOptions {
  /** Every message of every connection also written to this recording (`check --record`). */
  record?: ConnectionsRecording;
  /** Sent with every HTTP request (credentials): never printed or stored. */
  headers?: Record<string, string>;
  /** The deadline of each step: opening one revision, each request. Default 10,000 ms. */
  timeout?: number;
  /** Check only these revisions (default: every revision mcp-wire knows, newest first). */
  revisions?: readonly Revision[];
  /** Rule ids to run (default all) and to leave out. */
  only?: readonly string[];
  skip?: readonly string[];
  /** What the user allows beyond reading: tools to call, resources to read, prompts to get. */
  optIns?: Partial<OptIns>;
  /** stdio: the child's environment and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdio: how long a server has to exit once its input is closed. Default 5,000 ms. */
  exitWaitMs?: number;
  /** HTTP: resolves host names instead of the system resolver (tests). */
  lookup?: LookupFunction;
  /** stdio: told of each process started, so a caller can end it on a signal. */
  onSpawn?: (child: ChildServer) => void;
  /**
   * The surface gate: the report carries the surface the newest revision listed (`surface`),
   * and with `before`, every difference from it is a `surface_*` finding.
   */
  surface?: { before?: SurfaceFile };
  /**
   * Told what the check waits for as it goes (each request sent, the stdio servers' exit) and,
   * with null, when it waits for nothing: for a progress line while a step waits.
   */
  onWait?: (wait: CheckWait | null) => void;
}

/** What the check is waiting for: a request's method or another step, in a revision if one is known. */
export interface CheckWait {
  what: string;
  revision?: Revision;
}

const DEFAULT_TIMEOUT = 10_000;
export const DEFAULT_EXIT_WAIT = 5_000;

/** What one revision's attempt left behind, for the checks that follow it. */
export interface Attempt {
  outcome: RevisionOutcome;
  client?: McpClient;
  recorder: Recorder;
  defects: DefectReport[];
  /** The opening's steps, as the client recorded them (kept also when the opening failed). */
  steps?: ConnectStep[];
}

/**
 * True when an opening that failed had its `server/discover` refused with a JSON-RPC error
 * naming no versions: the one case where a server may still answer 2026-07-28 requests sent
 * without it (a -32022 that lists versions, silence or a closed pipe say something else).
 */
export function discoverRefused(attempt: Attempt, e: unknown): boolean {
  if (e instanceof RevisionNotSpokenError && e.serverSpeaks.length > 0) return false;
  return (attempt.steps ?? []).some((s) => s.step === "server/discover" && s.outcome === "error");
}

/** The parts of a check both transports share. */
export class Run {
  readonly started = Date.now();
  readonly findings: Findings;
  revisions: Partial<Record<Revision, RevisionOutcome>> = {};
  messages = 0;
  pages = 0;
  /** Each `--call`, `--read` and `--get`, as it went. */
  readonly calls: CallReport[] = [];
  readonly timeout: number;
  readonly optIns: OptIns;
  /** What the newest revision that opened listed, for the surface gate. */
  private newest: { revision: Revision; listed: Listed } | undefined;

  constructor(
    readonly target: string,
    readonly options: CheckOptions,
    readonly stdio: boolean,
  ) {
    // a misspelt id would select nothing and pass as an empty check
    for (const [name, ids] of [
      ["only", options.only],
      ["skip", options.skip],
    ] as const) {
      const unknown = ids?.find((id) => !isRuleId(id));
      if (unknown !== undefined)
        throw new RangeError(`${name}: no check is named ${JSON.stringify(unknown)} (CHECK_RULES lists every id)`);
    }
    this.findings = new Findings(selection(options.only, options.skip));
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.optIns = {
      calls: options.optIns?.calls ?? [],
      reads: options.optIns?.reads ?? [],
      gets: options.optIns?.gets ?? [],
    };
  }

  /** A fresh attempt at opening `revision` (undefined: the detection), its recorder telling `onWait`. */
  attempt(revision: Revision | undefined): Attempt {
    const onWait = this.options.onWait;
    const told = onWait
      ? (what: string | null) => onWait(what === null ? null : { what, ...(revision ? { revision } : {}) })
      : undefined;
    return { outcome: "failed", recorder: new Recorder(this.stdio, this.options.record, told), defects: [] };
  }

  /** The revisions to try, newest first. */
  ladder(): Revision[] {
    const asked =
      this.options.revisions && this.options.revisions.length > 0 ? new Set(this.options.revisions) : undefined;
    return [...REVISIONS].reverse().filter((r) => asked === undefined || asked.has(r));
  }

  /** The pass in an open session, then every message it brought validated. */
  async pass(client: McpClient, revision: Revision, attempt: Attempt): Promise<void> {
    try {
      const { pages, listed } = await readOnlyPass(
        client,
        revision,
        this.findings,
        this.optIns,
        this.timeout,
        this.calls,
      );
      this.pages += pages;
      if (!this.newest || REVISIONS.indexOf(revision) > REVISIONS.indexOf(this.newest.revision))
        this.newest = { revision, listed };
    } catch (e) {
      // a timeout or a closed connection is the server's; anything else is a bug of mcp-wire's own
      if (!(e instanceof ConnectionError)) throw e;
      this.findings.add("request_unanswered", {
        revision,
        method: (e as { checkMethod?: string }).checkMethod ?? null,
        message: `the session broke off: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
    this.judgeDefects(attempt, revision, this.stdio);
    this.messages += validateReceived(attempt.recorder.received, revision, this.findings);
    if (attempt.recorder.dropped > 0)
      this.findings.add("kept_over_budget", {
        revision,
        message: `the server sent more than check keeps (${MAX_KEPT_BYTES / 1024 / 1024} MiB of messages a session): ${attempt.recorder.dropped} messages past it were counted, not validated`,
      });
  }

  /**
   * A session opened without `server/discover` (which the server refused): it counts as
   * 2026-07-28 only if the server answers a 2026-07-28 request with a 2026-07-28 result
   * (`resultType` present; an SDK v1 server answers in the legacy shape). Then the missing
   * discover is a finding and the session goes on with the tools, the one list it showed it serves.
   */
  async answersWithoutDiscover(client: McpClient, revision: Revision): Promise<boolean> {
    this.findings.checked("discover_missing", revision);
    let result: JsonObject;
    try {
      result = await client.request("tools/list", {}, { timeout: this.timeout });
    } catch {
      return false;
    }
    if (typeof result.resultType !== "string" || !Array.isArray(result.tools)) return false;
    this.findings.add("discover_missing", {
      revision,
      method: "server/discover",
      message: `server/discover was refused, yet the server answers ${revision} requests (tools/list with its _meta got a ${revision} result): servers MUST implement server/discover, and a dual-era client that sends it first takes this server for a legacy one`,
    });
    // what the server showed it serves: its capabilities are otherwise unknown without discover
    client.capabilities = { tools: {} };
    return true;
  }

  /** The codec's defects in what the server sent, each a finding of the rule of its code. */
  judgeDefects(attempt: Attempt, revision: Revision, stdio: boolean): void {
    for (const report of attempt.defects) {
      const d = report.defect;
      if (!isRuleId(d.code)) continue;
      // over stdio a line that is not a JSON-RPC message is stdout_not_jsonrpc, said once
      if (stdio && attempt.recorder.isForeign(report.excerpt)) continue;
      const { method, answer } = methodOfExcerpt(report.excerpt, attempt.recorder);
      this.findings.add(d.code, {
        revision,
        method,
        path: d.path || null,
        message: d.message,
        severity: d.severity,
        ...(answer ? { value: answer.value, ...(answer.page !== undefined ? { page: answer.page } : {}) } : {}),
      });
    }
  }

  /** A target none of whose revisions opened: probe's verdict says why (and walks the sign-in chain). */
  unchecked(verdict: ProbeResult | undefined): CheckReport["unchecked"] {
    if (!verdict) return null;
    if (verdict.auth) {
      for (const d of verdict.auth.defects) {
        if (isRuleId(d.code)) this.findings.add(d.code, { revision: null, message: d.message, severity: d.severity });
      }
    }
    if (verdict.class === "ok" && verdict.revision !== null && this.ladder().includes(verdict.revision as Revision)) {
      // the probe opened a revision that was asked for: what failed was the session, not the
      // revision; the server's output says how when it was too large or not JSON-RPC
      const cause = this.findings.list.find((f) => f.id === "too_large" || f.id === "stdout_not_jsonrpc");
      return {
        class: "protocol_violation",
        detail: cause?.id ?? "session_failed",
        message: `The server opened ${verdict.revision} for a probe, but the check's session of it failed${cause ? `: ${cause.message}` : ""}.`,
      };
    }
    if (verdict.class === "ok") {
      const spoken = verdict.revision ? `; it speaks ${verdict.revision}` : "";
      return {
        class: "rpc_error",
        detail: "unsupported_version",
        message: `The server speaks none of the revisions asked for (${this.ladder().join(", ")})${spoken}.`,
      };
    }
    return { class: verdict.class, detail: verdict.detail, message: verdict.advice };
  }

  /** The surface gate, once every revision has been checked. */
  private gate(): SurfaceFile | undefined {
    if (!this.options.surface || !this.newest) return undefined;
    const now = surfaceOf(this.newest.listed, this.newest.revision);
    const before = this.options.surface.before;
    if (before) compareSurfaces(before, now, this.findings);
    return now;
  }

  report(unchecked: CheckReport["unchecked"], stdio: StdioEnd | null = null): CheckReport {
    const surface = unchecked === null ? this.gate() : undefined;
    const findings = this.findings.list;
    return redactFresh(
      {
        target: this.target,
        revisions: this.revisions,
        findings,
        counts: this.findings.counts(),
        checked: { messages: this.messages, pages: this.pages },
        elapsedMs: Date.now() - this.started,
        ran: this.findings.ran,
        unchecked,
        stale: [],
        ...(stdio ? { stdio } : {}),
        ...(this.calls.length > 0 ? { calls: this.calls } : {}),
        ...(surface ? { surface } : {}),
      },
      this.options.headers,
    );
  }
}

/** The method a defect's message is or answers, from its excerpt. */
function methodOfExcerpt(
  excerpt: string | undefined,
  recorder: Recorder,
): { method: string | null; answer?: Received } {
  if (!excerpt) return { method: null };
  let m: { id?: unknown; method?: unknown };
  try {
    m = JSON.parse(excerpt) as { id?: unknown; method?: unknown };
  } catch {
    // an excerpt is cut at 1 KiB: the method is not known
    return { method: null };
  }
  if (typeof m.method === "string") return { method: m.method };
  if (typeof m.id !== "string" && typeof m.id !== "number") return { method: null };
  const answer = recorder.answerTo(m.id);
  return { method: recorder.methodOf(m.id) ?? null, ...(answer ? { answer } : {}) };
}

/** What an opening that failed says about the revision: not spoken, refused, or broken. */
export function outcomeOf(e: unknown): RevisionOutcome {
  if (e instanceof RevisionNotSpokenError) return "unsupported";
  if (e instanceof ResponseError) return "refused";
  if (
    e instanceof HttpError &&
    e.status !== undefined &&
    e.status >= 400 &&
    e.status < 500 &&
    e.status !== 401 &&
    e.status !== 403
  )
    return "refused";
  return "failed";
}

export function clientOptions(run: Run, revision: Revision | undefined, attempt: Attempt): ClientOptions {
  return {
    clientInfo: CLIENT_INFO,
    timeout: run.timeout,
    ...(revision ? { revision } : {}),
    onDefect: (report) => {
      if (attempt.defects.length < 500) attempt.defects.push(report);
    },
    onStep: (step) => {
      (attempt.steps ??= []).push(step);
    },
  };
}
