/**
 * The sign-in diagnosis as docs/probe.md documents it ("The sign-in diagnosis: `auth`"): the
 * verdict, the first broken step, what each step found, the defects, and what a strict and a
 * tolerant client would do.
 */
import type { Revision } from "../rules/revisions.js";

export const AUTH_VERDICTS = ["ready", "manual_registration", "broken", "not_oauth"] as const;
export type AuthVerdict = (typeof AUTH_VERDICTS)[number];

/** The steps a verdict can break at, in the order a client walks them. */
export const AUTH_STEPS = ["challenge", "resource_metadata", "authorization_server"] as const;
export type AuthStep = (typeof AUTH_STEPS)[number];

/** The stable sign-in defect codes (docs/probe.md, "Sign-in defect codes"). */
export const AUTH_DEFECT_CODES = [
  "no_challenge",
  "challenge_without_resource_metadata",
  "auth_status_not_401",
  "resource_metadata_not_found",
  "resource_metadata_invalid",
  "resource_mismatch",
  "authorization_server_metadata_not_found",
  "authorization_server_metadata_invalid",
  "issuer_mismatch",
  "pkce_s256_missing",
  "no_registration",
  "insecure_endpoint",
  "offline_access_in_challenge",
  "cors_headers_not_exposed",
  "cors_preflight_rejected",
  "metadata_without_cors",
] as const;
export type AuthDefectCode = (typeof AUTH_DEFECT_CODES)[number];

/** Who has to change something: the MCP server, its authorization server, or a proxy in front. */
export type AuthSide = "mcp_server" | "authorization_server" | "proxy";

export interface AuthDefect {
  code: AuthDefectCode;
  severity: "error" | "warning";
  /** What is wrong and what to change, in one sentence a person can act on. */
  message: string;
  /** The step it concerns: one of AUTH_STEPS, or "cors". */
  step: AuthStep | "cors";
  /** Who must fix it. */
  side: AuthSide;
}

/** One request of the walk (or the refusal it started from). */
export interface AuthStepRecord {
  step: string;
  url: string;
  /** "GET" or "OPTIONS" (the walk sends nothing else); the refusal is the probe's own request. */
  method?: string;
  status: number | null;
  ms: number;
  ok: boolean;
  /** Why it failed, when it did: "no answer within the deadline", "not called: private address". */
  error?: string;
}

export interface AuthChallengeSeen {
  status: number | null;
  scheme: string | null;
  resourceMetadata: string | null;
  scope: string | null;
  error: string | null;
}

export interface AuthResourceMetadataSeen {
  url: string;
  resource: string | null;
  authorizationServers: string[];
  scopesSupported: string[] | null;
}

export interface AuthServerSeen {
  url: string;
  issuer: string | null;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  /** How a client can get a client ID without a person: "dcr" (a registration endpoint), "cimd". */
  registration: ("dcr" | "cimd")[];
  /** code_challenge_methods_supported, as listed ([] when absent). */
  pkce: string[];
}

export interface AuthResult {
  /** The revision whose authorization rules were applied. */
  rules: Revision;
  verdict: AuthVerdict;
  brokenAt: AuthStep | null;
  challenge: AuthChallengeSeen | null;
  resourceMetadata: AuthResourceMetadataSeen | null;
  authorizationServer: AuthServerSeen | null;
  steps: AuthStepRecord[];
  defects: AuthDefect[];
  clients: { strict: "ok" | "fails"; lenient: "ok" | "fails" };
  /** Why the TypeScript SDK stops, when it does (one line). */
  lenientStops?: string;
}
