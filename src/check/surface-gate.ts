/**
 * The surface gate (`check --surface FILE`): a server's surface is the full definition of every
 * tool, resource, resource template and prompt, as the newest revision it speaks lists them. It is
 * recorded once, and every later check compares against it: each difference a `surface_*`
 * finding classed by how it lands on the server's clients — breaking (an error), risky (a
 * warning) or compatible (info) — with the value before and after (docs/check.md).
 */
import { canonicalJson } from "../codec/canonical.js";
import type { JsonObject } from "../codec/message.js";
import { isObject } from "../mcp/meta.js";
import { isRevision, type Revision } from "../rules/revisions.js";
import type { SurfaceRuleId } from "./surface-rules.js";
import type { Findings } from "./findings.js";
import type { Listed } from "./session.js";
import type { SurfaceChange } from "./types.js";

/** The file format's version: a file of another is refused rather than misread. */
const SURFACE_FORMAT = 1;

type Kind = "tools" | "resources" | "resourceTemplates" | "prompts";

/** A recorded surface: each item's definition by its key (name, URI or URI template). */
export interface SurfaceFile {
  /** The mark that lets a later run replace the file (`--update-surface`) without `--force`. */
  readonly generator: "mcp-wire";
  readonly mcpWireSurface: typeof SURFACE_FORMAT;
  /** The revision that listed it. */
  readonly revision: Revision;
  readonly tools: Readonly<Record<string, unknown>>;
  readonly resources: Readonly<Record<string, unknown>>;
  readonly resourceTemplates: Readonly<Record<string, unknown>>;
  readonly prompts: Readonly<Record<string, unknown>>;
}

const ITEMS: readonly { kind: Kind; key: string; subject: string; method: string }[] = [
  { kind: "tools", key: "name", subject: "tool", method: "tools/list" },
  { kind: "resources", key: "uri", subject: "resource", method: "resources/list" },
  { kind: "resourceTemplates", key: "uriTemplate", subject: "template", method: "resources/templates/list" },
  { kind: "prompts", key: "name", subject: "prompt", method: "prompts/list" },
];

/** The rule each class of change is found under, with its class. */
const CLASS: Record<SurfaceRuleId, SurfaceChange> = {
  surface_item_removed: "breaking",
  surface_item_renamed: "breaking",
  surface_required_added: "breaking",
  surface_type_narrowed: "breaking",
  surface_output_field_removed: "breaking",
  surface_description_changed: "risky",
  surface_annotation_toward_harm: "risky",
  surface_destructive_tool_added: "risky",
  surface_definition_changed: "risky",
  surface_item_added: "compatible",
  surface_parameter_added: "compatible",
  surface_required_removed: "compatible",
  surface_type_widened: "compatible",
  surface_annotation_changed: "compatible",
};

/** Every `surface_*` rule id. */
export const SURFACE_RULE_IDS = Object.keys(CLASS) as readonly SurfaceRuleId[];

/** Schema nesting compared member by member; deeper, a difference is one `surface_definition_changed`. */
const MAX_DEPTH = 32;

/** The surface a session listed, each item's members sorted (keys in code-point order, at every depth). */
export function surfaceOf(listed: Listed, revision: Revision): SurfaceFile {
  const of = (kind: Kind, key: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const sorted = listed[kind]
      .filter((item) => typeof item[key] === "string")
      .sort((a, b) => ((a[key] as string) < (b[key] as string) ? -1 : 1));
    // the first of two items with one key stands (a duplicate is a finding of its own)
    for (const item of sorted)
      if (!Object.hasOwn(out, item[key] as string)) put(out, item[key] as string, sortKeys(item));
    return out;
  };
  return {
    generator: "mcp-wire",
    mcpWireSurface: SURFACE_FORMAT,
    revision,
    tools: of("tools", "name"),
    resources: of("resources", "uri"),
    resourceTemplates: of("resourceTemplates", "uriTemplate"),
    prompts: of("prompts", "name"),
  };
}

/** A surface file's text: sorted, indented, so that a change reads as a small diff in review. */
export function surfaceText(surface: SurfaceFile): string {
  return JSON.stringify(surface, null, 2) + "\n";
}

/** The surface a file holds, or why it holds none (one line). */
export function parseSurface(text: string): SurfaceFile | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "is not JSON";
  }
  if (!isObject(value) || value.mcpWireSurface !== SURFACE_FORMAT)
    return `is not a surface file written by mcp-wire check --surface (format ${SURFACE_FORMAT})`;
  if (typeof value.revision !== "string" || !isRevision(value.revision)) return "names no revision mcp-wire knows";
  for (const { kind } of ITEMS) if (!isObject(value[kind])) return `has no "${kind}" object`;
  return value as unknown as SurfaceFile;
}

