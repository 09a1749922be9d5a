/**
 * The official MCP Registry's API, read live (`census --registry URL`): `GET <URL>/v0.1/servers`
 * (falling back to `/v0/servers` when a registry answers 404 there), `version=latest`, pages of
 * 100 followed by `metadata.nextCursor`, `updated_since` when asked. A 429 is waited out as its
 * `Retry-After` says, within limits. The registry is the user's choice and trusted to answer; what
 * it lists is not, and goes through the same rules as an export file (targets.ts).
 */
import { TargetsError } from "./targets.js";

export interface RegistryFetchOptions {
  /** Only entries updated at or after this instant (ISO 8601). */
  updatedSince?: string;
  /** Each request's deadline, ms. */
  timeoutMs?: number;
  /** Pages read at most: a registry that never stops paging is not read forever. */
  maxPages?: number;
  /** Bytes read of one page at most. */
  maxBytes?: number;
  /** Told after each page, with how many have been read. */
  onPage?: (pages: number) => void;
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

export interface RegistryPages {
  pages: unknown[];
  /** The API path that answered. */
  api: "/v0.1/servers" | "/v0/servers";
}

/** Reads every page the registry at `base` lists; throws TargetsError saying what went wrong. */
export async function fetchRegistry(base: string, options: RegistryFetchOptions = {}): Promise<RegistryPages> {
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
  const pages: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    if (pages.length >= maxPages)
      throw new TargetsError(`${base}: more than ${maxPages} pages; the registry's cursor may not advance`);
    const url = pageUrl(root, api, cursor, options.updatedSince);
    const answer = await get(url, options, sleep);
    if (answer.status === 404 && api === "/v0.1/servers" && pages.length === 0) {
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
    pages.push(page);
    options.onPage?.(pages.length);
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

/** One GET, its body read up to the cap, 429s waited out. */
async function get(
  url: URL,
  options: RegistryFetchOptions,
  sleep: (ms: number) => Promise<void>,
): Promise<{ status: number; body: string }> {
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: "application/json" },
        redirect: "follow",
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
    return { status: res.status, body: await capped(res, options.maxBytes ?? DEFAULT_MAX_BYTES, url) };
  }
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

async function capped(res: Response, maxBytes: number, url: URL): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // leaving the loop by a throw cancels the stream
    if (size > maxBytes) throw new TargetsError(`${url.href}: a registry page over ${maxBytes} bytes; not read`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
