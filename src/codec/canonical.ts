/**
 * Canonical JSON: every object's keys in code-point order at every depth, no whitespace, so one
 * value has one text whatever order its members came in, and any change to it changes the text.
 */

/** `value` as canonical JSON (members whose value is undefined are left out, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}
