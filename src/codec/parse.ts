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
