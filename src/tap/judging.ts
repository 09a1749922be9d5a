/**
 * How the tap's judging thread (judge-worker.ts) judges a message: the codec, the conversation
 * and a small message's schema here; a large message's schema on the validation thread, which a
 * time budget can end (src/schema/worker). A message's record
 * is complete once its schema is judged; records are reported in the order their messages came.
 */
import type { Sender } from "../codec/conversation.js";
import type { Line } from "../codec/lines.js";
import { Linter, type LineContext, type LintRecord } from "../lint/lint.js";
import type { Revision } from "../rules/revisions.js";
import { validate } from "../schema/validate.js";
import { ValidationWorker } from "../schema/worker/validation-worker.js";

/**
 * Messages up to this size are held to the schema on the judging thread itself: validation is
 * linear and stops at the first error past 1 KiB, so it costs little, and a hop to the
 * validation thread would cost more than it does. Larger ones go where a budget can end them.
 */
const HERE_MAX_BYTES = 16 * 1024;

export interface TapJudgingOptions {
  revision?: Revision;
  maxLineBytes: number;
  /** Hold each message to its revision's schema. */
  schema: boolean;
  /** How long judging one message's schema may take before it is reported as not judged. Default 1,000 ms. */
  schemaBudgetMs?: number;
}

export class TapJudging {
  readonly linter: Linter;
  private readonly worker: ValidationWorker | undefined;

  constructor(options: TapJudgingOptions) {
    this.linter = new Linter({
      ...(options.revision ? { revision: options.revision } : {}),
      maxLineBytes: options.maxLineBytes,
      schema: options.schema,
    });
    if (options.schema)
      this.worker = new ValidationWorker(
        options.schemaBudgetMs !== undefined ? { budgetMs: options.schemaBudgetMs } : {},
      );
  }

  /**
   * `line`'s record: at once when nothing of it is left to judge or it is small (its validation
   * costs well under a millisecond, and this is not the forwarding thread), else once the
   * validation thread has judged its schema.
   */
  judge(line: Line, from: Sender | LineContext): LintRecord | Promise<LintRecord> {
    const deferred = this.linter.lineDeferred(line, from);
    const q = deferred.question;
    if (q === undefined || this.worker === undefined) return deferred.settle([]);
    if (q.text.length <= HERE_MAX_BYTES) return deferred.settle(validate(q.value, q.options));
    return this.worker.validate(q.text, q.options).then((found) => deferred.settle(found));
  }

  /** Ends the validation thread: nothing is judged after. */
  close(): Promise<void> {
    return this.worker?.close() ?? Promise.resolve();
  }
}

/**
 * Records delivered in the order their messages came, each once complete: at once while none
 * before it waits, else after the one before it.
 */
export class InOrder {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  /** Records delivered after waiting: the progress a drain watches. */
  delivered = 0;

  constructor(private readonly failed: (error: unknown) => void) {}

  deliver<T>(result: T | Promise<T>, to: (value: T) => void): void {
    if (this.waiting === 0 && !(result instanceof Promise)) return to(result);
    this.waiting++;
    this.tail = this.tail
      .then(() => result)
      .then(to)
      .catch(this.failed)
      .finally(() => {
        this.waiting--;
        this.delivered++;
      });
  }

  /** Resolves once every record handed over so far is delivered. */
  drained(): Promise<void> {
    return this.tail;
  }
}
