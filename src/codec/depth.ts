/**
 * Nesting depth, of JSON text before it is parsed and of a value before it is serialised.
 *
 * V8's JSON.parse accepts any depth and builds all of it: two million `[` in a 4 MiB body become
 * two million arrays (over 100 MB) before anything could look at them, and code that later walks
 * the value (ours, a user's, JSON.stringify) recurses, so a hostile peer could hand it a stack
 * overflow. So the text is measured first, by a scan that builds nothing: it costs what the
 * bytes cost, and ordinary messages pay for it only in a cheap count (see `textTooDeep`).
 */

/** Deeper nesting than this is `too_deep`, in every decoder of untrusted text. */
export const DEFAULT_MAX_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

/**
 * True when `text`, read as JSON, nests arrays and objects deeper than `max` levels: exact for
 * JSON text, and never false for a prefix of JSON text that is deeper (so JSON.parse, which
 * builds no further than the first syntax error, never builds more than `max` levels after a
 * `false`). Linear, and allocates nothing.
 */
export function textTooDeep(text: string, max: number): boolean {
  // each level costs at least two characters
  if (text.length <= 2 * max) return false;
  return mayNest(text, max) && scanDepth(text, max);
}

/**
 * A necessary condition, cheap enough for every message: more than `max` brackets and braces
 * anywhere (strings included). Native `indexOf` jumps between them, so an ordinary message,
 * with a few dozen, costs a few dozen calls and no loop over its characters.
 */
function mayNest(text: string, max: number): boolean {
  let n = 0;
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) if (++n > max) return true;
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) if (++n > max) return true;
  return false;
}

/** The exact depth of a JSON text, brackets inside strings skipped; stops past `max`. */
function scanDepth(text: string, max: number): boolean {
  const n = text.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // strings hold most of the bytes: jump to the closing quote natively
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false; // an unterminated string: JSON.parse stops there
      i = end;
    } else if (c === OPEN_SQUARE || c === OPEN_CURLY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_SQUARE || c === CLOSE_CURLY) {
      depth--;
    }
  }
  return false;
}

/** Is the quote at `at` escaped, i.e. preceded by an odd number of backslashes? */
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

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
