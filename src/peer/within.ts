/**
 * The one bounded wait: whether a promise settled (either way) within a time. Every wait on
 * something that may never end (a process's exit, a database's goodbye, a recorder's last
 * message) goes through it, so none can hold a command past its deadline. The timers are the ones
 * the process had when this module loaded, so a test that mocks timers cannot stretch a wait.
 */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** True if `work` settled, resolved or rejected, within `ms`; false once `ms` passed first. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = realSetTimeout(() => resolve(false), ms);
  });
  try {
    const settled = work.then(
      () => true,
      () => true,
    );
    return await Promise.race([settled, late]);
  } finally {
    realClearTimeout(timer);
  }
}

/** `work`'s outcome, or a rejection naming `what` once `ms` passed without one. */
export async function within<T>(work: Promise<T>, what: string, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    realClearTimeout(timer);
  }
}

/**
 * True if `work` settled while it kept making progress: false once `quietMs` passed without
 * `progress()` changing, or `capMs` in all. For draining a queue before closing: a loaded machine
 * gets the time it needs, a stuck one does not hold the close.
 */
export function settlesWhileProgressing(
  work: Promise<unknown>,
  progress: () => number,
  quietMs: number,
  capMs: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    const start = performance.now();
    let seen = progress();
    let timer: ReturnType<typeof setTimeout>;
    const look = () => {
      const now = progress();
      if (now === seen || performance.now() - start >= capMs) return resolve(false);
      seen = now;
      timer = realSetTimeout(look, quietMs);
    };
    timer = realSetTimeout(look, quietMs);
    const done = () => {
      realClearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}
