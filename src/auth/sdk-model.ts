/**
 * What the official TypeScript SDK client does with the same answers, up to the point where it
 * sends the user to the authorization URL: the `clients.lenient` tier. Modelled on
 * `@modelcontextprotocol/client` 2.x `auth()` (and checked against the SDK itself, v1 and v2, in
 * the tests):
 * - it starts only on an HTTP 401, and reads the challenge by splitting on spaces and matching
 *   `name=value` anywhere in the header (a first challenge of another scheme hides the rest);
 * - protected resource metadata from the challenge's URL, else path-aware then root well-known;
 *   any failure there falls back to treating the MCP server's origin as the authorization server;
 * - authorization server metadata from the RFC 8414 / OpenID URLs in order, skipping 4xx and
 *   502, stopping on other 5xx, on a document its schema rejects, and on an issuer that differs
 *   other than by the authorization server URL's own trailing slash (v1 checks no issuer);
 * - a `resource` that is the endpoint or a path prefix of it on the same origin;
 * - a client ID metadata document when the server says it supports them (the cross-check's
 *   client has one), else dynamic registration, which needs `registration_endpoint`;
 * - `response_types_supported` with `code`, and S256 unless no PKCE methods are listed at all.
 * Without any authorization server metadata it would POST to a guessed `/register`: the walk
 * never sends that, so it counts as failing.
 */
import type { Fetched } from "./fetcher.js";

export interface LenientOutcome {
  ok: boolean;
  /** Where and why it stops, when it does. */
  stops?: string;
}

type Get = (url: string, step: string) => Promise<Fetched>;

/** The challenge parameters as the SDK reads them. */
function sdkChallengeParams(header: string | null): { resourceMetadataUrl?: string; scope?: string } {
  if (!header) return {};
  const [type, scheme] = header.split(" ");
  if (!type || !["bearer", "dpop"].includes(type.toLowerCase()) || !scheme) return {};
  const field = (name: string): string | undefined => {
    const m = new RegExp(String.raw`${name}=(?:"([^"]+)"|([^\s,]+))`).exec(header);
    return m ? m[1] || m[2] || undefined : undefined;
  };
  const out: { resourceMetadataUrl?: string; scope?: string } = {};
  const rm = field("resource_metadata");
  if (rm && URL.canParse(rm)) out.resourceMetadataUrl = new URL(rm).href;
  const scope = field("scope");
  if (scope) out.scope = scope;
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isUrl = (v: unknown): v is string =>
  typeof v === "string" && URL.canParse(v) && /^[a-z][a-z0-9+.-]*:\/\//i.test(v);
const isSafeUrl = (v: unknown): v is string =>
  isUrl(v) && !["javascript:", "data:", "vbscript:"].includes(new URL(v).protocol);
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);

/** Same origin, and the endpoint's path at or below the resource's path (segment-wise). */
export function resourceAllowed(endpoint: string, resource: string): boolean {
  let requested: URL;
  let configured: URL;
  try {
    requested = new URL(endpoint);
    configured = new URL(resource);
  } catch {
    return false;
  }
  if (requested.origin !== configured.origin) return false;
  if (requested.pathname.length < configured.pathname.length) return false;
  const slash = (p: string) => (p.endsWith("/") ? p : `${p}/`);
  return slash(requested.pathname).startsWith(slash(configured.pathname));
}

/** The discovery URLs the SDK tries for an authorization server, in its order. */
function sdkDiscoveryUrls(asUrl: string): { url: string; kind: "oauth" | "openid" }[] {
  const u = new URL(asUrl);
  if (u.pathname === "/") {
    return [
      { url: `${u.origin}/.well-known/oauth-authorization-server`, kind: "oauth" },
      { url: `${u.origin}/.well-known/openid-configuration`, kind: "openid" },
    ];
  }
  const path = u.pathname.replace(/\/$/, "");
  return [
    { url: `${u.origin}/.well-known/oauth-authorization-server${path}`, kind: "oauth" },
    { url: `${u.origin}/.well-known/openid-configuration${path}`, kind: "openid" },
    { url: `${u.origin}${path}/.well-known/openid-configuration`, kind: "openid" },
  ];
}

