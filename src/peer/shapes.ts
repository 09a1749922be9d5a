/**
 * The one import-time performance trick of the library, and the list of where it is used.
 *
 * One object of each class made per message or per HTTP exchange is kept alive for good. Such a
 * class gets its final hidden class through weak map transitions, so when no instance survives
 * a full GC (a server or client idle between bursts) the maps die, and every optimised function
 * that has seen them is deoptimised and compiled again, at the cost of the next requests.
 *
 * Each call stays beside its class (most are private to their module, and a module loaded only
 * when used must not be loaded to warm it), but names the `npm run bench` benchmark whose
 * figures showed the cost, and `KEPT_SHAPES` lists them all, so a reader finds every one here
 * and a test holds each name to a benchmark that exists (src/peer/shapes.test.ts).
 */

/** The benchmarks that justify keeping a shape (their `name` in bench/run.ts). */
export type ShapeBenchmark = "roundtrip" | "http" | "census-cpu";

const kept: object[] = [];

/** Every kept shape: its class and the benchmark that showed the cost of losing it. */
export const KEPT_SHAPES: { readonly shape: string; readonly benchmark: ShapeBenchmark }[] = [];

/** Keeps `instance` (and with it its class's hidden class) alive; returns it. */
export function keepShape<T extends object>(instance: T, benchmark: ShapeBenchmark): T {
  kept.push(instance);
  KEPT_SHAPES.push({ shape: instance.constructor?.name ?? "Object", benchmark });
  return instance;
}
