/**
 * A census that knows when it is the problem. A probe's deadline runs on this process's clock;
 * when the process itself is short of CPU (busy neighbours, too many probes at once), answers
 * sit unread in its sockets while its event loop is behind, and healthy servers would be
 * recorded as `timeout`. So the census watches its own event-loop delay while probes run:
 *
 * - it admits new probes only while the loop keeps up: the number of busy probes shrinks by half
 *   when the loop falls behind (late, or busy all the time: too many probes share what CPU the
 *   process gets) and grows back step by step when it keeps up again, never above
 *   `--concurrency`. A probe that has waited a quarter of its deadline without an end is waiting
 *   on a silent server, which costs this process nothing, so it stops counting against that
 *   adaptive number (never against `--concurrency`): hanging servers cannot starve the rest;
 * - a probe that timed out while the loop was stalled is probed again (its verdict
 *   says more about this process than about the server), once the loop keeps up again, as long
 *   as each repeat meets a stall too, up to a bound; a server that stays silent while the loop
 *   keeps up is recorded as `timeout`, and so is one that stayed silent far longer than the
 *   loop's worst delay could explain (an answer that came is read within a turn or two of the
 *   loop, however busy it is). A probe waiting to be repeated costs nothing, and counts against
 *   the adaptive number no more than a silent one.
 *
 * What counts as behind is measured against the probe's deadline: a loop 50 ms late cannot make a
 * 2 s probe time out, and a census that throttles for it only runs slower.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from "node:perf_hooks";

/** How often the loop's delay is read and the limit adjusted. */
const TICK_MS = 100;
/** The histogram's resolution: its delays include this much of its own timer. */
const RESOLUTION_MS = 10;
/** How many times a probe may be repeated because the loop was stalled. */
const MAX_REPROBES = 4;
/**
 * How far before a probe's start a stall still counts: a close or an answer that arrived during
 * a stall just before the probe began is read only after it began.
 */
const LOOKBACK_MS = 2 * TICK_MS;
/** Ticks kept to judge past probe windows (ten minutes at TICK_MS). */
const HISTORY = 6_000;
/**
 * The loop is saturated when it spent this share of a tick busy: it never waits for I/O, so
 * every probe in flight shares what CPU the process gets, and all of them slow down at once
 * (its delay can stay small meanwhile: each turn is short, there are just too many to serve).
 */
const SATURATED = 0.9;
/** … and has room again below this. */
const ROOMY = 0.75;
/** A timeout is this process's doing when its loop was saturated for this share of the probe's window. */
const SATURATED_SHARE = 0.5;
/**
 * Ticks between two halvings: a smaller limit shows in the loop only once the probes admitted
 * before it end, and halving every tick meanwhile would starve the census of work for nothing.
 */
const HALVE_EVERY_TICKS = 5;
/** The limit never goes below this share of the ceiling: a census is bound by waiting, and one probe at a time would wait for ever. */
const FLOOR_SHARE = 0.1;
/** The deadline assumed when none is given. */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface AdmissionState {
  /** Busy probes admitted at once now. */
  limit: number;
  /** `--concurrency`: the most ever in flight. */
  ceiling: number;
  /** Why it admits fewer than the ceiling (undefined when it does not). */
  reason: string | undefined;
  /** Probes repeated so far because their timeout fell in a stall of this process. */
  reprobed: number;
}

export interface AdmissionOptions {
  ceiling: number;
  /** Each probe's deadline, ms: the yardstick for how far behind the loop may fall. Default 10 s. */
  timeoutMs?: number;
  /** Told each time the limit or its reason changes (the progress bar shows it). */
  onChange?: (state: AdmissionState) => void;
}

/** The loop's thresholds for one probe deadline. */
interface Thresholds {
  /** The loop is behind when a tick's worst delay passes this (the limit halves)… */
  behindMs: number;
  /** … and keeps up when it stays under this (the limit grows back). */
  keepingUpMs: number;
  /** A timeout is this process's doing when its window held a delay this long… */
  stallPeakMs: number;
  /** … or the loop lost this much in all during it. */
  stallLostMs: number;
  /** A probe in flight this long is waiting on a silent server. */
  quietAfterMs: number;
  /** A timeout is the server's when it was silent this much longer than twice the loop's worst delay meanwhile. */
  silentMs: number;
  /** The longest a repeat waits for the loop to keep up again. */
  calmWaitMs: number;
}

/**
 * Each exchange of a probe waits a few turns of the loop (connect, request, answer; more when its
 * server shares the process), each turn as long as the loop's delay: with a handful of exchanges,
 * a loop a fortieth of the deadline behind all along leaves little to spare, so the census
 * throttles there, and takes a timeout as its own doing when the loop lost a quarter of the
 * deadline in the probe's window, in all or in one stall (one close to the deadline leaves the
 * answers that came meanwhile unread when the deadline fires).
 */
