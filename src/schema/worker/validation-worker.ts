/**
 * Schema validation on a thread of its own, for a caller that must never wait on it (`tap`
 * forwards a conversation's bytes on the main thread). ajv and RegExp are synchronous: a message
 * that takes long to judge cannot be interrupted where it runs, only the thread it runs on can be
 * ended. So each message gets a time budget; past it the thread is ended, the message is reported
 * as not judged (`schema_not_judged`), and a fresh thread takes the messages after it.
 */
import { Worker } from "node:worker_threads";
import { defect, type Defect } from "../../codec/defects.js";
import type { ValidateOptions } from "../validate.js";
import type { JobMessage, WorkerMessage } from "./protocol.js";

export interface ValidationWorkerOptions {
  /** How long judging one message may run (mcp-wire compiling its own schemas aside). Default 1,000 ms. */
  budgetMs?: number;
  /** Bytes of messages waiting to be judged at most; a message past it is not judged. Default 16 MiB. */
  maxQueuedBytes?: number;
  /** The thread's heap, in MB; a message that needs more is not judged. Default 256. */
  maxHeapMb?: number;
}

const DEFAULT_BUDGET_MS = 1000;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_HEAP_MB = 256;
/** Loading the validator, or compiling one of mcp-wire's schemas, longer than this means the thread is stuck. */
const STARTUP_MS = 60_000;
const ENTRY = new URL("./entry.js", import.meta.url);

/** One message waiting for its verdict. */
interface Job {
  readonly message: JobMessage;
  readonly bytes: number;
  readonly done: (defects: Defect[]) => void;
}

/**
 * The clock of the job being judged: it runs while the thread judges, stops while the thread
 * loads or compiles mcp-wire's own schemas, and calls `expired` once the budget is spent.
 */
class Budget {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private spent = 0;
  private since = 0;

  constructor(
    private readonly budgetMs: number,
    private readonly expired: () => void,
  ) {}

  /** A new job is at the head: its clock starts at zero, running. */
  restart(): void {
    this.spent = 0;
    this.run();
  }

  /** The thread judges again (after a compile). */
  run(): void {
    this.clear();
    this.since = performance.now();
    this.timer = setTimeout(this.expired, Math.max(0, this.budgetMs - this.spent));
    // while a message waits, its thread keeps the process alive; the clock alone must not
    this.timer.unref();
  }

