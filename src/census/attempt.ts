/**
 * What the census stores of one target: a probe's verdict without its trace, or the reason a
 * target was not called. Never a secret: the headers sent are scrubbed from every stored string,
 * since a server may echo a credential in an error message or a page.
 */
import { redactSecrets } from "../secrets/redact.js";
import { adviceFor } from "../probe/advice.js";
import type { ProbeResult } from "../probe/verdict.js";
import type { AttemptRecord, TargetRecord } from "./store.js";
import { surfaceRecord, withDigests } from "./surface.js";

export type InvalidDetail = NonNullable<TargetRecord["invalid"]> | "private_address";

/**
 * `redacted`: the verdict's strings were scrubbed of `headers` already (mcp-wire's probes do it
 * before they return), so they are not walked again. `target`: the target as the store knows it,
 * when the verdict names it otherwise.
 */
export function attemptOf(
  runId: number,
  at: Date,
  r: ProbeResult,
  headers: Record<string, string> | undefined,
  redacted = false,
  target = r.target,
): AttemptRecord {
  const attempt: AttemptRecord = {
    runId,
    target,
    at: at.toISOString(),
    class: r.class,
    detail: r.detail,
    era: r.era,
    revision: r.revision,
    transport: r.transport,
    httpStatus: r.http?.status ?? null,
    contentType: r.http?.contentType ?? null,
    rpcCode: r.rpcError?.code ?? null,
    rpcMessage: r.rpcError?.message ?? null,
    rpcRange: r.rpcError?.range ?? null,
    tools: r.tools,
    serverName: r.server?.name ?? null,
    serverVersion: r.server?.version ?? null,
    defects: r.defects,
    elapsedMs: r.elapsedMs,
    repro: r.repro ?? null,
    advice: r.advice || null,
    // the sign-in walk, as docs/probe.md shapes it; scrubbed below like every other string
    auth: r.auth ? (JSON.parse(JSON.stringify(r.auth)) as Record<string, unknown>) : null,
    surface: r.surface ? surfaceRecord(r.surface) : null,
  };
  const stored = redacted ? attempt : scrub(attempt, headers);
  // digests of the definitions as stored: a secret scrubbed from one changes its text
  if (stored.surface) stored.surface = withDigests(stored.surface);
  return stored;
}

/** A target recorded without being called. `address` is what a private host resolved to. */
export function invalidAttempt(
  runId: number,
  at: Date,
  target: TargetRecord,
  detail: InvalidDetail,
  address?: string,
): AttemptRecord {
  return {
    runId,
    target: target.target,
    at: at.toISOString(),
    class: "invalid_target",
    detail,
    era: null,
    revision: null,
    transport: null,
    httpStatus: null,
    contentType: null,
    rpcCode: null,
    rpcMessage: null,
    rpcRange: null,
    tools: null,
    serverName: null,
    serverVersion: null,
    defects: [],
    elapsedMs: 0,
    repro: null,
    advice: INVALID_ADVICE[detail](address),
    auth: null,
  };
}

/**
 * A registry target whose host name did not resolve when the private-address rule looked it up:
 * not called (a second lookup to connect could answer a private address), and recorded as the
 * probe records a name that does not resolve. `reason`: the resolver's code (ENOTFOUND).
 */
export function unresolvedAttempt(runId: number, at: Date, target: TargetRecord, reason: string): AttemptRecord {
  const transport = target.kind === "sse" ? "http+sse" : "streamable-http";
  const advice = adviceFor("unreachable", {
    detail: "dns",
    rpcError: null,
    http: null,
    transport,
    revision: null,
    defects: [],
  });
  return {
    ...invalidAttempt(runId, at, target, "bad_url"),
    class: "unreachable",
    detail: "dns",
    transport,
    advice: `${advice} (${reason}; not called)`,
  };
}

const INVALID_ADVICE: Record<InvalidDetail, (address?: string) => string> = {
  bad_url: () =>
    "Not an http(s) URL that can be called. Fix it where it is listed (the registry entry or the targets file).",
  template: () =>
    "The URL has a {variable} with no default, so there is nothing to call until a client fills it in. A registry entry can give the variable a default, which a census then uses.",
  needs_config: () =>
    "Not called: the registry entry requires a header (an API key or a tenant) that has no value, so there is nothing a client could call without configuring it first. Give it with --header 'Name: value' to include it.",
  private_address: (address) =>
    `Not called: the host resolves to ${address ?? "an address"} (loopback, private, link-local or cloud metadata), and a URL from a registry is untrusted. A public server must resolve to a public address; to census your own network on purpose, use --allow-private.`,
};

/** Every stored string but the target's identity, with the headers' secrets shown as `<redacted>`. */
function scrub(a: AttemptRecord, headers: Record<string, string> | undefined): AttemptRecord {
  const { target, ...rest } = a;
  return { target, ...redactSecrets(rest, headers) };
}
