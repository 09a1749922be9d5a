/**
 * How a live answer is compared with the recorded one: `_meta` (at any depth) is left out, and
 * what `--ignore` names; the lists of the list methods are compared as sets, each item keyed by
 * its name or URI, so an item's difference shows at `/result/tools/echo/…` and the order the
 * server lists them in does not matter. Every difference is a JSON Pointer with both values.
 */

/** The list methods and the member each item of their list is keyed by. */
const SETS: Record<string, { list: string; key: string }> = {
  "tools/list": { list: "tools", key: "name" },
  "prompts/list": { list: "prompts", key: "name" },
  "resources/list": { list: "resources", key: "uri" },
  "resources/templates/list": { list: "resourceTemplates", key: "uriTemplate" },
};

export interface Difference {
  /** A JSON Pointer into the answer: `/result/tools/echo/description`. */
  path: string;
  /** Absent: the value is missing on that side. */
  recorded?: unknown;
  live?: unknown;
}

/** `--ignore` values: a pointer into every result, or `METHOD:POINTER` for one method. */
export interface Ignore {
  method?: string;
  pointer: string;
}

export function parseIgnore(raw: string): Ignore | string {
  const colon = raw.indexOf(":");
  const [method, pointer] =
    colon > 0 && !raw.startsWith("/") ? [raw.slice(0, colon), raw.slice(colon + 1)] : [undefined, raw];
  if (!pointer.startsWith("/"))
    return `--ignore takes a JSON Pointer (/serverInfo/version) or METHOD:POINTER, not ${JSON.stringify(raw)}`;
  return method !== undefined ? { method, pointer } : { pointer };
}

function token(t: string): string {
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The answer as compared: `_meta` gone, lists keyed, ignored pointers removed. */
export function comparable(method: string, answer: unknown, ignores: readonly Ignore[]): unknown {
  const value = withoutMeta(answer) as Record<string, unknown>;
  if (typeof value !== "object" || value === null) return value;
  const set = SETS[method];
  const result = value.result as Record<string, unknown> | undefined;
  if (set && result && Array.isArray(result[set.list])) {
    const keyed: Record<string, unknown> = {};
    for (const item of result[set.list] as unknown[]) {
      const k = (item as Record<string, unknown> | null)?.[set.key];
      keyed[typeof k === "string" ? k : JSON.stringify(item)] = item;
    }
    value.result = { ...result, [set.list]: keyed };
  }
  for (const ig of ignores) if (ig.method === undefined || ig.method === method) remove(value.result, ig.pointer);
  return value;
}

function withoutMeta(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutMeta);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (k !== "_meta") out[k] = withoutMeta(x);
  return out;
}

function remove(root: unknown, pointer: string): void {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let at = root;
  for (let i = 0; i < parts.length - 1; i++) {
    if (typeof at !== "object" || at === null) return;
    at = (at as Record<string, unknown>)[parts[i]!];
  }
  if (typeof at === "object" && at !== null && parts.length > 0) delete (at as Record<string, unknown>)[parts.at(-1)!];
}

/** Every place two JSON values differ, as pointers from `path`. */
export function differences(recorded: unknown, live: unknown, path = ""): Difference[] {
  if (Object.is(recorded, live)) return [];
  const objects =
    typeof recorded === "object" &&
    recorded !== null &&
    typeof live === "object" &&
    live !== null &&
    Array.isArray(recorded) === Array.isArray(live);
  if (!objects) {
    const d: Difference = { path: path || "/" };
    if (recorded !== undefined) d.recorded = recorded;
    if (live !== undefined) d.live = live;
    return [d];
  }
  const a = recorded as Record<string, unknown>;
  const b = live as Record<string, unknown>;
  const out: Difference[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    out.push(...differences(a[k], b[k], `${path}/${token(k)}`));
  return out;
}
