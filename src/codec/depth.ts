/**
 * Nesting depth of a parsed JSON value.
 *
 * V8's JSON.parse accepts any depth, but code that later walks the value (ours, a user's,
 * JSON.stringify) recurses, so a hostile peer could hand it a stack overflow. Walking the parsed
 * containers costs a few percent of the parse (only objects and arrays are visited; strings and
 * numbers, most of the bytes, are not) and the walk itself stops one level past the limit.
 */

/** True when `value` nests arrays and objects deeper than `max` levels. */
export function exceedsDepth(value: unknown, max: number): boolean {
  return typeof value === "object" && value !== null && deeper(value, 1, max);
}

function deeper(v: object, depth: number, max: number): boolean {
  if (depth > max) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e === "object" && e !== null && deeper(e, depth + 1, max)) return true;
    }
    return false;
  }
  for (const k in v) {
    const e: unknown = (v as Record<string, unknown>)[k];
    if (typeof e === "object" && e !== null && deeper(e, depth + 1, max)) return true;
  }
  return false;
}
