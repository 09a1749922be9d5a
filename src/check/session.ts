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
  return new ReadOnlyPass(client, revision, findings, timeout, calls).run(optIns);
}

/**
 * One session's pass, step by step: the lists first, since every later step reads what they
 * served (the tools to judge, the list to send a malformed cursor, the names an opt-in must match).
 */
class ReadOnlyPass {
  private pages = 0;
  private readonly items: Listed = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
  /** The lists the server served, in the order asked. */
  private readonly served: string[] = [];
  private readonly options: { timeout: number };
  private readonly legacy: boolean;

  constructor(
    private readonly client: McpClient,
    private readonly revision: Revision,
    private readonly findings: Findings,
    private readonly timeout: number,
    private readonly calls: CallReport[],
  ) {
    this.options = { timeout };
    this.legacy = RULES[revision].era === "legacy";
  }

  async run(optIns: OptIns): Promise<SessionOutcome> {
    await this.walkLists();
    judgeTools(this.items.tools, this.revision, this.findings);
    judgeHiddenText(this.items, this.revision, this.findings);
    // 2026-07-28 removed ping, and logging/setLevel with it
    if (this.legacy) await this.ping();
    if (this.legacy && this.client.capabilities.logging !== undefined) await this.setLevel();
    await this.unknownMethod();
    await this.malformedCursor();
    await this.optIns(optIns);
    return { pages: this.pages, listed: this.items };
  }

  /** Every list the server declares, each to its end, keeping what the budget allows. */
  private async walkLists(): Promise<void> {
    const budget = new Budget(KEEP_BUDGET);
    for (const list of LISTS) {
      if (this.client.capabilities[list.capability] === undefined) continue;
      const walk = new ListWalk(this.client, this.revision, list.method, list.key, this.findings, this.timeout);
      const walked = await walk.walk(budget);
      this.pages += walked.pages;
      if (walked.served) this.served.push(list.method);
      this.items[list.key] = walked.items.filter(isObject);
    }
    this.findings.checked("kept_over_budget", this.revision);
    if (budget.dropped > 0)
      this.findings.add("kept_over_budget", {
        revision: this.revision,
        message: `the server lists more than check keeps (${KEEP_BUDGET / 1024 / 1024} MiB of definitions a session): ${budget.dropped} items past it were counted, not judged`,
      });
  }

  private async ping(): Promise<void> {
    this.findings.checked("ping_failed", this.revision);
    const e = await this.refusal("ping", {});
    if (e)
      this.findings.add("ping_failed", {
        revision: this.revision,
        method: "ping",
        message: `ping was answered with error ${e.code} ${quote(e.message)} instead of an empty result`,
      });
  }

  private async setLevel(): Promise<void> {
    this.findings.checked("logging_set_level_failed", this.revision);
    const e = await this.refusal("logging/setLevel", { level: "error" });
    if (e)
      this.findings.add("logging_set_level_failed", {
        revision: this.revision,
        method: "logging/setLevel",
        message: `the server declares logging, but logging/setLevel got error ${e.code} ${quote(e.message)}`,
      });
  }

  private async unknownMethod(): Promise<void> {
    this.findings.checked("unknown_method_not_32601", this.revision);
    const e = await this.refusal(UNKNOWN_METHOD, {});
    if (e?.code === METHOD_NOT_FOUND) return;
    this.findings.add("unknown_method_not_32601", {
      revision: this.revision,
      method: UNKNOWN_METHOD,
      ...(e
        ? {
            path: "/error/code",
            message: `a request for the unknown method ${UNKNOWN_METHOD} got error ${e.code} ${quote(e.message)}, not -32601`,
          }
        : {
            message: `a request for the unknown method ${UNKNOWN_METHOD} was answered with a result instead of error -32601`,
          }),
    });
  }

  /** The first list served, asked with a cursor that is not a string: its answer must be -32602. */
  private async malformedCursor(): Promise<void> {
    const probed = this.served[0];
    if (!probed) return;
    this.findings.checked("bad_params_not_32602", this.revision);
    const e = await this.refusal(probed, { cursor: 42 });
    if (e?.code === INVALID_PARAMS) return;
    const asked = `${probed} with a cursor that is not a string (42)`;
    if (!e) {
      this.findings.add("bad_params_not_32602", {
        revision: this.revision,
        method: probed,
        message: `${asked} was answered with a result, not error -32602`,
      });
      return;
    }
    const sdk = sdkParamsAnswer(e);
    this.findings.add("bad_params_not_32602", {
      revision: this.revision,
      method: probed,
      path: "/error/code",
      message: sdk
        ? `${asked} got error ${e.code}, not -32602: the answer is ${sdk}'s (its params validation answers so), which only a release of that SDK can change`
        : `${asked} got error ${e.code} ${quote(e.message)}, not -32602`,
      ...(sdk ? { severity: "info" as const } : {}),
    });
  }

  /** Only what the user asked for, and only what the server lists (or, for a read, could serve). */
  private async optIns(optIns: OptIns): Promise<void> {
    const optIn = new OptIn(this.revision, this.findings, this.calls);
    const toolNames = this.named("tools", "name");
    for (const call of optIns.calls) {
      if (!optIn.listed("call", call.name, toolNames.has(call.name))) continue;
      await optIn.timed("call", call.name, () =>
        callTool(this.client, this.revision, call, this.items.tools, this.findings, this.timeout),
      );
    }
    // a resource a template serves need not be listed: only a server with no templates is held to its list
    const uris = this.named("resources", "uri");
    const templated = this.items.resourceTemplates.length > 0;
    for (const uri of optIns.reads) {
      if (!optIn.listed("read", uri, uris.has(uri) || templated)) continue;
      await optIn.timed("read", uri, () => this.send("resources/read", { uri }));
    }
    const promptNames = this.named("prompts", "name");
    for (const get of optIns.gets) {
      if (!optIn.listed("get", get.name, promptNames.has(get.name))) continue;
      await optIn.timed("get", get.name, () => this.send("prompts/get", { name: get.name, arguments: get.args }));
    }
  }

