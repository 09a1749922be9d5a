/**
 * The one place that decides what a secret looks like. Everything mcp-wire prints, stores or
 * writes (terminal text, `--json`, repro lines, trace excerpts, census rows, reports, tap logs,
 * error messages) passes through `redact` first, so a credential given on the command line, in a
 * URL or echoed back by a server never reaches a terminal, a CI log or a database.
 *
 * Three kinds of secret are hidden, in any text, wherever they sit (a URL inside a curl line, an
 * error message, a JSON body):
 * - the password of a URL's userinfo: `https://user:pw@host` → `https://user:<redacted>@host`
 *   (any scheme: `postgres://user:pw@host/db` too);
 * - the value of a query parameter whose name says it is a secret (`key`, `token`, `secret`,
 *   `password`, `auth`, `sig`, and any name containing one: `api_key`, `apikey`,
 *   `access_token`, `signature`…), case-insensitive;
 * - every value given with `--header` (or passed as request headers to the library), whole and
 *   word by word (the token of "Bearer …"), and after `Name:` whatever its length;
 * - a database URL made known with `rememberDatabaseUrl`, wherever it appears, and its password
 *   wherever that appears alone. `pg` takes a password raw (`@`, spaces, `<>"` and all), so no
 *   pattern can tell where one ends in free text: the URL is read as `pg` reads it instead.
 */
import { parse as parseConnectionString } from "pg-connection-string";

export const REDACTED = "<redacted>";

/** Header values to hide, as the caller sent them (`{ Authorization: "Bearer …" }`). */
export type SecretHeaders = Record<string, string> | undefined;

/**
 * Shorter values are hidden only where they stand as a header's value (`Name: value`), not
 * everywhere: replacing "1" or "yes" in every sentence would garble the verdict.
 */
const SHORTEST_SECRET = 6;
/** Words of a value that are not secret: the authentication scheme before the credential. */
const SCHEMES = new Set(["bearer", "basic", "digest", "token", "apikey", "api-key"]);

/**
 * `scheme://user:password@`: the password runs to the `@` and may hold anything but the
 * characters that end an authority or a quoted string. `<` is excluded so `<redacted>` is never
 * matched again.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>\\`]*):([^\s/?#@"<>\\`]+)@/gi;
/** The words that make a parameter's name say its value is a secret. */
const SECRET_WORDS = "key|token|secret|password|passwd|auth|sig";
/** A query (or `;`-separated) parameter whose name contains a secret-sounding word. */
const SECRET_PARAM = new RegExp(
  `([?&;][^\\s=&#?;"'<>]*?(?:${SECRET_WORDS})[^\\s=&#?;"'<>]*=)([^\\s&#;"'<>\\\\\`]+)`,
  "gi",
);

/**
 * Header values remembered for the whole process: the CLI parses `--header` once, and some of
 * what it prints (the last-resort error line, a progress note) is written by code that never
 * saw the headers. Remembering only ever hides more, never less.
 */
const remembered = new Map<string, string>();

/** Hides these header values in everything `redact` handles from now on, in this process. */
export function rememberSecrets(headers: SecretHeaders): void {
  for (const [name, value] of Object.entries(headers ?? {})) remembered.set(name, value);
}

/** The strings to hide for these headers: each whole value, and each word of it (the token in "Bearer …"). */
function secretsOf(headers: SecretHeaders): string[] {
  const found = new Set<string>();
  for (const value of allValues(headers)) {
    for (const s of [value, ...value.split(/\s+/)])
      if (s.length >= SHORTEST_SECRET && !SCHEMES.has(s.toLowerCase())) found.add(s);
  }
  // longest first, so a whole value goes before the word inside it
  return [...found].sort((a, b) => b.length - a.length);
}