  /** The thread loads or compiles: the job's clock stops, a much longer one guards against a stuck thread. */
  pause(): void {
    if (this.timer !== undefined) this.spent += performance.now() - this.since;
    this.clear();
    this.timer = setTimeout(this.expired, STARTUP_MS);
    this.timer.unref();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** One worker thread and what it has said so far. */
class Thread {
  readonly worker: Worker;
  ready = false;
  /** Ended by us: its `exit` is expected. */
  ended = false;

  constructor(maxHeapMb: number, events: { message(m: WorkerMessage): void; failed(why: string): void }) {
    this.worker = new Worker(ENTRY, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    this.worker.on("message", (m: WorkerMessage) => {
      if (!this.ended) events.message(m);
    });
    this.worker.on("error", (e) => {
      if (!this.ended) events.failed(e.message);
    });
    this.worker.on("exit", (code) => {
      if (!this.ended) events.failed(`the validation thread exited (code ${code})`);
    });
    // The owner's own handles (a server, a pipe) keep the process alive; an idle thread must
    // not. After the listeners: adding a "message" listener takes the thread's handle back.
    this.worker.unref();
  }

  end(): Promise<void> {
    this.ended = true;
    return this.worker.terminate().then(() => undefined);
  }
}

export class ValidationWorker {
  private readonly budgetMs: number;
  private readonly maxQueuedBytes: number;
  private readonly maxHeapMb: number;
  /** Sent to the thread, answered in this order: the head is the one being judged. */
  private readonly jobs: Job[] = [];
  private queuedBytes = 0;
  private nextId = 0;
  private thread: Thread | undefined;
  private readonly budget: Budget;
  /** Why no thread can be started (its script is missing, say): every message is then not judged. */
  private broken: string | undefined;
  private closed = false;
  private readonly ending = new Set<Promise<void>>();

  constructor(options: ValidationWorkerOptions = {}) {
    this.budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
    this.budget = new Budget(this.budgetMs, () => this.overBudget());
  }

  /** How many messages wait for a verdict. */
  get pending(): number {
    return this.jobs.length;
  }

  /**
   * The schema defects of the JSON text `text` (what `validate` returns), or one
   * `schema_not_judged` saying why it was not judged. Never rejects.
   */
  validate(text: string | Uint8Array, options: ValidateOptions): Promise<Defect[]> {
    const bytes = typeof text === "string" ? text.length : text.byteLength;
    if (this.closed) return Promise.resolve([notJudged("the session ended before it was judged")]);
    if (this.broken !== undefined) return Promise.resolve([notJudged(this.broken)]);
    if (this.queuedBytes + bytes > this.maxQueuedBytes && this.jobs.length > 0)
      return Promise.resolve([
        notJudged(`${this.queuedBytes} bytes were already waiting to be judged (at most ${this.maxQueuedBytes})`),
      ]);
    const thread = this.running();
    if (thread === undefined) return Promise.resolve([notJudged(this.broken!)]);
    return new Promise((done) => {
      const job: Job = { message: { id: ++this.nextId, text, options }, bytes, done };
      this.jobs.push(job);
      this.queuedBytes += bytes;
      thread.worker.ref();
      this.send(thread, job);
      if (this.jobs.length === 1 && thread.ready) this.budget.restart();
    });
  }

  /** Ends the thread; messages still waiting are not judged. */
  async close(): Promise<void> {
    this.closed = true;
    this.budget.clear();
    for (const job of this.jobs.splice(0)) job.done([notJudged("the session ended before it was judged")]);
    this.queuedBytes = 0;
    if (this.thread !== undefined) this.end(this.thread);
    this.thread = undefined;
    await Promise.all(this.ending);
  }

  /** The thread, started when there is none; undefined when none can be. */
  private running(): Thread | undefined {
    if (this.thread !== undefined) return this.thread;
    try {
      this.thread = new Thread(this.maxHeapMb, {
        message: (m) => this.heard(m),
        failed: (why) => this.failed(why),
      });
    } catch (error) {
      this.broken = `the validation thread could not start: ${error instanceof Error ? error.message : String(error)}`;
      return undefined;
    }
    // until it says it is ready, only the guard against a thread that never starts runs
    this.budget.pause();
    return this.thread;
  }

  private send(thread: Thread, job: Job): void {
    const { text } = job.message;
    // bytes are copied once into a buffer of their own and handed over, never cloned again
    if (typeof text === "string") thread.worker.postMessage(job.message);
    else {
      const own = new Uint8Array(text);
      thread.worker.postMessage({ ...job.message, text: own }, [own.buffer]);
    }
  }

  private heard(m: WorkerMessage): void {
    if ("ready" in m) {
      this.thread!.ready = true;
      if (this.jobs.length > 0) this.budget.restart();
      else this.budget.clear();
      return;
    }
    if ("compiling" in m) {
      if (m.compiling) this.budget.pause();
      else this.budget.run();
      return;
    }
    const job = this.jobs[0];
    // answers come in the order the jobs were sent
    if (job === undefined || job.message.id !== m.id) return;
    // Past the budget is past it, whether or not the thread had to be ended: the verdict would
    // otherwise depend on how busy this thread was when the timer was due.
    if ("failed" in m) this.settle(job, [notJudged(`it could not be read: ${m.failed}`)]);
    else this.settle(job, m.ms > this.budgetMs ? [notJudged(this.overBudgetWhy())] : m.defects);
  }

  /** The head job's verdict is in: the next job's clock starts. */
  private settle(job: Job, defects: Defect[]): void {
    this.jobs.shift();
    this.queuedBytes -= job.bytes;
    job.done(defects);
    if (this.jobs.length > 0) this.budget.restart();
    else {
      this.budget.clear();
      this.thread?.worker.unref();
    }
  }

  private overBudget(): void {
    const head = this.jobs[0];
    if (head === undefined) return;
    const thread = this.thread!;
    const why = thread.ready ? this.overBudgetWhy() : "the validation thread did not start in time";
    this.restartAfter(head, why);
  }

  private overBudgetWhy(): string {
    return `judging it ran past the ${this.budgetMs} ms budget`;
  }

  private failed(why: string): void {
    const head = this.jobs[0];
    const thread = this.thread;
    if (thread !== undefined && !thread.ready && head === undefined) {
      // a thread that cannot even start will not start next time either
      this.broken = `the validation thread could not start: ${why}`;
    }
    if (head !== undefined) this.restartAfter(head, `the validation thread failed while judging it: ${why}`);
    else if (thread !== undefined) {
      this.end(thread);
      this.thread = undefined;
    }
  }

  /** Ends the thread stuck on `head`, which is not judged, and sends the jobs behind it to a new one. */
  private restartAfter(head: Job, why: string): void {
    this.budget.clear();
    const old = this.thread!;
    const startedOnce = old.ready;
    this.end(old);
    this.thread = undefined;
    this.settleOnly(head, [notJudged(why)]);
    if (!startedOnce) this.broken ??= `the validation thread could not start: ${why}`;
    if (this.broken !== undefined) {
      for (const job of this.jobs.splice(0)) job.done([notJudged(this.broken)]);
      this.queuedBytes = 0;
      return;
    }
    if (this.jobs.length === 0) return;
    const thread = this.running();
    if (thread === undefined) {
      for (const job of this.jobs.splice(0)) job.done([notJudged(this.broken!)]);
      this.queuedBytes = 0;
      return;
    }
    thread.worker.ref();
    for (const job of this.jobs) this.send(thread, job);
  }

  private settleOnly(job: Job, defects: Defect[]): void {
    this.jobs.shift();
    this.queuedBytes -= job.bytes;
    job.done(defects);
  }

  private end(thread: Thread): void {
    const ending = thread.end().catch(() => undefined);
    this.ending.add(ending);
    void ending.then(() => this.ending.delete(ending));
  }
}

function notJudged(why: string): Defect {
  return defect("schema_not_judged", "", `the message is not held to the schema: ${why}`);
}
