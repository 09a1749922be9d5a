/**
 * One line on stderr saying what a command waits for, once a wait has lasted long enough to
 * wonder about: on a terminal the line is rewritten in place as the seconds go and erased when the wait
 * ends; elsewhere (a CI log) a plain line now and then, and only when asked for (`--progress`),
 * so a log keeps no carriage returns and a quick run writes nothing at all.
 */

export interface ProgressLineOptions {
  /** Default process.stderr. */
  stream?: NodeJS.WritableStream & { columns?: number };
  /** Rewrite the line in place (a terminal); false: plain lines. */
  tty: boolean;
  /** How long a wait lasts before it is shown. Default 1 s on a terminal, 2 s elsewhere. */
  afterMs?: number;
  /** Plain lines: at most one per this long for one wait. Default 10 s. */
  everyMs?: number;
  now?: () => number;
}

/** How often the wait is looked at; a terminal's line is redrawn only when its text changes. */
const TICK_MS = 250;

export class ProgressLine {
  private readonly stream: NodeJS.WritableStream & { columns?: number };
  private readonly tty: boolean;
  private readonly afterMs: number;
  private readonly everyMs: number;
  private readonly now: () => number;
  private readonly timer: ReturnType<typeof setInterval>;
  /** What is awaited, and since when; undefined while nothing is. */
  private wait: { what: string; since: number; printed?: number } | undefined;
  /** The text on the terminal's line now, if any. */
  private drawn: string | undefined;

  constructor(
    private readonly label: string,
    options: ProgressLineOptions,
  ) {
    this.stream = options.stream ?? process.stderr;
    this.tty = options.tty;
    this.afterMs = options.afterMs ?? (options.tty ? 1000 : 2000);
    this.everyMs = options.everyMs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** Now waiting for `what` (the same wait goes on if it is unchanged); null: for nothing. */
  waiting(what: string | null): void {
    if (what === null) {
      this.wait = undefined;
      this.erase();
      return;
    }
    if (this.wait?.what !== what) this.wait = { what, since: this.now() };
  }

  /** Shows the wait if it has lasted long enough (the timer calls this; a test may too). */
  tick(): void {
    const wait = this.wait;
    if (!wait) return;
    const at = this.now();
    const waited = at - wait.since;
    if (waited < this.afterMs) return;
    const text = `${this.label}: waiting for ${wait.what} (${Math.floor(waited / 1000)} s)`;
    if (this.tty) {
      const width = Math.max(20, (this.stream.columns ?? 80) - 1);
      const shown = text.length > width ? `${text.slice(0, width - 1)}…` : text;
      if (shown !== this.drawn) this.stream.write(`\r\x1b[K${shown}`);
      this.drawn = shown;
    } else if (wait.printed === undefined || at - wait.printed >= this.everyMs) {
      wait.printed = at;
      this.stream.write(`${text}\n`);
    }
  }

  /** Erases the line and stops: call before anything else is written to the stream. */
  stop(): void {
    clearInterval(this.timer);
    this.wait = undefined;
    this.erase();
  }

  private erase(): void {
    if (this.drawn === undefined) return;
    this.stream.write("\r\x1b[K");
    this.drawn = undefined;
  }
}
