/**
 * Walking a paginated list safely: a page at a time, following `nextCursor` until there is none,
 * and stopping with a named error on a cursor the server already gave or past a page cap, so a
 * server whose cursor never advances cannot make the client loop. Cursors are opaque and passed
 * back exactly as they came; on 2026-07-28 an empty string is a cursor like any other
 * (server/utilities/pagination: it "MUST NOT be treated as the end of results").
 */
import { ConnectionError, ConnectionErrorCode } from "../peer/errors.js";
import type { PagedResult } from "./meta.js";

/** How many pages a whole list may take before the walk stops, by default. */
export const DEFAULT_MAX_PAGES = 1000;

export type PaginationFailure = "repeated_cursor" | "page_cap" | "not_a_page";

/**
 * A list walk stopped: the server gave a cursor it had given before (`repeated_cursor`: it would
 * loop), more pages than `maxPages` (`page_cap`), or a page without its array (`not_a_page`).
 * `pages` is how many pages had come.
 */
export class PaginationError extends ConnectionError {
  override readonly name = "PaginationError";
  constructor(
    readonly reason: PaginationFailure,
    readonly method: string,
    readonly pages: number,
    message: string,
  ) {
    super(ConnectionErrorCode.Pagination, `${method}: ${message}`);
  }
}

export interface WalkOptions {
  /** The cursor to start from (a cursor a page gave earlier); default the first page. */
  cursor?: string;
  /** Pages at most before the walk fails with a `PaginationError` (`page_cap`). Default 1000. */
  maxPages?: number;
}

/**
 * The pages of `method`, fetched one by one as the caller asks for them: nothing is held but the
 * page in hand and the cursors seen (to recognise a loop). `key` is the array each page holds.
 */
export async function* walkPages<P extends PagedResult>(
  method: string,
  key: string,
  fetchPage: (cursor: string | undefined) => Promise<P>,
  emptyIsCursor: boolean,
  options: WalkOptions = {},
): AsyncGenerator<P, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const seen = new Set<string>();
  let cursor = options.cursor;
  if (cursor !== undefined) seen.add(cursor);
  for (let page = 1; ; page++) {
    const result = await fetchPage(cursor);
    if (!Array.isArray(result[key]))
      throw new PaginationError("not_a_page", method, page, `page ${page} has no ${key} array`);
    yield result;
    const next = result.nextCursor;
    if (typeof next !== "string" || (next === "" && !emptyIsCursor)) return;
    if (seen.has(next))
      throw new PaginationError(
        "repeated_cursor",
        method,
        page,
        `page ${page} gave cursor ${JSON.stringify(next.length > 80 ? `${next.slice(0, 80)}…` : next)} again: following it would loop`,
      );
    if (page >= maxPages)
      throw new PaginationError(
        "page_cap",
        method,
        page,
        `still a nextCursor after ${page} pages, the most maxPages allows`,
      );
    seen.add(next);
    cursor = next;
  }
}
