/**
 * What a server offers, as a census keeps it to tell what changed between two runs: its tools
 * (whole definitions, so a change can be shown and not only detected) and the names of its
 * resources, resource templates and prompts. Those three are asked for only when the server
 * declares the capability: a server that does not offer them is not sent requests it never
 * promised to answer (basic/lifecycle, "Capability Negotiation").
 */
import type { JsonObject } from "../codec/message.js";
import type { McpClient } from "../mcp/client.js";

export interface Surface {
  /** Every tool as listed (all pages). */
  tools: JsonObject[];
  /** Resource URIs; null when the server does not declare `resources`. */
  resources: string[] | null;
  /** Resource template URI templates; null when the server does not declare `resources`. */
  resourceTemplates: string[] | null;
  /** Prompt names; null when the server does not declare `prompts`. */
  prompts: string[] | null;
}

/** Pages followed per list at most: a census is not the place to walk a server's whole catalogue. */
const MAX_PAGES = 20;

/**
 * The names of a list method's items, every page, or null when the server does not answer it
 * well (an error, no array, a cursor loop): the census's verdict comes from the opening and the
 * tools, and a missing name list is only a gap in the change log.
 */
async function names(
  client: McpClient,
  method: string,
  member: string,
  key: string,
  timeout: number,
): Promise<string[] | null> {
  const out: string[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request(method, cursor === undefined ? {} : { cursor }, { timeout });
      const items = result[member];
      if (!Array.isArray(items)) return null;
      for (const item of items) {
        const name = (item as Record<string, unknown> | null)?.[key];
        if (typeof name === "string") out.push(name);
      }
      const next = result.nextCursor;
      if (typeof next !== "string" || next === "" || seen.has(next)) return out;
      seen.add(next);
      cursor = next;
    }
    return out;
  } catch {
    return null;
  }
}

/** The rest of a surface once the tools are listed; `timeout` is what is left of the probe's deadline. */
export async function listSurface(client: McpClient, tools: JsonObject[], timeout: () => number): Promise<Surface> {
  const caps = client.capabilities;
  const declares = (name: string) => caps[name] !== undefined && caps[name] !== null && caps[name] !== false;
  const resources = declares("resources");
  return {
    tools,
    resources: resources ? await names(client, "resources/list", "resources", "uri", timeout()) : null,
    resourceTemplates: resources
      ? await names(client, "resources/templates/list", "resourceTemplates", "uriTemplate", timeout())
      : null,
    prompts: declares("prompts") ? await names(client, "prompts/list", "prompts", "name", timeout()) : null,
  };
}
