/**
 * Where a server that answered 401 wants its clients to sign in. A client "MUST use" the
 * protected-resource metadata (RFC 9728) to find the authorization server (2025-06-18 …
 * 2026-07-28 authorization, authorization server discovery): the URL the challenge's
 * `resource_metadata` names, else the well-known URL for the endpoint's path, then for its
 * root. The client signs in with nothing itself; it reads the metadata so that the error it
 * gives names where to sign in. One small GET each, capped, under one short deadline, without
 * the caller's credentials.
 */
import { HttpError } from "../transport/http/error.js";
import { Abort, fetchSameOrigin, readCapped } from "../transport/http/fetch.js";
import { parseJson } from "../codec/parse.js";
import type { LookupFunction } from "node:net";

const WELL_KNOWN = "/.well-known/oauth-protected-resource";
const MAX_BYTES = 64 * 1024;
const DEADLINE_MS = 5000;

/** The `resource_metadata` parameter of a Bearer challenge, quoted or not. */
function challengedUrl(challenge: string | undefined, endpoint: string): string | undefined {
  const m = challenge ? /(?:^|[\s,])resource_metadata\s*=\s*(?:"([^"]*)"|([^\s,]+))/i.exec(challenge) : null;
  const raw = m?.[1] ?? m?.[2];
  if (!raw) return undefined;
  try {
    const url = new URL(raw, endpoint);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Where to look, in order (RFC 9728 §3.1: the path-aware URL before the root one). */
function metadataUrls(error: HttpError): string[] {
  const endpoint = new URL(error.url);
  const path = endpoint.pathname === "/" ? "" : endpoint.pathname.replace(/\/$/, "");
  const urls = [challengedUrl(error.wwwAuthenticate, error.url)];
  urls.push(`${endpoint.origin}${WELL_KNOWN}${path}`, `${endpoint.origin}${WELL_KNOWN}`);
  return [...new Set(urls.filter((u): u is string => u !== undefined))];
}

/** The authorization servers one metadata document names, or undefined if it is not one. */
async function readMetadata(
  url: string,
  signal: Abort,
  lookup: LookupFunction | undefined,
): Promise<string[] | undefined> {
  try {
    const { response } = await fetchSameOrigin(
      url,
      { method: "GET", headers: { accept: "application/json" }, signal, lookup },
      "resource metadata",
    );
    const body = await readCapped(response, MAX_BYTES);
    if (response.status !== 200 || body.truncated) return undefined;
    const doc = parseJson(Buffer.from(body.bytes).toString("utf8")) as { authorization_servers?: unknown };
    const servers = doc?.authorization_servers;
    if (!Array.isArray(servers)) return undefined;
    return servers.filter((s): s is string => typeof s === "string").slice(0, 8);
  } catch {
    return undefined;
  }
}

/**
 * The same 401, with the metadata that says where to sign in (`resourceMetadataUrl`,
 * `authorizationServers`) when the server publishes it; `error` itself when it does not.
 */
export async function withSignIn(error: HttpError, lookup?: LookupFunction): Promise<HttpError> {
  const signal = new Abort();
  const timer = setTimeout(() => signal.abort(new Error("the resource metadata took too long")), DEADLINE_MS);
  try {
    for (const url of metadataUrls(error)) {
      if (signal.aborted) break;
      const servers = await readMetadata(url, signal, lookup);
      if (servers === undefined) continue;
      const where = servers.length > 0 ? `sign in at ${servers.join(", ")}` : "it names no authorization server";
      const own = error.message.startsWith(`${error.step}: `)
        ? error.message.slice(error.step.length + 2)
        : error.message;
      return new HttpError(
        {
          failure: error.failure,
          step: error.step,
          url: error.url,
          ...(error.status !== undefined ? { status: error.status } : {}),
          ...(error.contentType !== undefined ? { contentType: error.contentType } : {}),
          ...(error.bodyExcerpt !== undefined ? { bodyExcerpt: error.bodyExcerpt } : {}),
          ...(error.rpcError !== undefined ? { rpcError: error.rpcError } : {}),
          ...(error.wwwAuthenticate !== undefined ? { wwwAuthenticate: error.wwwAuthenticate } : {}),
          resourceMetadataUrl: url,
          authorizationServers: servers,
        },
        `${own} (its resource metadata, ${url}: ${where})`,
        { cause: error },
      );
    }
    return error;
  } finally {
    clearTimeout(timer);
  }
}
