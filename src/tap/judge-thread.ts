/**
 * The tap's judging, on a thread of its own (judge-worker.ts): the forwarding thread hands each
 * message over and goes on forwarding; the verdict comes back when it is ready. Decoding a large
 * message, following its conversation and holding it to the schema all happen there, so no
 * message a peer sends can hold up the bytes of another conversation, or its own.
 */
import { Worker } from "node:worker_threads";
import type { Defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import type { LineContext, LintRecord } from "../lint/lint.js";
import type { FromJudge, JudgeThreadOptions, MirroredHeaders, ToJudge } from "./judge-protocol.js";
import { settlesWhileProgressing } from "../peer/within.js";

const ENTRY = new URL("./judge-worker.js", import.meta.url);
/**
 * When the tap closes, the judging thread gets as long as verdicts keep coming to catch up and end
 * its validation thread — but not 2 s without one, and not 30 s in all.
 */
const CLOSE_QUIET_MS = 2000;
const CLOSE_CAP_MS = 30_000;
/**
 * How far judging may fall behind the traffic, in bytes handed over and not yet judged. Past it a
 * conversation is judged no further: its messages still cross, unjudged, and memory stays bounded.
 * The whole rest of the conversation, not just one message, so that a skipped request can never
 * make its answer look unasked for.
 */
const MAX_BEHIND_BYTES = 64 * 1024 * 1024;

/** What the judging thread found in one message. */
export interface Judgement {
  readonly kind: LintRecord["kind"];
  readonly defects: Defect[];
}

export class JudgeThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (m: FromJudge | undefined) => void>();
  private seq = 0;
  private known: string;
  /** Why the thread is gone, once it is: nothing more is judged. */
  private gone: string | undefined;
  /** Bytes handed over whose verdict has not come back. */
  private behind = 0;
  /** Messages handed over whose verdict has not come back. */
  private unjudged = 0;
  /** Answers heard from the thread: the progress a close watches. */
  private heardCount = 0;
  /** Conversations judged no further because judging fell too far behind ("" for stdio's one). */
  private readonly dropped = new Set<string>();

  /** `failed` hears once that the thread failed, and why (and once per conversation left unjudged). */
  constructor(
    options: JudgeThreadOptions,
    private readonly failed: (why: string) => void,
    private readonly maxBehindBytes = MAX_BEHIND_BYTES,
  ) {
    this.known = options.revision ? `revision ${options.revision} (as given)` : "no message judged";
    this.worker = new Worker(ENTRY, { workerData: options });
    this.worker.on("message", (m: FromJudge) => this.heard(m));
    this.worker.on("error", (e) => this.lost(`the judging thread failed: ${e.message}`));
    this.worker.on("exit", (code) => this.lost(`the judging thread exited (code ${code})`));
    // The tap's own handles (its server, its pipes) keep the process alive; an idle thread must
    // not. After the listeners: adding a "message" listener takes the thread's handle back.
    this.worker.unref();
  }

  /** The verdict on `line`; undefined when the thread is gone (the failure is told once, elsewhere). */
  judge(line: Line, context: LineContext, headers?: MirroredHeaders): Promise<Judgement | undefined> {
    const conversation = context.conversation ?? "";
    if (this.dropped.has(conversation)) return Promise.resolve(undefined);
    const size = line.bytes.length + (line.prefix?.length ?? 0) + (line.suffix?.length ?? 0);
    if (this.behind + size > this.maxBehindBytes && this.behind > 0) {
      this.dropped.add(conversation);
      if (context.conversation !== undefined) this.end(context.conversation);
      this.failed(
        `judging fell ${Math.round(this.behind / 1048576)} MiB behind the traffic: the rest of ${context.conversation === undefined ? "the session" : `conversation ${context.conversation}`} crosses unjudged`,
      );
      return Promise.resolve(undefined);
    }
    this.behind += size;
    this.unjudged++;
    // the thread gets copies of its own: the line stays the forwarding side's, for the report
    const bytes = new Uint8Array(line.bytes);
    const m: ToJudge = {
      type: "line",
      seq: ++this.seq,
      bytes,
      crlf: line.crlf,
      overflow: line.overflow,
      size: line.size,
      ...(line.prefix ? { prefix: new Uint8Array(line.prefix) } : {}),
      ...(line.suffix ? { suffix: new Uint8Array(line.suffix) } : {}),
      context,
      ...(headers ? { headers } : {}),
    };
    return this.ask(m, [bytes.buffer as ArrayBuffer]).then((a) => {
      this.behind -= size;
      this.unjudged--;
      return a !== undefined && "kind" in a ? { kind: a.kind, defects: a.defects } : undefined;
    });
  }

  /** The conversation is over: the thread drops what it kept of it. */
  end(conversation: string): void {
    if (this.gone === undefined) this.worker.postMessage({ type: "end", conversation } satisfies ToJudge);
  }

  /** How each conversation was judged, as last heard (the thread is asked again each time). */
  revisions(): string {
    void this.askRevisions();
    return this.known;
  }

  /**
   * Asks how each conversation was judged, then ends the thread; what still waits is not judged.
   * `quietMs`: how long to wait with no answer coming (0: end it now, without asking).
   */
  async close(quietMs = CLOSE_QUIET_MS): Promise<void> {
    if (this.gone === undefined) {
      // both answers come after every message handed over before them: one deadline for the two
      const closed = (async () => {
        await this.askRevisions();
        await this.ask({ type: "close", seq: ++this.seq });
      })();
      if (quietMs > 0) await settlesWhileProgressing(closed, () => this.heardCount, quietMs, CLOSE_CAP_MS);
      if (this.unjudged > 0)
        this.failed(
          `the tap closed with ${this.unjudged} message${this.unjudged === 1 ? "" : "s"} not yet judged: left out of the report`,
        );
    }
    this.gone ??= "the tap closed";
    await this.worker.terminate();
    this.settleAll();
  }

  private async askRevisions(): Promise<void> {
    const a = await this.ask({ type: "revisions", seq: ++this.seq });
    if (a !== undefined && "revisions" in a) this.known = a.revisions;
  }

  private ask(m: ToJudge & { seq: number }, transfer: ArrayBuffer[] = []): Promise<FromJudge | undefined> {
    if (this.gone !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting.set(m.seq, resolve);
      if (this.waiting.size === 1) this.worker.ref();
      this.worker.postMessage(m, transfer);
    });
  }

  private heard(m: FromJudge): void {
    const resolve = this.waiting.get(m.seq);
    if (resolve === undefined) return;
    this.waiting.delete(m.seq);
    this.heardCount++;
    if (this.waiting.size === 0) this.worker.unref();
    if ("failed" in m) this.failed(`a message could not be judged: ${m.failed}`);
    resolve(m);
  }

  private lost(why: string): void {
    if (this.gone !== undefined) return;
    this.gone = why;
    this.failed(why);
    this.settleAll();
  }

  private settleAll(): void {
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}
