/**
 * The 2026-07-28 Streamable HTTP request headers: names, and the Base64 sentinel that carries
 * values a plain header cannot (`=?base64?…?=`). Shared by the client, which mirrors body fields
 * into headers, and the server, which checks them against the body.
 */

export const H_PROTOCOL_VERSION = "mcp-protocol-version";
export const H_METHOD = "mcp-method";
export const H_NAME = "mcp-name";
export const H_SESSION_ID = "mcp-session-id";
export const H_PARAM_PREFIX = "mcp-param-";

/** The body field `Mcp-Name` mirrors, for the methods that must carry it. */
export const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // the tasks extension routes a task's requests to the instance holding it
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";

/** Visible ASCII, space and tab, with no space or tab at either end: safe as a plain value. */
function isPlainHeaderValue(value: string): boolean {
  if (value.length === 0) return true;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false;
  }
  return true;
}

/** A value as a header carries it: plain when it safely can, the Base64 sentinel otherwise. */
export function encodeHeaderValue(value: string): string {
  const looksEncoded = value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END);
  if (isPlainHeaderValue(value) && !looksEncoded) return value;
  return `${SENTINEL_START}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_END}`;
}

/** The value a header carries, or undefined when it is malformed (bad characters, bad Base64). */
export function decodeHeaderValue(header: string): string | undefined {
  if (
    header.startsWith(SENTINEL_START) &&
    header.endsWith(SENTINEL_END) &&
    header.length >= SENTINEL_START.length + SENTINEL_END.length
  ) {
    const b64 = header.slice(SENTINEL_START.length, header.length - SENTINEL_END.length);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(b64, "base64"));
    } catch {
      return undefined;
    }
  }
  return isPlainHeaderValue(header.trim()) ? header.trim() : undefined;
}

/** A header name token (RFC 9110 §5.1 tchar). */
export function isHeaderToken(name: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
}
