/**
 * The census store's model, held in memory and answering at once: what the report's tests feed
 * known attempts into, and the plain-code statement of what each aggregate means, for every
 * engine to agree with. It has the Store's methods without the promises (tests build fixtures
 * with it synchronously), and `asStore()` gives it the promises where a Store is wanted.
 */
import { signinOf, type SigninGroup } from "../census/aggregate-rows.js";
import {
  LATENCY_BOUNDS_MS,
  type AggregateOptions,
  type AttemptQuery,
  type AttemptRecord,
  type Aggregates,
  type RunRecord,
  type Store,
  type TargetRecord,
} from "../census/store.js";

/** How many distinct messages an error code keeps as examples. */
const MESSAGES_PER_CODE = 5;

export class MemoryStore {
  readonly #runs: RunRecord[] = [];
  readonly #targets = new Map<number, TargetRecord[]>();
  readonly #names = new Map<string, string | null>();
  readonly #attempts: AttemptRecord[] = [];
  readonly #definitions = new Map<string, string>();
  #sorted = true;

  /** `now` stamps runs, so a test can place them in time. */
  constructor(private readonly now: () => Date = () => new Date()) {}

  startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): number {
    const id = this.#runs.length + 1;
    this.#runs.push({
      id,
      startedAt: this.now().toISOString(),
      finishedAt: null,
      source,
      targets: targets.length,
      settings: { ...settings },
    });
    this.#targets.set(
      id,
      targets.map((t) => ({ ...t })),
    );
    for (const t of targets) if (t.name !== null || !this.#names.has(t.target)) this.#names.set(t.target, t.name);
    return id;
  }

  finishRun(runId: number): void {
    const run = this.#runs.find((r) => r.id === runId);
    if (!run) throw new Error(`no run ${runId}`);
    run.finishedAt = this.now().toISOString();
  }

  recordAttempt(attempt: AttemptRecord): void {
    if (!this.#runs.some((r) => r.id === attempt.runId)) throw new Error(`no run ${attempt.runId}`);
    // definitions are kept once each, as the SQL engines keep them; the attempt holds name and digest
    const surface = attempt.surface
      ? { ...attempt.surface, tools: attempt.surface.tools.map((t) => ({ name: t.name, digest: t.digest })) }
      : null;
    for (const t of attempt.surface?.tools ?? [])
      if (t.definition !== undefined && !this.#definitions.has(t.digest)) this.#definitions.set(t.digest, t.definition);
    this.#attempts.push({ ...attempt, defects: [...attempt.defects], surface });
    this.#sorted = false;
  }

  pendingTargets(runId: number): TargetRecord[] {
    const done = new Set(this.#attempts.filter((a) => a.runId === runId).map((a) => a.target));
    return (this.#targets.get(runId) ?? []).filter((t) => !done.has(t.target));
  }

  unfinishedRun(): RunRecord | undefined {
    return [...this.#runs].reverse().find((r) => r.finishedAt === null);
  }

  runs(): RunRecord[] {
    return this.#runs.map((r) => ({ ...r }));
  }

  *attempts(query: AttemptQuery = {}): IterableIterator<AttemptRecord> {
    if (!this.#sorted) {
      // stable, so attempts stamped alike keep the order they were recorded in
      this.#attempts.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      this.#sorted = true;
    }
    const runIds = query.runIds ? new Set(query.runIds) : undefined;
    for (const a of this.#attempts) {
      if (runIds && !runIds.has(a.runId)) continue;
      if (query.since !== undefined && a.at < query.since) continue;
      if (query.target !== undefined && a.target !== query.target) continue;
      yield a;
    }
  }

  aggregate(query: AttemptQuery = {}, options: AggregateOptions = {}): Aggregates {
    const rows = [...this.attempts(query)];
    const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

    const perRun = new Map<number, number>();
    const classes = new Map<string, { class: string; detail: string; count: number }>();
    const classesPerRun = new Map<string, { runId: number; class: string; count: number }>();
    const revisions = new Map<string, { era: string | null; revision: string | null; count: number }>();
    const rpcErrors = new Map<string, Aggregates["rpcErrors"][number]>();
    const httpStatuses = new Map<number, number>();
    const latency = [...LATENCY_BOUNDS_MS, null].map((upToMs) => ({ upToMs, count: 0 }));
    const defects = new Map<string, number>();
    const perTarget = new Map<string, Aggregates["perTarget"][number]>();
    const walks = new Map<string, Record<string, unknown>>();

    for (const a of rows) {
      count(perRun, a.runId);
      bump(classes, `${a.class}\0${a.detail}`, () => ({ class: a.class, detail: a.detail, count: 0 }));
      bump(classesPerRun, `${a.runId}\0${a.class}`, () => ({ runId: a.runId, class: a.class, count: 0 }));
      if (a.class === "ok")
        bump(revisions, `${a.era}\0${a.revision}`, () => ({ era: a.era, revision: a.revision, count: 0 }));
      if (a.rpcCode !== null) {
        const e = bump(rpcErrors, `${a.rpcCode}\0${a.rpcRange}\0${a.class}\0${a.detail}`, () => ({
          code: a.rpcCode!,
          range: a.rpcRange,
          class: a.class,
          detail: a.detail,
          count: 0,
          messages: [],
        }));
        if (a.rpcMessage !== null && e.messages.length < MESSAGES_PER_CODE && !e.messages.includes(a.rpcMessage))
          e.messages.push(a.rpcMessage);
      }
      if (a.class !== "ok" && a.httpStatus !== null) count(httpStatuses, a.httpStatus);
      latency.find((b) => b.upToMs === null || a.elapsedMs <= b.upToMs)!.count++;
      for (const code of new Set(a.defects.map((d) => d.code))) count(defects, code);

      // rows come in time order: the last walk seen is the target's latest
      if (a.auth) walks.set(a.target, a.auth);
      const t = perTarget.get(a.target);
      const latest = {
        class: a.class,
        detail: a.detail,
        era: a.era,
        revision: a.revision,
        at: a.at,
        advice: a.advice,
        tools: a.tools,
        elapsedMs: a.elapsedMs,
        auth: a.auth,
        defects: a.defects,
        httpStatus: a.httpStatus,
        rpcCode: a.rpcCode,
        serverName: a.serverName,
        serverVersion: a.serverVersion,
      };
      if (!t) {
        perTarget.set(a.target, {
          target: a.target,
          name: this.#names.get(a.target) ?? null,
          attempts: 1,
          firstAt: a.at,
          lastAt: a.at,
          classes: { [a.class]: 1 },
          latest,
        });
      } else {
        t.attempts++;
        t.classes[a.class] = (t.classes[a.class] ?? 0) + 1;
        // rows come in time order, so the last one seen is the latest
        t.lastAt = a.at;
        t.latest = latest;
      }
    }

    // a server once, by its latest sign-in diagnosis, however often it was asked
    const signin = new Map<string, SigninGroup>();
    for (const auth of walks.values()) {
      const walk = auth as {
        verdict?: unknown;
        defects?: { code?: unknown; severity?: unknown }[];
        clients?: { lenient?: unknown };
      };
      const verdict = String(walk.verdict);
      const first = walk.defects?.find((d) => d.severity === "error")?.code;
      const firstError = typeof first === "string" ? first : null;
      const lenient = typeof walk.clients?.lenient === "string" ? walk.clients.lenient : null;
      const key = `${verdict}\0${firstError}\0${lenient}`;
      const g = signin.get(key) ?? { verdict, firstError, lenient, n: 0 };
      g.n++;
      signin.set(key, g);
    }

    return {
      runs: this.#runs.filter((r) => perRun.has(r.id)).map((r) => ({ ...r, attempts: perRun.get(r.id)! })),
      attempts: rows.length,
      targets: perTarget.size,
      firstAt: rows[0]?.at ?? null,
      lastAt: rows.at(-1)?.at ?? null,
      classes: [...classes.values()].sort(
        (a, b) => b.count - a.count || a.class.localeCompare(b.class) || a.detail.localeCompare(b.detail),
      ),
      classesPerRun: [...classesPerRun.values()].sort((a, b) => a.runId - b.runId || a.class.localeCompare(b.class)),
      revisions: [...revisions.values()].sort((a, b) => b.count - a.count),
      rpcErrors: [...rpcErrors.values()].sort((a, b) => b.count - a.count || b.code - a.code),
      httpStatuses: [...httpStatuses]
        .map(([status, n]) => ({ status, count: n }))
        .sort((a, b) => b.count - a.count || a.status - b.status),
      latency,
      defects: [...defects]
        .map(([code, n]) => ({ code, count: n }))
        .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
      signin: signinOf([...signin.values()]),
      perTarget:
        options.perTarget === false ? [] : [...perTarget.values()].sort((a, b) => a.target.localeCompare(b.target)),
    };
  }

  toolDefinitions(digests: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const d of digests) {
      const definition = this.#definitions.get(d);
      if (definition !== undefined) out.set(d, definition);
    }
    return out;
  }

  prune(before: string): number {
    const kept = this.#attempts.filter((a) => a.at >= before);
    const deleted = this.#attempts.length - kept.length;
    this.#attempts.splice(0, this.#attempts.length, ...kept);
    const listed = new Set(kept.flatMap((a) => (a.surface?.tools ?? []).map((t) => t.digest)));
    for (const d of [...this.#definitions.keys()]) if (!listed.has(d)) this.#definitions.delete(d);
    return deleted;
  }

  close(): void {}

  /** This store behind the Store interface, for code that takes any engine (a census). */
  asStore(): Store {
    return {
      where: "memory",
      startRun: async (source, targets, settings) => this.startRun(source, targets, settings),
      finishRun: async (runId) => this.finishRun(runId),
      recordAttempt: async (attempt) => {
        // the one-attempt-per-target key every engine keeps
        if ([...this.attempts({ runIds: [attempt.runId], target: attempt.target })].length > 0)
          throw new Error(`UNIQUE: ${attempt.target} already has an attempt in run ${attempt.runId}`);
        this.recordAttempt(attempt);
      },
      pendingTargets: async (runId) => this.pendingTargets(runId),
      unfinishedRun: async () => this.unfinishedRun(),
      runs: async () => this.runs(),
      attempts: (query) => stream(this.attempts(query)),
      aggregate: async (query, options) => this.aggregate(query, options),
      perTarget: (query) => stream(this.aggregate(query).perTarget),
      history: (query) => stream([...this.attempts(query)].map((a) => ({ ...a, surface: a.surface ?? null }))),
      toolDefinitions: async (digests) => this.toolDefinitions(digests),
      prune: async (before) => this.prune(before),
      close: async () => this.close(),
    };
  }
}

async function* stream<T>(items: Iterable<T>): AsyncIterableIterator<T> {
  yield* items;
}

function bump<T extends { count: number }>(map: Map<string, T>, key: string, make: () => T): T {
  let entry = map.get(key);
  if (!entry) map.set(key, (entry = make()));
  entry.count++;
  return entry;
}
