/**
 * Nesting depth of a JSON text, checked without building anything.
 *
 * V8's JSON.parse accepts any depth, but the code that later walks the value (ours, a user's,
 * JSON.stringify) recurses, so a hostile peer could hand it a stack overflow. Scanning the text
 * is cheaper than walking the parsed tree: string contents, most of the bytes in real traffic,
 * are skipped with native `indexOf`.
 */

/** True when `text` (already known to be valid JSON) nests arrays and objects deeper than `max`. */
export function exceedsDepth(text: string, max: number): boolean {
  // Each level costs at least two characters, so a short text cannot be too deep.
  if (text.length <= 2 * max) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = text.indexOf('"', i + 1);
      while (j !== -1 && isEscaped(text, j)) j = text.indexOf('"', j + 1);
      if (j === -1) return false;
      i = j;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let k = quote - 1; text.charCodeAt(k) === 92 /* \ */; k--) backslashes++;
  return (backslashes & 1) === 1;
}