function thresholdsFor(timeoutMs: number): Thresholds {
  const t = Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS;
  const behindMs = clamp(t / 40, 50, 250);
  return {
    behindMs,
    keepingUpMs: behindMs / 3,
    stallPeakMs: clamp(t / 4, 100, 5_000),
    stallLostMs: Math.max(t / 4, 100),
    quietAfterMs: Math.max(t / 4, 250),
    silentMs: t / 2,
    calmWaitMs: clamp(t, 1_000, 5_000),
  };
}

interface InFlight {
  started: number;
  quiet: boolean;
  /** When an answer last came for the probe (or it started), performance.now. */
  heard: number;
}

/** Adaptive admission under a ceiling, and the record of this process's stalls. */
export class Admission {
  private current: number;
  private readonly ceiling: number;
  private readonly thresholds: Thresholds;
  private readonly histogram: IntervalHistogram;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Per tick: its end (ms, performance.now) and how far behind the loop was (ms). */
  private readonly ends = new Float64Array(HISTORY);
  private readonly lags = new Float64Array(HISTORY);
  /** Per tick: how long the loop was saturated in it (ms, the whole tick or nothing). */
  private readonly saturated = new Float64Array(HISTORY);
  private ticks = 0;
  /** Ticks of the timer (the limit is adjusted on these only). */
  private timerTicks = 0;
  private lastHalved = -HALVE_EVERY_TICKS;
  private lastUse: EventLoopUtilization | undefined;
  /** The loop's use at the last timer tick: each adjustment judges the whole window since. */
  private timerUse: EventLoopUtilization | undefined;
  /** The worst delay recorded since the last timer tick (a tick a probe asked for included). */
  private windowPeak = 0;
  /** The loop's busy share and worst delay over the last timer tick's whole window. */
  private lastUtilization = 0;
  private lastTick = 0;
  private lastTimerTick = 0;
  private lastLag = 0;
  private reprobes = 0;
  private why: string | undefined;
  private readonly inFlight = new Set<InFlight>();
  /** Probes in flight past `quietAfterMs`: not counted against the adaptive limit. */
  private quiet = 0;
  private readonly raised = new Set<() => void>();

  constructor(private readonly options: AdmissionOptions) {
    this.ceiling = Math.max(1, Math.floor(options.ceiling));
    // a quarter at first, grown to the ceiling within a few ticks while the loop keeps up: a
    // first wave of every probe at once on a starved process would slow them all past their deadline
    this.current = Math.max(1, Math.ceil(this.ceiling / 4));
    this.thresholds = thresholdsFor(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  }

  /** Probes that may be in flight now: the busy ones admitted, plus those waiting on silent servers. */
  get limit(): number {
    return Math.min(this.ceiling, this.current + this.quiet);
  }

  get state(): AdmissionState {
    return { limit: this.current, ceiling: this.ceiling, reason: this.why, reprobed: this.reprobes };
  }

  /** Calls `listener` whenever `limit` may have grown, so waiting work can start. Returns the way to stop. */
  onRaise(listener: () => void): () => void {
    this.raised.add(listener);
    return () => this.raised.delete(listener);
  }

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.lastTick = this.lastTimerTick = performance.now();
    this.lastUse = this.timerUse = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.tick(true), TICK_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.histogram.disable();
  }

