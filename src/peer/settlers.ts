/**
 * A promise whose settlers are stored on an object the caller already has (a request's record),
 * made with no closure: a `new Promise((resolve, reject) => …)` allocates a context and a
 * function per call, which shows in a loopback round trip of a few tens of microseconds.
 */

/** What `settledOn` stores the settlers on. */
export interface Settlers<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

// the executor runs synchronously inside the Promise constructor, so one slot serves every call
let forming: Settlers<never> | undefined;

function bind(resolve: (value: never) => void, reject: (error: Error) => void): void {
  forming!.resolve = resolve;
  forming!.reject = reject;
}

/** A new promise, settled by calling `on.resolve` or `on.reject`. */
export function settledOn<T>(on: Settlers<T>): Promise<T> {
  forming = on as unknown as Settlers<never>;
  try {
    return new Promise<T>(bind);
  } finally {
    forming = undefined;
  }
}
