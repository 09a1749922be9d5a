/**
 * A probe's verdict: exactly one class a person can act on, its detail, and the evidence. The
 * classes and fields are what docs/probe.md documents (`--json`, "Classes and details"): users
 * rely on them.
 */
import type { Defect } from "../codec/defects.js";
import type { ErrorRange } from "../rules/error-codes.js";
import type { Revision } from "../rules/revisions.js";
import type { AuthResult } from "../auth/types.js";
import type { Surface } from "./surface.js";

export const PROBE_CLASSES = [
  "ok",
  "unreachable",
  "timeout",
  "auth_required",
  "http_error",
  "web_page",
  "not_json",
  "not_jsonrpc",
  "rpc_error",
  "protocol_violation",
] as const;
export type ProbeClass = (typeof PROBE_CLASSES)[number];

export type ProbeTransport = "streamable-http" | "http+sse" | "stdio";

export interface TraceStep {
  step: string;
  /** The JSON-RPC message sent, when there was one. */
  request?: unknown;
  status?: number;
  contentType?: string;
  bodyExcerpt?: string;
  ms: number;
  /** What went wrong at this step, in a few words. */
  error?: string;
}

export interface RpcErrorSeen {
  code: number;
  message: string;
  range: ErrorRange;
}

export interface ProbeResult {
  target: string;
  class: ProbeClass;
  detail: string;
  era: "modern" | "legacy" | null;
  revision: Revision | null;
  transport: ProbeTransport;
  http: { status: number; contentType: string } | null;
  rpcError: RpcErrorSeen | null;
  tools: number | null;
  server: { name: string; version: string } | null;
  defects: Defect[];
  advice: string;
  elapsedMs: number;
  trace: TraceStep[];
  /** A command line that replays the failing request (failing verdicts only). */
  repro?: string;
  /** The sign-in diagnosis, for an HTTP server that refused for lack of credentials. */
  auth?: AuthResult;
  /** What the server offers (tools, resource/template/prompt names), when the caller asked for it. */
  surface?: Surface;
}
