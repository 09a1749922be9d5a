/**
 * The MCP extensions that change what the wire may carry, as data, beside the revisions' rules.
 * An extension is in force on an exchange when both sides declared it (extensions/overview,
 * negotiation); only then do its additions apply.
 *
 * Source: the tasks extension, `io.modelcontextprotocol/tasks` (SEP-2663, the ext-tasks
 * repository's specification/draft/tasks.md and schema/draft/schema.json).
 */
import { RULES, type Revision, type RevisionRules } from "./revisions.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface ExtensionRules {
  readonly id: string;
  /** The revisions the extension is defined for: elsewhere a declaration of it changes nothing. */
  readonly revisions: readonly Revision[];
  /** `resultType` values the extension adds. */
  readonly resultTypes: readonly string[];
  /** The requests whose answer may carry those result types; any other answer carrying one is invalid. */
  readonly augments: readonly string[];
}

export const EXTENSIONS: Readonly<Record<string, ExtensionRules>> = {
  [TASKS_EXTENSION]: {
    id: TASKS_EXTENSION,
    // "not defined under the 2025-11-25 protocol version": that revision has its own experimental tasks
    revisions: ["2026-07-28"],
    resultTypes: ["task"],
    augments: ["tools/call"],
  },
};

/** The known extension named `id`, or undefined (an extension mcp-wire does not know changes nothing it judges). */
export function extensionRules(id: string): ExtensionRules | undefined {
  return Object.hasOwn(EXTENSIONS, id) ? EXTENSIONS[id] : undefined;
}

/** The extension that defines `resultType` value `type` on `revision`, if one does. */
export function extensionOfResultType(revision: Revision, type: string): ExtensionRules | undefined {
  return Object.values(EXTENSIONS).find((e) => e.revisions.includes(revision) && e.resultTypes.includes(type));
}

const withExtensions = new Map<string, RevisionRules>();

/**
 * `revision`'s rules with the additions of the extensions in force: the same object when none
 * of them applies to the revision, so the common case costs a lookup.
 */
export function rulesWithExtensions(revision: Revision, extensions: readonly string[]): RevisionRules {
  const base = RULES[revision];
  const applying = extensions
    .map(extensionRules)
    .filter((e): e is ExtensionRules => e !== undefined && e.revisions.includes(revision));
  if (applying.length === 0) return base;
  const ids = [...new Set(applying.map((e) => e.id))].sort();
  const key = `${revision}\u0000${ids.join("\u0000")}`;
  let rules = withExtensions.get(key);
  if (rules === undefined) {
    const resultTypes = [...base.resultTypes];
    for (const e of applying) for (const t of e.resultTypes) if (!resultTypes.includes(t)) resultTypes.push(t);
    rules = { ...base, resultTypes };
    withExtensions.set(key, rules);
  }
  return rules;
}
