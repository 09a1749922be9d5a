/**
 * mcp-wire/auth: the sign-in diagnosis `mcp-wire probe` runs on a server that wants sign-in: the
 * OAuth discovery walk (passive: GET and OPTIONS only, no registration, no token), the
 * `WWW-Authenticate` parser, and the verdicts, steps and defects it reports. See docs/library.md.
 */
export { walkAuth } from "../auth/walk.js";
export type { AuthWalkOptions } from "../auth/walk.js";
export type { HostSlot } from "../auth/fetcher.js";
export { parseChallenges } from "../auth/challenge.js";
export type { Challenge } from "../auth/challenge.js";
export { AUTH_VERDICTS, AUTH_STEPS, AUTH_DEFECT_CODES } from "../auth/types.js";
export type {
  AuthResult,
  AuthVerdict,
  AuthStep,
  AuthDefect,
  AuthDefectCode,
  AuthSide,
  AuthStepRecord,
  AuthChallengeSeen,
  AuthResourceMetadataSeen,
  AuthServerSeen,
} from "../auth/types.js";
