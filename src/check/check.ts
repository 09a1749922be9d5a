/**
 * `check`: past the door. Opens the server in every revision it speaks (each in a session of its
 * own), makes a read-only pass in each, validates every message the server sent against that
 * revision's schema, and checks what the schemas cannot say (docs/check.md). Never calls a tool,
 * reads a resource or gets a prompt the user did not name. A target that cannot be opened at all
 * is handed to `probe`, whose verdict (and sign-in walk) says why.
 */
import type { LookupFunction } from "node:net";
import { McpClient, RevisionNotSpokenError, type ClientOptions } from "../mcp/client.js";
import { connectHttp } from "../mcp/connect-http.js";
import { ConnectionError, ResponseError } from "../peer/errors.js";
import type { DefectReport } from "../peer/peer.js";
import type { Transport } from "../peer/transport.js";
import { probeHttp, probeStdio } from "../probe/probe.js";
import type { ProbeResult } from "../probe/verdict.js";
import { REVISIONS, RULES, type Revision } from "../rules/revisions.js";
import { redactFresh } from "../secrets/redact.js";
import { ChildServer } from "../transport/child.js";
import type { ExchangeRecord } from "../transport/http/client.js";
import { HttpError } from "../transport/http/error.js";
import { Findings, selection } from "./findings.js";
import {
  endedSessionCheck,
  judgeExchanges,
  legacyHttpChecks,
  modernHttpChecks,
  modernOnlyChecks,
  type RawOptions,
} from "./http-checks.js";
import { Recorder, type Received } from "./recorder.js";
import { isRuleId } from "./rules.js";
import { validateReceived } from "./schema-checks.js";
import { readOnlyPass, type OptIns } from "./session.js";
import type { CheckReport, RevisionOutcome } from "./types.js";

export interface CheckOptions {
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
}

const DEFAULT_TIMEOUT = 10_000;
const DEFAULT_EXIT_WAIT = 5_000;
const CLIENT_INFO = { name: "mcp-wire-check", version: "0.1.0" };

/** What one revision's attempt left behind, for the checks that follow it. */
interface Attempt {
  outcome: RevisionOutcome;
  client?: McpClient;
  recorder: Recorder;
  defects: DefectReport[];
}

/** The parts of a check both transports share. */
class Run {
  readonly started = Date.now();
  readonly findings: Findings;
  revisions: Partial<Record<Revision, RevisionOutcome>> = {};
  messages = 0;
  pages = 0;
  readonly timeout: number;
  readonly optIns: OptIns;

  constructor(
    readonly target: string,
    readonly options: CheckOptions,
    readonly stdio: boolean,
  ) {
    this.findings = new Findings(selection(options.only, options.skip));
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.optIns = {
      calls: options.optIns?.calls ?? [],
      reads: options.optIns?.reads ?? [],
      gets: options.optIns?.gets ?? [],
    };
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
      const { pages } = await readOnlyPass(client, revision, this.findings, this.optIns, this.timeout);
      this.pages += pages;
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
  }

  /** The codec's defects in what the server sent, each a finding of the rule of its code. */
  judgeDefects(attempt: Attempt, revision: Revision, stdio: boolean): void {
    for (const report of attempt.defects) {
      const d = report.defect;
      if (!isRuleId(d.code)) continue;
      // over stdio a line that is not JSON is stdout_not_jsonrpc, said once
      if (stdio && d.code === "parse_error") continue;
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

  report(unchecked: CheckReport["unchecked"]): CheckReport {
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
      },
      this.options.headers,
    );
  }
}

