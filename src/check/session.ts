/**
 * The read-only pass `check` makes in one open session of one revision: every list followed to
 * its end, `ping`, `logging/setLevel` where logging is declared, an unknown method, a list request
 * with a malformed cursor, every tool definition judged; and only what the user asked for is
 * called, read or got (docs/check.md, "What check does").
 */
import type { JsonObject } from "../codec/message.js";
import type { McpClient } from "../mcp/client.js";
import { isObject } from "../mcp/meta.js";
import { ResponseError } from "../peer/errors.js";
import { INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND } from "../rules/error-codes.js";
import { RULES, type Revision } from "../rules/revisions.js";
import { quote } from "../codec/defects.js";
import type { Findings } from "./findings.js";
import type { CallReport } from "./types.js";
import { judgeHiddenText } from "./hidden-text.js";
import { conformanceProblems, schemaDialectProblems, schemaUncheckedReason } from "./schema-checks.js";
import { SchemaBudget } from "../schema/json-schema.js";
import { toolSubject } from "./subject.js";

/** What the user allowed `check` to do beyond reading lists: each is a side effect they chose. */
export interface OptIns {
  /** Tools to call, with their arguments. */
  calls: readonly { name: string; args: JsonObject }[];
  /** Resources to read, by URI. */
  reads: readonly string[];
  /** Prompts to get, with their arguments. */
  gets: readonly { name: string; args: JsonObject }[];
}

/** The pages of one list followed at most: a list that goes on past it is a finding (docs/check.md). */
const PAGE_CAP = 1000;
/** The method no server has: its answer must be -32601. */
export const UNKNOWN_METHOD = "mcp-wire/check-unknown-method";
/** Tool names the 2025-11-25 naming rule allows. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const LISTS = [
  { method: "tools/list", key: "tools", capability: "tools" },
  { method: "resources/list", key: "resources", capability: "resources" },
  { method: "resources/templates/list", key: "resourceTemplates", capability: "resources" },
  { method: "prompts/list", key: "prompts", capability: "prompts" },
] as const;

/** Bytes of listed items one session keeps at most (as JSON): past it, items are counted, not kept. */
const KEEP_BUDGET = 32 * 1024 * 1024;

/** What the server lists, item by item, as this session received it (within the budget). */
export interface Listed {
  tools: JsonObject[];
  resources: JsonObject[];
  resourceTemplates: JsonObject[];
  prompts: JsonObject[];
}

export interface SessionOutcome {
  pages: number;
  listed: Listed;
}

/** What one session may still keep, and what it counted without keeping. */
class Budget {
  dropped = 0;
  constructor(private left: number) {}

  /** The items of a page, or none once they would pass the budget (then they are counted). */
  keep(page: readonly unknown[]): readonly unknown[] {
    if (page.length === 0) return page;
    // measured only while under the budget: past it nothing is serialised again
    const size = this.left > 0 ? JSON.stringify(page).length : Infinity;
    if (size > this.left) {
      this.left = 0;
      this.dropped += page.length;
      return [];
    }
    this.left -= size;
    return page;
  }
}

