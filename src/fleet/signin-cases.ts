/**
 * Sign-in chains as met in the wild, healthy and broken, each with what the walk must say about
 * it under the revision it is judged by. A case is the documents a fixture server serves at
 * absolute paths below its origin, built from the case's own base path so that every case can
 * share one server.
 */
import type { AuthDefectCode, AuthStep, AuthVerdict } from "../auth/types.js";
import type { Revision } from "../rules/revisions.js";

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** JSON (an object) or raw text. */
  body?: unknown;
}

/** How the case answers browsers: all good, or one thing missing. */
export type CorsMode = "full" | "hidden" | "preflight" | "metadata";

export interface SigninLayout {
  /** What a request to the MCP endpoint gets (POST and GET alike). */
  endpoint: Answer;
  /** Documents by absolute path. */
  docs: Record<string, Answer>;
  cors: CorsMode;
}

export interface AuthExpectation {
  rules: Revision;
  verdict: AuthVerdict;
  brokenAt: AuthStep | null;
  /** Exactly the defects, as "code" (error) or "code?" (warning), in any order. */
  defects: string[];
  strict: "ok" | "fails";
  lenient: "ok" | "fails";
}

export interface SigninCase {
  name: string;
  description: string;
  /** The probe's class detail for the refusal. */
  probeDetail: "http_401" | "rpc_error_instead_of_401";
  /** The status the probe sees. */
  status: number;
  expect: AuthExpectation;
  layout(origin: string, base: string): SigninLayout;
}

const INVALID_TOKEN = { error: "invalid_token", error_description: "Missing bearer token" };

function bearer(params: Record<string, string>): string {
  const list = Object.entries(params).map(([k, v]) => `${k}="${v.replace(/["\\]/g, "\\$&")}"`);
  return list.length ? `Bearer ${list.join(", ")}` : "Bearer";
}

function refuse401(challenge: string | undefined): Answer {
  return {
    status: 401,
    headers: challenge === undefined ? {} : { "www-authenticate": challenge },
    body: INVALID_TOKEN,
  };
}

/** The paths a case's documents usually live at. */
export function paths(base: string) {
  return {
    endpoint: `${base}/mcp`,
    prmPathInserted: `/.well-known/oauth-protected-resource${base}/mcp`,
    issuerPath: `${base}/as`,
    asOauth: `/.well-known/oauth-authorization-server${base}/as`,
    asOidcInserted: `/.well-known/openid-configuration${base}/as`,
    asOidcAppended: `${base}/as/.well-known/openid-configuration`,
    register: `${base}/as/register`,
  };
}

function prmDoc(origin: string, base: string, extra: Record<string, unknown> = {}): Answer {
  return {
    status: 200,
    body: {
      resource: `${origin}${base}/mcp`,
      authorization_servers: [`${origin}${base}/as`],
      scopes_supported: ["mcp:read"],
      ...extra,
    },
  };
}