/** Every difference between the recorded surface and the one just listed, each a finding. */
export function compareSurfaces(before: SurfaceFile, after: SurfaceFile, findings: Findings): void {
  for (const id of SURFACE_RULE_IDS) findings.checked(id, after.revision);
  for (const item of ITEMS)
    new KindComparison(item, before[item.kind], after[item.kind], after.revision, findings).run();
}

/** One kind of item compared: removed, renamed, added, and each changed item member by member. */
class KindComparison {
  constructor(
    private readonly item: (typeof ITEMS)[number],
    private readonly before: Readonly<Record<string, unknown>>,
    private readonly after: Readonly<Record<string, unknown>>,
    private readonly revision: Revision,
    private readonly findings: Findings,
  ) {}

  run(): void {
    const removed = Object.keys(this.before).filter((k) => !Object.hasOwn(this.after, k));
    const added = new Set(Object.keys(this.after).filter((k) => !Object.hasOwn(this.before, k)));
    this.removedOrRenamed(removed, added);
    for (const key of added) this.added(key);
    for (const key of Object.keys(this.after)) {
      if (!Object.hasOwn(this.before, key)) continue;
      const b = this.before[key];
      const a = this.after[key];
      if (canonicalJson(b) !== canonicalJson(a)) this.changed(key, b, a);
    }
  }

  /** An item gone; renamed when an added one is the same but for its key (and title). */
  private removedOrRenamed(removed: readonly string[], added: Set<string>): void {
    const bodies = new Map<string, string>();
    for (const key of added) bodies.set(this.body(this.after[key]), key);
    for (const key of removed) {
      const to = bodies.get(this.body(this.before[key]));
      if (to !== undefined && added.has(to)) {
        added.delete(to);
        this.report(key, "surface_item_renamed", `/${this.item.key}`, key, to, `renamed to ${JSON.stringify(to)}`);
      } else this.report(key, "surface_item_removed", "", this.before[key], null, "removed");
    }
  }

  private added(key: string): void {
    const def = this.after[key];
    const destructive =
      this.item.kind === "tools" &&
      isObject(def) &&
      isObject(def.annotations) &&
      def.annotations.destructiveHint === true;
    if (destructive)
      this.report(
        key,
        "surface_destructive_tool_added",
        "",
        null,
        def,
        "added, and its annotations say destructiveHint: true",
      );
    else this.report(key, "surface_item_added", "", null, def, "added");
  }

  private changed(key: string, before: unknown, after: unknown): void {
    if (!isObject(before) || !isObject(after)) {
      this.report(key, "surface_definition_changed", "", before, after, "changed");
      return;
    }
    const at = (pointer: string, id: SurfaceRuleId, b: unknown, a: unknown, what: string) =>
      this.report(key, id, pointer, b, a, what);
    for (const member of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const b = before[member];
      const a = after[member];
      if (canonicalJson(b) === canonicalJson(a)) continue;
      const pointer = `/${escape(member)}`;
      if (member === "description") at(pointer, "surface_description_changed", b, a, "its description changed");
      else if (member === "annotations" && this.item.kind === "tools") annotations(pointer, b, a, at);
      else if (member === "inputSchema" && isObject(b) && isObject(a))
        new SchemaDiff(at, "input").node(pointer, b, a, 0);
      else if (member === "outputSchema" && isObject(b) && isObject(a))
        new SchemaDiff(at, "output").node(pointer, b, a, 0);
      else if (member === "arguments" && this.item.kind === "prompts") promptArguments(pointer, b, a, at);
      else at(pointer, "surface_definition_changed", b ?? null, a ?? null, `its ${member} changed`);
    }
  }

  /** An item's definition without its key and title: what stays when it is only renamed. */
  private body(def: unknown): string {
    if (!isObject(def)) return canonicalJson(def);
    const { [this.item.key]: _key, title: _title, ...rest } = def;
    return canonicalJson(rest);
  }

  private report(key: string, id: SurfaceRuleId, pointer: string, before: unknown, after: unknown, what: string): void {
    const change = CLASS[id];
    this.findings.add(id, {
      revision: this.revision,
      method: this.item.method,
      about: { subject: `${this.item.subject}:${key}`, subjectPath: pointer },
      change,
      before: before ?? null,
      after: after ?? null,
      message: `${this.item.subject} ${JSON.stringify(key.slice(0, 120))}${pointer ? ` ${pointer}` : ""}: ${what} (${change})`,
    });
  }
}

