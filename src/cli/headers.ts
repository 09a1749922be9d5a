/** `--header 'Name: value'` options, shared by every command that calls a server over HTTP. */
import { REDACTED, rememberSecrets } from "../secrets/redact.js";

/**
 * `Name: value` pairs; `${VAR}` in a value is read from the environment, so a key need not
 * appear on the command line or in shell history. Returns a message for a person when one is
 * malformed.
 */
export function parseHeaders(raw: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const h of raw) {
    const colon = h.indexOf(":");
    // the malformed option is likely a credential itself: it is not echoed
    if (colon <= 0) return `--header takes 'Name: value' (for example 'Authorization: Bearer ${REDACTED}'); one has no name before a colon`;
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
    if (/[\r\n\0]/.test(value)) return `--header ${name}: the value has a line break`;
    headers[name] = value;
  }
  // whatever this process prints from now on hides these values
  rememberSecrets(headers);
  return headers;
}
