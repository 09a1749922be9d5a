/**
 * The official MCP Registry's API, read live (`census --registry URL`): `GET <URL>/v0.1/servers`
 * (falling back to `/v0/servers` when a registry answers 404 there), `version=latest`, pages of
 * 100 followed by `metadata.nextCursor`, `updated_since` when asked. A 429 is waited out as its
 * `Retry-After` says, within limits. The registry is the user's choice and trusted to answer; what
 * it lists is not, and goes through the same rules as an export file (targets.ts). Its redirects
 * are followed on its own origin only: one elsewhere could lead the census to an address on the
 * user's network (a cloud's metadata service) before any rule on targets applies. Each page is
 * handed on as it comes and not kept, and all of them together are capped.
 */
import { MAX_TARGETS_BYTES, TargetsError } from "./targets.js";

export interface RegistryFetchOptions {
  /** Only entries updated at or after this instant (ISO 8601). */
  updatedSince?: string;
  /** Each request's deadline, ms. */
  timeoutMs?: number;
  /** Pages read at most: a registry that never stops paging is not read forever. */
  maxPages?: number;
  /** Bytes read of one page at most. */
  maxBytes?: number;
  /** Bytes read of all the pages together at most (default: as much as a targets file may hold). */
  maxTotalBytes?: number;
  /** Waits `ms` (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

const PAGE_LIMIT = 100;
const DEFAULT_MAX_PAGES = 2_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** 429s in a row on one page before giving up, and the longest single wait honoured. */
const MAX_RETRIES = 5;
const MAX_WAIT_MS = 120_000;
/** Redirects followed for one request, each on the registry's own origin. */
const MAX_REDIRECTS = 5;

export interface RegistryPages {
  /** How many pages were read. */
  pages: number;
  /** The API path that answered. */
  api: "/v0.1/servers" | "/v0/servers";
}

/**
 * Reads every page the registry at `base` lists, handing each to `read` (its number from 1) as it
 * comes; throws TargetsError saying what went wrong.
 */
export async function fetchRegistry(
  base: string,
  read: (page: unknown, n: number) => void,
  options: RegistryFetchOptions = {},
): Promise<RegistryPages> {
  let root: URL;
  try {
    root = new URL(base);
  } catch {
    throw new TargetsError(
      `--registry takes the registry's base URL (https://registry.modelcontextprotocol.io), not ${JSON.stringify(base)}`,
    );
  }
  if (root.protocol !== "https:" && root.protocol !== "http:")
    throw new TargetsError(`--registry takes an http(s) URL, not ${JSON.stringify(base)}`);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  let api: RegistryPages["api"] = "/v0.1/servers";
  let pages = 0;
  const budget = { left: options.maxTotalBytes ?? MAX_TARGETS_BYTES };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    if (pages >= maxPages)
      throw new TargetsError(`${base}: more than ${maxPages} pages; the registry's cursor may not advance`);
    const url = pageUrl(root, api, cursor, options.updatedSince);
    const answer = await get(url, options, sleep, budget);
    if (answer.status === 404 && api === "/v0.1/servers" && pages === 0) {
      api = "/v0/servers";
      continue;
    }
    if (answer.status !== 200)
      throw new TargetsError(
        `${url.href}: the registry answered HTTP ${answer.status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ""}`,
      );
    let page: unknown;
    try {
      page = JSON.parse(answer.body);
    } catch {
      throw new TargetsError(`${url.href}: the registry's answer is not JSON`);
    }
    read(page, ++pages);
    const next = (page as { metadata?: { nextCursor?: unknown } } | null)?.metadata?.nextCursor;
    if (typeof next !== "string" || next === "") return { pages, api };
    if (seen.has(next))
      throw new TargetsError(`${url.href}: the registry repeated cursor ${JSON.stringify(next.slice(0, 100))}`);
    seen.add(next);
    cursor = next;
  }
}

function pageUrl(root: URL, api: string, cursor: string | undefined, updatedSince: string | undefined): URL {
  const url = new URL(`${root.pathname.replace(/\/+$/, "")}${api}`, root);
  url.searchParams.set("limit", String(PAGE_LIMIT));
  url.searchParams.set("version", "latest");
  if (updatedSince !== undefined) url.searchParams.set("updated_since", updatedSince);
  if (cursor !== undefined) url.searchParams.set("cursor", cursor);
  return url;
}

/** One GET, its body read up to the caps, 429s waited out, redirects followed on the same origin only. */
async function get(
  url: URL,
  options: RegistryFetchOptions,
  sleep: (ms: number) => Promise<void>,
  budget: { left: number },
): Promise<{ status: number; body: string }> {
  let hops = 0;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (e) {
      const why =
        (e as Error).name === "TimeoutError"
          ? "no answer in time"
          : ((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
      throw new TargetsError(`${url.origin}: the registry could not be read (${why})`);
    }
    if (res.status === 429 && attempt < MAX_RETRIES) {
      await res.body?.cancel();
      await sleep(retryAfterMs(res.headers.get("retry-after"), attempt));
      continue;
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
    if (location !== null) {
      await res.body?.cancel();
      url = sameOriginHop(url, location, ++hops);
      attempt = -1;
      continue;
    }
    const cap = Math.min(options.maxBytes ?? DEFAULT_MAX_BYTES, budget.left);
    const body = await capped(res, cap, url, cap < (options.maxBytes ?? DEFAULT_MAX_BYTES));
    budget.left -= Buffer.byteLength(body);
    return { status: res.status, body };
  }
}

/** Where a redirect from `from` leads, if it stays on the registry's origin; else why it is not followed. */
function sameOriginHop(from: URL, location: string, hops: number): URL {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new TargetsError(
      `${from.href}: the registry redirected to ${JSON.stringify(location.slice(0, 200))}, no URL`,
    );
  }
  if (to.origin !== from.origin)
    throw new TargetsError(
      `${from.href}: the registry redirected to another origin (${to.origin}); a registry's redirects are followed on its own origin only`,
    );
  if (hops > MAX_REDIRECTS) throw new TargetsError(`${from.href}: more than ${MAX_REDIRECTS} redirects in a row`);
  return to;
}

/** `Retry-After` in seconds or as an HTTP date; without one, a doubling wait from one second. */
export function retryAfterMs(header: string | null, attempt: number, now = Date.now()): number {
  let ms = 1000 * 2 ** attempt;
  if (header !== null) {
    const seconds = Number(header.trim());
    if (header.trim() !== "" && Number.isFinite(seconds)) ms = seconds * 1000;
    else if (Number.isFinite(Date.parse(header))) ms = Date.parse(header) - now;
  }
  return Math.min(MAX_WAIT_MS, Math.max(0, ms));
}

async function capped(res: Response, maxBytes: number, url: URL, total: boolean): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // leaving the loop by a throw cancels the stream
    if (size > maxBytes)
      throw new TargetsError(
        total
          ? `${url.href}: the registry's pages passed what a census reads of them in all; not read further`
          : `${url.href}: a registry page over ${maxBytes} bytes; not read`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
