/**
 * One object of each class made per message or per HTTP exchange, kept alive for good. Such a
 * class gets its final hidden class through weak map transitions, so when no instance survives
 * a full GC (a server or client idle between bursts) the maps die, and every optimised function
 * that has seen them is deoptimised and compiled again, at the cost of the next requests.
 */
const kept: object[] = [];

/** Keeps `instance` (and with it its class's hidden class) alive; returns it. */
export function keepShape<T extends object>(instance: T): T {
  kept.push(instance);
  return instance;
}