export async function readOnlyPass(
  client: McpClient,
  revision: Revision,
  findings: Findings,
  optIns: OptIns,
  timeout: number,
  calls: CallReport[] = [],
): Promise<SessionOutcome> {
  const options = { timeout };
  let pages = 0;
  const caps = client.capabilities;
  const items: Listed = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  const listed: string[] = [];
  const budget = new Budget(KEEP_BUDGET);
  for (const list of LISTS) {
    if (caps[list.capability] === undefined) continue;
    const walked = await walkList(client, revision, list.method, list.key, findings, timeout, budget);
    pages += walked.pages;
    if (walked.served) listed.push(list.method);
    items[list.key] = walked.items.filter(isObject);
  }
  findings.checked("kept_over_budget", revision);
  if (budget.dropped > 0)
    findings.add("kept_over_budget", {
      revision,
      message: `the server lists more than check keeps (${KEEP_BUDGET / 1024 / 1024} MiB of definitions a session): ${budget.dropped} items past it were counted, not judged`,
    });
  const tools = items.tools;
  judgeTools(tools, revision, findings);
  judgeHiddenText(items, revision, findings);

  // 2026-07-28 removed ping
  if (RULES[revision].era === "legacy") {
    findings.checked("ping_failed", revision);
    try {
      await tagged("ping", client.request("ping", {}, options));
    } catch (e) {
      if (e instanceof ResponseError)
        findings.add("ping_failed", {
          revision,
          method: "ping",
          message: `ping was answered with error ${e.code} ${quote(e.message)} instead of an empty result`,
        });
      else throw e;
    }
  }

  if (caps.logging !== undefined && RULES[revision].era === "legacy") {
    findings.checked("logging_set_level_failed", revision);
    try {
      await tagged("logging/setLevel", client.request("logging/setLevel", { level: "error" }, options));
    } catch (e) {
      if (!(e instanceof ResponseError)) throw e;
      findings.add("logging_set_level_failed", {
        revision,
        method: "logging/setLevel",
        message: `the server declares logging, but logging/setLevel got error ${e.code} ${quote(e.message)}`,
      });
    }
  }

  findings.checked("unknown_method_not_32601", revision);
  try {
    await tagged(UNKNOWN_METHOD, client.request(UNKNOWN_METHOD, {}, options));
    findings.add("unknown_method_not_32601", {
      revision,
      method: UNKNOWN_METHOD,
      message: `a request for the unknown method ${UNKNOWN_METHOD} was answered with a result instead of error -32601`,
    });
  } catch (e) {
    if (!(e instanceof ResponseError)) throw e;
    if (e.code !== METHOD_NOT_FOUND)
      findings.add("unknown_method_not_32601", {
        revision,
        method: UNKNOWN_METHOD,
        path: "/error/code",
        message: `a request for the unknown method ${UNKNOWN_METHOD} got error ${e.code} ${quote(e.message)}, not -32601`,
      });
  }

  const probed = listed[0];
  if (probed) {
    findings.checked("bad_params_not_32602", revision);
    try {
      await tagged(probed, client.request(probed, { cursor: 42 }, options));
      findings.add("bad_params_not_32602", {
        revision,
        method: probed,
        message: `${probed} with a cursor that is not a string (42) was answered with a result, not error -32602`,
      });
    } catch (e) {
      if (!(e instanceof ResponseError)) throw e;
      if (e.code !== INVALID_PARAMS) {
        const sdk = sdkParamsAnswer(e);
        findings.add("bad_params_not_32602", {
          revision,
          method: probed,
          path: "/error/code",
          message: sdk
            ? `${probed} with a cursor that is not a string (42) got error ${e.code}, not -32602: the answer is ${sdk}'s (its params validation answers so), which only a release of that SDK can change`
            : `${probed} with a cursor that is not a string (42) got error ${e.code} ${quote(e.message)}, not -32602`,
          ...(sdk ? { severity: "info" as const } : {}),
        });
      }
    }
  }

  const named = (key: "tools" | "prompts" | "resources", member: string) =>
    new Set((items[key] ?? []).map((i) => i[member]).filter((v): v is string => typeof v === "string"));
  const optIn = new OptIn(revision, findings, calls);
  const toolNames = named("tools", "name");
  for (const call of optIns.calls) {
    if (!optIn.listed("call", call.name, toolNames.has(call.name))) continue;
    await optIn.timed("call", call.name, () => callTool(client, revision, call, tools, findings, timeout));
  }
  // a resource a template serves need not be listed: only a server with no templates is held to its list
  const uris = named("resources", "uri");
  const templated = (items.resourceTemplates ?? []).length > 0;
  for (const uri of optIns.reads) {
    if (!optIn.listed("read", uri, uris.has(uri) || templated)) continue;
    await optIn.timed("read", uri, () => tagged("resources/read", client.request("resources/read", { uri }, options)));
  }
  const promptNames = named("prompts", "name");
  for (const get of optIns.gets) {
    if (!optIn.listed("get", get.name, promptNames.has(get.name))) continue;
    await optIn.timed("get", get.name, () =>
      tagged("prompts/get", client.request("prompts/get", { name: get.name, arguments: get.args }, options)),
    );
  }
  return { pages, listed: items };
}