function asDoc(origin: string, base: string, extra: Record<string, unknown> = {}): Answer {
  const issuer = `${origin}${base}/as`;
  const doc: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${origin}${base}/as/register`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete doc[k];
    else doc[k] = v;
  }
  return { status: 200, body: doc };
}

/** The healthy chain: a challenge naming the path-inserted metadata, DCR, S256. */
function healthy(
  origin: string,
  base: string,
  over: {
    prm?: Record<string, unknown>;
    as?: Record<string, unknown>;
    challenge?: Record<string, string> | null;
    cors?: CorsMode;
  } = {},
): SigninLayout {
  const p = paths(base);
  const challenge =
    over.challenge === null
      ? undefined
      : bearer(over.challenge ?? { resource_metadata: `${origin}${p.prmPathInserted}` });
  return {
    endpoint: refuse401(challenge),
    docs: { [p.prmPathInserted]: prmDoc(origin, base, over.prm), [p.asOauth]: asDoc(origin, base, over.as) },
    cors: over.cors ?? "full",
  };
}

const ready = (rules: Revision = "2025-11-25"): AuthExpectation => ({
  rules,
  verdict: "ready",
  brokenAt: null,
  defects: [],
  strict: "ok",
  lenient: "ok",
});
const broken = (
  brokenAt: AuthStep,
  defects: (AuthDefectCode | `${AuthDefectCode}?`)[],
  lenient: "ok" | "fails",
  rules: Revision = "2025-11-25",
): AuthExpectation => ({
  rules,
  verdict: "broken",
  brokenAt,
  defects,
  strict: "fails",
  lenient,
});

/** A case refused the usual way (HTTP 401) unless it says otherwise. */
type CaseSpec = Omit<SigninCase, "probeDetail" | "status"> & Partial<Pick<SigninCase, "probeDetail" | "status">>;
const refusedWith401 = (c: CaseSpec): SigninCase => ({ probeDetail: "http_401", status: 401, ...c });

export const SIGNIN_CASES: SigninCase[] = (
  [
    {
      name: "signin-dcr",
      description:
        "OAuth done right: a 401 naming its resource metadata, an authorization server with dynamic client registration and PKCE S256",
      expect: ready(),
      layout: (origin, base) => healthy(origin, base),
    },
    {
      name: "signin-cimd",
      description: "OAuth with client ID metadata documents instead of a registration endpoint",
      expect: ready(),
      layout: (origin, base) =>
        healthy(origin, base, {
          as: { registration_endpoint: undefined, client_id_metadata_document_supported: true },
        }),
    },
    {
      name: "signin-well-known",
      description:
        "a Bearer challenge without resource_metadata; the resource metadata at the path-inserted well-known URL",
      expect: ready(),
      layout: (origin, base) =>
        healthy(origin, base, {
          challenge: { realm: "mcp", error: "invalid_token", error_description: 'token missing, "please sign in"' },
        }),
    },
    {
      name: "signin-openid",
      description: "an authorization server that publishes only OpenID Connect Discovery, at the path-appended URL",
      expect: ready(),
      layout: (origin, base) => {
        const p = paths(base);
        const layout = healthy(origin, base);
        const doc = asDoc(origin, base, {
          jwks_uri: `${origin}${base}/as/jwks`,
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
        delete layout.docs[p.asOauth];
        layout.docs[p.asOidcAppended] = doc;
        return layout;
      },
    },
    {
      name: "signin-api-key",
      description:
        "a 401 with no challenge and no metadata anywhere: it wants an API key (and HTTP wants a challenge on every 401)",
      expect: {
        rules: "2025-11-25",
        verdict: "not_oauth",
        brokenAt: null,
        defects: ["no_challenge?"],
        strict: "fails",
        lenient: "fails",
      },
      layout: () => ({ endpoint: { status: 401, body: { error: "missing api key" } }, docs: {}, cors: "full" }),
    },
    {
      name: "signin-basic",
      description:
        "a 401 with a Basic challenge and no metadata anywhere: it says how to authenticate, just not with OAuth",
      expect: {
        rules: "2025-11-25",
        verdict: "not_oauth",
        brokenAt: null,
        defects: [],
        strict: "fails",
        lenient: "fails",
      },
      layout: () => ({
        endpoint: {
          status: 401,
          headers: { "www-authenticate": 'Basic realm="api"' },
          body: { error: "missing credentials" },
        },
        docs: {},
        cors: "full",
      }),
    },
    {
      name: "signin-no-challenge",
      description:
        "a 401 without WWW-Authenticate, though the metadata is served at the well-known URL (judged by 2025-06-18, where the challenge must name it)",
      expect: broken("challenge", ["no_challenge"], "ok", "2025-06-18"),
      layout: (origin, base) => healthy(origin, base, { challenge: null }),
    },
    {
      name: "signin-challenge-no-metadata",
      description: "a Bearer challenge without resource_metadata, and no resource metadata anywhere",
      expect: broken(
        "resource_metadata",
        ["challenge_without_resource_metadata?", "resource_metadata_not_found"],
        "fails",
      ),
      layout: (origin, base) => {
        const layout = healthy(origin, base, { challenge: { realm: "mcp" } });
        delete layout.docs[paths(base).prmPathInserted];
        return layout;
      },
    },
    {
      name: "signin-metadata-wrong-path",
      description:
        "the challenge names a resource metadata URL that answers 404; the document is at the well-known URL instead",
      expect: broken("resource_metadata", ["resource_metadata_not_found"], "fails"),
      layout: (origin, base) =>
        healthy(origin, base, { challenge: { resource_metadata: `${origin}${base}/oauth-protected-resource` } }),
    },
    {
      name: "signin-metadata-invalid",
      description: "resource metadata without `resource` and with `authorization_server` misspelt",
      expect: broken("resource_metadata", ["resource_metadata_invalid"], "fails"),
      layout: (origin, base) => {
        const layout = healthy(origin, base);
        layout.docs[paths(base).prmPathInserted] = {
          status: 200,
          body: { authorization_server: `${origin}${base}/as` },
        };
        return layout;
      },
    },
    {
      name: "signin-resource-mismatch",
      description: "resource metadata whose `resource` names another server",
      expect: broken("resource_metadata", ["resource_mismatch"], "fails"),
      layout: (origin, base) => healthy(origin, base, { prm: { resource: `${origin}/another-server/mcp` } }),
    },
    {
      name: "signin-resource-prefix",
      description: "resource metadata whose `resource` is a path prefix of the endpoint",
      expect: broken("resource_metadata", ["resource_mismatch"], "ok"),
      layout: (origin, base) => healthy(origin, base, { prm: { resource: `${origin}${base}` } }),
    },
    {
      name: "signin-issuer-slash",
      description: "the resource metadata lists the authorization server with a trailing slash; its issuer has none",
      expect: broken("authorization_server", ["issuer_mismatch"], "ok"),
      layout: (origin, base) => healthy(origin, base, { prm: { authorization_servers: [`${origin}${base}/as/`] } }),
    },
    {
      name: "signin-as-not-found",
      description: "the authorization server publishes no metadata at any discovery URL",
      expect: broken("authorization_server", ["authorization_server_metadata_not_found"], "fails"),
      layout: (origin, base) => {
        const layout = healthy(origin, base);
        delete layout.docs[paths(base).asOauth];
        return layout;
      },
    },
    {
      name: "signin-as-invalid",
      description: "authorization server metadata without a token_endpoint",
      expect: broken("authorization_server", ["authorization_server_metadata_invalid"], "fails"),
      layout: (origin, base) => healthy(origin, base, { as: { token_endpoint: undefined } }),
    },
    {
      name: "signin-pkce-missing",
      description: "authorization server metadata that lists no code_challenge_methods_supported",
      expect: broken("authorization_server", ["pkce_s256_missing"], "ok"),
      layout: (origin, base) => healthy(origin, base, { as: { code_challenge_methods_supported: undefined } }),
    },
    {
      name: "signin-no-registration",
      description: "an authorization server with neither a registration endpoint nor client ID metadata documents",
      expect: {
        rules: "2025-11-25",
        verdict: "manual_registration",
        brokenAt: null,
        defects: ["no_registration?"],
        strict: "fails",
        lenient: "fails",
      },
      layout: (origin, base) => healthy(origin, base, { as: { registration_endpoint: undefined } }),
    },
    {
      name: "signin-insecure",
      description: "authorization and token endpoints over plain http on a public host name",
      expect: broken("authorization_server", ["insecure_endpoint", "insecure_endpoint"], "ok"),
      layout: (origin, base) =>
        healthy(origin, base, {
          as: {
            authorization_endpoint: "http://auth.example.com/authorize",
            token_endpoint: "http://auth.example.com/token",
          },
        }),
    },
    {
      name: "signin-offline-access",
      description: "a challenge whose scope asks for offline_access (judged by 2026-07-28)",
      expect: { ...ready("2026-07-28"), defects: ["offline_access_in_challenge?"] },
      layout: (origin, base) =>
        healthy(origin, base, {
          challenge: { resource_metadata: `${origin}${paths(base).prmPathInserted}`, scope: "mcp:read offline_access" },
        }),
    },
    {
      name: "signin-500",
      description:
        'HTTP 500 with JSON-RPC -32001 "Unauthorized: missing token" instead of a 401, though the resource metadata is published',
      probeDetail: "rpc_error_instead_of_401",
      status: 500,
      expect: broken("challenge", ["auth_status_not_401"], "fails"),
      layout: (origin, base) => ({
        ...healthy(origin, base),
        endpoint: {
          status: 500,
          body: { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized: missing token" } },
        },
      }),
    },
    {
      name: "signin-rpc-32001",
      description:
        'HTTP 200 with JSON-RPC -32001 "invalid token" instead of a 401, though the resource metadata is published',
      probeDetail: "rpc_error_instead_of_401",
      status: 200,
      expect: broken("challenge", ["auth_status_not_401"], "fails"),
      layout: (origin, base) => ({
        ...healthy(origin, base),
        endpoint: { status: 200, body: { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "invalid token" } } },
      }),
    },
    {
      name: "signin-cors-hidden",
      description: "a healthy chain whose cross-origin 401 does not expose WWW-Authenticate",
      expect: { ...ready(), defects: ["cors_headers_not_exposed?"] },
      layout: (origin, base) => healthy(origin, base, { cors: "hidden" }),
    },
    {
      name: "signin-cors-preflight",
      description: "a healthy chain whose CORS preflight is refused (405)",
      expect: { ...ready(), defects: ["cors_preflight_rejected?"] },
      layout: (origin, base) => healthy(origin, base, { cors: "preflight" }),
    },
    {
      name: "signin-cors-metadata",
      description: "a healthy chain whose metadata documents carry no Access-Control-Allow-Origin",
      expect: { ...ready(), defects: ["metadata_without_cors?", "metadata_without_cors?"] },
      layout: (origin, base) => healthy(origin, base, { cors: "metadata" }),
    },
  ] satisfies CaseSpec[]
).map(refusedWith401);

/** The cases the demo fleet shows (a few healthy ones and the commonest breaks). */
export const DEMO_SIGNIN_CASES = [
  "signin-dcr",
  "signin-cimd",
  "signin-metadata-wrong-path",
  "signin-issuer-slash",
  "signin-rpc-32001",
];

/**
 * 2025-03-26 chains, where the authorization server is the MCP server's origin: each needs a
 * server of its own, since it owns the origin's well-known metadata (every other case would see
 * it, as the TypeScript SDK looks there when resource metadata is missing).
 */
export const ORIGIN_CASES: SigninCase[] = (
  [
    {
      name: "signin-origin-metadata",
      description: "2025-03-26 style: a bare Bearer challenge, RFC 8414 metadata at the origin, no resource metadata",
      expect: ready("2025-03-26"),
      layout: (origin, base) => ({
        endpoint: refuse401("Bearer"),
        docs: {
          "/.well-known/oauth-authorization-server": {
            status: 200,
            body: { ...(asDoc(origin, base).body as object), issuer: origin },
          },
        },
        cors: "full",
      }),
    },
    {
      name: "signin-default-endpoints",
      description: "2025-03-26 style with no metadata at all: clients fall back to /authorize, /token and /register",
      expect: {
        rules: "2025-03-26",
        verdict: "ready",
        brokenAt: null,
        defects: ["authorization_server_metadata_not_found?"],
        strict: "ok",
        lenient: "fails",
      },
      layout: () => ({ endpoint: refuse401("Bearer"), docs: {}, cors: "full" }),
    },
  ] satisfies CaseSpec[]
).map(refusedWith401);
