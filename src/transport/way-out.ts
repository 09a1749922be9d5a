/**
 * What must end before the process leaves early (a signal, an uncaught error, a closed stdout):
 * the child processes it started, a database to close, a temporary copy to remove. One registry,
 * so that every way out ends the same things, whoever started them.
 */

export interface Ending {
  /** Ends it, gracefully then not; `graceMs` is how long each step may take. */
  end(graceMs: number): Promise<unknown>;
  /** For the process's very last moment (its `exit` event), where nothing can be waited for. */
  kill?(): void;
}

const ENDINGS = new Set<Ending>();

/** Has `ending` ended on the way out; returns the function that takes it off the list (call it once it ended the ordinary way). */
export function endOnWayOut(ending: Ending): () => void {
  ENDINGS.add(ending);
  return () => void ENDINGS.delete(ending);
}

/** Ends everything registered, each given `graceMs` a step; what fails to end is let go. */
export async function endEverything(graceMs: number): Promise<void> {
  await Promise.all([...ENDINGS].map((e) => e.end(graceMs).catch(() => undefined)));
}

/** Kills what can be killed without waiting (child processes): the `exit` event's last resort. */
export function killEverything(): void {
  for (const e of ENDINGS) e.kill?.();
}
