/**
 * JSON.parse for untrusted text: text deep enough to cost more than its bytes is refused before
 * anything is built (see depth.ts). Every parse of a peer's bytes goes through here or `decode`.
 */
import { DEFAULT_MAX_DEPTH, deepUnparsed, depthBeforeParse, exceedsDepth } from "./depth.js";
import { jsonSyntaxError } from "./syntax.js";

/** The text is JSON, but nests deeper than the limit: it was not parsed. */
export class TooDeepError extends SyntaxError {
  constructor(readonly maxDepth: number) {
    super(`nests arrays and objects deeper than ${maxDepth} levels`);
  }
}

/**
 * True when JSON.parse would certainly throw on `text`: it is empty or blank, or its first
 * character past JSON's whitespace begins no JSON value. An HTML page or a "Not Found" body is
 * told in a character or two, where handing it to JSON.parse costs a SyntaxError, message and
 * stack, which is far dearer than parsing a small body that is JSON.
 */
export function cannotBeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isJsonSpace(c)) return !beginsValue(c);
  }
  return true;
}

/** `cannotBeJson` for UTF-8 bytes (JSON's whitespace and the characters that begin a value are ASCII). */
export function bytesCannotBeJson(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (!isJsonSpace(c)) return !beginsValue(c);
  }
  return true;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** `{`, `[`, `"`, `-`, a digit, or the first letter of true, false or null. */
function beginsValue(c: number): boolean {
  return (
    c === 0x7b ||
    c === 0x5b ||
    c === 0x22 ||
    c === 0x2d ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x74 ||
    c === 0x66 ||
    c === 0x6e
  );
}

/**
 * Parses `text` as JSON.parse does, or throws: a SyntaxError when it is not JSON (as JSON.parse
 * would), a TooDeepError when it is JSON nested deeper than `maxDepth`.
 */
export function parseJson(text: string, maxDepth = DEFAULT_MAX_DEPTH): unknown {
  const deep = depthBeforeParse(text, maxDepth);
  if (deep === true) throw jsonSyntaxError(text) ?? new TooDeepError(maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // judged as decode judges it (see deepUnparsed)
    if (deep === undefined && deepUnparsed(text, maxDepth)) throw jsonSyntaxError(text) ?? new TooDeepError(maxDepth);
    throw e;
  }
  if (deep === undefined && exceedsDepth(value, maxDepth)) throw new TooDeepError(maxDepth);
  return value;
}