type Report = (pointer: string, id: SurfaceRuleId, before: unknown, after: unknown, what: string) => void;

/**
 * Tool annotations read with the spec's defaults (readOnlyHint false, destructiveHint true): a
 * tool that stops being read-only, or becomes destructive, changed toward harm.
 */
function annotations(pointer: string, before: unknown, after: unknown, report: Report): void {
  const b = isObject(before) ? before : {};
  const a = isObject(after) ? after : {};
  const readOnly = (x: JsonObject) => x.readOnlyHint === true;
  const destructive = (x: JsonObject) => x.destructiveHint !== false;
  let harm = false;
  if (readOnly(b) && !readOnly(a)) {
    harm = true;
    report(
      `${pointer}/readOnlyHint`,
      "surface_annotation_toward_harm",
      b.readOnlyHint ?? null,
      a.readOnlyHint ?? null,
      "no longer read-only",
    );
  }
  if (!destructive(b) && destructive(a)) {
    harm = true;
    report(
      `${pointer}/destructiveHint`,
      "surface_annotation_toward_harm",
      b.destructiveHint ?? null,
      a.destructiveHint ?? null,
      "now destructive",
    );
  }
  if (!harm) report(pointer, "surface_annotation_changed", before ?? null, after ?? null, "its annotations changed");
}

/** A prompt's arguments, matched by name: a required one added breaks every caller that omits it. */
function promptArguments(pointer: string, before: unknown, after: unknown, report: Report): void {
  const byName = (v: unknown) => {
    const m = new Map<string, JsonObject>();
    if (Array.isArray(v)) for (const arg of v) if (isObject(arg) && typeof arg.name === "string") m.set(arg.name, arg);
    return m;
  };
  const b = byName(before);
  const a = byName(after);
  for (const [name, arg] of a) {
    const old = b.get(name);
    const at = `${pointer}/${escape(name)}`;
    if (!old) {
      if (arg.required === true)
        report(at, "surface_required_added", null, arg, `a required argument ${JSON.stringify(name)} was added`);
      else report(at, "surface_parameter_added", null, arg, `an optional argument ${JSON.stringify(name)} was added`);
      continue;
    }
    if (old.required !== true && arg.required === true)
      report(
        `${at}/required`,
        "surface_required_added",
        old.required ?? null,
        true,
        `argument ${JSON.stringify(name)} became required`,
      );
    else if (old.required === true && arg.required !== true)
      report(
        `${at}/required`,
        "surface_required_removed",
        true,
        arg.required ?? null,
        `argument ${JSON.stringify(name)} became optional`,
      );
    if (old.description !== arg.description)
      report(
        `${at}/description`,
        "surface_description_changed",
        old.description ?? null,
        arg.description ?? null,
        `argument ${JSON.stringify(name)}'s description changed`,
      );
  }
  for (const [name, arg] of b)
    if (!a.has(name))
      report(
        `${pointer}/${escape(name)}`,
        "surface_definition_changed",
        arg,
        null,
        `argument ${JSON.stringify(name)} was removed`,
      );
}

/** Keywords whose larger value admits fewer values, and those whose smaller value does. */
const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"]);

/**
 * Two JSON Schemas compared keyword by keyword. In what a client sends (`input`), a schema that
 * admits less breaks callers; in what it receives (`output`), a field that goes breaks readers.
 */
class SchemaDiff {
  constructor(
    private readonly report: Report,
    private readonly side: "input" | "output",
  ) {}