/** Database URLs made known, each with the form a message may show. */
const databaseUrls = new Map<string, string>();
/** Their passwords, hidden wherever they appear alone (when long enough, as header values are). */
const databasePasswords = new Set<string>();
/** A query parameter of a database URL, its value running to the next `&` as `pg` reads it. */
const DATABASE_PARAM = /([?&])([^=&#]*)=([^&#]*)/g;
const SECRET_NAME = new RegExp(SECRET_WORDS, "i");

/**
 * Makes a database URL (`postgres://user:password@host/db`) known for the rest of this process:
 * `redact` then shows it, wherever it appears, with its password as `<redacted>`, and hides the
 * password wherever it appears alone. Returns the form a message may show. The password is found
 * as `pg` finds it (pg-connection-string, the parser `pg` connects with): the userinfo runs to
 * the last `@` before the path, and a `password` in the query counts too. A URL `pg` cannot read
 * is shown as its scheme alone, since where its password ends cannot be known.
 */
export function rememberDatabaseUrl(url: string): string {
  const known = databaseUrls.get(url);
  if (known !== undefined) return known;
  const scheme = /^[a-z][a-z0-9+.-]*:(\/\/)?/i.exec(url)?.[0] ?? "";
  // the query is read apart: pg-connection-string reads certificate files a query names
  const cut = url.search(/[?#]/);
  const base = cut === -1 ? url : url.slice(0, cut);
  const query = cut === -1 ? "" : url.slice(cut);
  let shown: string;
  try {
    const parsed = parseConnectionString(base);
    if (parsed.password) databasePasswords.add(parsed.password);
    // from the scheme to the last "@" is userinfo, even past a "/" pg would take for the path:
    // what the user meant as a password is hidden even when pg reads it otherwise
    const at = base.lastIndexOf("@");
    const colon = base.indexOf(":", scheme.length);
    let head = base;
    if (at > scheme.length && colon !== -1 && colon < at) {
      databasePasswords.add(base.slice(colon + 1, at));
      head = `${base.slice(0, colon + 1)}${REDACTED}${base.slice(at)}`;
    }
    const tail = query.replace(DATABASE_PARAM, (whole, sep: string, name: string, value: string) => {
      if (!SECRET_NAME.test(name)) return whole;
      for (const v of [value, safeDecode(value)]) databasePasswords.add(v);
      return `${sep}${name}=${REDACTED}`;
    });
    shown = `${head}${tail}`;
  } catch {
    shown = `${scheme}${REDACTED}`;
  }
  databaseUrls.set(url, shown);
  return shown;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

function allValues(headers: SecretHeaders): string[] {
  const values = [...Object.values(headers ?? {}), ...remembered.values()];
  if (databasePasswords.size > 0) for (const p of databasePasswords) if (p.length >= SHORTEST_SECRET) values.push(p);
  return values.filter((v) => v !== "");
}

function shortPairs(headers: SecretHeaders): [string, string][] {
  return [...Object.entries(headers ?? {}), ...remembered.entries()].filter(
    ([, v]) => v !== "" && v.length < SHORTEST_SECRET,
  );
}

function allNames(headers: SecretHeaders): string[] {
  return [...new Set([...Object.keys(headers ?? {}), ...remembered.keys()])];
}

/** `text` with every secret in it shown as `<redacted>`. */
export function redact(text: string, headers?: SecretHeaders): string {
  return makeScrubber(headers)(text);
}

/** A deep copy of `value` with every secret in every string (keys included) shown as `<redacted>`. */
export function redactSecrets<T>(value: T, headers?: SecretHeaders): T {
  return redactWith(value, makeScrubber(headers));
}

/**
 * `value` itself when no string in it (keys included) holds a secret, else the copy
 * `redactSecrets` makes: for a value made afresh for its caller alone (a probe's verdict), which
 * nearly always has nothing to hide and need not be copied to prove it.
 */
export function redactFresh<T>(value: T, headers?: SecretHeaders): T {
  const scrub = makeScrubber(headers);
  return holdsSecret(value, scrub) ? redactWith(value, scrub) : value;
}

function holdsSecret(v: unknown, scrub: (s: string) => string): boolean {
  if (typeof v === "string") return scrub(v) !== v;
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (holdsSecret(v[i], scrub)) return true;
    return false;
  }
  for (const k of Object.keys(v))
    if (scrub(k) !== k || holdsSecret((v as Record<string, unknown>)[k], scrub)) return true;
  return false;
}

function redactWith<T>(value: T, scrub: (s: string) => string): T {
  // loops rather than entries/map/fromEntries: every probe's verdict passes through here, trace
  // and all, and the intermediate arrays were most of its cost
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = walk(v[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const key = scrub(k);
      const x = walk((v as Record<string, unknown>)[k]);
      // as Object.fromEntries does: "__proto__" from parsed JSON is an own property, not the prototype
      if (key === "__proto__")
        Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true });
      else out[key] = x;
    }
    return out;
  };
  return walk(value) as T;
}

/**
 * `redact` for many strings under the same headers (a repro line's URL, headers and body), what
 * to hide worked out once, not once per string; `headerValue` shows a header's value, always
 * hidden when the header is one the caller said is secret.
 */
export function redactorOf(headers?: SecretHeaders): {
  text: (s: string) => string;
  headerValue: (name: string, value: string) => string;
} {
  const scrub = makeScrubber(headers);
  let secretNames: Set<string> | undefined;
  return {
    text: scrub,
    headerValue: (name, value) => {
      secretNames ??= new Set(allNames(headers).map((n) => n.toLowerCase()));
      return secretNames.has(name.toLowerCase()) ? REDACTED : scrub(value);
    },
  };
}

function makeScrubber(headers: SecretHeaders): (s: string) => string {
  const values = secretsOf(headers);
  // a short value is hidden where it stands as its header's value (`X-Key: ab12` in a curl line)
  const short = shortPairs(headers).map(
    ([name, value]) => new RegExp(`\\b(${escapeRegExp(name)}:[ \\t]*)${escapeRegExp(value)}(?![^\\s'"])`, "gi"),
  );
  // longest first, so a URL goes before one it starts with
  const urls = databaseUrls.size === 0 ? [] : [...databaseUrls].sort(([a], [b]) => b.length - a.length);
  return (s) => {
    let out = s;
    // before the passwords alone, which would otherwise cut the URL the first replacement looks for
    for (const [url, shown] of urls) if (out.includes(url)) out = out.split(url).join(shown);
    for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const re of short) out = out.replace(re, (_, head: string) => `${head}${REDACTED}`);
    if (out.includes("://")) out = out.replace(USERINFO, (_, head: string) => `${head}:${REDACTED}@`);
    if (/[?&;]/.test(out)) out = out.replace(SECRET_PARAM, (_, name: string) => `${name}${REDACTED}`);
    return out;
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