/** The method a defect's message is or answers, from its excerpt, and the answer itself where it was kept. */
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
function outcomeOf(e: unknown): RevisionOutcome {
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

function clientOptions(run: Run, revision: Revision | undefined, attempt: Attempt): ClientOptions {
  return {
    clientInfo: CLIENT_INFO,
    timeout: run.timeout,
    ...(revision ? { revision } : {}),
    onDefect: (report) => {
      if (attempt.defects.length < 500) attempt.defects.push(report);
    },
  };
}

export async function checkHttp(url: string, options: CheckOptions = {}): Promise<CheckReport> {
  const run = new Run(url, options, false);
  const raw: RawOptions = {
    headers: options.headers ?? {},
    timeout: run.timeout,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
  let modernOk: Revision | undefined;
  let legacyStreamable = false;
  for (const revision of run.ladder()) {
    const attempt: Attempt = { outcome: "failed", recorder: new Recorder(false), defects: [] };
    const exchanges: ExchangeRecord[] = [];
    let channel: Transport | undefined;
    let transport: string | undefined;
    try {
      const connection = await connectHttp(url, {
        ...clientOptions(run, revision, attempt),
        fresh: true,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.lookup ? { lookup: options.lookup } : {}),
        onExchange: (x) => {
          if (exchanges.length < 1000) exchanges.push(x);
        },
        wrap: (t) => {
          channel = t;
          return attempt.recorder.wrap(t);
        },
      });
      attempt.client = connection.client;
      transport = connection.transport;
      attempt.outcome = "ok";
    } catch (e) {
      attempt.outcome = outcomeOf(e);
      // nothing answers, or nothing answers without credentials: no other revision will fare better
      if (e instanceof HttpError && (e.status === undefined || e.status === 401 || e.status === 403)) {
        run.revisions[revision] = attempt.outcome;
        for (const r of run.ladder()) run.revisions[r] ??= "skipped";
        break;
      }
    }
    run.revisions[revision] = attempt.outcome;
    const client = attempt.client;
    if (!client) continue;
    const modern = RULES[revision].era === "modern";
    const session = (channel as { sessionId?: string } | undefined)?.sessionId;
    try {
      await run.pass(client, revision, attempt);
      if (transport === "streamable-http") {
        judgeExchanges(exchanges, revision, run.findings, modern);
        if (modern) {
          modernOk = revision;
          await modernHttpChecks(url, revision, run.findings, raw);
        } else if (RULES[revision].http.transport === "streamable-http") {
          // 2024-11-05 had no Streamable HTTP: a server that serves it there has none of its rules to keep
          legacyStreamable = true;
          await legacyHttpChecks(url, revision, session, run.findings, raw);
          await endedSessionCheck(url, revision, session, run.findings, raw);
        }
      }
    } finally {
      await bounded(
        client.close().catch(() => undefined),
        2000,
      );
    }
  }
  if (modernOk && !legacyStreamable) await modernOnlyChecks(url, modernOk, run.findings, raw);
  const anyOk = Object.values(run.revisions).includes("ok");
  const verdict = anyOk
    ? undefined
    : await probeHttp(url, {
        timeout: run.timeout,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.lookup ? { lookup: options.lookup } : {}),
      });
  return run.report(run.unchecked(verdict));
}

