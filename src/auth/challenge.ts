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
  return new ChallengeReader(header).challenges();
}

/** The header read left to right, in the grammar's steps (RFC 9110 §11.6.1); `i` is where it stands. */
class ChallengeReader {
  private i = 0;

  constructor(private readonly s: string) {}

  challenges(): Challenge[] {
    const out: Challenge[] = [];
    while (this.i < this.s.length) {
      this.skipCommas();
      if (this.i >= this.s.length) break;
      const scheme = this.token();
      if (!scheme) break;
      const challenge: Challenge = { scheme, params: {} };
      out.push(challenge);
      this.skipWs();
      const t68 = this.token68();
      if (t68) challenge.token68 = t68;
      else this.params(challenge);
    }
    return out;
  }

  private skipWs(): void {
    const s = this.s;
    while (this.i < s.length && (s[this.i] === " " || s[this.i] === "\t")) this.i++;
  }

  private skipCommas(): void {
    this.skipWs();
    while (this.s[this.i] === ",") {
      this.i++;
      this.skipWs();
    }
  }

  private token(): string {
    const start = this.i;
    while (this.i < this.s.length && TCHAR.test(this.s[this.i]!)) this.i++;
    return this.s.slice(start, this.i);
  }

  /** A quoted string at `i`, unescaped; an unterminated one keeps what came. */
  private quoted(): string {
    const s = this.s;
    this.i++;
    let value = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "\\" && this.i + 1 < s.length) {
        value += s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (c === '"') {
        this.i++;
        return value;
      }
      value += c;
      this.i++;
    }
    return value;
  }

  /**
   * A token68 ("Negotiate abc=="): a run of its characters, then '='s, then the end or a comma.
   * Returns it, or "" (and `i` unmoved) when what follows is auth-params instead.
   */
  private token68(): string {
    const s = this.s;
    const save = this.i;
    while (this.i < s.length && TOKEN68_CHAR.test(s[this.i]!)) this.i++;
    while (s[this.i] === "=") this.i++;
    const t68 = s.slice(save, this.i);
    this.skipWs();
    if (t68 && (this.i >= s.length || s[this.i] === ",")) return t68;
    this.i = save;
    return "";
  }

  /** Auth-params until a name that is not followed by '=' (the next challenge's scheme). */
  private params(challenge: Challenge): void {
    const s = this.s;
    for (;;) {
      this.skipCommas();
      if (this.i >= s.length) return;
      const start = this.i;
      const name = this.token();
      if (!name) {
        this.i = s.length; // unreadable: stop here
        return;
      }
      this.skipWs();
      if (s[this.i] !== "=") {
        this.i = start; // the next challenge begins
        return;
      }
      this.i++;
      this.skipWs();
      const value = s[this.i] === '"' ? this.quoted() : this.token();
      const key = name.toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = value;
      this.skipWs();
      if (this.i < s.length && s[this.i] !== ",") {
        this.i = s.length;
        return;
      }
    }
  }
}

/** The first challenge of `scheme` (case-insensitive). */
export function findChallenge(challenges: readonly Challenge[], scheme: string): Challenge | undefined {
  return challenges.find((c) => c.scheme.toLowerCase() === scheme.toLowerCase());
}