  /**
   * Runs `probe` and, while its outcome is one this process may have caused and the loop was
   * stalled while it ran, runs it again once the loop keeps up (and, when given, `gapMs` after the
   * last try, as any request to that host would wait), at most MAX_REPROBES times. When every
   * repeat met a stall as well, the first verdict stands: later ones met no better machine.
   */
  async probe<T>(run: (progress: () => void) => Promise<T>, suspect: (result: T) => boolean, gapMs = 0): Promise<T> {
    let first: T | undefined;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const entry: InFlight = { started, quiet: false, heard: started };
      this.inFlight.add(entry);
      let result: T;
      try {
        result = await run(() => void (entry.heard = performance.now()));
      } finally {
        this.inFlight.delete(entry);
        if (entry.quiet) this.quiet--;
      }
      if (!suspect(result)) return result;
      first ??= result;
      if (attempt >= MAX_REPROBES) return first;
      // the last tick may not have been read yet: read the loop now, so a stall just ended counts
      this.tick();
      if (!this.stalledSince(started - LOOKBACK_MS) || this.silentBeyondStalls(entry.heard)) return result;
      this.reprobes++;
      this.options.onChange?.(this.state);
      // probed again once the loop keeps up, so the repeat does not meet the same stall; the
      // wait costs nothing, so it does not hold one of the busy probes' places meanwhile
      this.quiet++;
      this.wake();
      try {
        await Promise.all([this.calm(), gapMs > 0 ? sleep(gapMs) : undefined]);
      } finally {
        this.quiet--;
      }
    }
  }

  /**
   * Whether a probe that last made progress at `heard` (performance.now) had been waiting on its
   * server for longer than this process's stalls since then can account for: an answer that
   * arrived is read within a turn or two of the loop, so a silence longer than twice the worst
   * turn by half the deadline or more is the server's.
   */
  silentBeyondStalls(heard: number): boolean {
    let peak = this.lastLag;
    for (let k = 1; k <= Math.min(this.ticks, HISTORY); k++) {
      const i = (this.ticks - k) % HISTORY;
      if (this.ends[i]! < heard) break;
      // (the tick that ended first after `heard` covers some time before it: counted whole)
      peak = Math.max(peak, this.lags[i]!);
    }
    return performance.now() - heard - 2 * peak >= this.thresholds.silentMs;
  }

  private wake(): void {
    for (const wake of [...this.raised]) wake();
  }

  /** Resolves once a tick finds the loop keeping up, or after a while whatever it finds. */
  private async calm(): Promise<void> {
    const until = performance.now() + this.thresholds.calmWaitMs;
    while (
      this.timer &&
      (this.lastLag >= this.thresholds.keepingUpMs || this.lastUtilization >= ROOMY) &&
      performance.now() < until
    ) {
      await sleep(TICK_MS);
    }
  }

  /** Whether the loop lost enough time since `since` (performance.now) to have caused a timeout. */
  stalledSince(since: number): boolean {
    let lost = 0;
    let peak = 0;
    let saturated = 0;
    for (let k = 1; k <= Math.min(this.ticks, HISTORY); k++) {
      const i = (this.ticks - k) % HISTORY;
      if (this.ends[i]! < since) break;
      lost += this.lags[i]!;
      peak = Math.max(peak, this.lags[i]!);
      saturated += this.saturated[i]!;
    }
    const window = performance.now() - since;
    return (
      peak >= this.thresholds.stallPeakMs ||
      lost >= this.thresholds.stallLostMs ||
      (window > 0 && saturated >= window * SATURATED_SHARE)
    );
  }

  /**
   * Records how far behind the loop ran since the last record. A probe may ask for a record in
   * the middle of a turn (its timeout just came): such a window is short and ends with the loop
   * busy running that very probe, so its busy share says little; the limit is adjusted on the
   * timer's ticks only, each judging its whole window (the worst delay any record in it saw).
   */
  private tick(timer = false): void {
    const now = performance.now();
    const elapsed = now - this.lastTick;
    if (elapsed < 1 && !timer) return;
    // how late the loop ran: the histogram's worst delay, and this timer's own lateness
    const late = timer ? now - this.lastTimerTick - TICK_MS : 0;
    const worst = Math.max(this.histogram.max / 1e6 - RESOLUTION_MS, late, 0);
    const lag = Number.isFinite(worst) ? Math.min(worst, timer ? now - this.lastTimerTick : elapsed) : 0;
    this.histogram.reset();
    const use = performance.eventLoopUtilization();
    const utilization = this.lastUse ? performance.eventLoopUtilization(use, this.lastUse).utilization : 0;
    this.lastUse = use;
    this.lastTick = now;
    const i = this.ticks % HISTORY;
    this.ends[i] = now;
    this.lags[i] = lag;
    this.saturated[i] = utilization >= SATURATED ? elapsed : 0;
    this.ticks++;
    this.windowPeak = Math.max(this.windowPeak, lag);
    const before = this.limit;
    for (const p of this.inFlight) {
      if (!p.quiet && now - p.started >= this.thresholds.quietAfterMs) {
        p.quiet = true;
        this.quiet++;
      }
    }
    if (timer) {
      this.lastUtilization = this.timerUse ? performance.eventLoopUtilization(use, this.timerUse).utilization : 0;
      this.timerUse = use;
      this.lastTimerTick = now;
      this.lastLag = this.windowPeak;
      this.windowPeak = 0;
      this.timerTicks++;
      this.adjust();
    }
    if (this.limit > before) this.wake();
  }

  /** Halves the limit when the loop falls behind (at most every few ticks, never below a floor); grows it back by a tenth of the ceiling at a time when it keeps up. */
  private adjust(): void {
    const { behindMs, keepingUpMs } = this.thresholds;
    let next = this.current;
    let why = this.why;
    const floor = Math.max(1, Math.ceil(this.ceiling * FLOOR_SHARE));
    const behind = this.lastLag >= behindMs;
    if (behind) {
      if (this.timerTicks - this.lastHalved >= HALVE_EVERY_TICKS) {
        next = Math.max(floor, Math.floor(this.current / 2));
        this.lastHalved = this.timerTicks;
      }
      why = `this process's event loop is ${Math.round(this.lastLag)} ms behind`;
    } else if (this.lastUtilization >= SATURATED) {
      // busy all the time yet on time: each turn of the loop is short, so an answer waits no
      // longer than the delay measured (and every probe that much per exchange, which its
      // deadline has room for): the loop does all it can, and fewer probes would only leave
      // CPU unused while they wait on the network. More would make the turns longer: hold.
      why = `this process's event loop is ${Math.round(this.lastUtilization * 100)}% busy`;
    } else if (this.lastLag < keepingUpMs && this.lastUtilization < SATURATED && this.current < this.ceiling) {
      next = Math.min(this.ceiling, this.current + Math.max(1, Math.ceil(this.ceiling / 10)));
    }
    if (next >= this.ceiling) why = undefined;
    if (next !== this.current || why !== this.why) {
      this.current = next;
      this.why = why;
      this.options.onChange?.(this.state);
    }
  }
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