const KIND_WORDS = {
  call: ["tool", "tools/call", "tools/list"],
  read: ["resource", "resources/read", "resources/list"],
  get: ["prompt", "prompts/get", "prompts/list"],
} as const;

/** What the user asked to call, read or get: each reported with its outcome, a name not listed a finding. */
class OptIn {
  constructor(
    private readonly revision: Revision,
    private readonly findings: Findings,
    private readonly calls: CallReport[],
  ) {}

  /** False (and the finding, and the report) when the server does not list `name`: it is not sent. */
  listed(kind: CallReport["kind"], name: string, listed: boolean): boolean {
    this.findings.checked("call_target_unknown", this.revision);
    if (listed) return true;
    const [noun, method, list] = KIND_WORDS[kind];
    this.findings.add("call_target_unknown", {
      revision: this.revision,
      method,
      about: {
        subject: `${kind === "call" ? "tool" : kind === "get" ? "prompt" : "resource"}:${name}`,
        subjectPath: null,
      },
      message: `--${kind} names the ${noun} ${quote(name, 80)}, which ${list} does not list: it was not sent`,
    });
    this.calls.push({ kind, name, revision: this.revision, outcome: "not listed", elapsedMs: 0 });
    return false;
  }

  /** Sends it, and reports what came of it: ok, the server's error, or why it failed (then rethrown). */
  async timed(kind: CallReport["kind"], name: string, send: () => Promise<unknown>): Promise<void> {
    const started = Date.now();
    const report = (outcome: string) =>
      this.calls.push({ kind, name, revision: this.revision, outcome, elapsedMs: Date.now() - started });
    try {
      const result = await send();
      report(kind === "call" && (result as { isError?: unknown } | undefined)?.isError === true ? "tool error" : "ok");
    } catch (e) {
      if (e instanceof ResponseError) {
        report(`error ${e.code} ${quote(e.message, 80)}`);
        return;
      }
      report(`failed: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
      throw e;
    }
  }
}

/**
 * The SDK whose own params validation gave this answer, when it shows: the official TypeScript
 * SDK (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/server`) answers params its
 * schema refuses with -32603 and the validator's issue list, as JSON, for a message.
 */
function sdkParamsAnswer(e: ResponseError): string | undefined {
  if (e.code !== INTERNAL_ERROR || !e.message.trimStart().startsWith("[")) return undefined;
  try {
    const issues: unknown = JSON.parse(e.message);
    const zod =
      Array.isArray(issues) &&
      issues.length > 0 &&
      issues.every((i) => isObject(i) && typeof i.code === "string" && Array.isArray(i.path));
    return zod ? "the official TypeScript MCP SDK" : undefined;
  } catch {
    return undefined;
  }
}

/** `p`, its failure (other than the server's error answer) tagged with the method under way. */
function tagged<T>(method: string, p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (!(e instanceof ResponseError) && typeof e === "object" && e !== null)
      (e as { checkMethod?: string }).checkMethod ??= method;
    throw e;
  });
}

interface Walked {
  items: unknown[];
  pages: number;
  /** The server answered the list with a result (not with -32601). */
  served: boolean;
}

/** One list, followed cursor by cursor to its end, its cursors and pages judged on the way. */
async function walkList(
  client: McpClient,
  revision: Revision,
  method: string,
  key: string,
  findings: Findings,
  timeout: number,
  budget: Budget,
): Promise<Walked> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let previous: string | undefined;
  let pages = 0;
  const modern = RULES[revision].era === "modern";
  for (const id of [
    "list_failed",
    "pagination_cursor_repeated",
    "pagination_not_advancing",
    "pagination_page_cap",
    "pagination_empty_cursor",
  ] as const)
    findings.checked(id, revision);
  for (;;) {
    let result: JsonObject;
    try {
      result = await tagged(method, client.request(method, cursor === undefined ? {} : { cursor }, { timeout }));
    } catch (e) {
      if (!(e instanceof ResponseError)) throw e;
      // templates are part of the resources capability, but a server with none may not serve their list
      if (method === "resources/templates/list" && e.code === METHOD_NOT_FOUND && pages === 0)
        return { items, pages, served: false };
      findings.add("list_failed", {
        revision,
        method,
        // a MUST only from 2026-07-28 on; before, a declaration that promises what is not served
        ...(modern ? {} : { severity: "warning" as const }),
        message: `${method}${cursor === undefined ? "" : ` (cursor ${JSON.stringify(cursor.slice(0, 60))})`} got error ${e.code} ${quote(e.message)}, though the server declares the capability`,
      });
      return { items, pages, served: pages > 0 };
    }
    pages++;
    const page = Array.isArray(result[key]) ? (result[key] as unknown[]) : [];
    for (const item of budget.keep(page.slice(0, Math.max(0, 100_000 - items.length)))) items.push(item);
    const next = result.nextCursor;
    if (typeof next !== "string") return { items, pages, served: true };
    if (next === "" && !modern) {
      findings.add("pagination_empty_cursor", {
        revision,
        method,
        path: "/result/nextCursor",
        about: { subject: `page:${method}#${pages}`, subjectPath: "/result/nextCursor" },
        message: `${method} page ${pages} ends with an empty-string nextCursor: clients of ${revision} read its presence as "more" and ask again`,
      });
      return { items, pages, served: true };
    }
    if (seen.has(next) || next === cursor) {
      findings.add("pagination_cursor_repeated", {
        revision,
        method,
        path: "/result/nextCursor",
        about: { subject: `page:${method}#${pages}`, subjectPath: "/result/nextCursor" },
        message: `${method} page ${pages} names cursor ${JSON.stringify(next.slice(0, 60))} again: a client following every cursor never gets to the end`,
      });
      return { items, pages, served: true };
    }
    const shape = JSON.stringify(page);
    if (page.length > 0 && shape === previous) {
      findings.add("pagination_not_advancing", {
        revision,
        method,
        path: `/result/${key}`,
        about: { subject: `page:${method}#${pages}`, subjectPath: `/result/${key}` },
        message: `${method} page ${pages} repeats page ${pages - 1}'s ${page.length} items under a new cursor: the list does not move on`,
      });
      return { items, pages, served: true };
    }
    if (pages >= PAGE_CAP) {
      findings.add("pagination_page_cap", {
        revision,
        method,
        path: "/result/nextCursor",
        message: `${method} still names a nextCursor after ${PAGE_CAP} pages`,
      });
      return { items, pages, served: true };
    }
    previous = shape;
    seen.add(next);
    cursor = next;
  }
}

