/**
 * The sign-in walk: from a refusal ("sign in first") along the chain an OAuth client follows,
 * the challenge, the protected resource metadata, the authorization server metadata, judged by
 * one revision's rules, with what a strict and a tolerant client would do. Passive and without
 * credentials: GET for metadata and OPTIONS for the CORS preflight, never a registration or a
 * token request. Independent requests go out together, so the walk costs about two round trips,
 * and never more than its deadline.
 */
import type { LookupFunction } from "node:net";
import type { Revision } from "../rules/revisions.js";
import { findChallenge, parseChallenges, type Challenge } from "./challenge.js";
import { corsDefects, metadataCorsDefect } from "./cors.js";
import {
  authRules,
  authorizationServerUrls,
  isAbsoluteHttpUrl,
  isInsecure,
  resourceMetadataUrls,
  withoutFragment,
  type AuthRules,
  type DiscoveryUrl,
} from "./discovery.js";
import { Fetcher, type Fetched, type HostSlot } from "./fetcher.js";
import { lenientOutcome, resourceAllowed } from "./sdk-model.js";
import {
  AUTH_STEPS,
  type AuthChallengeSeen,
  type AuthDefect,
  type AuthDefectCode,
  type AuthResourceMetadataSeen,
  type AuthResult,
  type AuthServerSeen,
  type AuthSide,
  type AuthStep,
  type AuthStepRecord,
} from "./types.js";