function metadataSchemaProblem(doc: unknown, kind: "oauth" | "openid"): string | undefined {
  if (!isObject(doc)) return "not a JSON object";
  if (typeof doc.issuer !== "string") return "no issuer";
  if (!isSafeUrl(doc.authorization_endpoint)) return "no usable authorization_endpoint";
  if (!isSafeUrl(doc.token_endpoint)) return "no usable token_endpoint";
  if (!optional(doc.registration_endpoint, isSafeUrl)) return "registration_endpoint is not a URL";
  if (!isStringArray(doc.response_types_supported)) return "no response_types_supported";
  if (!optional(doc.code_challenge_methods_supported, isStringArray))
    return "code_challenge_methods_supported is not a list";
  if (!optional(doc.client_id_metadata_document_supported, (v) => typeof v === "boolean"))
    return "client_id_metadata_document_supported is not a boolean";
  if (kind === "openid") {
    if (!isSafeUrl(doc.jwks_uri)) return "no jwks_uri (OpenID)";
    if (!isStringArray(doc.subject_types_supported)) return "no subject_types_supported (OpenID)";
    if (!isStringArray(doc.id_token_signing_alg_values_supported))
      return "no id_token_signing_alg_values_supported (OpenID)";
  }
  return undefined;
}

export async function lenientOutcome(
  endpoint: string,
  status: number | null,
  wwwAuthenticate: string | null,
  get: Get,
): Promise<LenientOutcome> {
  if (status !== 401)
    return {
      ok: false,
      stops: `it starts sign-in only on HTTP 401, and got ${status === null ? "no HTTP status" : `HTTP ${status}`}`,
    };
  const params = sdkChallengeParams(wwwAuthenticate);
  const server = new URL(endpoint);

  // protected resource metadata: any failure means "use the server's origin"
  let prm: Record<string, unknown> | undefined;
  let answer: Fetched;
  if (params.resourceMetadataUrl) answer = await get(params.resourceMetadataUrl, "resource_metadata");
  else {
    const path = server.pathname.replace(/\/$/, "");
    answer = await get(
      `${server.origin}/.well-known/oauth-protected-resource${path}${server.search}`,
      "resource_metadata",
    );
    const fallBack =
      answer.status === null ||
      (server.pathname !== "/" && ((answer.status >= 300 && answer.status < 500) || answer.status === 502));
    if (fallBack) answer = await get(`${server.origin}/.well-known/oauth-protected-resource`, "resource_metadata");
  }
  if (answer.status === null) return { ok: false, stops: `no answer from ${answer.url}` };
  if (answer.status >= 200 && answer.status < 300 && isObject(answer.json)) {
    const doc = answer.json;
    const valid =
      isUrl(doc.resource) &&
      optional(doc.authorization_servers, (v) => Array.isArray(v) && v.every(isSafeUrl)) &&
      optional(doc.scopes_supported, isStringArray);
    if (valid) prm = doc;
  }
  const servers = prm?.authorization_servers as string[] | undefined;
  const asUrl = servers && servers.length > 0 ? servers[0]! : new URL("/", endpoint).href;

  let metadata: Record<string, unknown> | undefined;
  for (const { url, kind } of sdkDiscoveryUrls(asUrl)) {
    const r = await get(url, "authorization_server");
    if (r.status === null) return { ok: false, stops: `no answer from ${url}` };
    if (r.status < 200 || r.status >= 300) {
      if (r.status < 500 || r.status === 502) continue;
      return { ok: false, stops: `HTTP ${r.status} from ${url}` };
    }
    // a body past the cap was never read whole: what the SDK would make of it is not known
    if (r.tooLarge)
      return { ok: false, stops: `the metadata at ${url} passed the body cap and was not read (too_large)` };
    const problem = r.json === undefined ? "not JSON" : metadataSchemaProblem(r.json, kind);
    if (problem) return { ok: false, stops: `the metadata at ${url} is rejected: ${problem}` };
    const doc = r.json as Record<string, unknown>;
    const issuer = doc.issuer as string;
    if (!(issuer === asUrl || (asUrl.endsWith("/") && issuer === asUrl.slice(0, -1))))
      return { ok: false, stops: `issuer ${issuer} is not ${asUrl}` };
    metadata = doc;
    break;
  }

  if (prm && !resourceAllowed(withoutHash(endpoint), prm.resource as string))
    return { ok: false, stops: `resource ${String(prm.resource)} does not cover ${endpoint}` };
  if (!metadata)
    return { ok: false, stops: "no authorization server metadata: it would guess /register and /authorize" };
  if (metadata.client_id_metadata_document_supported !== true && metadata.registration_endpoint === undefined) {
    return { ok: false, stops: "no registration endpoint and no client ID metadata documents" };
  }
  if (!(metadata.response_types_supported as string[]).includes("code"))
    return { ok: false, stops: "response type code not supported" };
  const pkce = metadata.code_challenge_methods_supported as string[] | undefined;
  if (pkce && !pkce.includes("S256")) return { ok: false, stops: "S256 not among the PKCE methods" };
  return { ok: true };
}

function withoutHash(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}