/** Time for checking and compiling one listing's tool schemas; past it the rest are tool_schema_unchecked. */
const TOOL_SCHEMAS_BUDGET_MS = 10_000;

/** Each tool definition: its schemas, its name. */
function judgeTools(tools: readonly JsonObject[], revision: Revision, findings: Findings): void {
  if (tools.length === 0) return;
  for (const id of [
    "tool_input_schema_not_object",
    "tool_schema_invalid",
    "tool_schema_unchecked",
    "tool_name_format",
    "tool_name_duplicate",
  ] as const)
    findings.checked(id, revision);
  const names = new Set<string>();
  const budget = new SchemaBudget(TOOL_SCHEMAS_BUDGET_MS);
  tools.forEach((tool, i) => {
    const name = typeof tool.name === "string" ? tool.name : undefined;
    const label = name === undefined ? `tool ${i}` : `tool ${JSON.stringify(name.slice(0, 80))}`;
    // a tool is named by its name, so a finding about it survives a tool added before it
    const about = (below: string) => (name === undefined ? {} : { about: toolSubject(name, below) });
    const input = tool.inputSchema;
    if (!isObject(input) || input.type !== "object") {
      const what = !isObject(input)
        ? input === undefined
          ? "no inputSchema"
          : `an inputSchema that is not an object (${JSON.stringify(input)?.slice(0, 60)})`
        : `an inputSchema whose root type is ${JSON.stringify(input.type) ?? "missing"}`;
      findings.add("tool_input_schema_not_object", {
        revision,
        method: "tools/list",
        path: `/result/tools/${i}/inputSchema`,
        ...about("/inputSchema"),
        message: `${label} has ${what}, not a JSON Schema object with type "object"`,
      });
    }
    for (const member of ["inputSchema", "outputSchema"] as const) {
      const schema = tool[member];
      if (!isObject(schema)) continue;
      const unchecked = schemaUncheckedReason(schema, revision, budget);
      if (unchecked !== undefined) {
        findings.add("tool_schema_unchecked", {
          revision,
          method: "tools/list",
          path: `/result/tools/${i}/${member}`,
          ...about(`/${member}`),
          message: `${label}'s ${member} was not checked: ${unchecked}`,
        });
        continue;
      }
      for (const problem of schemaDialectProblems(schema, revision, budget).slice(0, 1)) {
        findings.add("tool_schema_invalid", {
          revision,
          method: "tools/list",
          path: `/result/tools/${i}/${member}`,
          ...about(`/${member}`),
          message: `${label}'s ${member} is not a valid JSON Schema under ${revision}: ${problem}`,
        });
      }
    }
    if (name === undefined) return;
    if (!TOOL_NAME.test(name))
      findings.add("tool_name_format", {
        revision,
        method: "tools/list",
        path: `/result/tools/${i}/name`,
        ...about("/name"),
        message: `${label}: a tool name should be 1 to 128 of A-Z a-z 0-9 _ - .`,
      });
    if (names.has(name))
      findings.add("tool_name_duplicate", {
        revision,
        method: "tools/list",
        path: `/result/tools/${i}/name`,
        ...about("/name"),
        message: `two tools are named ${JSON.stringify(name.slice(0, 80))}`,
      });
    names.add(name);
  });
}

