/**
 * `x-mcp-header` (2026-07-28 Streamable HTTP): tool parameters a server asks to see mirrored in
 * `Mcp-Param-{Name}` headers. A client must honour them, and must drop a tool whose annotations
 * break the rules rather than send headers a server would reject.
 */
import type { JsonObject } from "../codec/message.js";
import { H_PARAM_PREFIX, encodeHeaderValue, isHeaderToken } from "../transport/http/headers.js";
import { isObject, type Tool } from "./meta.js";

export interface HeaderParam {
  /** The `{Name}` of `Mcp-Param-{Name}`. */
  name: string;
  /** The chain of `properties` keys from the schema root to the parameter. */
  path: string[];
}

const ANNOTATION = "x-mcp-header";
const ALLOWED_TYPES = new Set(["string", "integer", "boolean"]);

/** The header parameters a tool declares, or why its declaration is invalid. */
export function headerParams(tool: Tool): { params: HeaderParam[] } | { error: string } {
  const params: HeaderParam[] = [];
  const reachable = new Set<unknown>();
  const problems: string[] = [];
  const walk = (schema: JsonObject, path: string[]) => {
    const props = schema.properties;
    if (!isObject(props)) return;
    for (const [key, sub] of Object.entries(props)) {
      if (!isObject(sub)) continue;
      const at = [...path, key];
      if (sub[ANNOTATION] !== undefined) {
        reachable.add(sub);
        const name = sub[ANNOTATION];
        if (typeof name !== "string" || name.length === 0 || !isHeaderToken(name)) {
          problems.push(`${at.join(".")}: ${ANNOTATION} ${JSON.stringify(name)} is not a header name token`);
        } else if (typeof sub.type !== "string" || !ALLOWED_TYPES.has(sub.type)) {
          problems.push(
            `${at.join(".")}: ${ANNOTATION} on a parameter of type ${JSON.stringify(sub.type)} (only string, integer, boolean)`,
          );
        } else {
          params.push({ name, path: at });
        }
      }
      walk(sub, at);
    }
  };
  const schema = tool.inputSchema;
  if (isObject(schema)) walk(schema, []);
  // an annotation anywhere else (under items, anyOf, $defs, …) makes the definition invalid
  const strays = countAnnotations(schema) - reachable.size;
  if (strays > 0) problems.push(`${strays} ${ANNOTATION} annotation(s) not reachable through properties alone`);
  const seen = new Set<string>();
  for (const p of params) {
    const lower = p.name.toLowerCase();
    if (seen.has(lower)) problems.push(`${ANNOTATION} ${JSON.stringify(p.name)} is used twice`);
    seen.add(lower);
  }
  return problems.length > 0 ? { error: `tool ${JSON.stringify(tool.name)}: ${problems.join("; ")}` } : { params };
}

/** Keywords whose keys are names (a parameter may be called `x-mcp-header`), not keywords. */
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose values are instance data, not schemas: nothing in them annotates anything. */
const DATA = new Set(["const", "enum", "default", "examples"]);

function countAnnotations(v: unknown, depth = 0, names = false): number {
  if (depth > 64 || typeof v !== "object" || v === null) return 0;
  const schema = !Array.isArray(v) && !names;
  let n = schema && (v as JsonObject)[ANNOTATION] !== undefined ? 1 : 0;
  for (const [key, child] of Object.entries(v)) {
    if (schema && DATA.has(key)) continue;
    n += countAnnotations(child, depth + 1, schema && NAME_MAPS.has(key));
  }
  return n;
}

/** The `Mcp-Param-*` headers for one call's arguments (absent and null values send none). */
export function paramHeaders(args: unknown, params: readonly HeaderParam[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const p of params) {
    let v: unknown = args;
    for (const key of p.path) v = isObject(v) ? v[key] : undefined;
    let text: string | undefined;
    if (typeof v === "string") text = v;
    else if (typeof v === "boolean") text = v ? "true" : "false";
    else if (typeof v === "number" && Number.isSafeInteger(v)) text = String(v);
    if (text !== undefined) headers[`${H_PARAM_PREFIX}${p.name}`.toLowerCase()] = encodeHeaderValue(text);
  }
  return headers;
}
