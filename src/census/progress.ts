/**
 * How far a census has got, on stderr: on a terminal one bar redrawn in place (at most ten times
 * a second, so a fast census does not spend its time drawing), otherwise a plain line every few
 * seconds that a log file or CI keeps readably.
 */

/**
 * How the census's limits shape the work left: how many targets each host has left to probe, and
 * how many probes may be in flight in all and per host. With these the ETA sees what the rate
 * alone cannot: targets piled on one host are probed one after another however many may run.
 */
export interface Lanes {
  /** Targets left to probe, by host (see `hostOf`). */
  hosts: ReadonlyMap<string, number>;
  perHost: number;
  concurrency: number;
}

/** How many probes can really be in flight at once: `concurrency`, unless the hosts and the per-host limit allow fewer. */
export function effectiveParallelism(lanes: Lanes): number {
  let open = 0;
  for (const left of lanes.hosts.values()) open += Math.min(lanes.perHost, left);
  return Math.min(lanes.concurrency, open);
}

export interface ProgressOptions {
  total: number;
  /** The limits and where the targets are, for an ETA that knows a host's targets wait their turn. */
  lanes?: Lanes;
  /** Already done before this process started (a resumed run). */
  done?: number;
  stream?: NodeJS.WriteStream;
  /** Redraw a bar in place (default: when the stream is a terminal). */
  tty?: boolean;
  /** How often a plain line is written when not on a terminal. Default 5 s. */
  everyMs?: number;
  now?: () => number;
}

export interface ProgressState {
  total: number;
  done: number;
  /** Attempts finished by this process, for the rate. */
  doneHere: number;
  elapsedMs: number;
  classes: Map<string, number>;
  /** Set while the census admits fewer probes than it may, with why (its own event loop is behind). */
  throttle?: string | undefined;
  /**
   * Seconds left, when the progress knows better than the rate alone (see `Lanes`), counting down
   * between attempts; undefined while nothing is known. Absent: from the rate.
   */
  eta?: number | undefined;
}

/** What one finished attempt tells about the time the rest will take. */
export interface AttemptTiming {
  /** The host it was probed on (see `hostOf`). */
  host: string;
  /** How long its probe took. */
  ms: number;
}

const REDRAW_MS = 100;
/** On a terminal the bar is redrawn this often even when no attempt finished, so the ETA counts down. */
const REFRESH_MS = 1000;
const BAR = 20;

export class Progress {
  readonly #stream: NodeJS.WriteStream;
  readonly #tty: boolean;
  readonly #now: () => number;
  readonly #started: number;
  readonly #state: ProgressState;
  readonly #timer: ReturnType<typeof setInterval>;
  #dirty = true;
  #drawn = false;
  #lastDraw = 0;
  readonly #lanes: { hosts: Map<string, number>; perHost: number; concurrency: number } | undefined;
  #probedMs = 0;
  #probed = 0;
  /** An attempt finished since the ETA was last estimated. */
  #stale = false;
  /** The ETA as estimated after the last attempt, and when: it counts down from there. */
  #etaBase: { at: number; seconds: number } | undefined;

  constructor(options: ProgressOptions) {
    this.#stream = options.stream ?? process.stderr;
    this.#tty = options.tty ?? this.#stream.isTTY === true;
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
    this.#state = { total: options.total, done: options.done ?? 0, doneHere: 0, elapsedMs: 0, classes: new Map() };
    if (options.lanes)
      this.#lanes = {
        hosts: new Map(options.lanes.hosts),
        perHost: Math.max(1, options.lanes.perHost),
        concurrency: Math.max(1, options.lanes.concurrency),
      };
    this.#timer = setInterval(() => this.#tick(), this.#tty ? REDRAW_MS : (options.everyMs ?? 5000));
    this.#timer.unref();
    if (this.#tty) this.#tick();
  }

  /** One attempt finished with this class; `timing` when it was probed (not refused as an invalid target). */
  add(cls: string, timing?: AttemptTiming): void {
    this.#state.done++;
    this.#state.doneHere++;
    this.#state.classes.set(cls, (this.#state.classes.get(cls) ?? 0) + 1);
    if (timing && this.#lanes) {
      const left = this.#lanes.hosts.get(timing.host);
      if (left !== undefined) this.#lanes.hosts.set(timing.host, Math.max(0, left - 1));
      this.#probed++;
      this.#probedMs += timing.ms;
    }
    this.#stale = true;
    this.#dirty = true;
  }

