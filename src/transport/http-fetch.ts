/**
 * The two things every HTTP exchange of mcp-wire needs and `fetch` does not give: redirects
 * followed on the same origin only (so credentials never reach another host), and bodies read
 * with a cap (so a 1 GB answer costs no more than the cap).
 */
import { HttpError, networkCode } from "./http-error.js";

const MAX_REDIRECTS = 5;

export interface FetchedResponse {
  response: Response;
  /** Where the answer finally came from, after same-origin redirects. */
  url: string;
}

/**
 * `fetch` with `redirect: "manual"`: a redirect to the same origin is followed (the method and
 * body kept, as 307/308 say, since re-sending a JSON-RPC message as GET means nothing); one to
 * another origin is refused with an HttpError naming the target.
 */
export async function fetchSameOrigin(url: string, init: RequestInit, step: string): Promise<FetchedResponse> {
  let current = url;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(current, { ...init, redirect: "manual" });
    } catch (e) {
      throw asNetworkError(e, step, current, init.signal);
    }
    if (response.status < 300 || response.status >= 400 || response.status === 304) return { response, url: current };
    const location = response.headers.get("location");
    await response.body?.cancel().catch(() => undefined);
    if (!location) return { response, url: current };
    const target = new URL(location, current);
    const base = { step, url: current, status: response.status, location: target.href };
    if (target.origin !== new URL(current).origin) {
      throw new HttpError({ ...base, failure: "redirect" }, `HTTP ${response.status} redirect to another origin (${target.origin}), not followed: credentials are never sent elsewhere`);
    }
    if (hop >= MAX_REDIRECTS) throw new HttpError({ ...base, failure: "redirect" }, `more than ${MAX_REDIRECTS} redirects`);
    current = target.href;
  }
}

function asNetworkError(e: unknown, step: string, url: string, signal: AbortSignal | null | undefined): HttpError {
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof HttpError) return reason;
    return new HttpError({ failure: "timeout", step, url }, `no HTTP answer: ${reason instanceof Error ? reason.message : "aborted"}`, { cause: e });
  }
  const code = networkCode(e);
  const what = code ? describeNetworkCode(code) : e instanceof Error ? e.message : String(e);
  return new HttpError({ failure: "network", step, url, ...(code ? { networkCode: code } : {}) }, `no HTTP answer from ${new URL(url).host}: ${what}`, { cause: e });
}

function describeNetworkCode(code: string): string {
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host name does not resolve (${code})`;
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED)";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") return `the connection was reset (${code})`;
  if (code.includes("CERT") || code.includes("TLS") || code.includes("SSL")) return `TLS failed (${code})`;
  return code;
}

export interface CappedBody {
  bytes: Buffer;
  /** The body went past the cap; `bytes` holds the first `cap` bytes. */
  truncated: boolean;
}

/** Reads a body up to `cap` bytes; past it, stops reading and cancels the rest. */
export async function readCapped(response: Response, cap: number): Promise<CappedBody> {
  const body = response.body;
  if (!body) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let held = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (held + value.byteLength > cap) {
      parts.push(value.subarray(0, cap - held));
      held = cap;
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(parts, held), truncated: true };
    }
    parts.push(value);
    held += value.byteLength;
  }
  return { bytes: Buffer.concat(parts, held), truncated: false };
}

/** The first bytes of a body, as text a person can read in a report. */
export function excerpt(bytes: Uint8Array, max = 512): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max * 4)).toString("utf8");
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
