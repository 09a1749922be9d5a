/**
 * What a census calls: a text file of URLs the user wrote, or an export of the official MCP
 * Registry API (`GET /v0.1/servers` pages, one after another or as an array). Either way the
 * result is one target per distinct URL. A registry is untrusted input: its targets are marked
 * so the census checks where they point before calling them, and what cannot be called at all
 * (a template with no default, a URL that does not parse) becomes a target to record as
 * `invalid_target`, not a reason to stop.
 */
import { open } from "node:fs/promises";
import type { TargetKind, TargetRecord } from "./store.js";

/** A targets file that cannot be read as either format; the message names the line or JSON path. */
export class TargetsError extends Error {
  override name = "TargetsError";
}

export interface TargetList {
  format: "text" | "registry";
  targets: TargetRecord[];
  /** Registry entries left out because a newer version of the same server is listed. */
  notLatest: number;
  /** URLs listed more than once, probed once. */
  duplicates: number;
  /** Lines of a text file that name no target, by why. */
  skippedLines: { comment: number; blank: number };
  /** Registry entries (latest versions) with no remote: packages run locally, nothing to call. */
  noRemotes: number;
  /** Registry entries left out because their status is not active (deprecated, deleted). */
  inactive?: number;
}

/** What a registry's entries need from the census: the headers it was given (names, any case). */
export interface RegistryReadOptions {
  headerNames?: readonly string[];
}

const OFFICIAL = "io.modelcontextprotocol.registry/official";

/**
 * The longest target URL taken, in characters, before or after its `{variable}`s are filled:
 * far past any real server's URL (common HTTP servers refuse request lines past 8 KiB), and
 * short enough that a registry entry cannot make the census hold, store and print megabytes for
 * one target.
 */
export const MAX_URL_LENGTH = 8 * 1024;

/**
 * The largest targets file read: the whole official registry exports to a few tens of MB, and a
 * file past this would be held in memory several times over while it is parsed.
 */
export const MAX_TARGETS_BYTES = 256 * 1024 * 1024;

/** `maxBytes`: the largest file read (default MAX_TARGETS_BYTES). */
export async function readTargets(
  file: string,
  options: RegistryReadOptions = {},
  maxBytes = MAX_TARGETS_BYTES,
): Promise<TargetList> {
  let bytes: Buffer;
  try {
    bytes = await readCapped(file, maxBytes);
  } catch (e) {
    if (e instanceof TargetsError) throw e;
    // the cause lets the command line say what went wrong in words
    throw new TargetsError(
      `${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`,
      { cause: e },
    );
  }
  return parseTargets(bytes.toString("utf8"), file, options);
}