  node(pointer: string, before: JsonObject, after: JsonObject, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.report(pointer, "surface_definition_changed", before, after, "its schema changed");
      return;
    }
    for (const keyword of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const b = before[keyword];
      const a = after[keyword];
      if (canonicalJson(b) === canonicalJson(a)) continue;
      this.keyword(`${pointer}/${escape(keyword)}`, keyword, b, a, depth);
    }
  }

  private keyword(pointer: string, keyword: string, b: unknown, a: unknown, depth: number): void {
    if (keyword === "description")
      return this.report(pointer, "surface_description_changed", b ?? null, a ?? null, "a description changed");
    if (keyword === "properties") return this.properties(pointer, b, a, depth);
    if (keyword === "required") return this.required(pointer, b, a);
    if (this.side === "input") {
      const verdict = narrowing(keyword, b, a);
      if (verdict === "narrowed")
        return this.report(pointer, "surface_type_narrowed", b ?? null, a ?? null, `${keyword} admits less`);
      if (verdict === "widened")
        return this.report(pointer, "surface_type_widened", b ?? null, a ?? null, `${keyword} admits more`);
    }
    if ((keyword === "items" || keyword === "additionalProperties") && isObject(b) && isObject(a))
      return this.node(pointer, b, a, depth + 1);
    this.report(pointer, "surface_definition_changed", b ?? null, a ?? null, `${keyword} changed`);
  }

  private properties(pointer: string, before: unknown, after: unknown, depth: number): void {
    const b = isObject(before) ? before : {};
    const a = isObject(after) ? after : {};
    for (const name of new Set([...Object.keys(b), ...Object.keys(a)])) {
      const at = `${pointer}/${escape(name)}`;
      const old = b[name];
      const now = a[name];
      if (canonicalJson(old) === canonicalJson(now)) continue;
      if (now === undefined) {
        if (this.side === "output")
          this.report(
            at,
            "surface_output_field_removed",
            old,
            null,
            `output field ${JSON.stringify(name)} was removed`,
          );
        else this.report(at, "surface_definition_changed", old, null, `parameter ${JSON.stringify(name)} was removed`);
      } else if (old === undefined) {
        this.report(
          at,
          this.side === "input" ? "surface_parameter_added" : "surface_definition_changed",
          null,
          now,
          `${this.side === "input" ? "parameter" : "output field"} ${JSON.stringify(name)} was added`,
        );
      } else if (isObject(old) && isObject(now)) this.node(at, old, now, depth + 1);
      else this.report(at, "surface_definition_changed", old, now, `${JSON.stringify(name)} changed`);
    }
  }

  /** `required` names: one added to the input breaks callers; one dropped frees them. */
  private required(pointer: string, before: unknown, after: unknown): void {
    const set = (v: unknown) => new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
    const b = set(before);
    const a = set(after);
    const more = [...a].filter((n) => !b.has(n));
    const fewer = [...b].filter((n) => !a.has(n));
    if (this.side === "input") {
      for (const n of more)
        this.report(
          pointer,
          "surface_required_added",
          [...b],
          [...a],
          `required parameter ${JSON.stringify(n)} was added`,
        );
      for (const n of fewer)
        this.report(
          pointer,
          "surface_required_removed",
          [...b],
          [...a],
          `parameter ${JSON.stringify(n)} became optional`,
        );
    } else if (fewer.length > 0 || more.length > 0) {
      // an output field no longer promised is one a reader may no longer find
      this.report(
        pointer,
        fewer.length > 0 ? "surface_output_field_removed" : "surface_definition_changed",
        [...b],
        [...a],
        fewer.length > 0
          ? `output field ${JSON.stringify(fewer[0])} is no longer required`
          : "required output fields changed",
      );
    }
  }
}

/** Whether a change of `keyword` from `b` to `a` makes an input schema admit less, more, or neither. */
function narrowing(keyword: string, b: unknown, a: unknown): "narrowed" | "widened" | undefined {
  if (keyword === "type") {
    const set = (v: unknown) => new Set(typeof v === "string" ? [v] : Array.isArray(v) ? v.map(String) : []);
    const before = set(b);
    const after = set(a);
    // no type admits every type
    if (after.size === 0) return "widened";
    if (before.size === 0) return "narrowed";
    const lost = [...before].some((t) => !after.has(t) && !(t === "integer" && after.has("number")));
    return lost ? "narrowed" : "widened";
  }
  if (keyword === "enum") {
    if (!Array.isArray(a)) return "widened";
    if (!Array.isArray(b)) return "narrowed";
    const now = new Set(a.map((v) => canonicalJson(v)));
    return b.some((v) => !now.has(canonicalJson(v))) ? "narrowed" : "widened";
  }
  if (keyword === "const") return a === undefined ? "widened" : "narrowed";
  if (LOWER_BOUNDS.has(keyword) || UPPER_BOUNDS.has(keyword)) {
    if (typeof a !== "number") return "widened";
    if (typeof b !== "number") return "narrowed";
    return LOWER_BOUNDS.has(keyword) === a > b ? "narrowed" : "widened";
  }
  if (keyword === "pattern" || keyword === "format") return a === undefined ? "widened" : "narrowed";
  if (keyword === "additionalProperties") {
    const open = (v: unknown) => v === undefined || v === true || (isObject(v) && Object.keys(v).length === 0);
    if (open(b) && !open(a)) return "narrowed";
    if (!open(b) && open(a)) return "widened";
    return undefined;
  }
  return undefined;
}

/** Object members in code-point order at every depth: one text per definition, in the file too. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) put(out, k, sortKeys(value[k]));
  return out;
}

/** An own member, whatever its name: a server's "__proto__" is data, never a prototype. */
function put(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function escape(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}
