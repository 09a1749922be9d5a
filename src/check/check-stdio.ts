/**
 * `check --stdio`: each revision in a process of its own, in named steps. Without `-r`, one
 * detection opens the server as a dual-era client does and settles what it can of the ladder;
 * every revision still pending then gets a fresh process that speaks exactly it. A process that
 * answered `initialize` is judged in the legacy revision it negotiated, never as a modern one:
 * only a fresh process, given the whole deadline to answer `server/discover`, decides that.
 */
import { McpClient } from "../mcp/client.js";
import type { Transport } from "../peer/transport.js";
import { probeStdio } from "../probe/probe.js";
import { RULES, type Revision } from "../rules/revisions.js";
import { ChildServer } from "../transport/child.js";
import type { Recorder } from "./recorder.js";
import { settlesWithin } from "../peer/within.js";
import {
  DEFAULT_EXIT_WAIT,
  Run,
  clientOptions,
  discoverRefused,
  outcomeOf,
  type Attempt,
  type CheckOptions,
} from "./run.js";
import type { CheckReport, RevisionOutcome, StdioEnd } from "./types.js";

/** How long `server/discover` goes unanswered in the detection before `initialize` is sent beside it. */
const DETECTION_PROBE_MS = 1000;
/** How long after the exit wait a closed client's shutdown signals the server: past the timing. */
const SIGNAL_MARGIN_MS = 1000;

export async function checkStdio(
  command: string,
  args: readonly string[],
  options: CheckOptions = {},
): Promise<CheckReport> {
  return new StdioCheck(command, args, options).check();
}

