/**
 * The URL of a server to call, from the command line: parsed, or one line that says what is
 * wrong with it in the words a person would use (a missing scheme with the URL they meant, a
 * port out of range), rather than "not a URL".
 */

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/i;

/**
 * `raw` as an http:// or https:// URL, or the reason it cannot be called. `alternative` is said
 * beside a string that is no URL at all ("for a local command use --stdio -- <command>").
 */
export function serverUrl(raw: string, alternative?: string): URL | { error: string } {
  const aside = alternative ? `; ${alternative}` : "";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1];
  if (scheme === undefined) {
    // `localhost:4200/mcp` parses as a URL of scheme "localhost:": what was meant is plain
    const meant = withScheme(raw);
    const port = meant === undefined ? undefined : portOf(meant);
    if (port !== undefined && !validPort(port)) return { error: badPort(port, raw) };
    if (meant && URL.canParse(meant))
      return {
        error: `${JSON.stringify(raw)} has no scheme: did you mean ${meant}?${alternative ? ` (${alternative})` : ""}`,
      };
    return { error: `not a URL: ${JSON.stringify(raw)} (give http://… or https://…${aside})` };
  }
  if (!/^https?$/i.test(scheme)) return { error: `only http and https URLs can be called, not ${scheme}://` };
  const port = portOf(raw);
  if (port !== undefined && !validPort(port)) return { error: badPort(port, raw) };
  try {
    const url = new URL(raw);
    if (url.hostname === "") return { error: `${JSON.stringify(raw)} names no host` };
    return url;
  } catch {
    return { error: `not a URL: ${JSON.stringify(raw)}` };
  }
}

/** The URL a person most likely meant by an address without a scheme, or undefined. */
function withScheme(raw: string): string | undefined {
  if (/\s/.test(raw) || raw === "" || raw.startsWith("/")) return undefined;
  const host = /^(\[[^\]]*\]|[^:/?#]*)/.exec(raw)![1]!;
  // a host name needs a dot, or is loopback, or comes with a port
  if (!(host.includes(".") || LOOPBACK.test(host) || /^[^:/?#]+:\d/.test(raw))) return undefined;
  // local servers speak plain HTTP; anything else is reached over TLS
  return `${LOOPBACK.test(host) ? "http" : "https"}://${raw}`;
}

/** The port as written in `url`'s authority, or undefined when none is. */
function portOf(url: string): string | undefined {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? "";
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  const m = /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(hostPort);
  return m && m[1] !== "" ? m[1] : undefined;
}

function badPort(port: string, raw: string): string {
  return `${port} in ${JSON.stringify(raw)} is not a port: a port is a number from 1 to 65535`;
}

function validPort(port: string): boolean {
  return /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}
