/**
 * A census store that never receives a secret, whatever the targets carry.
 *
 * A target's URL is its identity, but `https://user:pw@host/mcp` or `…/mcp?api_key=…` must not be
 * stored as it is. The store keeps the redacted form instead, and the secret lives only where the
 * user put it: the targets file. A resume therefore reads the targets file again and matches each
 * pending target by its redacted form; what cannot be matched is refused with one clear line.
 *
 * Why not a hash of the secret next to the redacted URL? Any hash the database can check without
 * a key is a hash anyone holding the database can check against guesses, and API keys and
 * passwords are often weak enough to guess. Re-reading the file needs no key and stores nothing.
 *
 * Two targets that differ only in their secret (the same endpoint with two keys) redact to the
 * same text; the second and later get ` (2)`, ` (3)`… in the order the file lists them, so they
 * stay two targets, and re-reading the same file numbers them the same way again.
 */
import { digestOf } from "./surface.js";
import { REDACTED, redact, redactSecrets } from "../secrets/redact.js";
import type {
  AggregateOptions,
  AttemptQuery,
  AttemptRecord,
  HistoryRecord,
  Aggregates,
  RunRecord,
  SharedRun,
  ShareOptions,
  Store,
  TargetRecord,
  TargetSummary,
} from "./store.js";

/** How each target is known to the store: its redacted form, numbered when two collide. */
function storedNames(targets: readonly TargetRecord[]): string[] {
  const seen = new Map<string, number>();
  return targets.map((t) => {
    const shown = redact(t.target);
    const n = (seen.get(shown) ?? 0) + 1;
    seen.set(shown, n);
    return n === 1 ? shown : `${shown} (${n})`;
  });
}

/** True when a stored target name stands for a URL whose secret was left out. */
export function lostSecret(storedTarget: string): boolean {
  return storedTarget.includes(REDACTED);
}

export class SecretSafeStore implements Store {
  /** Real target → stored name, and back, for the targets this process was given. */
  private readonly toStored = new Map<string, string>();
  private readonly toReal = new Map<string, TargetRecord>();
  readonly share?: (runId: number, options: ShareOptions) => Promise<SharedRun>;

  constructor(private readonly inner: Store) {
    // a worker of a shared run claims stored names and calls the real URLs this process knows
    if (inner.share) {
      const share = inner.share.bind(inner);
      this.share = async (runId, options) => {
        const run = await share(runId, options);
        return {
          workerId: run.workerId,
          claim: async (max, perHost) => (await run.claim(max, perHost)).map((t) => this.toReal.get(t.target) ?? t),
          finish: async (attempts) => {
            const stored = new Set((await run.finish(attempts.map((a) => this.stored(a)))).map((a) => a.target));
            return attempts.filter((a) => stored.has(this.stored(a).target));
          },
          renew: () => run.renew(),
          progress: () => run.progress(),
          leave: () => run.leave(),
        };
      };
    }
  }

  get where(): string {
    return this.inner.where;
  }

  /** Makes these targets (read again from the targets file) callable when a resume finds them pending. */
  learn(targets: readonly TargetRecord[]): void {
    const names = storedNames(targets);
    targets.forEach((t, i) => {
      this.toStored.set(t.target, names[i]!);
      this.toReal.set(names[i]!, t);
    });
  }

  private stored(attempt: AttemptRecord): AttemptRecord {
    // the copy's target replaced, not the copy spread into a new literal: V8 builds an object
    // that starts with a spread and then takes more properties through a slow path
    const out = redactSecrets(attempt);
    out.target = this.toStored.get(attempt.target) ?? redact(attempt.target);
    // a definition that lost a secret is another text: its digest follows it
    const tools = out.surface?.tools;
    if (tools)
      for (let i = 0; i < tools.length; i++)
        if (tools[i]!.definition !== attempt.surface!.tools[i]!.definition)
          tools[i]!.digest = digestOf(tools[i]!.definition ?? "");
    return out;
  }

  startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): Promise<number> {
    this.learn(targets);
    const names = storedNames(targets);
    return this.inner.startRun(
      redact(source),
      targets.map((t, i) => ({ ...t, target: names[i]! })),
      redactSecrets(settings),
    );
  }

  recordAttempt(attempt: AttemptRecord): Promise<void> {
    return this.inner.recordAttempt(this.stored(attempt));
  }

  /** Pending targets as they must be called: the real URL when this process knows it, else the stored name. */
  async pendingTargets(runId: number): Promise<TargetRecord[]> {
    return (await this.inner.pendingTargets(runId)).map((t) => this.toReal.get(t.target) ?? t);
  }

  finishRun(runId: number): Promise<void> {
    return this.inner.finishRun(runId);
  }
  unfinishedRun(): Promise<RunRecord | undefined> {
    return this.inner.unfinishedRun();
  }
  runs(): Promise<RunRecord[]> {
    return this.inner.runs();
  }
  attempts(query?: AttemptQuery): AsyncIterableIterator<AttemptRecord> {
    return this.inner.attempts(query);
  }
  aggregate(query?: AttemptQuery, options?: AggregateOptions): Promise<Aggregates> {
    return this.inner.aggregate(query, options);
  }
  perTarget(query?: AttemptQuery): AsyncIterableIterator<TargetSummary> {
    return this.inner.perTarget(query);
  }
  history(query?: AttemptQuery): AsyncIterableIterator<HistoryRecord> {
    return this.inner.history(query);
  }
  toolDefinitions(digests: readonly string[]): Promise<Map<string, string>> {
    return this.inner.toolDefinitions(digests);
  }
  prune(before: string): Promise<number> {
    return this.inner.prune(before);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
