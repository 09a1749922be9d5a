/**
 * What a browser client (a web app, an inspector in a page) needs from the MCP server beyond what
 * a desktop client does: to read the 401's WWW-Authenticate and the Mcp-Session-Id header across
 * origins (Access-Control-Expose-Headers), to be allowed the MCP request headers (the preflight's
 * Access-Control-Allow-Headers), and to read the metadata documents (Access-Control-Allow-Origin).
 * The Fetch standard's rules: a `*` allows any header except `authorization`, which must be named.
 */
import type { AuthRules } from "./discovery.js";
import { PROBE_ORIGIN, type Fetched, type Fetcher } from "./fetcher.js";
import type { AuthDefect } from "./types.js";

const PREFLIGHT_HEADERS = ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id"];

function headerList(value: string | null | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "");
}

function allowsOrigin(f: Fetched): boolean {
  const v = f.headers?.get("access-control-allow-origin")?.trim();
  return v === "*" || v === PROBE_ORIGIN;
}

/** The CORS defects of the MCP endpoint: the preflight, and what a cross-origin refusal exposes. */
export async function corsDefects(endpoint: string, rules: AuthRules, fetcher: Fetcher): Promise<AuthDefect[]> {
  const [preflight, refusal] = await Promise.all([
    fetcher.preflight(endpoint, PREFLIGHT_HEADERS.join(", ")),
    fetcher.get(endpoint, "cors refusal", { accept: "application/json, text/event-stream" }),
  ]);
  const out: AuthDefect[] = [];
  const side = "mcp_server" as const;
  if (preflight.status !== null) {
    const allowed = headerList(preflight.headers?.get("access-control-allow-headers"));
    const missing = PREFLIGHT_HEADERS.filter(
      (h) => !allowed.includes(h) && !(h !== "authorization" && allowed.includes("*")),
    );
    const statusOk = preflight.status >= 200 && preflight.status < 300;
    if (!statusOk || !allowsOrigin(preflight) || missing.length > 0) {
      const why = !statusOk
        ? `answers HTTP ${preflight.status}`
        : !allowsOrigin(preflight)
          ? "allows no other origin (no Access-Control-Allow-Origin)"
          : `does not allow ${missing.join(", ")}`;
      out.push({
        code: "cors_preflight_rejected",
        severity: "warning",
        step: "cors",
        side,
        message: `A browser's preflight (OPTIONS naming ${PREFLIGHT_HEADERS.join(", ")}) ${why}, so browser clients cannot call the server. Answer OPTIONS with 204, Access-Control-Allow-Origin, and Access-Control-Allow-Headers: ${PREFLIGHT_HEADERS.join(", ")} (in the server or the proxy in front).`,
      });
    }
  }
  if (refusal.status !== null) {
    const exposed = headerList(refusal.headers?.get("access-control-expose-headers"));
    const needed = ["www-authenticate", ...(rules.revision < "2026-07-28" ? ["mcp-session-id"] : [])];
    const hidden = allowsOrigin(refusal)
      ? needed.filter((h) => !exposed.includes(h) && !exposed.includes("*"))
      : needed;
    if (hidden.length > 0) {
      const names = hidden.map((h) => (h === "www-authenticate" ? "WWW-Authenticate" : "Mcp-Session-Id"));
      out.push({
        code: "cors_headers_not_exposed",
        severity: "warning",
        step: "cors",
        side,
        message: allowsOrigin(refusal)
          ? `A cross-origin answer hides ${names.join(" and ")} from browser clients: add Access-Control-Expose-Headers: ${names.join(", ")}.`
          : `A cross-origin answer carries no Access-Control-Allow-Origin, so a browser client reads nothing of the 401 (not ${names.join(" nor ")}): add Access-Control-Allow-Origin and Access-Control-Expose-Headers: ${names.join(", ")}.`,
      });
    }
  }
  return out;
}

/** A metadata document a browser client cannot read. */
export function metadataCorsDefect(f: Fetched, what: string, side: AuthDefect["side"]): AuthDefect | undefined {
  if (f.status === null || f.status < 200 || f.status >= 300 || allowsOrigin(f)) return undefined;
  return {
    code: "metadata_without_cors",
    severity: "warning",
    step: "cors",
    side,
    message: `The ${what} at ${f.url} carries no Access-Control-Allow-Origin, so browser clients cannot read it: add Access-Control-Allow-Origin: *.`,
  };
}
