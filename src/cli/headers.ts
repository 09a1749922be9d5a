/** `--header 'Name: value'` options, shared by every command that calls a server over HTTP. */
import { REDACTED, rememberSecrets } from "../secrets/redact.js";

/**
 * `Name: value` pairs; `${VAR}` in a value is read from the environment, so a key need not
 * appear on the command line or in shell history. Returns a message for a person when one is
 * malformed.
 */
export function parseHeaders(
  raw: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const h of raw) {
    const colon = h.indexOf(":");
    // the malformed option is likely a credential itself: it is not echoed
    if (colon <= 0)
      return `--header takes 'Name: value' (for example 'Authorization: Bearer ${REDACTED}'); one has no name before a colon`;
    const name = h.slice(0, colon).trim();
    let missing: string | undefined;
    const value = h
      .slice(colon + 1)
      .trim()
      .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, v: string) => {
        const got = env[v];
        if (got === undefined) missing = v;
        return got ?? "";
      });
    if (missing) return `--header ${name}: the environment has no ${missing}`;
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return `--header: ${JSON.stringify(name)} is not a header name`;
    if (/[\r\n]/.test(value)) return `--header ${name}: the value has a line break`;
    // what HTTP carries in a field value (RFC 9110 §5.5): visible ASCII, space and tab, and the
    // bytes 0x80–0xFF; anything else would fail every request, so it is refused here, unechoed
    const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(value)?.[0];
    if (bad !== undefined) {
      const code = bad.codePointAt(0)!;
      return `--header ${name}: the value holds ${code < 0x80 ? `a control character (U+${hex(code)})` : `a character HTTP cannot carry (U+${hex(code)}, outside Latin-1): encode it as the server documents`}`;
    }
    headers[name] = value;
  }
  // whatever this process prints from now on hides these values
  rememberSecrets(headers);
  return headers;
}

function hex(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}
