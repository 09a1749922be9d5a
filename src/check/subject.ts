/**
 * What a finding is about, so that it keeps its name when the server's lists change order: the
 * tool, prompt, resource or template a pointer leads into (by its name or URI), the page of a list
 * whose item has no name, the method, the HTTP method, or the server as a whole.
 */

/** The lists whose items are subjects of their own: the array's key, the identifying member, the prefix. */
const ITEMS: Readonly<Record<string, readonly [string, string, string]>> = {
  "tools/list": ["tools", "name", "tool"],
  "prompts/list": ["prompts", "name", "prompt"],
  "resources/list": ["resources", "uri", "resource"],
  "resources/templates/list": ["resourceTemplates", "uriTemplate", "template"],
};

export interface Subject {
  readonly subject: string;
  readonly subjectPath: string | null;
}

/**
 * The subject of a finding at `path` in a message the server sent for `method`: `value` is that
 * message when known, `page` its place among the answers to `method` (1 for the first).
 */
export function subjectOf(method: string | null, path: string | null, value?: unknown, page?: number): Subject {
  if (method === null) return { subject: "server", subjectPath: path };
  const item = ITEMS[method];
  if (item && path !== null) {
    const [key, member, prefix] = item;
    const m = new RegExp(`^/result/${key}/(\\d+)(/.*)?$`).exec(path);
    if (m) {
      const entry = itemAt(value, key, Number(m[1]));
      const name = entry?.[member];
      if (typeof name === "string") return { subject: `${prefix}:${name}`, subjectPath: m[2] ?? "" };
    }
    if (page !== undefined) return { subject: `page:${method}#${page}`, subjectPath: path };
  }
  return { subject: `method:${method}`, subjectPath: path };
}

function itemAt(value: unknown, key: string, i: number): Record<string, unknown> | undefined {
  const result = (value as { result?: unknown } | null | undefined)?.result;
  const list = (result as Record<string, unknown> | null | undefined)?.[key];
  const entry = Array.isArray(list) ? list[i] : undefined;
  return typeof entry === "object" && entry !== null && !Array.isArray(entry)
    ? (entry as Record<string, unknown>)
    : undefined;
}

/** A tool's subject. */
export function toolSubject(name: string, subjectPath: string | null): Subject {
  return { subject: `tool:${name}`, subjectPath };
}