export interface AuthWalkOptions {
  /** The MCP endpoint that refused. */
  endpoint: string;
  /** The HTTP status of the refusal (200 or 5xx for a JSON-RPC refusal); null if unknown. */
  status: number | null;
  /** The refusal's WWW-Authenticate header, as sent. */
  wwwAuthenticate: string | null;
  /** The JSON-RPC error of the refusal, when it was one (-32001 "invalid api key"). */
  rpcError?: { code: number; message: string } | null;
  /** The revision whose authorization rules apply. */
  rules: Revision;
  /** How long the walk may take, in milliseconds. */
  timeout: number;
  /** Largest body read. Default 4 MiB. */
  maxBytes?: number;
  /** Resolves host names instead of the system resolver. */
  lookup?: LookupFunction | undefined;
  /** Resolves to why a URL must not be called (a private address in a census of untrusted targets). */
  guard?: (url: string) => Promise<string | undefined>;
  /** Waits for the right to send each request to its host (a census's per-host limit). */
  hostSlot?: HostSlot;
  signal?: AbortSignal;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

class Findings {
  readonly defects: AuthDefect[] = [];
  add(
    code: AuthDefectCode,
    severity: "error" | "warning",
    step: AuthDefect["step"],
    side: AuthSide,
    message: string,
  ): void {
    this.defects.push({ code, severity, message, step, side });
  }
  errors(step?: AuthStep): AuthDefect[] {
    return this.defects.filter((d) => d.severity === "error" && (step === undefined || d.step === step));
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const ok = (f: Fetched) => f.status !== null && f.status >= 200 && f.status < 300;
/** What the fetcher records of a request the walk's deadline ended. */
const DEADLINE = "no answer within the deadline";
const shown = (f: Fetched) => (f.status !== null ? `HTTP ${f.status}` : (f.error ?? "no answer"));

export async function walkAuth(options: AuthWalkOptions): Promise<AuthResult> {
  const rules = authRules(options.rules);
  const fetcher = new Fetcher({
    deadline: Date.now() + Math.max(0, options.timeout),
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    protocolVersion: rules.revision,
    ...(options.guard ? { guard: options.guard } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.hostSlot ? { hostSlot: options.hostSlot } : {}),
  });
  try {
    return await walk(options, rules, fetcher);
  } finally {
    fetcher.close();
  }
}

/**
 * What every step of one walk reads and adds to: the refusal it started from, the rules, the
 * requests (each URL fetched once), the defects found, and the chain of requests a client
 * following the rules would make, in its order (what the text shows).
 */
interface WalkContext {
  readonly o: AuthWalkOptions;
  readonly rules: AuthRules;
  readonly fetcher: Fetcher;
  readonly found: Findings;
  /** The MCP endpoint, without a fragment. */
  readonly endpoint: string;
  readonly challenges: readonly Challenge[];
  readonly bearer: Challenge | undefined;
  /** The challenge's resource_metadata parameter, as sent. */
  readonly challengeUrl: string | undefined;
  /** The well-known URLs of the protected resource metadata, in the order clients try them. */
  readonly wellKnown: readonly { url: string; resource: string; where: "path" | "root" }[];
  readonly chain: { url: string; step: string }[];
  /** Defects of documents a browser client could not read: reported only for an OAuth chain. */
  readonly unreadable: AuthDefect[];
}

/** The protected resource metadata a client following the rules would use, or why there is none. */
interface ResourceMetadataFound {
  prm?: { fetched: Fetched; expectedResource: string; via: "challenge" | "path" | "root" };
  missing?: string;
}

/**
 * The chain in a client's order: the resource metadata, then the authorization server it names;
 * then the refusal judged by what the chain showed of OAuth (a server that shows none is
 * `not_oauth`), and the verdict from the first step with an error.
 */
async function walk(o: AuthWalkOptions, rules: AuthRules, fetcher: Fetcher): Promise<AuthResult> {
  const ctx = contextOf(o, rules, fetcher);
  const cors = startIndependentRequests(ctx);
  const metadata = await findResourceMetadata(ctx);
  const { resourceMetadata, issuer } = await judgeResourceMetadata(ctx, metadata);
  const authorizationServer = await findAuthorizationServer(ctx, issuer);
  const oauthSignal =
    ctx.bearer !== undefined ||
    metadata.prm !== undefined ||
    authorizationServer.found ||
    (await originMetadataExists(ctx));
  judgeRefusal(ctx, oauthSignal, metadata.prm !== undefined);
  if (!oauthSignal) return notOauth(ctx);
  const corsFound = await cors;
  for (const d of [...corsFound, ...ctx.unreadable]) ctx.found.defects.push(d);
  const lenient = await lenientOf(ctx);
  const brokenAt = AUTH_STEPS.find((s) => ctx.found.errors(s).length > 0) ?? null;
  const seen = authorizationServer.seen;
  const registers = seen !== null ? seen.registration.length > 0 : rules.defaultEndpoints;
  const verdict = brokenAt ? "broken" : registers ? "ready" : "manual_registration";
  return {
    rules: rules.revision,
    verdict,
    brokenAt,
    challenge: challengeSeen(ctx),
    resourceMetadata,
    authorizationServer: seen,
    steps: stepsOf(ctx, corsFound),
    defects: sortDefects(ctx.found.defects),
    clients: { strict: verdict === "ready" ? "ok" : "fails", lenient: lenient.ok ? "ok" : "fails" },
    ...(lenient.stops ? { lenientStops: lenient.stops } : {}),
  };
}

function contextOf(o: AuthWalkOptions, rules: AuthRules, fetcher: Fetcher): WalkContext {
  const endpoint = withoutFragment(o.endpoint);
  const challenges = parseChallenges(o.wwwAuthenticate);
  const bearer = findChallenge(challenges, "Bearer");
  return {
    o,
    rules,
    fetcher,
    found: new Findings(),
    endpoint,
    challenges,
    bearer,
    challengeUrl: bearer?.params.resource_metadata,
    wellKnown: rules.resourceMetadata ? resourceMetadataUrls(endpoint) : [],
    chain: [],
    unreadable: [],
  };
}

/** The challenge as the diagnosis shows it. */
function challengeSeen(ctx: WalkContext): AuthChallengeSeen {
  const { bearer } = ctx;
  return {
    status: ctx.o.status,
    scheme: bearer?.scheme ?? ctx.challenges[0]?.scheme ?? null,
    resourceMetadata: bearer?.params.resource_metadata ?? null,
    scope: bearer?.params.scope ?? null,
    error: bearer?.params.error ?? null,
  };
}

/** A GET of protected resource metadata (the fetcher sends each URL once, whoever asks). */
function resourceMetadataAt(ctx: WalkContext, url: string): Promise<Fetched> {
  return ctx.fetcher.get(url, "resource_metadata");
}

/**
 * Everything that does not depend on an earlier answer goes out at once: the metadata URLs (the
 * challenge's and the well-known ones), and the two CORS requests, whose defects it resolves to.
 */
function startIndependentRequests(ctx: WalkContext): Promise<AuthDefect[]> {
  const { rules, challengeUrl } = ctx;
  if (rules.resourceMetadata && challengeUrl && isAbsoluteHttpUrl(challengeUrl))
    void resourceMetadataAt(ctx, new URL(challengeUrl).href);
  for (const w of ctx.wellKnown) void resourceMetadataAt(ctx, w.url);
  return corsDefects(ctx.endpoint, rules, ctx.fetcher);
}

/** The protected resource metadata a client following the rules would use: the challenge's, else the first well-known one that answers. */
async function findResourceMetadata(ctx: WalkContext): Promise<ResourceMetadataFound> {
  const { challengeUrl } = ctx;
  if (!ctx.rules.resourceMetadata) return {};
  if (challengeUrl !== undefined) {
    if (!isAbsoluteHttpUrl(challengeUrl))
      return {
        missing: `the challenge's resource_metadata ${JSON.stringify(challengeUrl)} is not an absolute http(s) URL`,
      };
    const f = await resourceMetadataAt(ctx, new URL(challengeUrl).href);
    ctx.chain.push({ url: f.url, step: "resource_metadata" });
    if (ok(f)) return { prm: { fetched: f, expectedResource: ctx.endpoint, via: "challenge" } };
    return { missing: `the challenge names ${f.url}, which answers ${shown(f)}` };
  }
  const tried: string[] = [];
  for (const w of ctx.wellKnown) {
    const f = await resourceMetadataAt(ctx, w.url);
    ctx.chain.push({ url: w.url, step: "resource_metadata" });
    if (ok(f)) return { prm: { fetched: f, expectedResource: w.resource, via: w.where } };
    tried.push(`${w.url} (${shown(f)})`);
  }
  return { missing: `nothing at ${tried.join(" or ")}` };
}

/**
 * The protected resource metadata judged (RFC 9728), and the issuer it leads to; without it, what
 * is missing and where it should be. A revision without resource metadata takes the endpoint's
 * origin as the authorization server.
 */
async function judgeResourceMetadata(
  ctx: WalkContext,
  { prm, missing }: ResourceMetadataFound,
): Promise<{ resourceMetadata: AuthResourceMetadataSeen | null; issuer: string | undefined }> {
  const { rules, found } = ctx;
  if (!rules.resourceMetadata) return { resourceMetadata: null, issuer: new URL(ctx.endpoint).origin };
  if (!prm) {
    found.add(
      "resource_metadata_not_found",
      "error",
      "resource_metadata",
      "mcp_server",
      `No protected resource metadata: ${missing ?? "none found"}.${await resourceMetadataFix(ctx)}`,
    );
    return { resourceMetadata: null, issuer: undefined };
  }
  const hidden = metadataCorsDefect(prm.fetched, "protected resource metadata", "mcp_server");
  if (hidden) ctx.unreadable.push(hidden);
  const doc = prm.fetched.json;
  const problems: string[] = [];
  let resourceMetadata: AuthResourceMetadataSeen | null = null;
  if (!isObject(doc))
    problems.push(
      prm.fetched.tooLarge
        ? "the body passed the size cap (too_large)"
        : prm.fetched.json === undefined
          ? "the body is not JSON"
          : "the body is not a JSON object",
    );
  else {
    if (!isAbsoluteHttpUrl(doc.resource)) problems.push("`resource` (required) is missing or not an absolute URL");
    const servers = doc.authorization_servers;
    if (!Array.isArray(servers) || servers.length === 0)
      problems.push("`authorization_servers` must list at least one authorization server");
    else if (!servers.every(isAbsoluteHttpUrl))
      problems.push("`authorization_servers` holds something that is not an absolute URL");
    resourceMetadata = {
      url: prm.fetched.url,
      resource: typeof doc.resource === "string" ? doc.resource : null,
      authorizationServers: Array.isArray(servers) ? servers.filter((s): s is string => typeof s === "string") : [],
      scopesSupported: Array.isArray(doc.scopes_supported)
        ? doc.scopes_supported.filter((s): s is string => typeof s === "string")
        : null,
    };
  }
  if (problems.length > 0) {
    found.add(
      "resource_metadata_invalid",
      "error",
      "resource_metadata",
      "mcp_server",
      `The protected resource metadata at ${prm.fetched.url} is not usable: ${problems.join("; ")} (RFC 9728 section 2). Fix the document the MCP server serves there.`,
    );
    return { resourceMetadata, issuer: undefined };
  }
  // no problem means the document was an object: `resourceMetadata` is set
  const seen = resourceMetadata!;
  checkResource(found, ctx.endpoint, prm.expectedResource, prm.via, seen.resource!);
  for (const s of seen.authorizationServers) {
    if (isInsecure(s))
      found.add(
        "insecure_endpoint",
        "error",
        "resource_metadata",
        "mcp_server",
        `The resource metadata lists the authorization server ${s} over plain http: authorization server endpoints must be served over HTTPS. List its https:// URL.`,
      );
  }
  if (rules.offlineAccessDiscouraged && seen.scopesSupported?.includes("offline_access")) {
    found.add(
      "offline_access_in_challenge",
      "warning",
      "resource_metadata",
      "mcp_server",
      "The resource metadata lists offline_access in scopes_supported: MCP servers should not, since refresh tokens are not a resource requirement (clients ask the authorization server for them). Remove it.",
    );
  }
  return { resourceMetadata: seen, issuer: seen.authorizationServers[0] };
}

/** What to do about missing resource metadata: where it really is, when the challenge points elsewhere (worth saying), else where to serve it. */
async function resourceMetadataFix(ctx: WalkContext): Promise<string> {
  if (ctx.challengeUrl !== undefined) {
    for (const w of ctx.wellKnown) {
      if (ok(await resourceMetadataAt(ctx, w.url))) return ` It is served at ${w.url}: point resource_metadata there.`;
    }
  }
  return ` Serve RFC 9728 metadata naming the authorization server at the URL the 401 names in resource_metadata, or at ${ctx.wellKnown[0]?.url ?? "the well-known URL"}.`;
}

/** The authorization server metadata: every URL the revision lists, fetched together, used in order. */
async function findAuthorizationServer(
  ctx: WalkContext,
  issuer: string | undefined,
): Promise<{ found: boolean; seen: AuthServerSeen | null }> {
  if (issuer === undefined || !isAbsoluteHttpUrl(issuer)) return { found: false, seen: null };
  const { rules, found } = ctx;
  const urls = authorizationServerUrls(issuer, rules);
  const answers = urls.map((u) => ctx.fetcher.get(u.url, "authorization_server"));
  for (let i = 0; i < urls.length; i++) {
    const f = await answers[i]!;
    ctx.chain.push({ url: f.url, step: "authorization_server" });
    if (ok(f)) {
      const hidden = metadataCorsDefect(f, "authorization server metadata", "authorization_server");
      if (hidden) ctx.unreadable.push(hidden);
      return { found: true, seen: checkAuthorizationServer(found, rules, issuer, urls[i]!, f) };
    }
  }
  const tried = await Promise.all(answers);
  // a request the deadline found still waiting for its turn at the host (a census's per-host
  // limit) was never sent: it says nothing of the server, and the list says so
  const unsent = (f: Fetched) =>
    f.status === null && f.error === DEADLINE && !ctx.fetcher.sent.some((s) => s.url === f.url);
  const list = tried
    .map(
      (f) =>
        `${f.url} (${unsent(f) ? "not asked: the deadline passed while it waited for its turn at that host" : shown(f)})`,
    )
    .join(", ");
  if (rules.defaultEndpoints) {
    found.add(
      "authorization_server_metadata_not_found",
      "warning",
      "authorization_server",
      "authorization_server",
      `No authorization server metadata at ${list}: 2025-03-26 clients then use ${issuer}/authorize, /token and /register, which this walk does not call. Publishing RFC 8414 metadata removes the guesswork.`,
    );
  } else {
    found.add(
      "authorization_server_metadata_not_found",
      "error",
      "authorization_server",
      "authorization_server",
      `No authorization server metadata for ${issuer}: tried ${list}. The authorization server must publish RFC 8414 (or OpenID Connect Discovery) metadata at one of them.`,
    );
  }
  return { found: false, seen: null };
}

/**
 * The refusal itself: a JSON-RPC or non-401 refusal (the server did not say "sign in" the way
 * clients understand), a 401 without a Bearer challenge, a challenge that does not name the
 * metadata, and offline_access asked for.
 */
function judgeRefusal(ctx: WalkContext, oauthSignal: boolean, prmFound: boolean): void {
  const { o, rules, found, bearer } = ctx;
  if (o.status !== 401 || o.rpcError) {
    const how = o.rpcError
      ? `a JSON-RPC error ${o.rpcError.code} ${JSON.stringify(o.rpcError.message)}${o.status !== null ? ` with HTTP ${o.status}` : ""}`
      : `HTTP ${o.status ?? "?"}`;
    found.add(
      "auth_status_not_401",
      oauthSignal ? "error" : "warning",
      "challenge",
      "mcp_server",
      `The server refuses with ${how} instead of HTTP 401: clients start sign-in only on a 401 with a WWW-Authenticate challenge. Answer 401 (a proxy in front may be rewriting it).`,
    );
  }
  if (o.status === 401 && !bearer) {
    const other = ctx.challenges[0] ? ` (it sends a ${ctx.challenges[0].scheme} challenge)` : "";
    found.add(
      "no_challenge",
      rules.challengeMustNameMetadata ? "error" : "warning",
      "challenge",
      "mcp_server",
      `The 401 carries no Bearer challenge${other}: send WWW-Authenticate: Bearer resource_metadata="…" so clients know where to sign in. A proxy in front may be dropping the header.`,
    );
  } else if (bearer && !ctx.challengeUrl && rules.resourceMetadata) {
    const severity = rules.challengeMustNameMetadata ? "error" : prmFound ? undefined : "warning";
    if (severity) {
      found.add(
        "challenge_without_resource_metadata",
        severity,
        "challenge",
        "mcp_server",
        `The Bearer challenge has no resource_metadata parameter${rules.challengeMustNameMetadata ? " (2025-06-18 requires it)" : ""}: add resource_metadata="<URL of the protected resource metadata>".`,
      );
    }
  }
  if (rules.offlineAccessDiscouraged && bearer?.params.scope?.split(/\s+/).includes("offline_access")) {
    found.add(
      "offline_access_in_challenge",
      "warning",
      "challenge",
      "mcp_server",
      "The challenge asks for offline_access: MCP servers should not put it in the WWW-Authenticate scope, since refresh tokens are not a resource requirement. Remove it from the scope parameter.",
    );
  }
}

/** A refusal with no sign of OAuth anywhere: what it is, and whether the TypeScript SDK would try anyway. */
async function notOauth(ctx: WalkContext): Promise<AuthResult> {
  const { o } = ctx;
  const lenient = await lenientOf(ctx);
  return {
    rules: ctx.rules.revision,
    verdict: "not_oauth",
    brokenAt: null,
    challenge: challengeSeen(ctx),
    resourceMetadata: null,
    authorizationServer: null,
    steps: stepsOf(ctx, []).filter((x) => !x.step.startsWith("cors")),
    defects: [
      ...ctx.found.defects.filter((d) => d.code === "auth_status_not_401"),
      ...(o.status === 401 && ctx.challenges.length === 0 ? [NO_CHALLENGE_AT_ALL] : []),
    ],
    clients: { strict: "fails", lenient: lenient.ok ? "ok" : "fails" },
    ...(lenient.stops ? { lenientStops: lenient.stops } : {}),
  };
}

/** What the TypeScript SDK client would make of the same refusal. */
function lenientOf(ctx: WalkContext): ReturnType<typeof lenientOutcome> {
  return lenientOutcome(ctx.endpoint, ctx.o.status, ctx.o.wwwAuthenticate, (u, s) => ctx.fetcher.get(u, s));
}

/** The steps shown: the refusal, the chain in a client's order, then the CORS requests, each once. */
function stepsOf(ctx: WalkContext, corsFound: AuthDefect[]): AuthStepRecord[] {
  const { fetcher, o, bearer } = ctx;
  const refusal: AuthStepRecord = {
    step: "challenge",
    url: ctx.endpoint,
    status: o.status,
    ms: 0,
    ok: o.status === 401 && bearer !== undefined,
  };
  const picked = ctx.chain.map((c) => {
    const record = fetcher.steps.find((s) => s.url === c.url && s.method === "GET");
    return record ? { ...record, step: c.step } : undefined;
  });
  const cors = fetcher.steps
    .filter((s) => s.step === "cors preflight" || s.step === "cors refusal")
    .map((s) => ({
      ...s,
      ok:
        s.status !== null &&
        !corsFound.some(
          (d) => d.code === (s.step === "cors preflight" ? "cors_preflight_rejected" : "cors_headers_not_exposed"),
        ),
    }));
  const seen = new Set<string>();
  const all: AuthStepRecord[] = [
    refusal,
    ...picked.filter((x): x is NonNullable<typeof x> => x !== undefined),
    ...cors,
  ];
  return all.filter((x) => {
    const key = `${x.method ?? ""} ${x.url} ${x.step}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A 401 with no challenge at all, from a server that shows no sign of OAuth: HTTP requires every
 * 401 to say how to authenticate (RFC 9110 section 15.5.2), and without it a client cannot tell
 * a key from a sign-in. A challenge of another scheme says it, and is not a defect then.
 */
const NO_CHALLENGE_AT_ALL: AuthDefect = {
  code: "no_challenge",
  severity: "warning",
  step: "challenge",
  side: "mcp_server",
  message:
    'The 401 carries no WWW-Authenticate header, which HTTP requires on every 401 (RFC 9110 section 15.5.2): clients cannot tell whether to sign in or send a key. Send WWW-Authenticate with the scheme the server expects (Bearer resource_metadata="…" for OAuth). A proxy in front may be dropping the header.',
};

const STEP_ORDER = ["challenge", "resource_metadata", "authorization_server", "cors"];
function sortDefects(defects: AuthDefect[]): AuthDefect[] {
  return defects
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        STEP_ORDER.indexOf(a.d.step) - STEP_ORDER.indexOf(b.d.step) ||
        (a.d.severity === b.d.severity ? 0 : a.d.severity === "error" ? -1 : 1) ||
        a.i - b.i,
    )
    .map(({ d }) => d);
}

/** RFC 9728 section 3.3: the `resource` must be the resource the metadata was looked up for. */
function checkResource(
  found: Findings,
  endpoint: string,
  expected: string,
  via: "challenge" | "path" | "root",
  resource: string,
): void {
  if (sameUrl(resource, expected)) return;
  const tolerated = resourceAllowed(endpoint, resource);
  const where =
    via === "challenge"
      ? "the endpoint the 401 came from"
      : via === "path"
        ? "the endpoint whose path the well-known URL was built from"
        : "the origin the root well-known URL belongs to";
  found.add(
    "resource_mismatch",
    "error",
    "resource_metadata",
    "mcp_server",
    `The resource metadata says resource is \`${resource}\` but it was found for \`${expected}\` (${where}): make resource exactly \`${expected}\`; strict clients refuse this, the TypeScript SDK ${tolerated ? "accepts it (a path prefix on the same origin)" : "refuses it too"}.`,
  );
}

/** Identical URLs, up to what URL parsing normalizes (scheme and host case, an empty path). */
function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/**
 * The authorization server metadata a client found, judged the way the revision's discovery
 * reads it: a JSON object, the fields RFC 8414 (or OpenID Connect Discovery) requires, the issuer
 * it was looked up for, then what a client needs of it to sign in: PKCE S256, HTTPS endpoints, a
 * way to register. Null when there is no document to read.
 */
function checkAuthorizationServer(
  found: Findings,
  rules: AuthRules,
  issuer: string,
  where: DiscoveryUrl,
  f: Fetched,
): AuthServerSeen | null {
  const doc = f.json;
  if (!isObject(doc)) {
    found.add(
      "authorization_server_metadata_invalid",
      "error",
      "authorization_server",
      "authorization_server",
      `The authorization server metadata at ${f.url} is ${f.tooLarge ? "past the size cap (too_large)" : doc === undefined ? "not JSON" : "not a JSON object"}. Serve the RFC 8414 document there.`,
    );
    return null;
  }
  const seen = authorizationServerSeen(rules, f.url, doc);
  checkRequiredMetadata(found, where, f.url, doc);
  checkIssuer(found, issuer, doc.issuer);
  checkPkce(found, rules, doc.code_challenge_methods_supported, seen.pkce);
  checkHttpsEndpoints(found, doc);
  checkRegistration(found, rules, seen.registration);
  return seen;
}

/** What the document offers a client, as the diagnosis shows it. */
function authorizationServerSeen(rules: AuthRules, url: string, doc: Record<string, unknown>): AuthServerSeen {
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const registration: ("dcr" | "cimd")[] = [];
  if (isAbsoluteHttpUrl(doc.registration_endpoint)) registration.push("dcr");
  if (rules.cimd && doc.client_id_metadata_document_supported === true) registration.push("cimd");
  return {
    url,
    issuer: str(doc.issuer),
    authorizationEndpoint: str(doc.authorization_endpoint),
    tokenEndpoint: str(doc.token_endpoint),
    registration,
    pkce: list(doc.code_challenge_methods_supported),
  };
}

/** RFC 8414 section 2, and OpenID Connect Discovery's own required fields for a document found at its URL. */
function checkRequiredMetadata(found: Findings, where: DiscoveryUrl, url: string, doc: Record<string, unknown>): void {
  const problems: string[] = [];
  if (typeof doc.issuer !== "string") problems.push("`issuer` is missing");
  if (!isAbsoluteHttpUrl(doc.authorization_endpoint)) problems.push("`authorization_endpoint` is missing or not a URL");
  if (!isAbsoluteHttpUrl(doc.token_endpoint)) problems.push("`token_endpoint` is missing or not a URL");
  if (!Array.isArray(doc.response_types_supported)) problems.push("`response_types_supported` (required) is missing");
  else if (!doc.response_types_supported.includes("code")) problems.push("`response_types_supported` lacks `code`");
  if (where.kind === "openid") {
    for (const k of ["jwks_uri", "subject_types_supported", "id_token_signing_alg_values_supported"])
      if (doc[k] === undefined) problems.push(`\`${k}\` (required by OpenID Connect Discovery) is missing`);
  }
  if (problems.length > 0) {
    found.add(
      "authorization_server_metadata_invalid",
      "error",
      "authorization_server",
      "authorization_server",
      `The authorization server metadata at ${url} is not usable: ${problems.join("; ")}. Fix the document.`,
    );
  }
}

/**
 * RFC 8414 section 3.3: the document's issuer must be identical to the one its URL was built
 * from, or a client must not use it. A difference of a trailing slash only is told apart, as the
 * TypeScript SDK forgives one case of it.
 */
function checkIssuer(found: Findings, issuer: string, stated: unknown): void {
  if (typeof stated !== "string" || stated === issuer) return;
  const v2 = issuer.endsWith("/") && stated === issuer.slice(0, -1);
  const slashOnly = stated.replace(/\/$/, "") === issuer.replace(/\/$/, "");
  found.add(
    "issuer_mismatch",
    "error",
    "authorization_server",
    "mcp_server",
    `issuer is \`${stated}\` but the metadata was found for \`${issuer}\`: make them identical (list the issuer exactly as the authorization server states it in authorization_servers, or fix the issuer)${slashOnly ? `; strict clients refuse this, the TypeScript SDK ${v2 ? "accepts it" : "refuses it too (it forgives only a trailing slash on the listed URL)"}` : "; clients must not use metadata whose issuer differs (RFC 8414 section 3.3)"}.`,
  );
}

/** Clients must use PKCE with S256; revisions differ on whether the metadata must say it is supported. */
function checkPkce(found: Findings, rules: AuthRules, listed: unknown, pkce: readonly string[]): void {
  if (listed === undefined) {
    found.add(
      "pkce_s256_missing",
      rules.pkceMustBeListed ? "error" : "warning",
      "authorization_server",
      "authorization_server",
      `The authorization server metadata lists no code_challenge_methods_supported: add ["S256"]. ${rules.pkceMustBeListed ? "Clients following this revision must refuse to proceed without it; the TypeScript SDK goes on regardless." : "Clients use PKCE S256 anyway."}`,
    );
  } else if (!pkce.includes("S256")) {
    found.add(
      "pkce_s256_missing",
      "error",
      "authorization_server",
      "authorization_server",
      `The authorization server supports PKCE methods ${JSON.stringify(pkce)} but not S256, which clients must use: add "S256".`,
    );
  }
}

/** Every authorization server endpoint must be served over HTTPS (loopback aside). */
function checkHttpsEndpoints(found: Findings, doc: Record<string, unknown>): void {
  for (const [name, value] of [
    ["issuer", doc.issuer],
    ["authorization_endpoint", doc.authorization_endpoint],
    ["token_endpoint", doc.token_endpoint],
    ["registration_endpoint", doc.registration_endpoint],
  ] as const) {
    if (typeof value === "string" && isInsecure(value)) {
      found.add(
        "insecure_endpoint",
        "error",
        "authorization_server",
        "authorization_server",
        `${name} ${value} is plain http on a host that is not loopback: every authorization server endpoint must be served over HTTPS.`,
      );
    }
  }
}

/** Without a way to register, each user registers a client by hand: not broken, but worth saying. */
function checkRegistration(found: Findings, rules: AuthRules, registration: readonly string[]): void {
  if (registration.length > 0) return;
  const how = rules.cimd
    ? "a registration_endpoint (dynamic client registration) or client_id_metadata_document_supported: true"
    : "a registration_endpoint (dynamic client registration)";
  found.add(
    "no_registration",
    "warning",
    "authorization_server",
    "authorization_server",
    `The authorization server offers no way for a client to register itself: each user must register a client by hand and give its ID to their client. Offer ${how}.`,
  );
}

/**
 * Whether the MCP server's origin publishes authorization server metadata (what 2025-03-26
 * clients and the TypeScript SDK look at when there is no resource metadata): the one OAuth
 * signal left when the challenge and the resource metadata say nothing.
 */
async function originMetadataExists(ctx: WalkContext): Promise<boolean> {
  if (!ctx.rules.resourceMetadata) return false; // already looked at as the authorization server
  const origin = new URL(ctx.endpoint).origin;
  const urls = [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  for (const url of urls) ctx.chain.push({ url, step: "authorization_server (origin)" });
  const answers = await Promise.all(urls.map((url) => ctx.fetcher.get(url, "authorization_server (origin)")));
  return answers.some((f) => ok(f) && isObject(f.json));
}
