/**
 * The sign-in diagnosis in the words a person checks it with: the chain one line a step (✓ or ✗,
 * the URL, the status), then each thing to fix and whose it is, then what clients will do.
 */
import type { AuthDefect, AuthResult, AuthSide, AuthStep, AuthVerdict } from "./types.js";

const SIDE_WORDS: Record<AuthSide, string> = {
  mcp_server: "the MCP server",
  authorization_server: "its authorization server",
  proxy: "a proxy in front",
};

const STEP_WORDS: Record<AuthStep, string> = {
  challenge: "the 401 challenge",
  resource_metadata: "the protected resource metadata",
  authorization_server: "the authorization server metadata",
};

const STEP_LABEL: Record<string, string> = {
  challenge: "challenge",
  resource_metadata: "resource metadata",
  authorization_server: "authorization server metadata",
  "authorization_server (origin)": "authorization server metadata at the origin",
  "cors preflight": "CORS preflight (OPTIONS)",
  "cors refusal": "cross-origin refusal (GET)",
};

/** One sentence for the verdict. */
function verdictWords(a: AuthResult): string {
  const by: Record<AuthVerdict, string> = {
    ready: "a standard OAuth client can start sign-in",
    manual_registration: "the chain holds, but a client must be registered by hand first",
    broken: `an OAuth client cannot start sign-in: it breaks at ${a.brokenAt ? STEP_WORDS[a.brokenAt] : "a step"}`,
    not_oauth: "no OAuth here: the server wants a key or another scheme",
  };
  return by[a.verdict];
}

function defectLine(d: AuthDefect): string {
  const mark = d.severity === "error" ? "✗" : "!";
  return `${mark} ${d.code} — fix on ${SIDE_WORDS[d.side]}: ${d.message}`;
}

/** The lines of the sign-in section of a text verdict (without indentation). */
export function authLines(a: AuthResult): string[] {
  const lines = [`Sign-in (judged by the ${a.rules} authorization rules): ${a.verdict} — ${verdictWords(a)}`];
  for (const s of a.steps) {
    const label = STEP_LABEL[s.step] ?? s.step;
    const status = s.status !== null ? `HTTP ${s.status}` : (s.error ?? "no answer");
    const extra = s.step === "challenge" && a.challenge ? challengeWords(a) : "";
    lines.push(
      `  ${s.ok ? "✓" : "✗"} ${label}${extra}  ${s.url}  ${status}${s.status !== null && s.error ? ` (${s.error})` : ""}`,
    );
  }
  if (a.defects.length > 0) {
    lines.push("");
    for (const d of a.defects) lines.push(`  ${defectLine(d)}`);
  }
  lines.push(
    "",
    `  Clients: strict (the revision's MUSTs) ${a.clients.strict === "ok" ? "can sign in" : "cannot"}; the TypeScript SDK ${a.clients.lenient === "ok" ? "reaches the sign-in page" : `stops${a.lenientStops ? ` (${a.lenientStops})` : ""}`}.`,
  );
  return lines;
}

function challengeWords(a: AuthResult): string {
  const c = a.challenge!;
  if (!c.scheme) return " (no WWW-Authenticate)";
  const parts = [c.scheme];
  if (c.resourceMetadata) parts.push(`resource_metadata=${c.resourceMetadata}`);
  if (c.scope) parts.push(`scope="${c.scope}"`);
  if (c.error) parts.push(`error=${c.error}`);
  return ` (${parts.join(" ")})`;
}

/** The advice sentence of a probe verdict that carries a sign-in diagnosis. */
export function authAdvice(a: AuthResult): string {
  const passKey = "To probe it with a credential you have, pass it with --header 'Authorization: Bearer <token>'.";
  switch (a.verdict) {
    case "ready":
      return `The server wants you to sign in with OAuth, and its discovery chain is sound: clients that support MCP authorization can start sign-in. ${passKey}`;
    case "manual_registration":
      return `The server wants you to sign in with OAuth, but its authorization server lets no client register itself: register a client with it by hand and give your client that ID. ${passKey}`;
    case "broken": {
      const first = a.defects.find((d) => d.severity === "error");
      return `The server asks for sign-in, but ${verdictWords(a)}${first ? `: ${first.message} (to fix on ${SIDE_WORDS[first.side]})` : "."} ${a.clients.lenient === "ok" ? "The TypeScript SDK gets through regardless." : ""} ${passKey}`
        .replace(/\s+/g, " ")
        .trim();
    }
    case "not_oauth":
      return "The server refuses without an OAuth challenge or metadata anywhere: it wants an API key or another credential, passed the way its documentation says. Pass it with --header 'Authorization: Bearer <key>', or the header it names (for example --header 'X-API-Key: <key>').";
  }
}
