/**
 * Where each revision's authorization rules say a client looks, and what they require. Read
 * from docs/specification/<revision>/basic/authorization(.mdx|/…): 2024-11-05 has no
 * authorization section (its servers are judged by 2025-03-26, the first that has one);
 * 2025-03-26 puts the authorization server at the MCP server's origin with RFC 8414 metadata and
 * default endpoints; 2025-06-18 adds RFC 9728 protected resource metadata, named by the 401's
 * `resource_metadata` (a MUST), and RFC 8414 path insertion; 2025-11-25 lets the server serve the
 * metadata at a well-known URI instead, adds OpenID Connect Discovery (path insertion and path
 * appending), client ID metadata documents, and makes clients refuse an authorization server
 * that lists no PKCE methods; 2026-07-28 keeps that and asks servers not to put
 * `offline_access` in the challenge.
 */
import type { Revision } from "../rules/revisions.js";

export interface AuthRules {
  revision: Revision;
  /** Clients find the authorization server through RFC 9728 protected resource metadata. */
  resourceMetadata: boolean;
  /** The 401 must name the metadata in `resource_metadata` (no other way is given). */
  challengeMustNameMetadata: boolean;
  /** A client must refuse an authorization server whose metadata lists no PKCE methods. */
  pkceMustBeListed: boolean;
  /** Client ID metadata documents are a way to register. */
  cimd: boolean;
  /** Servers should not put offline_access in the challenge's scope. */
  offlineAccessDiscouraged: boolean;
  /** Without metadata a client falls back to /authorize, /token and /register at the origin. */
  defaultEndpoints: boolean;
}

export function authRules(revision: Revision): AuthRules {
  const r = revision === "2024-11-05" ? "2025-03-26" : revision;
  const from = (first: Revision) => r >= first;
  return {
    revision: r,
    resourceMetadata: from("2025-06-18"),
    challengeMustNameMetadata: r === "2025-06-18",
    pkceMustBeListed: from("2025-11-25"),
    cimd: from("2025-11-25"),
    offlineAccessDiscouraged: from("2026-07-28"),
    defaultEndpoints: r === "2025-03-26",
  };
}

/** The path of a URL without a trailing slash ("" for the root), for inserting a well-known suffix. */
function pathOf(u: URL): string {
  return u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
}

/** RFC 9728 section 3.1: the well-known URI inserted before the path, then the root one. */
export function resourceMetadataUrls(endpoint: string): { url: string; resource: string; where: "path" | "root" }[] {
  const u = new URL(endpoint);
  const path = pathOf(u);
  const root = { url: `${u.origin}/.well-known/oauth-protected-resource`, resource: u.origin, where: "root" as const };
  if (!path) return [{ ...root, url: root.url + u.search }];
  return [
    {
      url: `${u.origin}/.well-known/oauth-protected-resource${path}${u.search}`,
      resource: withoutFragment(endpoint),
      where: "path",
    },
    root,
  ];
}

export interface DiscoveryUrl {
  url: string;
  kind: "oauth" | "openid";
}

/**
 * The authorization server metadata URLs for `issuer`, in the order the revision says to try
 * them: RFC 8414 path insertion only (2025-06-18); then OpenID Connect Discovery with path
 * insertion and path appending (2025-11-25 on); the origin's RFC 8414 document (2025-03-26).
 */
export function authorizationServerUrls(issuer: string, rules: AuthRules): DiscoveryUrl[] {
  const u = new URL(issuer);
  const path = pathOf(u);
  if (rules.defaultEndpoints) return [{ url: `${u.origin}/.well-known/oauth-authorization-server`, kind: "oauth" }];
  const oauth: DiscoveryUrl = { url: `${u.origin}/.well-known/oauth-authorization-server${path}`, kind: "oauth" };
  if (!rules.cimd) return [oauth];
  if (!path) return [oauth, { url: `${u.origin}/.well-known/openid-configuration`, kind: "openid" }];
  return [
    oauth,
    { url: `${u.origin}/.well-known/openid-configuration${path}`, kind: "openid" },
    { url: `${u.origin}${path}/.well-known/openid-configuration`, kind: "openid" },
  ];
}

export function withoutFragment(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/** http: is allowed only on loopback (a developer's own machine). */
export function isInsecure(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "http:" && !isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "::1";
}

export function isAbsoluteHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}