  private named(key: "tools" | "prompts" | "resources", member: string): Set<string> {
    return new Set(this.items[key].map((i) => i[member]).filter((v): v is string => typeof v === "string"));
  }

  private send(method: string, params: JsonObject): Promise<JsonObject> {
    return tagged(method, this.client.request(method, params, this.options));
  }

  /** The server's error answer to the request, or undefined for a result; any other failure is thrown. */
  private async refusal(method: string, params: JsonObject): Promise<ResponseError | undefined> {
    try {
      await this.send(method, params);
      return undefined;
    } catch (e) {
      if (e instanceof ResponseError) return e;
      throw e;
    }
  }
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
class ListWalk {
  private readonly items: unknown[] = [];
  private pages = 0;
  /** The cursors named so far: one named again sends a client round in circles. */
  private readonly seen = new Set<string>();
  private cursor: string | undefined;
  /** The previous page's items, as JSON: a page repeating it under a new cursor does not move on. */
  private previous: string | undefined;
  private readonly modern: boolean;

  constructor(
    private readonly client: McpClient,
    private readonly revision: Revision,
    private readonly method: string,
    private readonly key: string,
    private readonly findings: Findings,
    private readonly timeout: number,
  ) {
    this.modern = RULES[revision].era === "modern";
  }

  async walk(budget: Budget): Promise<Walked> {
    for (const id of [
      "list_failed",
      "pagination_cursor_repeated",
      "pagination_not_advancing",
      "pagination_page_cap",
      "pagination_empty_cursor",
    ] as const)
      this.findings.checked(id, this.revision);
    for (;;) {
      let result: JsonObject;
      try {
        const params = this.cursor === undefined ? {} : { cursor: this.cursor };
        result = await tagged(this.method, this.client.request(this.method, params, { timeout: this.timeout }));
      } catch (e) {
        if (!(e instanceof ResponseError)) throw e;
        return this.refused(e);
      }
      this.pages++;
      const page = Array.isArray(result[this.key]) ? (result[this.key] as unknown[]) : [];
      for (const item of budget.keep(page.slice(0, Math.max(0, 100_000 - this.items.length)))) this.items.push(item);
      const next = result.nextCursor;
      if (typeof next !== "string" || this.endsOnAFault(next, page)) return this.walked(true);
      this.seen.add(next);
      this.cursor = next;
    }
  }

  private walked(served: boolean): Walked {
    return { items: this.items, pages: this.pages, served };
  }

  /** The server's error answer to a page: the list ends there. */
  private refused(e: ResponseError): Walked {
    // templates are part of the resources capability, but a server with none may not serve their list
    if (this.method === "resources/templates/list" && e.code === METHOD_NOT_FOUND && this.pages === 0)
      return this.walked(false);
    const at = this.cursor === undefined ? "" : ` (cursor ${JSON.stringify(this.cursor.slice(0, 60))})`;
    this.findings.add("list_failed", {
      revision: this.revision,
      method: this.method,
      // a MUST only from 2026-07-28 on; before, a declaration that promises what is not served
      ...(this.modern ? {} : { severity: "warning" as const }),
      message: `${this.method}${at} got error ${e.code} ${quote(e.message)}, though the server declares the capability`,
    });
    return this.walked(this.pages > 0);
  }

  /** Whether a page naming `next` ends the list on a fault of its cursor or its items (the finding added). */
  private endsOnAFault(next: string, page: readonly unknown[]): boolean {
    const { method, pages } = this;
    if (next === "" && !this.modern) {
      this.add(
        "pagination_empty_cursor",
        "/result/nextCursor",
        `${method} page ${pages} ends with an empty-string nextCursor: clients of ${this.revision} read its presence as "more" and ask again`,
      );
      return true;
    }
    if (this.seen.has(next) || next === this.cursor) {
      this.add(
        "pagination_cursor_repeated",
        "/result/nextCursor",
        `${method} page ${pages} names cursor ${JSON.stringify(next.slice(0, 60))} again: a client following every cursor never gets to the end`,
      );
      return true;
    }
    const shape = JSON.stringify(page);
    if (page.length > 0 && shape === this.previous) {
      this.add(
        "pagination_not_advancing",
        `/result/${this.key}`,
        `${method} page ${pages} repeats page ${pages - 1}'s ${page.length} items under a new cursor: the list does not move on`,
      );
      return true;
    }
    if (pages >= PAGE_CAP) {
      this.add(
        "pagination_page_cap",
        "/result/nextCursor",
        `${method} still names a nextCursor after ${PAGE_CAP} pages`,
        false,
      );
      return true;
    }
    this.previous = shape;
    return false;
  }

  /** A finding about this page (or, not `onPage`, about the list as a whole). */
  private add(
    id: "pagination_empty_cursor" | "pagination_cursor_repeated" | "pagination_not_advancing" | "pagination_page_cap",
    path: string,
    message: string,
    onPage = true,
  ): void {
    this.findings.add(id, {
      revision: this.revision,
      method: this.method,
      path,
      ...(onPage ? { about: { subject: `page:${this.method}#${this.pages}`, subjectPath: path } } : {}),
      message,
    });
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