export async function checkStdio(
  command: string,
  args: readonly string[],
  options: CheckOptions = {},
): Promise<CheckReport> {
  const target = [command, ...args].join(" ");
  const run = new Run(target, options, true);
  const exitWait = options.exitWaitMs ?? DEFAULT_EXIT_WAIT;
  const exits: Promise<void>[] = [];
  const children: ChildServer[] = [];
  let spawnFailed = false;
  const spawn =
    (recorder: Recorder): (() => Transport) =>
    () => {
      const child = new ChildServer(command, args, {
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      children.push(child);
      options.onSpawn?.(child);
      void child.exited.then((s) => {
        if (s.error) spawnFailed = true;
      });
      return recorder.wrap(child.transport);
    };
  /** Ends the session, then times the server's exit once its input is closed (in the background). */
  const finish = async (client: McpClient | undefined, from: number, revision: Revision): Promise<void> => {
    if (client)
      await bounded(
        client.close().catch(() => undefined),
        1000,
      );
    for (const child of children.slice(from)) {
      exits.push(
        (async () => {
          run.findings.checked("stdio_exit_slow", revision);
          if (child.status) return;
          // the client's close ended the child's input: now it has `exitWait` to go on its own
          const exited = await bounded(child.exited, exitWait);
          if (!exited && !spawnFailed)
            run.findings.add("stdio_exit_slow", {
              revision,
              message: `the server was still running ${exitWait / 1000} s after its input closed: clients then kill it`,
            });
          await child.shutdown(500);
        })(),
      );
    }
  };
  const stdout = (attempt: Attempt, revision: Revision) => {
    run.findings.checked("stdout_not_jsonrpc", revision);
    for (const line of attempt.recorder.foreign)
      run.findings.add("stdout_not_jsonrpc", {
        revision,
        message: `stdout carried a line that is not a JSON-RPC message: ${JSON.stringify(line.slice(0, 120))}`,
      });
  };

  try {
    const ladder = run.ladder();
    const pending = new Set(ladder);
    // without -r, one detection opens the server as a dual-era client does: it answers for the
    // modern revision and for the legacy revision the server picks, with one process
    if (!options.revisions || options.revisions.length === 0) {
      const attempt: Attempt = { outcome: "failed", recorder: new Recorder(true), defects: [] };
      const from = children.length;
      let client: McpClient | undefined;
      try {
        client = await McpClient.connect(spawn(attempt.recorder), {
          ...clientOptions(run, undefined, attempt),
          probeTimeout: Math.min(1000, run.timeout),
        });
      } catch {
        // a server a dual-era client cannot open (it hangs, exits, or answers nonsense) would
        // fail each revision the same way, once per deadline: probe says why, below
        for (const r of ladder)
          run.revisions[r] =
            r === ladder[0] || r === ladder.find((l) => RULES[l].era === "legacy") ? "failed" : "skipped";
        pending.clear();
        stdout(attempt, ladder[0]!);
      }
      if (client) {
        const revision = client.revision;
        if (client.era === "legacy") {
          const discover = client.steps.find((s) => s.step === "server/discover");
          const modern = ladder.find((r) => RULES[r].era === "modern");
          if (modern && discover) {
            run.revisions[modern] = client.supportedVersions.length > 0 ? "unsupported" : "refused";
            pending.delete(modern);
          }
          // the legacy offer was the newest legacy revision: a server that chose another does not speak it
          const offered = ladder.find((r) => RULES[r].era === "legacy");
          if (offered && offered !== revision) {
            run.revisions[offered] = "unsupported";
            pending.delete(offered);
          }
        }
        run.revisions[revision] = "ok";
        pending.delete(revision);
        attempt.client = client;
        await run.pass(client, revision, attempt);
        stdout(attempt, revision);
      }
      await finish(client, from, client?.revision ?? ladder[0]!);
    }
    for (const revision of ladder) {
      if (!pending.has(revision) || spawnFailed) continue;
      const attempt: Attempt = { outcome: "failed", recorder: new Recorder(true), defects: [] };
      const from = children.length;
      let client: McpClient | undefined;
      try {
        client = await McpClient.connect(spawn(attempt.recorder), clientOptions(run, revision, attempt));
        attempt.outcome = "ok";
      } catch (e) {
        attempt.outcome = outcomeOf(e);
      }
      run.revisions[revision] = attempt.outcome;
      if (client) {
        attempt.client = client;
        await run.pass(client, revision, attempt);
        stdout(attempt, revision);
      }
      await finish(client, from, revision);
    }
    // the detection came first, but the ladder is reported newest first
    const ordered: Partial<Record<Revision, RevisionOutcome>> = {};
    for (const r of ladder) ordered[r] = run.revisions[r] ?? "skipped";
    run.revisions = ordered;
    const anyOk = Object.values(run.revisions).includes("ok");
    // the servers' exits are timed while probe says why none opened
    const [verdict] = await Promise.all([
      anyOk
        ? undefined
        : probeStdio(command, args, {
            timeout: run.timeout,
            ...(options.env ? { env: options.env } : {}),
            ...(options.cwd ? { cwd: options.cwd } : {}),
          }),
      Promise.all(exits),
    ]);
    return run.report(run.unchecked(verdict));
  } finally {
    await Promise.all(children.map((c) => c.shutdown(500)));
  }
}

/** True if `p` settled within `ms`. */
async function bounded(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = await Promise.race([
    p.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return done;
}