/** The file's bytes, read to its end (a pipe as well as a file), refused past `maxBytes`. */
async function readCapped(file: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > maxBytes) throw new TargetsError(`${file}: more than the ${maxBytes} bytes a targets file may hold`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** Reads either format, told apart by the first character that is not white space. */
export function parseTargets(text: string, source = "targets", options: RegistryReadOptions = {}): TargetList {
  const body = text.replace(/^\uFEFF/, "");
  if (body.includes("\0")) throw new TargetsError(`${source}: not a text file (it holds NUL bytes)`);
  const first = /\S/.exec(body)?.[0];
  return first === "{" || first === "[" ? parseRegistry(body, source, options) : parseText(body, source);
}

/**
 * Pages a registry's API answers (`{"servers":[…]}` each), read one at a time as they come, as
 * an export of them would be: a page is let go once read.
 */
export class RegistryPagesReader {
  private readonly list: Collector;
  constructor(
    private readonly source: string,
    options: RegistryReadOptions = {},
  ) {
    this.list = new Collector("registry", options);
  }

  page(page: unknown, n: number): void {
    readPage(page, `page ${n}`, this.list, (path, message): never => {
      throw new TargetsError(`${this.source}: ${path}: ${message}`);
    });
  }

  done(): TargetList {
    return this.list.done();
  }
}

/**
 * One URL a line; `#` starts a comment at the start of a line or after white space (inside a
 * URL it is a fragment). What a URL copied from elsewhere comes wrapped in is taken off: quotes
 * (from JSON or code), `<…>` (from Markdown or mail), and a trailing comma (from a list). A line
 * with two words is a mistake worth stopping for; a word that is not an http(s) URL is kept as a
 * `bad_url` target, so it shows in the report, unless no line at all is one.
 */
function parseText(text: string, source: string): TargetList {
  const list = new Collector("text");
  let firstLine: { n: number; text: string } | undefined;
  const lines = text.split(/\r?\n/);
  // the end of the last line is no blank line of its own
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((raw, i) => {
    const uncommented = raw.replace(/(^|\s)#.*$/, "");
    const line = unwrap(uncommented);
    if (line === "") {
      if (uncommented.trim() === "" && raw.trim() !== "") list.skippedLines.comment++;
      else list.skippedLines.blank++;
      return;
    }
    if (/\s/.test(line))
      throw new TargetsError(
        `${source}: line ${i + 1}: one URL a line, found ${JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line)}`,
      );
    list.add(line, "http", null, false);
    firstLine ??= { n: i + 1, text: line };
  });
  const done = list.done();
  // a file whose every line is a word but none an http(s) URL is some other file given by
  // mistake (a list of names, a config): stopping says so, where rows of bad_url would not
  if (firstLine !== undefined && done.targets.every((t) => t.invalid === "bad_url")) {
    throw new TargetsError(
      `${source}: not one line is an http(s) URL (line ${firstLine.n}: ${JSON.stringify(firstLine.text.length > 80 ? `${firstLine.text.slice(0, 80)}…` : firstLine.text)})`,
    );
  }
  return done;
}

/** The quotes and brackets a pasted URL may come in: each pair is taken off, outermost first. */
const WRAPPERS: readonly [string, string][] = [
  ['"', '"'],
  ["'", "'"],
  ["`", "`"],
  ["<", ">"],
];

/** A line's word without white space, trailing commas, and the quotes or `<…>` around it. */
function unwrap(line: string): string {
  let word = line.trim();
  for (;;) {
    const before = word;
    word = word.replace(/[,;]+$/, "").trim();
    const pair = WRAPPERS.find(([open, close]) => word.length >= 2 && word.startsWith(open) && word.endsWith(close));
    if (pair) word = word.slice(1, -1).trim();
    if (word === before) return word;
  }
}

function parseRegistry(text: string, source: string, options: RegistryReadOptions): TargetList {
  const values = splitJsonValues(text, source);
  // a JSON array of strings is a list of URLs the user wrote in JSON, not a registry export
  if (
    values.length === 1 &&
    Array.isArray(values[0]!.value) &&
    values[0]!.value.length > 0 &&
    values[0]!.value.every((v) => typeof v === "string")
  ) {
    return parseText((values[0]!.value as string[]).join("\n"), source);
  }
  const list = new Collector("registry", options);
  values.forEach((v, k) => {
    // one value: its own paths; several: each named, since a path alone would not say which
    const where = values.length === 1 ? "" : `value ${k + 1} (line ${v.line}): `;
    const fail = (path: string, message: string): never => {
      throw new TargetsError(`${source}: ${where}${path}: ${message}`);
    };
    if (Array.isArray(v.value)) v.value.forEach((page, i) => readPage(page, `$[${i}]`, list, fail));
    else readPage(v.value, "$", list, fail);
  });
  return list.done();
}

type Fail = (path: string, message: string) => never;

function readPage(page: unknown, path: string, list: Collector, fail: Fail): void {
  if (!isObject(page)) return fail(path, `expected a registry page ({"servers":[…]}), found ${describe(page)}`);
  if (!Array.isArray(page.servers))
    return fail(`${path}.servers`, `expected an array of servers, found ${describe(page.servers)}`);
  page.servers.forEach((entry: unknown, i: number) => readEntry(entry, `${path}.servers[${i}]`, list, fail));
}

function readEntry(entry: unknown, path: string, list: Collector, fail: Fail): void {
  if (!isObject(entry)) return fail(path, `expected a server entry ({"server":{…}}), found ${describe(entry)}`);
  const server = entry.server;
  if (!isObject(server)) return fail(`${path}.server`, `expected an object, found ${describe(server)}`);
  const meta = entry._meta;
  if (meta !== undefined && !isObject(meta))
    return fail(`${path}._meta`, `expected an object, found ${describe(meta)}`);
  const official = meta?.[OFFICIAL];
  if (isObject(official) && official.isLatest === false) {
    list.notLatest++;
    return;
  }
  if (isObject(official) && typeof official.status === "string" && official.status !== "active") {
    list.inactive++;
    return;
  }
  const name = typeof server.name === "string" ? server.name : null;
  const remotes = server.remotes;
  if (remotes === undefined) {
    // a package to run locally, nothing to call
    list.noRemotes++;
    return;
  }
  if (!Array.isArray(remotes)) return fail(`${path}.server.remotes`, `expected an array, found ${describe(remotes)}`);
  if (remotes.length === 0) list.noRemotes++;
  remotes.forEach((remote: unknown, i: number) => {
    const at = `${path}.server.remotes[${i}]`;
    if (!isObject(remote)) return fail(at, `expected a remote ({"type","url"}), found ${describe(remote)}`);
    if (typeof remote.url !== "string") return fail(`${at}.url`, `expected a string, found ${describe(remote.url)}`);
    if (remote.type !== undefined && typeof remote.type !== "string")
      return fail(`${at}.type`, `expected a string, found ${describe(remote.type)}`);
    const variables = remote.variables;
    if (variables !== undefined && !isObject(variables))
      return fail(`${at}.variables`, `expected an object, found ${describe(variables)}`);
    const kind: TargetKind = remote.type === "sse" ? "sse" : "http";
    if (remote.url.length > MAX_URL_LENGTH) return list.addInvalid(remote.url, kind, name, "bad_url");
    const filled = fillTemplate(remote.url, variables ?? {});
    if (filled === TOO_LONG) list.addInvalid(remote.url, kind, name, "bad_url");
    else if (filled === undefined) list.addInvalid(remote.url, kind, name, "template");
    else if (list.missesHeader(remote.headers)) list.addInvalid(filled, kind, name, "needs_config");
    else list.add(filled, kind, name, true);
  });
}

/** What `fillTemplate` gives for a URL that would pass MAX_URL_LENGTH once filled. */
const TOO_LONG = Symbol("too long");

/**
 * `{name}` replaced by each variable's default; undefined when one has none, TOO_LONG as soon as
 * the URL filled so far passes MAX_URL_LENGTH (a short template of long defaults, repeated, would
 * otherwise grow past what a string can hold).
 */
function fillTemplate(url: string, variables: Record<string, unknown>): string | undefined | typeof TOO_LONG {
  let missing = false;
  let filled = "";
  let last = 0;
  for (const m of url.matchAll(/\{([^{}]*)\}/g)) {
    const v = variables[m[1]!];
    const value = isObject(v) ? v.default : undefined;
    let text = "";
    if (typeof value === "string" && value !== "") text = value;
    else if (typeof value === "number") text = String(value);
    else missing = true;
    filled += url.slice(last, m.index) + text;
    last = m.index + m[0].length;
    if (filled.length > MAX_URL_LENGTH) return TOO_LONG;
  }
  filled += url.slice(last);
  if (filled.length > MAX_URL_LENGTH) return TOO_LONG;
  return missing ? undefined : filled;
}

/** Targets in the order first listed, one per distinct URL. */
class Collector {
  readonly #byUrl = new Map<string, TargetRecord>();
  readonly #given: Set<string>;
  notLatest = 0;
  duplicates = 0;
  inactive = 0;
  noRemotes = 0;
  readonly skippedLines = { comment: 0, blank: 0 };
  constructor(
    readonly format: TargetList["format"],
    options: RegistryReadOptions = {},
  ) {
    this.#given = new Set((options.headerNames ?? []).map((n) => n.toLowerCase()));
  }

  /**
   * Whether a remote requires a header that has no value: none in the entry, none given with
   * `--header`. Such a server needs configuring before anyone can call it; it is not dead.
   */
  missesHeader(headers: unknown): boolean {
    if (!Array.isArray(headers)) return false;
    return headers.some((h: unknown) => {
      if (!isObject(h) || h.isRequired !== true || typeof h.name !== "string") return false;
      const fixed =
        (typeof h.value === "string" && h.value !== "" && !/\{[^{}]*\}/.test(h.value)) ||
        (typeof h.default === "string" && h.default !== "");
      return !fixed && !this.#given.has(h.name.toLowerCase());
    });
  }

  add(url: string, kind: TargetKind, name: string | null, untrusted: boolean): void {
    let parsed: URL | undefined;
    if (url.length > MAX_URL_LENGTH) return this.addInvalid(url, kind, name, "bad_url", untrusted);
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "")
      return this.addInvalid(url, kind, name, "bad_url", untrusted);
    this.#put({ target: parsed.href, kind, name, ...(untrusted ? { untrusted } : {}) });
  }

  /** A target recorded, not called; one too long to keep whole is kept as its start and its length. */
  addInvalid(
    raw: string,
    kind: TargetKind,
    name: string | null,
    invalid: NonNullable<TargetRecord["invalid"]>,
    untrusted = true,
  ): void {
    const target = raw.length > MAX_URL_LENGTH ? `${raw.slice(0, 200)}… (${raw.length} characters)` : raw;
    this.#put({ target, kind, name, invalid, ...(untrusted ? { untrusted } : {}) });
  }

  #put(t: TargetRecord): void {
    const seen = this.#byUrl.get(t.target);
    if (!seen) {
      this.#byUrl.set(t.target, t);
      return;
    }
    this.duplicates++;
    // listed as both transports: let the probe find out, it tries Streamable HTTP then SSE
    if (seen.kind !== t.kind) seen.kind = "http";
    if (seen.name === null) seen.name = t.name;
  }

  done(): TargetList {
    return {
      format: this.format,
      targets: [...this.#byUrl.values()],
      notLatest: this.notLatest,
      duplicates: this.duplicates,
      skippedLines: { ...this.skippedLines },
      noRemotes: this.noRemotes,
      ...(this.inactive ? { inactive: this.inactive } : {}),
    };
  }
}

interface JsonValue {
  value: unknown;
  /** The line the value starts on, 1-based. */
  line: number;
}

/**
 * JSON values one after another (pages concatenated, as `curl` in a loop writes them), each
 * parsed on its own. A syntax error names the line and column in the whole file.
 */
export function splitJsonValues(text: string, source: string): JsonValue[] {
  const values: JsonValue[] = [];
  // the line of each value, counted on from the previous value's: the file is read once
  const lines = lineCounter(text);
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    const start = i;
    const open = text[i];
    if (open === "{" || open === "[") {
      let depth = 0;
      let inString = false;
      for (; i < n; i++) {
        const c = text[i];
        if (inString) {
          if (c === "\\") i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") {
          depth--;
          if (depth === 0) {
            i++;
            break;
          }
        }
      }
      if (depth !== 0) throw new TargetsError(`${source}: ${position(text, start)}: this JSON value never ends`);
    } else {
      while (i < n && !/[\s{[]/.test(text[i]!)) i++;
    }
    const slice = text.slice(start, i);
    try {
      values.push({ value: JSON.parse(slice), line: lines(start) });
    } catch (e) {
      const at = /position (\d+)/.exec((e as Error).message);
      const where = position(text, start + (at ? Number(at[1]) : 0));
      throw new TargetsError(
        `${source}: ${where}: not JSON: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, "")}`,
      );
    }
  }
  if (values.length === 0) throw new TargetsError(`${source}: empty`);
  return values;
}

/** The line of each offset asked for, offsets asked in increasing order, each newline counted once. */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  // the first newline not counted yet (-1: none left)
  let next = text.indexOf("\n");
  return (offset) => {
    while (next !== -1 && next < offset) {
      line++;
      next = text.indexOf("\n", next + 1);
    }
    return line;
  };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function position(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return `line ${lineOf(text, offset)}, column ${offset - lineStart + 1}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `a string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v === "number" ? "a number" : `a ${typeof v}`} (${String(v)})`;
}
