/**
 * Is a text JSON (RFC 8259, as JSON.parse reads it)? Answered without building anything, for
 * text too deep to hand to JSON.parse: it still has to be told apart from text that is not JSON
 * at all, so that `too_deep` and `parse_error` mean for it what they mean for any other text.
 *
 * Iterative, with one byte of stack per open level, so any depth costs only its bytes.
 */

/** What an open level is, one byte each on the stack. */
const IN_ARRAY = 1;
const IN_OBJECT = 2;

/** Where and why a text stops being JSON, worded as JSON.parse words it. */
class JsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/** The first syntax error in `text`, or undefined when it is one JSON text. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const n = text.length;
  const stack = new Uint8Array(n + 1);
  let top = 0;
  let i = skipSpace(text, 0);

  const fail = (at: number): JsonSyntaxError => {
    if (at >= n) return new JsonSyntaxError("Unexpected end of JSON input", at);
    return new JsonSyntaxError(`Unexpected token '${text[at]}' at position ${at} is not valid JSON`, at);
  };

  for (;;) {
    // a value starts at i
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      i = skipSpace(text, i + 1);
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
      } else {
        stack[top++] = c === 0x7b ? IN_OBJECT : IN_ARRAY;
        if (c === 0x7b) {
          i = key(text, i);
          if (i < 0) return fail(~i);
        }
        continue;
      }
    } else if (c === 0x22 /* " */) {
      i = string(text, i);
      if (i < 0) return fail(~i);
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      i = number(text, i);
      if (i < 0) return fail(~i);
    } else if (text.startsWith("true", i)) {
      i += 4;
    } else if (text.startsWith("false", i)) {
      i += 5;
    } else if (text.startsWith("null", i)) {
      i += 4;
    } else {
      return fail(literalFault(text, i));
    }

    // after a value: close containers, or go on to the next member
    for (;;) {
      i = skipSpace(text, i);
      if (top === 0) {
        return i === n
          ? undefined
          : new JsonSyntaxError(`Unexpected non-whitespace character after JSON at position ${i}`, i);
      }
      const d = text.charCodeAt(i);
      const inObject = stack[top - 1] === IN_OBJECT;
      if (d === 0x2c /* , */) {
        i = skipSpace(text, i + 1);
        if (inObject) {
          i = key(text, i);
          if (i < 0) return fail(~i);
        }
        break;
      }
      if (d === (inObject ? 0x7d : 0x5d)) {
        top--;
        i++;
        continue;
      }
      return fail(i);
    }
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `"name" :` and the space after it; the index of the value, or ~(fault index). */
function key(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) return ~i;
  i = string(text, i);
  if (i < 0) return i;
  i = skipSpace(text, i);
  if (text.charCodeAt(i) !== 0x3a /* : */) return ~i;
  return skipSpace(text, i + 1);
}

/** A string starting at the quote at `i`: the index after it, or ~(fault index). */
function string(text: string, i: number): number {
  const n = text.length;
  for (i++; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return ~i;
    if (c === 0x5c /* \ */) {
      const e = text.charCodeAt(++i);
      if (e === 0x75 /* u */) {
        for (let k = 1; k <= 4; k++) if (!isHex(text.charCodeAt(i + k))) return ~(i + k);
        i += 4;
      } else if (!(
        e === 0x22 ||
        e === 0x5c ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      )) {
        return ~i;
      }
    }
  }
  return ~n;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: the index after it, or ~(fault index). */
function number(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
  else return ~i;
  if (text.charCodeAt(i) === 0x2e /* . */) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return ~i;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const s = text.charCodeAt(i);
    if (s === 0x2b || s === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return ~i;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** Where a broken `true`/`false`/`null` (or any other stray character) stops matching. */
function literalFault(text: string, i: number): number {
  for (const word of ["true", "false", "null"]) {
    if (text.charCodeAt(i) !== word.charCodeAt(0)) continue;
    let k = 1;
    while (k < word.length && text.charCodeAt(i + k) === word.charCodeAt(k)) k++;
    return i + k;
  }
  return i;
}
