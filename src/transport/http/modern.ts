/**
 * The checks a 2026-07-28 Streamable HTTP server makes on a request before serving it: the
 * required `_meta` fields, then the headers that mirror the body (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). Intermediaries route on those headers while the
 * server acts on the body, so any disagreement is refused (streamable-http "Server Validation").
 */
import type { ErrorObject, JsonObject } from "../../codec/message.js";
import { HEADER_MISMATCH, INVALID_PARAMS } from "../../rules/error-codes.js";
import { LATEST_REVISION, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, RULES } from "../../rules/revisions.js";
import { H_METHOD, H_NAME, H_PARAM_PREFIX, H_PROTOCOL_VERSION, NAME_SOURCE, decodeHeaderValue } from "./headers.js";

/** A tool parameter mirrored in an `Mcp-Param-{name}` header, found at `path` in the arguments. */
export interface ParamHeader {
  readonly name: string;
  readonly path: readonly string[];
}

/** What the checks need from the request's headers (the HTTP request itself fits). */
export interface ModernHeaders {
  header(name: string): string | undefined;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mismatch(message: string): ErrorObject {
  return { code: HEADER_MISMATCH, message: `Header mismatch: ${message}` };
}

/** A header value quoted for an error message: short, and safe whatever bytes it holds. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * The error a 2026-07-28 request must be refused with (HTTP 400), or undefined when it may be
 * served. `paramHeaders` gives a tool's `x-mcp-header` parameters; undefined skips that check.
 */
export function checkModernRequest(
  method: string,
  params: JsonObject | undefined,
  request: ModernHeaders,
  paramHeaders?: (tool: string) => readonly ParamHeader[] | undefined,
): ErrorObject | undefined {
  const meta = isObject(params?._meta) ? params._meta : undefined;
  // a request missing a required field is malformed before it can mismatch anything (basic/index "_meta")
  for (const key of RULES[LATEST_REVISION].requiredRequestMeta) {
    const value = meta?.[key];
    const ok =
      key === META_CLIENT_CAPABILITIES
        ? isObject(value)
        : key === META_PROTOCOL_VERSION
          ? typeof value === "string"
          : value !== undefined;
    if (!ok)
      return {
        code: INVALID_PARAMS,
        message: `Invalid params: _meta["${key}"] is required on every ${LATEST_REVISION} request`,
      };
  }

  const version = request.header(H_PROTOCOL_VERSION);
  if (version === undefined) return mismatch("the MCP-Protocol-Version header is missing");
  if (version !== meta![META_PROTOCOL_VERSION]) {
    return mismatch(
      `MCP-Protocol-Version header ${quoted(version)} does not match _meta["${META_PROTOCOL_VERSION}"] ${quoted(String(meta![META_PROTOCOL_VERSION]))}`,
    );
  }

  const methodHeader = request.header(H_METHOD);
  if (methodHeader === undefined) return mismatch("the Mcp-Method header is missing");
  if (methodHeader !== method)
    return mismatch(`Mcp-Method header ${quoted(methodHeader)} does not match the body's method ${quoted(method)}`);

  const source = NAME_SOURCE[method];
  const bodyName = source === undefined ? undefined : params?.[source];
  if (typeof bodyName === "string") {
    const raw = request.header(H_NAME);
    if (raw === undefined) return mismatch(`the Mcp-Name header is missing (${method} carries params.${source})`);
    const name = decodeHeaderValue(raw);
    if (name === undefined)
      return mismatch(`the Mcp-Name header ${quoted(raw)} holds characters a header value cannot, or broken Base64`);
    if (name !== bodyName)
      return mismatch(`Mcp-Name header ${quoted(name)} does not match params.${source} ${quoted(bodyName)}`);
  }

  if (method === "tools/call" && typeof params?.name === "string" && paramHeaders) {
    const declared = paramHeaders(params.name);
    if (declared) return checkParamHeaders(request, declared, params.arguments);
  }
  return undefined;
}

/** `Mcp-Param-*` against the arguments: each value present needs its header, and only then. */
function checkParamHeaders(
  request: ModernHeaders,
  declared: readonly ParamHeader[],
  args: unknown,
): ErrorObject | undefined {
  for (const p of declared) {
    let value: unknown = args;
    for (const key of p.path) value = isObject(value) ? value[key] : undefined;
    const headerName = `${H_PARAM_PREFIX}${p.name.toLowerCase()}`;
    const raw = request.header(headerName);
    const label = `Mcp-Param-${p.name}`;
    if (value === undefined || value === null) {
      // a header with no value behind it would have intermediaries act on something the server never sees
      if (raw !== undefined) return mismatch(`${label} is sent, but the arguments carry no ${p.path.join(".")}`);
      continue;
    }
    if (raw === undefined) return mismatch(`${label} is missing, but the arguments carry ${p.path.join(".")}`);
    const text = decodeHeaderValue(raw);
    if (text === undefined)
      return mismatch(`${label} ${quoted(raw)} holds characters a header value cannot, or broken Base64`);
    if (!sameValue(text, value))
      return mismatch(`${label} ${quoted(text)} does not match the argument ${p.path.join(".")}`);
  }
  return undefined;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A header text against a primitive argument; numbers compare numerically ("42.0" is 42). */
function sameValue(text: string, value: unknown): boolean {
  if (typeof value === "string") return text === value;
  if (typeof value === "boolean") return text === (value ? "true" : "false");
  if (typeof value === "number") return NUMBER.test(text) && Number(text) === value;
  return false;
}
