/**
 * The Streamable HTTP request headers that mirror the body, checked against it as an
 * intermediary sees them: 2026-07-28 `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * (streamable-http "Request Metadata"), and in a legacy session `MCP-Protocol-Version` against
 * the version `initialize` settled on. Unlike a server, which refuses at the first mismatch, the
 * tap reports every one.
 */
import { defect, pointerToken, quote, type Defect } from "../codec/defects.js";
import { META_PROTOCOL_VERSION, RULES, isRevision, type Revision } from "../rules/revisions.js";
import { H_METHOD, H_NAME, H_PROTOCOL_VERSION, decodeHeaderValue } from "../transport/http/headers.js";

/** The body field `Mcp-Name` mirrors, for the methods that carry it. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

const REF = "(2026-07-28 transports, Streamable HTTP request metadata)";
const META_PATH = `/params/_meta/${pointerToken(META_PROTOCOL_VERSION)}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface HeaderContext {
  /** A request header by lower-case name (several values joined as node:http joins them). */
  header(name: string): string | undefined;
  /** The revision a legacy `initialize` exchange settled on in this session, if one did. */
  negotiated?: Revision;
}

/**
 * Defects of the headers that came with one message the client POSTed (a request or a
 * notification; anything else carries nothing to mirror).
 */
export function checkRequestHeaders(body: unknown, context: HeaderContext): Defect[] {
  if (!isObject(body) || typeof body.method !== "string") return [];
  const found: Defect[] = [];
  const method = body.method;
  const params = isObject(body.params) ? body.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const bodyVersion = meta?.[META_PROTOCOL_VERSION];
  const version = context.header(H_PROTOCOL_VERSION);
  const modern = typeof bodyVersion === "string" && (!isRevision(bodyVersion) || RULES[bodyVersion].era === "modern");
  if (!modern) {
    legacyVersionHeader(version, method, context.negotiated, found);
    return found;
  }
  versionHeader(version, bodyVersion, found);
  methodHeader(context.header(H_METHOD), method, found);
  const source = NAME_SOURCE[method];
  const bodyName = source === undefined ? undefined : params?.[source];
  if (source !== undefined && typeof bodyName === "string")
    nameHeader(context.header(H_NAME), method, source, bodyName, found);
  return found;
}

/** Legacy: the header, once the session has a version, must name that version (2025-06-18 on). */
function legacyVersionHeader(
  version: string | undefined,
  method: string,
  settled: Revision | undefined,
  found: Defect[],
): void {
  if (version === undefined || settled === undefined || method === "initialize" || version.trim() === settled) return;
  found.push(
    defect(
      "header_mismatch",
      "",
      `MCP-Protocol-Version header ${quote(version)} is not ${quote(settled)}, the version initialize settled on for this session (${settled} transports, protocol version header)`,
    ),
  );
}

function versionHeader(version: string | undefined, bodyVersion: string, found: Defect[]): void {
  if (version === undefined) {
    found.push(
      defect(
        "header_missing",
        META_PATH,
        `no MCP-Protocol-Version header; the body's _meta names ${quote(bodyVersion)} ${REF}`,
      ),
    );
  } else if (version.trim() !== bodyVersion) {
    found.push(
      defect(
        "header_mismatch",
        META_PATH,
        `MCP-Protocol-Version header ${quote(version)} does not match the body's _meta protocol version ${quote(bodyVersion)} ${REF}`,
      ),
    );
  }
}

function methodHeader(header: string | undefined, method: string, found: Defect[]): void {
  if (header === undefined) {
    found.push(
      defect("header_missing", "/method", `no Mcp-Method header; the body's method is ${quote(method)} ${REF}`),
    );
  } else if (header.trim() !== method) {
    found.push(
      defect(
        "header_mismatch",
        "/method",
        `Mcp-Method header ${quote(header)} does not match the body's method ${quote(method)} ${REF}`,
      ),
    );
  }
}

/** `Mcp-Name` against the body field it mirrors (`source`, holding `bodyName`); it may be base64-encoded. */
function nameHeader(raw: string | undefined, method: string, source: string, bodyName: string, found: Defect[]): void {
  const path = `/params/${source}`;
  if (raw === undefined) {
    found.push(
      defect(
        "header_missing",
        path,
        `no Mcp-Name header; ${method} carries params.${source} ${quote(bodyName)} ${REF}`,
      ),
    );
    return;
  }
  const name = decodeHeaderValue(raw);
  if (name === undefined) {
    found.push(
      defect(
        "header_malformed",
        path,
        `Mcp-Name header ${quote(raw)} holds characters a header value cannot, or a broken =?base64?…?= value ${REF}`,
      ),
    );
  } else if (name !== bodyName) {
    found.push(
      defect(
        "header_mismatch",
        path,
        `Mcp-Name header ${quote(name)} does not match params.${source} ${quote(bodyName)} ${REF}`,
      ),
    );
  }
}