  /**
   * Seconds left: the rate so far, but never less than the limits allow. The targets left, spread
   * over the probes that can really run at once, take at least their share of the mean probe's
   * time each, and the host with most targets left takes its turns one `perHost` at a time.
   */
  #reestimate(): void {
    this.#stale = false;
    const now = this.#now();
    const elapsed = now - this.#started;
    const left = this.#state.total - this.#state.done;
    const byRate = this.#state.doneHere > 0 && elapsed > 0 ? (left * elapsed) / this.#state.doneHere / 1000 : undefined;
    let byLimits: number | undefined;
    const lanes = this.#lanes;
    if (lanes && this.#probed > 0) {
      const mean = this.#probedMs / this.#probed / 1000;
      const parallel = effectiveParallelism(lanes);
      let probesLeft = 0;
      let longest = 0;
      for (const n of lanes.hosts.values()) {
        probesLeft += n;
        longest = Math.max(longest, Math.ceil(n / lanes.perHost));
      }
      byLimits = parallel > 0 ? Math.max(Math.ceil(probesLeft / parallel), longest) * mean : 0;
    }
    const seconds = byRate === undefined ? byLimits : Math.max(byRate, byLimits ?? 0);
    this.#etaBase = seconds === undefined ? undefined : { at: now, seconds };
  }

  /**
   * The whole run's state as the store counts it, when other processes work on the same run:
   * their attempts move the bar too. The rate stays this process's own.
   */
  sync(done: number, classes: ReadonlyMap<string, number>): void {
    this.#state.done = done;
    this.#state.classes = new Map(classes);
    this.#stale = true;
    this.#dirty = true;
  }

  /** The census throttles itself (`text` says to what and why), or no longer does (undefined). */
  throttled(text: string | undefined): void {
    if (this.#state.throttle === text) return;
    this.#state.throttle = text;
    this.#dirty = true;
  }

  get state(): ProgressState {
    // estimated when shown, not at every attempt: a look at every host costs a census of many
    if (this.#stale) this.#reestimate();
    const now = this.#now();
    const base = this.#etaBase;
    const eta = base === undefined ? undefined : Math.max(0, base.seconds - (now - base.at) / 1000);
    return { ...this.#state, elapsedMs: now - this.#started, classes: new Map(this.#state.classes), eta };
  }

  /** A message that must not be drawn over: the bar is cleared first and comes back after. */
  note(text: string): void {
    this.#clear();
    this.#stream.write(text.endsWith("\n") ? text : `${text}\n`);
    this.#dirty = true;
  }

  /** Stops drawing and clears the bar, leaving the terminal as it was. */
  stop(): void {
    clearInterval(this.#timer);
    this.#clear();
  }

  #tick(): void {
    const now = this.#now();
    // on a terminal the ETA counts down between attempts; a log gets a line only for news
    if (!this.#dirty && !(this.#tty && this.#drawn && now - this.#lastDraw >= REFRESH_MS)) return;
    this.#dirty = false;
    this.#lastDraw = now;
    if (this.#tty) {
      const width = Math.max(40, (this.#stream.columns ?? 100) - 1);
      this.#stream.write(`\r\x1b[2K${fit(renderBar(this.state), width)}`);
      this.#drawn = true;
    } else {
      this.#stream.write(`${renderLine(this.state)}\n`);
    }
  }

  #clear(): void {
    if (this.#drawn) this.#stream.write("\r\x1b[2K");
    this.#drawn = false;
  }
}

/** `[████████░░░░] 1,234/2,000 62% · 41.2/s · ETA 0:19 · ok 800 · timeout 120 …` */
export function renderBar(s: ProgressState): string {
  const share = s.total === 0 ? 1 : s.done / s.total;
  const filled = Math.round(share * BAR);
  const parts = [
    `[${"█".repeat(filled)}${"░".repeat(BAR - filled)}] ${thousands(s.done)}/${thousands(s.total)} ${Math.floor(share * 100)}%`,
    `${rate(s)}/s`,
    `ETA ${clock(eta(s))}`,
  ];
  if (s.throttle) parts.push(s.throttle);
  const classes = classList(s.classes);
  if (classes) parts.push(classes);
  return parts.join(" · ");
}

/** `census: 1,234 of 2,000 done (62%), 41.2/s, about 0:19 left; ok 800, timeout 120` */
export function renderLine(s: ProgressState): string {
  const share = s.total === 0 ? 1 : s.done / s.total;
  const classes = classList(s.classes, ", ");
  return `census: ${thousands(s.done)} of ${thousands(s.total)} done (${Math.floor(share * 100)}%), ${rate(s)}/s, about ${clock(eta(s))} left${s.throttle ? ` (${s.throttle})` : ""}${classes ? `; ${classes}` : ""}`;
}

/** Classes by count, most first: `ok 800 · timeout 120`. */
export function classList(classes: ReadonlyMap<string, number>, separator = " · "): string {
  return [...classes]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([c, k]) => `${c} ${thousands(k)}`)
    .join(separator);
}

function perSecond(s: ProgressState): number {
  return s.elapsedMs > 0 ? (s.doneHere * 1000) / s.elapsedMs : 0;
}

function rate(s: ProgressState): string {
  const r = perSecond(s);
  return r >= 100 ? r.toFixed(0) : r.toFixed(1);
}

/** Seconds left: as the progress estimated it, else at the rate so far; undefined until known. */
function eta(s: ProgressState): number | undefined {
  if ("eta" in s) return s.eta;
  const r = perSecond(s);
  return r > 0 ? (s.total - s.done) / r : undefined;
}

export function clock(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return "?";
  const t = Math.round(seconds);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** A count with its thousands grouped: 12,345. */
export function thousands(x: number): string {
  return x.toLocaleString("en");
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** `throttled to 8/32: this process's event loop is 140 ms behind · 3 re-probed`, or undefined at full speed with nothing re-probed. */
export function throttleText(a: {
  limit: number;
  ceiling: number;
  reason: string | undefined;
  reprobed: number;
}): string | undefined {
  const parts: string[] = [];
  if (a.reason !== undefined && a.limit < a.ceiling) parts.push(`throttled to ${a.limit}/${a.ceiling}: ${a.reason}`);
  if (a.reprobed > 0) parts.push(`${a.reprobed} re-probed after a stall here`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}
