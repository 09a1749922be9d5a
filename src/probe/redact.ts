/**
 * Credentials never leave a probe: a server may echo the header it was sent (in a 401's
 * `error_description`, a JSON-RPC error message, an HTML page), and that echo must not reach the
 * terminal, a CI log or a census row.
 */

/** Shorter values are left alone: replacing "1" or "yes" everywhere would garble the verdict. */
const SHORTEST_SECRET = 6;
/** Words of a value that are not secret: the authentication scheme before the credential. */
const SCHEMES = new Set(["bearer", "basic", "digest", "token", "apikey", "api-key"]);

/** The strings to hide for these headers: each whole value, and each word of it (the token in "Bearer …"). */
export function secretsOf(headers: Record<string, string> | undefined): string[] {
  const found = new Set<string>();
  for (const value of Object.values(headers ?? {})) {
    for (const s of [value, ...value.split(/\s+/)]) if (s.length >= SHORTEST_SECRET && !SCHEMES.has(s.toLowerCase())) found.add(s);
  }
  // longest first, so a whole value goes before the word inside it
  return [...found].sort((a, b) => b.length - a.length);
}

/** A deep copy of `value` with every secret in every string (keys included) shown as `<redacted>`. */
export function redactSecrets<T>(value: T, headers: Record<string, string> | undefined): T {
  const secrets = secretsOf(headers);
  if (secrets.length === 0) return value;
  const scrub = (s: string) => secrets.reduce((out, secret) => out.split(secret).join("<redacted>"), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrub(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
