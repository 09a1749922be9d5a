/**
 * What a person reading a server's names and descriptions does not see and a model does: Unicode
 * tag characters (an invisible copy of ASCII), bidirectional controls (text shown in another order
 * than it is read), zero-width characters, C0/C1 controls and terminal escape sequences. Each
 * name or description that carries any is one finding, which says what hides there.
 */
import type { JsonObject } from "../codec/message.js";
import { isObject } from "../mcp/meta.js";
import type { Revision } from "../rules/revisions.js";
import type { Findings } from "./findings.js";
import type { Listed } from "./session.js";

/** The kinds of hidden character, in the order a finding names them. */
const KINDS: readonly { name: string; test: (c: number) => boolean }[] = [
  { name: "Unicode tag characters", test: (c) => c >= 0xe0000 && c <= 0xe007f },
  {
    name: "bidirectional controls",
    test: (c) =>
      (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c,
  },
  {
    name: "zero-width characters",
    test: (c) => c === 0x200b || c === 0x200c || c === 0x200d || c === 0x2060 || c === 0xfeff || c === 0x180e,
  },
  { name: "terminal escape sequences", test: (c) => c === 0x1b || c === 0x9b },
  // tab, line feed and carriage return are ordinary in a description
  {
    name: "control characters",
    test: (c) => (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f),
  },
];

/** A quick test before the character walk: most text has none of these. */
const SUSPECT =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

/** Where, in each kind of listed item, names and descriptions are: the item's key first. */
const KINDS_OF_ITEM = [
  { key: "tools", subject: "tool", id: "name", method: "tools/list" },
  { key: "resources", subject: "resource", id: "uri", method: "resources/list" },
  { key: "resourceTemplates", subject: "template", id: "uriTemplate", method: "resources/templates/list" },
  { key: "prompts", subject: "prompt", id: "name", method: "prompts/list" },
] as const;

/** Schema depth searched for descriptions: deeper nesting is not a place a person reads either. */
const MAX_DEPTH = 32;

/** What hides in `text`, in words (`undefined` when nothing does). */
export function hiddenIn(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  const counts = new Map<string, number>();
  let tags = "";
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const kind = KINDS.find((k) => k.test(c));
    if (!kind) continue;
    counts.set(kind.name, (counts.get(kind.name) ?? 0) + 1);
    // a tag character is an ASCII character made invisible: show what it spells
    if (kind === KINDS[0] && c >= 0xe0020 && c <= 0xe007e && tags.length < 120)
      tags += String.fromCharCode(c - 0xe0000);
  }
  if (counts.size === 0) return undefined;
  const parts = [...counts].map(([name, n]) => `${n} ${n === 1 ? name.replace(/s( |$)/, "$1") : name}`);
  return `${parts.join(", ")}${tags ? ` (the tag characters spell ${JSON.stringify(tags)})` : ""}`;
}

/** `description_hidden_text` for every name and description of every listed item. */
export function judgeHiddenText(listed: Listed, revision: Revision, findings: Findings): void {
  findings.checked("description_hidden_text", revision);
  for (const kind of KINDS_OF_ITEM) {
    listed[kind.key].forEach((item, i) => {
      const key = typeof item[kind.id] === "string" ? (item[kind.id] as string) : undefined;
      for (const [pointer, text] of texts(item)) {
        const hidden = hiddenIn(text);
        if (hidden === undefined) continue;
        findings.add("description_hidden_text", {
          revision,
          method: kind.method,
          path: `/result/${kind.key}/${i}${pointer}`,
          ...(key !== undefined ? { about: { subject: `${kind.subject}:${key}`, subjectPath: pointer } } : {}),
          message: `${kind.subject} ${JSON.stringify(visible(key ?? `#${i}`))}: ${visible(pointer.slice(1))} carries ${hidden}, which a person does not see and a model reads`,
        });
      }
    });
  }
}

/** Every name, title and description in an item, with its pointer: the item's own, its schemas' and its arguments'. */
function* texts(item: JsonObject): Generator<[string, string]> {
  for (const member of ["name", "title", "description", "uri", "uriTemplate"]) {
    const v = item[member];
    if (typeof v === "string") yield [`/${member}`, v];
  }
  for (const member of ["inputSchema", "outputSchema"]) {
    const schema = item[member];
    if (isObject(schema)) yield* schemaTexts(schema, `/${member}`, 0);
  }
  if (Array.isArray(item.arguments)) {
    for (const [i, arg] of item.arguments.entries()) {
      if (!isObject(arg)) continue;
      for (const member of ["name", "title", "description"]) {
        const v = arg[member];
        if (typeof v === "string") yield [`/arguments/${i}/${member}`, v];
      }
    }
  }
}

/** The descriptions and property names of a JSON Schema, at any depth up to MAX_DEPTH. */
function* schemaTexts(schema: JsonObject, pointer: string, depth: number): Generator<[string, string]> {
  if (depth > MAX_DEPTH) return;
  for (const member of ["title", "description"]) {
    const v = schema[member];
    if (typeof v === "string") yield [`${pointer}/${member}`, v];
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) {
        const at = `${pointer}/properties/${escapePointer(name)}`;
        // a property name is read by the model as much as a description
        yield [at, name];
        if (isObject(sub)) yield* schemaTexts(sub, at, depth + 1);
      }
    } else if (isObject(value) && key !== "const" && key !== "default") {
      yield* schemaTexts(value, `${pointer}/${escapePointer(key)}`, depth + 1);
    } else if (Array.isArray(value) && key !== "enum" && key !== "examples" && key !== "required") {
      for (const [i, sub] of value.entries())
        if (isObject(sub)) yield* schemaTexts(sub, `${pointer}/${escapePointer(key)}/${i}`, depth + 1);
    }
  }
}

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A key as a finding's message shows it: what hides in it replaced, so the message itself is plain. */
function visible(text: string): string {
  let out = "";
  for (const ch of text.slice(0, 80)) {
    const c = ch.codePointAt(0)!;
    out += KINDS.some((k) => k.test(c)) ? `\\u{${c.toString(16)}}` : ch;
  }
  return out;
}
