/**
 * What `report --serve` shows, held in memory: the last 30 days of every target's attempts as
 * small samples (time, class, elapsed), its latest attempt, and its change log. Built by one
 * streaming pass over the window, then extended with the attempts stored since (a census running
 * beside it), so a page is answered from memory, whichever engine holds the census, and the
 * server never writes to the database.
 */
import { createHash } from "node:crypto";
import type { AttemptRecord, HistoryRecord, Store } from "../../census/store.js";
import { ChangeTracker, type Change } from "../changes.js";

const DAY = 86_400_000;
/** The windows the index reports, by name. */
const WINDOWS = { "24h": DAY, "7d": 7 * DAY, "30d": 30 * DAY } as const;
export type WindowName = keyof typeof WINDOWS;
const KEPT_MS = WINDOWS["30d"];

/** Up: the server answered as an MCP server, or asked for credentials (it answered). */
const UP = new Set(["ok", "auth_required"]);
/** No answer at all: these have no latency worth a percentile. */
const UNANSWERED = new Set(["unreachable", "timeout", "invalid_target"]);

/** Whether an attempt of this class answered, so that its elapsed time is a latency. */
export function answered(cls: string): boolean {
  return !UNANSWERED.has(cls);
}

/** The `q` quantile of ascending `sorted` by nearest rank; null when it is empty. */
export function nearestRank(sorted: readonly number[], q: number): number | null {
  return sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * How far back a refresh reads before the newest attempt it has seen: an attempt is stamped when
 * its probe started and stored when it ended, so one stored later may carry an earlier time.
 */
const OVERLAP_MS = 10 * 60_000;

interface Sample {
  at: number;
  runId: number;
  cls: string;
  elapsedMs: number;
}

interface Entry {
  id: string;
  target: string;
  samples: Sample[];
  latest: HistoryRecord;
}

export interface WindowStats {
  attempts: number;
  /** Share of attempts that were up, in percent to one decimal; null with no attempt in the window. */
  uptimePct: number | null;
  /** The 95th percentile (nearest rank) of the elapsed time of attempts that answered; null with none. */
  p95LatencyMs: number | null;
}

export interface ServerDetail {
  summary: ServerSummary;
  latest: AttemptRecord;
  samples: readonly Sample[];
  changes: readonly Change[];
}

export interface ServerSummary {
  id: string;
  target: string;
  status: string;
  detail: string;
  up: boolean;
  serverName: string | null;
  serverVersion: string | null;
  revision: string | null;
  lastChecked: string;
  changedInLast24h: boolean;
  windows: Record<WindowName, WindowStats>;
}

/** A stable id for a target: a digest of the URL as stored (secrets already redacted there). */
export function serverId(target: string): string {
  return createHash("sha256").update(target).digest("hex").slice(0, 16);
}

export class ServeModel {
  readonly #entries = new Map<string, Entry>();
  readonly #byId = new Map<string, Entry>();
  readonly #tracker = new ChangeTracker();
  /** The newest attempt time read, ms. */
  #newest = 0;
  /** Bumped whenever an attempt is added: what an ETag is made of. */
  #version = 0;

  private constructor(private readonly store: Store) {}

  /** The last 30 days of `store`, as of `now`. */
  static async load(store: Store, now = Date.now()): Promise<ServeModel> {
    const model = new ServeModel(store);
    await model.#read(new Date(now - KEPT_MS).toISOString());
    return model;
  }

  get version(): number {
    return this.#version;
  }

  /** Reads what was stored since the last read. */
  async refresh(): Promise<void> {
    await this.#read(new Date(Math.max(0, this.#newest - OVERLAP_MS)).toISOString());
  }

  async #read(since: string): Promise<void> {
    const from = Date.parse(since);
    for await (const a of this.store.history({ since })) {
      const at = Date.parse(a.at);
      let e = this.#entries.get(a.target);
      if (!e) {
        e = { id: serverId(a.target), target: a.target, samples: [], latest: a };
        this.#entries.set(a.target, e);
        this.#byId.set(e.id, e);
      } else if (seen(e.samples, a.runId, from)) {
        continue;
      }
      e.samples.push({ at, runId: a.runId, cls: a.class, elapsedMs: a.elapsedMs });
      if (at >= Date.parse(e.latest.at)) e.latest = a;
      this.#tracker.add(a);
      if (at > this.#newest) this.#newest = at;
      this.#version++;
    }
    await this.#tracker.resolve(this.store);
  }

  /** The summaries last computed, the version and minute they were computed at. */
  #summaries: { version: number; minute: number; list: readonly ServerSummary[] } | undefined;

  /**
   * Every server, as the index and the API list them: computed again when attempts were added
   * or the minute changed (the windows slide with the clock), else the same array, so each
   * request does not redo 14,000 servers' statistics.
   */
  servers(now = Date.now()): readonly ServerSummary[] {
    const minute = Math.floor(now / 60_000);
    const cached = this.#summaries;
    if (cached && cached.version === this.#version && cached.minute === minute) return cached.list;
    const list = [...this.#entries.values()].map((e) => this.#summary(e, now));
    this.#summaries = { version: this.#version, minute, list };
    return list;
  }

  /** A server's page: its summary, its samples in the window and its changes; its latest attempt whole (one indexed read). */
  async server(id: string, now = Date.now()): Promise<ServerDetail | undefined> {
    const e = this.#byId.get(id);
    if (!e) return undefined;
    const cut = now - KEPT_MS;
    let latest: AttemptRecord | undefined;
    for await (const a of this.store.attempts({ target: e.target, since: e.latest.at }))
      if (a.runId === e.latest.runId) latest = a;
    if (!latest) return undefined;
    return {
      summary: this.#summary(e, now),
      latest,
      samples: e.samples.filter((s) => s.at >= cut),
      changes: this.#tracker.changesOf(e.target),
    };
  }

  /** A server's summary alone (its badge). */
  summary(id: string, now = Date.now()): ServerSummary | undefined {
    const e = this.#byId.get(id);
    return e && this.#summary(e, now);
  }

  #summary(e: Entry, now: number): ServerSummary {
    const l = e.latest;
    const windows = {} as Record<WindowName, WindowStats>;
    for (const [name, ms] of Object.entries(WINDOWS) as [WindowName, number][])
      windows[name] = stats(e.samples, now - ms);
    const dayAgo = now - DAY;
    return {
      id: e.id,
      target: e.target,
      status: l.class,
      detail: l.detail,
      up: UP.has(l.class),
      serverName: l.serverName,
      serverVersion: l.serverVersion,
      revision: l.revision,
      lastChecked: l.at,
      changedInLast24h: this.#tracker.changesOf(e.target).some((c) => Date.parse(c.at) >= dayAgo),
      windows,
    };
  }
}

/** Whether `samples` already hold the attempt of `runId` (one attempt per target per run). */
function seen(samples: readonly Sample[], runId: number, from: number): boolean {
  for (let i = samples.length - 1; i >= 0 && samples[i]!.at >= from - OVERLAP_MS; i--)
    if (samples[i]!.runId === runId) return true;
  return false;
}

function stats(samples: readonly Sample[], from: number): WindowStats {
  let attempts = 0;
  let up = 0;
  const elapsed: number[] = [];
  for (const s of samples) {
    if (s.at < from) continue;
    attempts++;
    if (UP.has(s.cls)) up++;
    if (answered(s.cls)) elapsed.push(s.elapsedMs);
  }
  elapsed.sort((a, b) => a - b);
  const p95 = nearestRank(elapsed, 0.95);
  return {
    attempts,
    uptimePct: attempts === 0 ? null : Math.round((up / attempts) * 1000) / 10,
    p95LatencyMs: p95 === null ? null : Math.round(p95),
  };
}
