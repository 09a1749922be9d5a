/**
 * A census that knows when it is the problem. A probe's deadline runs on this process's clock;
 * when the process itself is short of CPU (busy neighbours, too many probes at once), answers
 * sit unread in its sockets while its event loop is behind, and healthy servers would be
 * recorded as `timeout`. So the census watches its own event-loop delay while probes run:
 *
 * - it admits new probes only while the loop keeps up: the number in flight shrinks by half when
 *   the loop falls behind and grows back step by step when it keeps up again, never above
 *   `--concurrency`;
 * - a probe that timed out (or was reset) while the loop was stalled is probed again (its verdict says more
 *   about this process than about the server), up to a few times, before `timeout` is recorded.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

/** How often the loop's delay is read and the limit adjusted. */
const TICK_MS = 100;
/** The loop counts as behind when its worst delay in a tick passes this. */
const BEHIND_MS = 60;
/** … and as keeping up again when it stays under this. */
const KEEPING_UP_MS = 20;
/** A timed-out probe is taken as the census's fault when the loop lost this share of its window… */
const STALLED_SHARE = 0.1;
/** … or was this far behind at one point in it. */
const STALLED_PEAK_MS = 250;
/** How many times a probe may be repeated because the loop was stalled. */
const MAX_REPROBES = 4;
/** The longest a repeat waits for the loop to keep up again. */
const CALM_WAIT_MS = 5_000;
/** Ticks kept to judge past probe windows (a minute at TICK_MS). */
const HISTORY = 600;

export interface AdmissionState {
  /** Probes admitted at once now. */
  limit: number;
  /** `--concurrency`: the most ever admitted. */
  ceiling: number;
  /** Why it admits fewer than the ceiling (undefined when it does not). */
  reason: string | undefined;
  /** Probes repeated so far because their timeout fell in a stall of this process. */
  reprobed: number;
}

export interface AdmissionOptions {
  ceiling: number;
  /** Told each time the limit or its reason changes (the progress bar shows it). */
  onChange?: (state: AdmissionState) => void;
}

/** Adaptive admission under a ceiling, and the record of this process's stalls. */
export class Admission {
  private current: number;
  private readonly histogram: IntervalHistogram;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Per tick: its end (ms, performance.now) and how far behind the loop was (ms). */
  private readonly ends = new Float64Array(HISTORY);
  private readonly lags = new Float64Array(HISTORY);
  private ticks = 0;
  private lastTick = 0;
  private lastLag = 0;
  private reprobes = 0;
  private why: string | undefined;

  constructor(private readonly options: AdmissionOptions) {
    this.current = Math.max(1, Math.floor(options.ceiling));
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
  }

  /** Probes that may be in flight now. */
  get limit(): number {
    return this.current;
  }

  get state(): AdmissionState {
    return { limit: this.current, ceiling: this.options.ceiling, reason: this.why, reprobed: this.reprobes };
  }

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.lastTick = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.histogram.disable();
  }

  /**
   * Runs `probe` and, while its outcome is a timeout that fell in a stall of this process,
   * runs it again (with fewer probes admitted by then, the loop has room to read the answer).
   */
  async probe<T>(run: () => Promise<T>, timedOut: (result: T) => boolean): Promise<T> {
    let first: T | undefined;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const result = await run();
      if (!timedOut(result)) return result;
      first ??= result;
      // still stalled after every repeat: the first verdict stands (later ones met a worse machine)
      if (attempt >= MAX_REPROBES) return first;
      // the last tick may not have been read yet: read the loop now, so a stall just ended counts
      this.tick();
      if (!this.stalledSince(started)) return result;
      this.reprobes++;
      this.options.onChange?.(this.state);
      // probed again once the loop keeps up, so the repeat does not meet the same stall
      await this.calm();
    }
  }

  /** Resolves once a tick finds the loop keeping up, or after CALM_WAIT_MS whatever it finds. */
  private async calm(): Promise<void> {
    const until = performance.now() + CALM_WAIT_MS;
    while (this.timer && this.lastLag >= KEEPING_UP_MS && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
  }

  /** Whether the loop lost enough time since `since` (performance.now) to have caused a timeout. */
  stalledSince(since: number): boolean {
    const window = performance.now() - since;
    let lost = 0;
    let peak = 0;
    for (let k = 1; k <= Math.min(this.ticks, HISTORY); k++) {
      const i = (this.ticks - k) % HISTORY;
      if (this.ends[i]! < since) break;
      lost += this.lags[i]!;
      peak = Math.max(peak, this.lags[i]!);
    }
    return peak >= STALLED_PEAK_MS || (window > 0 && lost / window >= STALLED_SHARE);
  }

  private tick(): void {
    const now = performance.now();
    const elapsed = now - this.lastTick;
    if (elapsed < 1) return;
    // how late the loop ran: the histogram's worst delay, and this timer's own lateness
    const worst = Math.max(this.histogram.max / 1e6 - 10, elapsed - TICK_MS, 0);
    const lag = Number.isFinite(worst) ? Math.min(worst, elapsed) : 0;
    this.histogram.reset();
    this.lastTick = now;
    this.lastLag = lag;
    const i = this.ticks % HISTORY;
    this.ends[i] = now;
    this.lags[i] = lag;
    this.ticks++;
    this.adjust();
  }

  /** Halves the limit when the loop falls behind; grows it back by a tenth of the ceiling at a time when it keeps up. */
  private adjust(): void {
    const ceiling = Math.max(1, Math.floor(this.options.ceiling));
    let next = this.current;
    let why = this.why;
    if (this.lastLag >= BEHIND_MS) {
      next = Math.max(1, Math.floor(this.current / 2));
      why = `this process's event loop is ${Math.round(this.lastLag)} ms behind`;
    } else if (this.lastLag < KEEPING_UP_MS && this.current < ceiling) {
      next = Math.min(ceiling, this.current + Math.max(1, Math.ceil(ceiling / 10)));
    }
    if (next >= ceiling) why = undefined;
    if (next !== this.current || why !== this.why) {
      this.current = next;
      this.why = why;
      this.options.onChange?.(this.state);
    }
  }
}
