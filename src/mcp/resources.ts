/**
 * The resources a server offers: fixed ones by URI, and templates whose `{variables}` a read
 * fills in. Listed in the order they were defined, a page at a time; read by URI, exact
 * resources first, then the first template that matches.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS, RESOURCE_NOT_FOUND } from "../rules/error-codes.js";
import { ChangeSignal } from "./changes.js";
import { isObject } from "./meta.js";
import { page } from "./list-page.js";
import type { ServeContext } from "./server.js";

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  /** An RFC 6570 template: `{name}` matches one path segment, `{+name}` the rest of the URI. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

/** One item of `resources/read`'s `contents`: `text` or `blob` (Base64). */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  [key: string]: unknown;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  [key: string]: unknown;
}

/** Reads a resource; `variables` holds what a template's `{variables}` matched (empty for a fixed resource). */
export type ResourceReader = (
  uri: string,
  variables: Record<string, string>,
  context: ServeContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

/** Values for a template variable the client is typing (`completion/complete` with a `ref/resource`). */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => readonly string[] | Promise<readonly string[]>;

export interface TemplateOptions {
  /** Completers for the template's variables, by name. */
  complete?: Record<string, Completer>;
}

interface TemplateEntry {
  template: ResourceTemplate;
  pattern: RegExp;
  names: string[];
  read: ResourceReader;
  complete: Record<string, Completer>;
}

export class ResourceRegistry {
  private readonly fixed = new Map<string, { resource: Resource; read: ResourceReader }>();
  private readonly templates = new Map<string, TemplateEntry>();
  /** Fires when a resource or template is defined or removed. */
  readonly changes = new ChangeSignal();

  /** Defines (or replaces) the resource at `resource.uri`. */
  define(resource: Resource, read: ResourceReader): void {
    this.fixed.set(resource.uri, { resource, read });
    this.changes.changed();
  }

  /** Defines (or replaces) a resource template. */
  defineTemplate(template: ResourceTemplate, read: ResourceReader, options: TemplateOptions = {}): void {
    const { pattern, names } = compileTemplate(template.uriTemplate);
    this.templates.set(template.uriTemplate, { template, pattern, names, read, complete: options.complete ?? {} });
    this.changes.changed();
  }

  /** Removes the resource or template with this URI (or URI template); true when there was one. */
  remove(uri: string): boolean {
    const removed = this.fixed.delete(uri) || this.templates.delete(uri);
    if (removed) this.changes.changed();
    return removed;
  }

  get size(): number {
    return this.fixed.size + this.templates.size;
  }

  list(params: JsonObject, pageSize: number): JsonObject {
    return page(
      "resources",
      [...this.fixed.values()].map((e) => e.resource),
      params.cursor,
      pageSize,
    );
  }

  listTemplates(params: JsonObject, pageSize: number): JsonObject {
    return page(
      "resourceTemplates",
      [...this.templates.values()].map((e) => e.template),
      params.cursor,
      pageSize,
    );
  }

  read(params: JsonObject, context: ServeContext): ReadResourceResult | Promise<ReadResourceResult> {
    const uri = params.uri;
    if (typeof uri !== "string") throw new ResponseError(INVALID_PARAMS, "uri must be a string");
    const exact = this.fixed.get(uri);
    if (exact) return exact.read(uri, {}, context);
    for (const entry of this.templates.values()) {
      const variables = matchTemplate(entry, uri);
      if (variables) return entry.read(uri, variables, context);
    }
    // 2026-07-28 retired -32002 for an unknown resource in favour of -32602
    throw new ResponseError(context.era === "modern" ? INVALID_PARAMS : RESOURCE_NOT_FOUND, "Resource not found", {
      uri,
    });
  }

  /** Whether `uri` names a resource this registry can read (for subscriptions). */
  has(uri: string): boolean {
    if (this.fixed.has(uri)) return true;
    for (const entry of this.templates.values()) if (matchTemplate(entry, uri)) return true;
    return false;
  }

  /** The completer for variable `name` of the template `uriTemplate`, if it has one. */
  completer(uriTemplate: string, name: string): Completer | undefined {
    return this.templates.get(uriTemplate)?.complete[name];
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A template as a RegExp: `{name}` one segment (no `/`, `?` or `#`), `{+name}` anything. */
function compileTemplate(uriTemplate: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = "";
  let last = 0;
  for (const m of uriTemplate.matchAll(/\{(\+?)([A-Za-z0-9_.%]+)\}/g)) {
    source += escape(uriTemplate.slice(last, m.index));
    names.push(m[2]!);
    source += m[1] ? "(.+)" : "([^/?#]+)";
    last = m.index + m[0].length;
  }
  source += escape(uriTemplate.slice(last));
  return { pattern: new RegExp(`^${source}$`), names };
}

function matchTemplate(entry: TemplateEntry, uri: string): Record<string, string> | undefined {
  const m = entry.pattern.exec(uri);
  if (!m) return undefined;
  const variables: Record<string, string> = {};
  for (let i = 0; i < entry.names.length; i++) {
    try {
      variables[entry.names[i]!] = decodeURIComponent(m[i + 1]!);
    } catch {
      return undefined;
    }
  }
  return variables;
}

/** The `arguments` of a completion's `context`, as strings. */
export function completionArguments(params: JsonObject): Record<string, string> {
  const context = isObject(params.context) ? params.context : {};
  const args = isObject(context.arguments) ? context.arguments : {};
  return Object.fromEntries(Object.entries(args).filter((e): e is [string, string] => typeof e[1] === "string"));
}
