/**
 * Nesting depth, of JSON text before it is parsed and of a value before it is serialised.
 *
 * V8's JSON.parse accepts any depth and builds all of it: two million `[` in a 4 MiB body become
 * two million arrays before anything could look at them, and code that later walks the value
 * (ours, a user's, JSON.stringify) recurses, so a hostile peer could hand it a stack overflow.
 * So text that could build many levels is measured first, by a scan that builds nothing and
 * costs what the bytes cost. Text that cannot build more than `BUILD_LEVELS` levels is parsed
 * and its value walked instead: the walk visits only containers, while a scan of the text pays
 * for every string in it (a fifth of JSON.parse's own time on a large tool list), and ordinary
 * messages must not pay that.
 */

/** Deeper nesting than this is `too_deep`, in every decoder of untrusted text. */
export const DEFAULT_MAX_DEPTH = 128;

/**
 * Levels JSON.parse may build before a walk of the value finds them too deep. V8 spends 40 to
 * 60 bytes a level, so at most about 8 MB: less than breadth builds from far shorter text (a
 * 4 MiB body of `{},` builds about 90 MB). Text of 256 KiB or less cannot build more, so only
 * longer text pays for counting its brackets before it is parsed: a large tool list (150 KB for
 * 200 tools) is parsed straight away. Deep text costs more to parse and walk than to measure
 * (about 50 ns a byte against 6 to 10), and this bound keeps that to tens of milliseconds.
 */
export const BUILD_LEVELS = 131_072;

/**
 * How deep the walk may recurse: one call for every two levels, and 16,384 calls leave the
 * default stack room for its caller's. A deeper limit is walked without recursion.
 */
const WALK_LEVELS = 32_768;

/**
 * Before parsing: true when `text` nests deeper than `max` (it must not be parsed), false when
 * it does not, undefined when it cannot build more than `BUILD_LEVELS` levels and a walk of the
 * parsed value (`exceedsDepth`) is the cheaper judge.
 */
export function depthBeforeParse(text: string, max: number): boolean | undefined {
  if (shallowText(text, max)) return false;
  if (text.length <= 2 * BUILD_LEVELS || !mayBuild(text)) return undefined;
  return scanDepth(text, max);
}

/**
 * For text JSON.parse refused after `depthBeforeParse` said undefined: true when that text holds
 * more than `BUILD_LEVELS` brackets and braces and nests deeper than `max`. Such text is judged
 * as the scan judges it (`jsonSyntaxError` words the fault), whichever bound spared it the scan,
 * so that what a broken text is called never depends on how cheaply its depth was bounded.
 * Runs only on text that failed to parse.
 */
export function deepUnparsed(text: string, max: number): boolean {
  return text.length > 2 * BUILD_LEVELS && mayNest(text, BUILD_LEVELS) && scanDepth(text, max);
}

/** For JSON text: true when its length and its `[` alone show it nests at most `max` deep (see below). */
export function shallowText(text: string, max: number): boolean {
  return text.length <= 2 * max || shortForDepth(text, max);
}

/**
 * For JSON text: true when its length and its `[` alone show it nests at most `max` deep, so a
 * short message costs a few `indexOf` calls rather than a walk. Of `d` nested levels, each of
 * the outer `d - 1` costs at least two characters as an array (`[`, `]`) and five as an object
 * (`{"":`, `}`), the innermost two: so `max + 1` levels, `a` of them arrays, take at least
 * 5 × max + 2 - 3 × a characters, and `a` is at most the number of `[` in the text.
 */
function shortForDepth(text: string, max: number): boolean {
  // three for each `[` the text may hold
  let budget = 5 * max + 1 - text.length;
  if (budget < 0) return false;
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) if ((budget -= 3) < 0) return false;
  return true;
}

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
 * A necessary condition for JSON.parse to build more than `BUILD_LEVELS` levels. V8 builds an
 * array or object when it reaches its closing bracket, so every level it builds costs both its
 * brackets and the bound of `shortForDepth` holds for what it builds. That bound counts only `[`,
 * which a long message (a tool list: JSON Schemas are objects) holds several times fewer of than
 * `{`; only when it fails are the braces counted too (`mayNest`).
 */
function mayBuild(text: string): boolean {
  let budget = 5 * BUILD_LEVELS + 1 - text.length;
  let n = 0;
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) {
    if (++n > BUILD_LEVELS) return true;
    budget -= 3;
  }
  if (budget >= 0) return false;
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) if (++n > BUILD_LEVELS) return true;
  return false;
}

/**
 * A necessary condition: more than `max` brackets and braces anywhere (strings included). Native
 * `indexOf` jumps between them, so it costs one call per bracket and no loop over characters.
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

/**
 * True when `value` nests arrays and objects deeper than `max` levels, or contains itself (which
 * nests without end). Never a stack overflow, whatever `max` and whatever the value.
 */
export function exceedsDepth(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  return max <= WALK_LEVELS ? deeper(value, 1, max) : deeperUnbounded(value, max);
}

/*
 * The walk is two copies of one function calling each other. V8 inlines a call to another
 * function but never a function's call to itself, so each call walks two levels: a container
 * with no container in it (most of a JSON Schema) costs no call of its own.
 */
function deeper(v: object, depth: number, max: number): boolean {
  if (depth > max) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e === "object" && e !== null && deeperTwin(e, depth + 1, max)) return true;
    }
    return false;
  }
  for (const k in v) {
    const e: unknown = (v as Record<string, unknown>)[k];
    if (typeof e === "object" && e !== null && deeperTwin(e, depth + 1, max)) return true;
  }
  return false;
}

function deeperTwin(v: object, depth: number, max: number): boolean {
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

/**
 * The walk for a limit deeper than recursion may go (a caller's maxDepth, on parsed text or on a
 * value a program built): its own stack of levels, and the containers on the current path, so
 * that a value containing itself ends the walk at once rather than after `max` levels.
 */
function deeperUnbounded(root: object, max: number): boolean {
  if (max < 1) return true;
  const levels: { node: object; children: unknown[]; next: number }[] = [
    { node: root, children: childrenOf(root), next: 0 },
  ];
  const onPath = new Set<object>([root]);
  while (levels.length > 0) {
    const level = levels[levels.length - 1]!;
    if (level.next === level.children.length) {
      onPath.delete(level.node);
      levels.pop();
      continue;
    }
    const e = level.children[level.next++];
    if (typeof e !== "object" || e === null) continue;
    if (levels.length + 1 > max || onPath.has(e)) return true;
    onPath.add(e);
    levels.push({ node: e, children: childrenOf(e), next: 0 });
  }
  return false;
}

/** What the recursive walk visits in a container: its elements, or what `for…in` enumerates. */
function childrenOf(v: object): unknown[] {
  if (Array.isArray(v)) return v as unknown[];
  const children: unknown[] = [];
  for (const k in v) children.push((v as Record<string, unknown>)[k]);
  return children;
}
