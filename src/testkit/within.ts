/**
 * The bounded wait of the tests and benchmarks: the library's own (src/peer/within.ts), with the
 * default deadline a test gives.
 */
import { within as bounded } from "../peer/within.js";

export function within<T>(promise: Promise<T>, what = "the promise", ms = 5000): Promise<T> {
  return bounded(promise, what, ms);
}
