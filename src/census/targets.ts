/**
 * What a census calls: a text file of URLs the user wrote, or an export of the official MCP
 * Registry API (`GET /v0.1/servers` pages, one after another or as an array). Either way the
 * result is one target per distinct URL. A registry is untrusted input: its targets are marked
 * so the census checks where they point before calling them, and what cannot be called at all
 * (a template with no default, a URL that does not parse) becomes a target to record as
 * `invalid_target`, not a reason to stop.
 */
import { readFile } from "node:fs/promises";
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
  /** Registry entries left out because their status is not active (deprecated, deleted). */
  inactive?: number;
}

/** What a registry's entries need from the census: the headers it was given (names, any case). */
export interface RegistryReadOptions {
  headerNames?: readonly string[];
}

const OFFICIAL = "io.modelcontextprotocol.registry/official";

export async function readTargets(file: string, options: RegistryReadOptions = {}): Promise<TargetList> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    // the cause lets the command line say what went wrong in words
    throw new TargetsError(`${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`, { cause: e });
  }
  return parseTargets(bytes.toString("utf8"), file, options);
}

/** Reads either format, told apart by the first character that is not white space. */
export function parseTargets(text: string, source = "targets", options: RegistryReadOptions = {}): TargetList {
  const body = text.replace(/^\uFEFF/, "");
  if (body.includes("\0")) throw new TargetsError(`${source}: not a text file (it holds NUL bytes)`);
  const first = /\S/.exec(body)?.[0];
  return first === "{" || first === "[" ? parseRegistry(body, source, options) : parseText(body, source);
}

/** Pages a registry's API answered (`{"servers":[…]}` each), read as an export of them would be. */
export function registryTargets(pages: readonly unknown[], source: string, options: RegistryReadOptions = {}): TargetList {
  const list = new Collector("registry", options);
  pages.forEach((page, i) =>
    readPage(page, `page ${i + 1}`, list, (path, message): never => {
      throw new TargetsError(`${source}: ${path}: ${message}`);
    }),
  );
  return list.done();
}

/**
 * One URL a line; `#` starts a comment at the start of a line or after white space (inside a
 * URL it is a fragment). A line with two words is a mistake worth stopping for; a word that is
 * not an http(s) URL is kept as a `bad_url` target, so it shows in the report, unless no line
 * at all is one.
 */
function parseText(text: string, source: string): TargetList {
  const list = new Collector("text");
  let firstLine: { n: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    if (line === "") return;
    if (/\s/.test(line)) throw new TargetsError(`${source}: line ${i + 1}: one URL a line, found ${JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line)}`);
    list.add(line, "http", null, false);
    firstLine ??= { n: i + 1, text: line };
  });
  const done = list.done();
  // a file whose every line is a word but none an http(s) URL is some other file given by
  // mistake (a list of names, a config): stopping says so, where rows of bad_url would not
  if (firstLine !== undefined && done.targets.every((t) => t.invalid === "bad_url")) {
    throw new TargetsError(`${source}: not one line is an http(s) URL (line ${firstLine.n}: ${JSON.stringify(firstLine.text.length > 80 ? `${firstLine.text.slice(0, 80)}…` : firstLine.text)})`);
  }
  return done;
}

function parseRegistry(text: string, source: string, options: RegistryReadOptions): TargetList {
  const values = splitJsonValues(text, source);
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
  if (!Array.isArray(page.servers)) return fail(`${path}.servers`, `expected an array of servers, found ${describe(page.servers)}`);
  page.servers.forEach((entry: unknown, i: number) => readEntry(entry, `${path}.servers[${i}]`, list, fail));
}

function readEntry(entry: unknown, path: string, list: Collector, fail: Fail): void {
  if (!isObject(entry)) return fail(path, `expected a server entry ({"server":{…}}), found ${describe(entry)}`);
  const server = entry.server;
  if (!isObject(server)) return fail(`${path}.server`, `expected an object, found ${describe(server)}`);
  const meta = entry._meta;
  if (meta !== undefined && !isObject(meta)) return fail(`${path}._meta`, `expected an object, found ${describe(meta)}`);
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
  if (remotes === undefined) return; // a package to run locally, nothing to call
  if (!Array.isArray(remotes)) return fail(`${path}.server.remotes`, `expected an array, found ${describe(remotes)}`);
  remotes.forEach((remote: unknown, i: number) => {
    const at = `${path}.server.remotes[${i}]`;
    if (!isObject(remote)) return fail(at, `expected a remote ({"type","url"}), found ${describe(remote)}`);
    if (typeof remote.url !== "string") return fail(`${at}.url`, `expected a string, found ${describe(remote.url)}`);
    if (remote.type !== undefined && typeof remote.type !== "string") return fail(`${at}.type`, `expected a string, found ${describe(remote.type)}`);
    const variables = remote.variables;
    if (variables !== undefined && !isObject(variables)) return fail(`${at}.variables`, `expected an object, found ${describe(variables)}`);
    const kind: TargetKind = remote.type === "sse" ? "sse" : "http";
    const filled = fillTemplate(remote.url, variables ?? {});
    if (filled === undefined) list.addInvalid(remote.url, kind, name, "template");
    else if (list.missesHeader(remote.headers)) list.addInvalid(filled, kind, name, "needs_config");
    else list.add(filled, kind, name, true);
  });
}

/** `{name}` replaced by each variable's default; undefined when one has none. */
function fillTemplate(url: string, variables: Record<string, unknown>): string | undefined {
  let missing = false;
  const filled = url.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    const v = variables[name];
    const value = isObject(v) ? v.default : undefined;
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
    missing = true;
    return "";
  });
  return missing ? undefined : filled;
}

/** Targets in the order first listed, one per distinct URL. */
class Collector {
  readonly #byUrl = new Map<string, TargetRecord>();
  readonly #given: Set<string>;
  notLatest = 0;
  duplicates = 0;
  inactive = 0;
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
      const fixed = (typeof h.value === "string" && h.value !== "" && !/\{[^{}]*\}/.test(h.value)) || (typeof h.default === "string" && h.default !== "");
      return !fixed && !this.#given.has(h.name.toLowerCase());
    });
  }

  add(url: string, kind: TargetKind, name: string | null, untrusted: boolean): void {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") return this.addInvalid(url, kind, name, "bad_url", untrusted);
    this.#put({ target: parsed.href, kind, name, ...(untrusted ? { untrusted } : {}) });
  }

  addInvalid(raw: string, kind: TargetKind, name: string | null, invalid: NonNullable<TargetRecord["invalid"]>, untrusted = true): void {
    this.#put({ target: raw, kind, name, invalid, ...(untrusted ? { untrusted } : {}) });
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
    return { format: this.format, targets: [...this.#byUrl.values()], notLatest: this.notLatest, duplicates: this.duplicates, ...(this.inactive ? { inactive: this.inactive } : {}) };
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
      values.push({ value: JSON.parse(slice), line: lineOf(text, start) });
    } catch (e) {
      const at = /position (\d+)/.exec((e as Error).message);
      const where = position(text, start + (at ? Number(at[1]) : 0));
      throw new TargetsError(`${source}: ${where}: not JSON: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, "")}`);
    }
  }
  if (values.length === 0) throw new TargetsError(`${source}: empty`);
  return values;
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
