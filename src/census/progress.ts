/**
 * How far a census has got, on stderr: on a terminal one bar redrawn in place (at most ten times
 * a second, so a fast census does not spend its time drawing), otherwise a plain line every few
 * seconds that a log file or CI keeps readably.
 */

export interface ProgressOptions {
  total: number;
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
}

const REDRAW_MS = 100;
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

  constructor(options: ProgressOptions) {
    this.#stream = options.stream ?? process.stderr;
    this.#tty = options.tty ?? this.#stream.isTTY === true;
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
    this.#state = { total: options.total, done: options.done ?? 0, doneHere: 0, elapsedMs: 0, classes: new Map() };
    this.#timer = setInterval(() => this.#tick(), this.#tty ? REDRAW_MS : options.everyMs ?? 5000);
    this.#timer.unref();
    if (this.#tty) this.#tick();
  }

  /** One attempt finished with this class. */
  add(cls: string): void {
    this.#state.done++;
    this.#state.doneHere++;
    this.#state.classes.set(cls, (this.#state.classes.get(cls) ?? 0) + 1);
    this.#dirty = true;
  }

  /**
   * The whole run's state as the store counts it, when other processes work on the same run:
   * their attempts move the bar too. The rate stays this process's own.
   */
  sync(done: number, classes: ReadonlyMap<string, number>): void {
    this.#state.done = done;
    this.#state.classes = new Map(classes);
    this.#dirty = true;
  }

  /** The census throttles itself (`text` says to what and why), or no longer does (undefined). */
  throttled(text: string | undefined): void {
    if (this.#state.throttle === text) return;
    this.#state.throttle = text;
    this.#dirty = true;
  }

  get state(): ProgressState {
    return { ...this.#state, elapsedMs: this.#now() - this.#started, classes: new Map(this.#state.classes) };
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
    if (!this.#dirty) return;
    this.#dirty = false;
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
  const parts = [`[${"█".repeat(filled)}${"░".repeat(BAR - filled)}] ${n(s.done)}/${n(s.total)} ${Math.floor(share * 100)}%`, `${rate(s)}/s`, `ETA ${clock(eta(s))}`];
  if (s.throttle) parts.push(s.throttle);
  const classes = classList(s.classes);
  if (classes) parts.push(classes);
  return parts.join(" · ");
}

/** `census: 1,234 of 2,000 done (62%), 41.2/s, about 0:19 left; ok 800, timeout 120` */
export function renderLine(s: ProgressState): string {
  const share = s.total === 0 ? 1 : s.done / s.total;
  const classes = classList(s.classes, ", ");
  return `census: ${n(s.done)} of ${n(s.total)} done (${Math.floor(share * 100)}%), ${rate(s)}/s, about ${clock(eta(s))} left${s.throttle ? ` (${s.throttle})` : ""}${classes ? `; ${classes}` : ""}`;
}

/** Classes by count, most first: `ok 800 · timeout 120`. */
export function classList(classes: ReadonlyMap<string, number>, separator = " · "): string {
  return [...classes]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([c, k]) => `${c} ${n(k)}`)
    .join(separator);
}

function perSecond(s: ProgressState): number {
  return s.elapsedMs > 0 ? (s.doneHere * 1000) / s.elapsedMs : 0;
}

function rate(s: ProgressState): string {
  const r = perSecond(s);
  return r >= 100 ? r.toFixed(0) : r.toFixed(1);
}

/** Seconds left at the rate so far; undefined until there is a rate. */
function eta(s: ProgressState): number | undefined {
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

function n(x: number): string {
  return x.toLocaleString("en");
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** `throttled to 8/32: this process's event loop is 140 ms behind · 3 re-probed`, or undefined at full speed with nothing re-probed. */
export function throttleText(a: { limit: number; ceiling: number; reason: string | undefined; reprobed: number }): string | undefined {
  const parts: string[] = [];
  if (a.reason !== undefined && a.limit < a.ceiling) parts.push(`throttled to ${a.limit}/${a.ceiling}: ${a.reason}`);
  if (a.reprobed > 0) parts.push(`${a.reprobed} re-probed after a stall here`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}
