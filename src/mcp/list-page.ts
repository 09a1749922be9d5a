/**
 * Cursor pagination for every list a server serves: a cursor is the index of the next item,
 * Base64url-encoded so clients treat it as the opaque token the spec says it is.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";

/** Items per page unless the server's `pageSize` option says otherwise. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * One page of `items` under `key`, starting where `cursor` points, with `nextCursor` when more
 * follow. A cursor this server did not make is -32602, as the pagination utility asks.
 */
export function page<T>(key: string, items: readonly T[], cursor: unknown, size: number): JsonObject {
  let start = 0;
  if (cursor !== undefined) {
    const text = typeof cursor === "string" ? Buffer.from(cursor, "base64url").toString("utf8") : "";
    const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
    if (!(n <= items.length)) throw new ResponseError(INVALID_PARAMS, "Invalid cursor");
    start = n;
  }
  const result: JsonObject = { [key]: items.slice(start, start + size) as unknown as JsonObject[] };
  if (start + size < items.length) result.nextCursor = Buffer.from(String(start + size)).toString("base64url");
  return result;
}