class StdioCheck {
  private readonly run: Run;
  private readonly ladder: Revision[];
  /** Revisions not settled yet: each gets a process of its own. */
  private readonly pending: Set<Revision>;
  private readonly children: ChildServer[] = [];
  /** The servers' exits, timed in the background once their input is closed. */
  private readonly exits: Promise<void>[] = [];
  private spawnFailed = false;

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly options: CheckOptions,
  ) {
    this.run = new Run([command, ...args].join(" "), options, true);
    this.ladder = this.run.ladder();
    this.pending = new Set(this.ladder);
  }

  async check(): Promise<CheckReport> {
    try {
      if (!this.options.revisions || this.options.revisions.length === 0) await this.detect();
      for (const revision of this.ladder) {
        if (this.pending.has(revision) && !this.spawnFailed) await this.speak(revision);
      }
      this.orderLadder();
      return await this.conclude();
    } finally {
      await Promise.all(this.children.map((c) => c.shutdown(500)));
    }
  }

  /** A transport to a fresh process, seen through `recorder`. */
  private spawner(recorder: Recorder): () => Transport {
    return () => {
      const child = new ChildServer(this.command, this.args, {
        ...(this.options.env ? { env: this.options.env } : {}),
        ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
        group: true,
        // closing the client ends the server too, but only after the wait its exit is timed in
        graceMs: this.exitWait + SIGNAL_MARGIN_MS,
      });
      this.children.push(child);
      this.options.onSpawn?.(child);
      void child.exited.then((s) => {
        if (s.error) this.spawnFailed = true;
      });
      return recorder.wrap(child.transport);
    };
  }

  /**
   * One opening as a dual-era client makes it: it answers for the revision it opens and, from
   * the discover answer, for the modern revisions the server does not speak.
   */
  private async detect(): Promise<void> {
    const attempt = this.run.attempt(undefined);
    const from = this.children.length;
    let client: McpClient | undefined;
    try {
      client = await McpClient.connect(this.spawner(attempt.recorder), {
        ...clientOptions(this.run, undefined, attempt),
        probeTimeout: Math.min(DETECTION_PROBE_MS, this.run.timeout),
      });
    } catch (e) {
      // a server a dual-era client cannot open (it hangs, exits, or answers nonsense) would
      // fail each revision the same way, once per deadline: probe says why, in the conclusion
      const legacy = this.ladder.find((l) => RULES[l].era === "legacy");
      for (const r of this.ladder) this.run.revisions[r] = r === this.ladder[0] || r === legacy ? "failed" : "skipped";
      this.pending.clear();
      this.judgeStdout(attempt, this.ladder[0]!);
      await this.finish(client, from, this.ladder[0]!);
      // both openings refused: a modern server that lacks only server/discover still serves 2026-07-28
      const modern = this.ladder.find((r) => RULES[r].era === "modern");
      if (modern && discoverRefused(attempt, e) && (await this.withoutDiscover(modern)) && legacy) {
        const init = attempt.steps?.find((s) => s.step === "initialize");
        this.run.revisions[legacy] = init?.outcome === "error" ? "refused" : "failed";
      }
      return;
    }
    this.settleDetected(client);
    await this.pass(client, client.revision, attempt);
    await this.finish(client, from, client.revision);
  }

  /** What the detection settled: the revision it opened, and the ones it showed are not spoken. */
  private settleDetected(client: McpClient): void {
    const revision = client.revision;
    if (client.era === "legacy") {
      const discover = client.steps.find((s) => s.step === "server/discover");
      const modern = this.ladder.find((r) => RULES[r].era === "modern");
      // a discover answer naming a modern revision leaves it pending: a fresh process speaks it
      if (modern && discover && client.discoveredModern === undefined) {
        this.run.revisions[modern] = client.supportedVersions.length > 0 ? "unsupported" : "refused";
        this.pending.delete(modern);
      }
      // the legacy offer was the newest legacy revision: a server that chose another does not speak it
      const offered = this.ladder.find((r) => RULES[r].era === "legacy");
      if (offered && offered !== revision) {
        this.run.revisions[offered] = "unsupported";
        this.pending.delete(offered);
      }
    }
    this.run.revisions[revision] = "ok";
    this.pending.delete(revision);
  }

  /** A fresh process that speaks exactly `revision`, with the whole deadline for each answer. */
  private async speak(revision: Revision): Promise<void> {
    const attempt = this.run.attempt(revision);
    const from = this.children.length;
    let client: McpClient | undefined;
    let refused = false;
    try {
      client = await McpClient.connect(this.spawner(attempt.recorder), clientOptions(this.run, revision, attempt));
      attempt.outcome = "ok";
    } catch (e) {
      attempt.outcome = outcomeOf(e);
      refused = RULES[revision].era === "modern" && discoverRefused(attempt, e);
    }
    this.run.revisions[revision] = attempt.outcome;
    if (client) await this.pass(client, revision, attempt);
    await this.finish(client, from, revision);
    if (refused) await this.withoutDiscover(revision);
  }

  /**
   * A fresh process spoken to in `revision` without `server/discover`, which the server refused:
   * checked in that revision when it answers as one. True when it did.
   */
  private async withoutDiscover(revision: Revision): Promise<boolean> {
    const attempt = this.run.attempt(revision);
    const from = this.children.length;
    let client: McpClient | undefined;
    let answers = false;
    try {
      client = await McpClient.connect(this.spawner(attempt.recorder), {
        ...clientOptions(this.run, revision, attempt),
        discover: false,
      });
      answers = await this.run.answersWithoutDiscover(client, revision);
    } catch {
      // it does not answer as a 2026-07-28 server either: the refusal stands
    }
    if (answers && client) {
      this.run.revisions[revision] = "ok";
      await this.pass(client, revision, attempt);
    }
    await this.finish(client, from, revision);
    return answers;
  }

  /** The read-only pass in an open session, then what its stdout carried. */
  private async pass(client: McpClient, revision: Revision, attempt: Attempt): Promise<void> {
    attempt.client = client;
    await this.run.pass(client, revision, attempt);
    this.judgeStdout(attempt, revision);
  }

  /** Every stdout line that was not a JSON-RPC message: the one finding for it, not also the codec's. */
  private judgeStdout(attempt: Attempt, revision: Revision): void {
    this.run.findings.checked("stdout_not_jsonrpc", revision);
    for (const line of attempt.recorder.foreign)
      this.run.findings.add("stdout_not_jsonrpc", {
        revision,
        message: `stdout carried a line that is not a JSON-RPC message: ${JSON.stringify(line.slice(0, 120))}`,
      });
  }

  /** Ends the session, then times the server's exit once its input is closed (in the background). */
  private async finish(client: McpClient | undefined, from: number, revision: Revision): Promise<void> {
    const inputClosed = Date.now();
    if (client) await settlesWithin(client.close(), 1000);
    for (const child of this.children.slice(from)) this.exits.push(this.timeExit(child, revision, inputClosed));
  }

  private get exitWait(): number {
    return this.options.exitWaitMs ?? DEFAULT_EXIT_WAIT;
  }

  private async timeExit(child: ChildServer, revision: Revision, inputClosed: number): Promise<void> {
    const exitWait = this.exitWait;
    this.run.findings.checked("stdio_exit_slow", revision);
    if (child.status) return;
    // the client's close ended the child's input: it has `exitWait` from then to go on its own
    const exited = await settlesWithin(child.exited, Math.max(0, inputClosed + exitWait - Date.now()));
    if (!exited && !this.spawnFailed)
      this.run.findings.add("stdio_exit_slow", {
        revision,
        message: `the server was still running ${exitWait / 1000} s after its input closed: clients then kill it`,
      });
    await child.shutdown(500);
  }

  /** The detection came first, but the ladder is reported newest first. */
  private orderLadder(): void {
    const ordered: Partial<Record<Revision, RevisionOutcome>> = {};
    for (const r of this.ladder) ordered[r] = this.run.revisions[r] ?? "skipped";
    this.run.revisions = ordered;
  }

  /** The report; when no revision opened, probe says why while the servers' exits are timed. */
  private async conclude(): Promise<CheckReport> {
    const anyOk = Object.values(this.run.revisions).includes("ok");
    // how the last server started ended, read before the exits are timed (which end it ourselves)
    const end = anyOk ? null : this.endOf(this.children.at(-1));
    const [verdict] = await Promise.all([
      anyOk
        ? undefined
        : probeStdio(this.command, this.args, {
            timeout: this.run.timeout,
            ...(this.options.env ? { env: this.options.env } : {}),
            ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
          }),
      this.exitsTimed(),
    ]);
    return this.run.report(this.run.unchecked(verdict), end);
  }

  /** Every server's exit timed (stdio_exit_slow), the check saying meanwhile that it waits for them. */
  private async exitsTimed(): Promise<void> {
    this.options.onWait?.({ what: "the servers' exit once their input closed" });
    await Promise.all(this.exits);
    this.options.onWait?.(null);
  }

  /** A server that opened no revision: its exit status or signal (null, null: still running, it never answered) and its stderr's end. */
  private endOf(child: ChildServer | undefined): StdioEnd | null {
    if (!child) return null;
    const status = child.status;
    if (status?.error) return null;
    return { exitCode: status?.code ?? null, signal: status?.signal ?? null, stderrTail: child.redactedStderr() };
  }
}
