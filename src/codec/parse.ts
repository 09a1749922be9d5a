/**
 * JSON.parse for untrusted text: too-deep text is refused before anything is built, so parsing
 * costs what the bytes cost. Every parse of a peer's bytes goes through here or through `decode`.
 */
import { DEFAULT_MAX_DEPTH, textTooDeep } from "./depth.js";
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
  if (textTooDeep(text, maxDepth)) throw jsonSyntaxError(text) ?? new TooDeepError(maxDepth);
  return JSON.parse(text) as unknown;
}
