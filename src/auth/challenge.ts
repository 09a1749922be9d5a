/**
 * `WWW-Authenticate` as RFC 9110 section 11.6.1 writes it: one or more challenges separated by
 * commas, each an auth-scheme followed by a token68 or by auth-params whose values are tokens
 * or quoted strings (with backslash escapes). A comma inside a quoted string, a second
 * challenge after the first, and parameter names in any case are all legal and common, so the
 * header is tokenized rather than matched with a pattern.
 */

export interface Challenge {
  /** As sent; compare case-insensitively. */
  scheme: string;
  /** Parameter names lower-cased (they are case-insensitive); the first of a repeated name wins. */
  params: Record<string, string>;
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

/** Every challenge in the header; a part that cannot be read ends the list rather than throwing. */
export function parseChallenges(header: string | null | undefined): Challenge[] {
  if (!header) return [];
  const s = header;
  let i = 0;
  const out: Challenge[] = [];
  const skipWs = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < s.length && TCHAR.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const quoted = (): string | undefined => {
    if (s[i] !== '"') return undefined;
    i++;
    let value = "";
    while (i < s.length) {
      const c = s[i]!;
      if (c === "\\" && i + 1 < s.length) {
        value += s[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        return value;
      }
      value += c;
      i++;
    }
    return value; // an unterminated string: what came is kept
  };

  while (i < s.length) {
    skipWs();
    while (s[i] === ",") {
      i++;
      skipWs();
    }
    if (i >= s.length) break;
    const scheme = token();
    if (!scheme) break;
    const challenge: Challenge = { scheme, params: {} };
    out.push(challenge);
    skipWs();
    // a token68 ("Negotiate abc==") is a run of its characters, then '='s, then the end or a comma
    const save = i;
    while (i < s.length && TOKEN68_CHAR.test(s[i]!)) i++;
    while (s[i] === "=") i++;
    const t68 = s.slice(save, i);
    skipWs();
    if (t68 && (i >= s.length || s[i] === ",")) {
      challenge.token68 = t68;
      continue;
    }
    i = save;
    // auth-params until a name that is not followed by '=' (the next challenge's scheme)
    for (;;) {
      skipWs();
      while (s[i] === ",") {
        i++;
        skipWs();
      }
      if (i >= s.length) break;
      const start = i;
      const name = token();
      if (!name) {
        i = s.length; // unreadable: stop here
        break;
      }
      skipWs();
      if (s[i] !== "=") {
        i = start; // the next challenge begins
        break;
      }
      i++;
      skipWs();
      const value = s[i] === '"' ? (quoted() ?? "") : token();
      const key = name.toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = value;
      skipWs();
      if (i < s.length && s[i] !== ",") {
        i = s.length;
        break;
      }
    }
  }
  return out;
}

/** The first challenge of `scheme` (case-insensitive). */
export function findChallenge(challenges: readonly Challenge[], scheme: string): Challenge | undefined {
  return challenges.find((c) => c.scheme.toLowerCase() === scheme.toLowerCase());
}