/** A tool the user asked to call, and its result judged. */
async function callTool(
  client: McpClient,
  revision: Revision,
  call: { name: string; args: JsonObject },
  tools: readonly JsonObject[],
  findings: Findings,
  timeout: number,
): Promise<JsonObject> {
  const result = await tagged("tools/call", client.callTool(call.name, call.args, { timeout }));
  findings.checked("tool_result_no_content", revision);
  if (!Array.isArray(result.content))
    findings.add("tool_result_no_content", {
      revision,
      method: "tools/call",
      path: "/result/content",
      about: toolSubject(call.name, "/result/content"),
      message: `tools/call of ${JSON.stringify(call.name)} returned a result without a content array`,
    });
  const tool = tools.find((t) => t.name === call.name);
  const outputSchema = tool?.outputSchema;
  if (!isObject(outputSchema) || result.isError === true) return result;
  findings.checked("tool_structured_content_invalid", revision);
  if (result.structuredContent === undefined) {
    findings.add("tool_structured_content_invalid", {
      revision,
      method: "tools/call",
      path: "/result/structuredContent",
      about: toolSubject(call.name, "/result/structuredContent"),
      message: `${JSON.stringify(call.name)} declares an outputSchema but its result has no structuredContent`,
    });
    return result;
  }
  for (const p of conformanceProblems(outputSchema, result.structuredContent, revision).slice(0, 5)) {
    findings.add("tool_structured_content_invalid", {
      revision,
      method: "tools/call",
      path: `/result/structuredContent${p.path}`,
      about: toolSubject(call.name, `/result/structuredContent${p.path}`),
      message: `${JSON.stringify(call.name)}'s structuredContent does not match its outputSchema: ${p.message}`,
    });
  }
  return result;
}
