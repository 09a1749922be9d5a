/**
 * The one bounded wait of the tests and benchmarks: a promise, or a rejection naming what did not
 * settle once `ms` of real time have passed (timers captured at load, before any test mocks them).
 * Tests and benchmarks give their own default deadline.
 */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

export function within<T>(promise: Promise<T>, what = "the promise", ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => realClearTimeout(timer));
}
