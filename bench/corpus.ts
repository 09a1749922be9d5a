/**
 * A deterministic corpus of MCP messages shaped like real traffic, for one revision.
 *
 * Generated in code from a seed, never downloaded, so every run (and every machine) measures the
 * very same strings. The mix follows what an agent's sessions put on the wire: mostly tool calls
 * and their small text results, progress notifications while tools run, now and then a tool list
 * (a few of them large: servers with hundreds of tools exist and their lists dominate the bytes),
 * the opening (`server/discover` from 2026-07-28, `initialize` before), pings, cancellations,
 * list_changed notifications and a few error responses.
 *
 * Every message is valid for its revision: the benchmark measures the common case, clean traffic,
 * and a fair comparison needs every contender to accept every message.
 */
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  RULES,
  type Revision,
} from "../src/rules/revisions.js";

export interface Corpus {
  revision: Revision;
  /** The messages, as the exact strings every contender gets, in a shuffled, traffic-like order. */
  texts: string[];
  /** Each message's shape label (same index as `texts`), for the breakdown and per-shape runs. */
  shapes: string[];
  /** UTF-8 bytes of all messages. */
  bytes: number;
}

/** mulberry32: tiny, fast, and good enough to make varied but reproducible text. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
  /** Skewed towards `lo`: most strings are short, a few long, as on the wire. */
  skewed(lo: number, hi: number): number {
    const u = this.next();
    return Math.round(lo + (hi - lo) * u * u * u);
  }
}

// ---------------------------------------------------------------------------------------------
// Word banks

const WORDS = (
  "the a of to and in for on with by from at as is are was be this that it not or an all any each " +
  "file files issue issues request response server client user project repository branch commit " +
  "change changes result results value values list item items page pages record records table query " +
  "search data error errors status state time date update updated create created delete deleted read " +
  "write open closed pending merged new old first last next previous current default matching found " +
  "returned returns using used when where which while after before between within without only also " +
  "more most less number count total limit offset cursor token name title description label labels " +
  "owner team member members message messages channel thread document documents folder path content"
).split(" ");

const NON_ASCII = [
  "Zoë",
  "München",
  "café",
  "naïve",
  "São Paulo",
  "Kraków",
  "日本語",
  "Ελληνικά",
  "✅",
  "—",
  "…",
  "→",
  "€42",
  "😀",
];

const SYSTEMS = [
  "GitHub",
  "GitLab",
  "Jira",
  "Linear",
  "Slack",
  "Notion",
  "Google Drive",
  "Confluence",
  "Postgres",
  "the local filesystem",
  "Sentry",
  "Datadog",
  "Kubernetes",
  "Stripe",
  "Salesforce",
  "the browser",
];
const PREFIXES = ["", "", "", "gh_", "jira_", "slack_", "fs_", "db_", "k8s_", "notion_", "sentry_", "stripe_"];
const VERBS = [
  "get",
  "list",
  "search",
  "create",
  "update",
  "delete",
  "read",
  "write",
  "run",
  "fetch",
  "query",
  "summarize",
  "close",
  "merge",
  "comment_on",
  "assign",
  "archive",
  "restore",
  "move",
  "upload",
  "download",
  "describe",
  "analyze",
  "approve",
];
const NOUNS = [
  "issue",
  "pull_request",
  "file",
  "directory",
  "commit",
  "branch",
  "ticket",
  "document",
  "page",
  "calendar_event",
  "email",
  "message",
  "channel",
  "table",
  "record",
  "invoice",
  "customer",
  "deployment",
  "log_entries",
  "metric",
  "alert",
  "image",
  "workflow_run",
  "release",
  "secret",
  "user",
  "team",
  "project",
  "sprint",
  "dashboard",
  "query_plan",
  "snapshot",
];
const READ_VERBS = new Set([
  "get",
  "list",
  "search",
  "read",
  "fetch",
  "query",
  "summarize",
  "describe",
  "analyze",
  "download",
]);

const EXTRA_SENTENCES = [
  "Returns at most `limit` results, newest first.",
  "Use this when the user asks about the current state rather than the history.",
  "Requires the `repo` scope on the configured token.",
  "Results are paginated: pass the returned `cursor` to fetch the next page.",
  "Prefer `search` tools for fuzzy matches; this tool needs an exact identifier.",
  "Times are ISO 8601 in UTC.",
  "Large outputs are truncated to 50,000 characters; narrow the query if you need everything.",
  "The operation is idempotent: calling it twice with the same arguments has no further effect.",
  "This action cannot be undone. Confirm with the user before calling it.",
  "Only items the authenticated user can see are returned.",
  "If the item does not exist the tool returns an error with isError set, not an empty result.",
  "Supports glob patterns such as `src/**/*.ts`.",
];

interface ParamDef {
  name: string;
  schema: () => Record<string, unknown>;
}

function makeParams(rng: Rng): ParamDef[] {
  const str =
    (description: string, extra: Record<string, unknown> = {}) =>
    () => ({ type: "string", description, ...extra });
  return [
    {
      name: "query",
      schema: str("Search query. Supports quoted phrases and field filters such as `author:alice` or `is:open`."),
    },
    { name: "path", schema: str("Path of the file relative to the repository root, e.g. `src/index.ts`.") },
    { name: "owner", schema: str("Owner of the repository (user or organisation login).") },
    { name: "repo", schema: str("Name of the repository, without the owner.") },
    {
      name: "issue_number",
      schema: () => ({
        type: "integer",
        description: "The number that identifies the issue in its repository.",
        minimum: 1,
      }),
    },
    { name: "title", schema: str("A short, human-readable title.", { maxLength: 256 }) },
    { name: "body", schema: str("The body text, in Markdown. Mentions (`@user`) notify the people named.") },
    {
      name: "labels",
      schema: () => ({
        type: "array",
        description: "Labels to apply. Unknown labels are created.",
        items: { type: "string" },
        maxItems: 20,
      }),
    },
    {
      name: "assignees",
      schema: () => ({ type: "array", description: "Logins of the users to assign.", items: { type: "string" } }),
    },
    {
      name: "state",
      schema: () => ({
        type: "string",
        description: "Filter by state.",
        enum: ["open", "closed", "all"],
        default: "open",
      }),
    },
    {
      name: "limit",
      schema: () => ({
        type: "integer",
        description: "Maximum number of results to return.",
        minimum: 1,
        maximum: 100,
        default: rng.pick([10, 20, 25, 50]),
      }),
    },
    { name: "cursor", schema: str("Opaque pagination cursor returned by a previous call.") },
    { name: "since", schema: str("Only return items updated at or after this time.", { format: "date-time" }) },
    {
      name: "sort",
      schema: () => ({ type: "string", enum: ["created", "updated", "relevance"], description: "Sort field." }),
    },
    { name: "order", schema: () => ({ type: "string", enum: ["asc", "desc"], default: "desc" }) },
    {
      name: "recursive",
      schema: () => ({ type: "boolean", description: "Descend into subdirectories.", default: false }),
    },
    {
      name: "include_archived",
      schema: () => ({ type: "boolean", description: "Also return archived items.", default: false }),
    },
    { name: "email", schema: str("Email address of the recipient.", { format: "email" }) },
    {
      name: "channel_id",
      schema: str("ID of the channel, e.g. `C024BE91L`. Use list_channels to find it.", {
        pattern: "^[CGD][A-Z0-9]{8,}$",
      }),
    },
    { name: "url", schema: str("The URL to fetch. Only http and https are allowed.", { format: "uri" }) },
    {
      name: "timeout_ms",
      schema: () => ({
        type: "integer",
        description: "Give up after this many milliseconds.",
        minimum: 100,
        maximum: 120000,
        default: 30000,
      }),
    },
    {
      name: "dry_run",
      schema: () => ({
        type: "boolean",
        description: "Report what would change without changing anything.",
        default: true,
      }),
    },
    { name: "branch", schema: str("Branch name. Defaults to the repository's default branch.") },
    { name: "sql", schema: str("A single read-only SQL statement. Write statements are rejected.") },
    { name: "content", schema: str("The full new content of the file, UTF-8 encoded.") },
    {
      name: "language",
      schema: () => ({ type: "string", description: "Language of the answer (BCP 47 tag).", default: "en" }),
    },
    {
      name: "temperature",
      schema: () => ({ type: "number", description: "Sampling temperature between 0 and 2.", minimum: 0, maximum: 2 }),
    },
    {
      name: "filters",
      schema: () => ({
        type: "object",
        description: "Structured filters, combined with AND.",
        properties: {
          status: { type: "array", items: { type: "string", enum: ["todo", "in_progress", "done", "cancelled"] } },
          assignee: { type: "string", description: "Login or email of the assignee." },
          created_after: { type: "string", format: "date-time" },
          priority: { type: "integer", minimum: 0, maximum: 4 },
        },
        additionalProperties: false,
      }),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Text

function words(rng: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.chance(0.01) ? rng.pick(NON_ASCII) : rng.pick(WORDS));
  return out.join(" ");
}

function sentence(rng: Rng): string {
  const s = words(rng, rng.int(5, 16));
  return s.charAt(0).toUpperCase() + s.slice(1) + rng.pick([".", ".", ".", ":", "?"]);
}

function prose(rng: Rng, chars: number): string {
  let s = "";
  while (s.length < chars) s += (s ? (rng.chance(0.2) ? "\n\n" : " ") : "") + sentence(rng);
  return s;
}

/** Source code as a file-reading tool returns it: many lines, quotes, braces and indentation. */
function code(rng: Rng, chars: number): string {
  const id = () =>
    rng.pick(["value", "result", "items", "config", "request", "handler", "cursor", "options", "entry", "client"]);
  const lines: string[] = [];
  let n = 0;
  while (n < chars) {
    const line = rng.pick([
      () => `export async function ${id()}${rng.int(1, 9)}(${id()}: string, ${id()}?: number): Promise<void> {`,
      () =>
        `  const ${id()} = await ${id()}.${rng.pick(["get", "list", "send", "parse"])}(${JSON.stringify(words(rng, 2))});`,
      () => `  if (!${id()}) throw new Error("${words(rng, 4)}");`,
      () => `  // ${sentence(rng)}`,
      () => `  return { ok: true, ${id()}: ${rng.int(0, 1000)} };`,
      () => `}`,
      () => ``,
      () => `import { ${id()} } from "./${id()}.js";`,
    ])();
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n");
}

/** Many tools return JSON data as text; inside the message it becomes a string full of \" escapes. */
function jsonText(rng: Rng, records: number): string {
  const rows = [];
  for (let i = 0; i < records; i++) {
    rows.push({
      id: rng.int(1000, 99999),
      title: sentence(rng),
      state: rng.pick(["open", "closed"]),
      author: rng.pick(["alice", "bob", "carol", "dmitri", "zoë", "yuki"]),
      labels: [rng.pick(["bug", "enhancement", "docs", "p1", "needs-triage"])],
      updated_at: `2026-0${rng.int(1, 6)}-${String(rng.int(10, 28))}T${String(rng.int(10, 23))}:${String(rng.int(10, 59))}:00Z`,
      comments: rng.int(0, 40),
    });
  }
  return JSON.stringify(
    rng.chance(0.5) ? rows : { total_count: records * rng.int(1, 9), items: rows },
    null,
    rng.chance(0.3) ? 2 : undefined,
  );
}

// ---------------------------------------------------------------------------------------------
// Tools

interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  [k: string]: unknown;
}

function titleCase(name: string): string {
  return name
    .split("_")
    .filter((w) => w.length > 0)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}

function makeTool(rng: Rng, params: readonly ParamDef[], used: Set<string>): Tool {
  let name: string;
  let verb: string;
  let noun: string;
  do {
    verb = rng.pick(VERBS);
    noun = rng.pick(NOUNS);
    name = `${rng.pick(PREFIXES)}${verb}_${noun}`;
    if (used.has(name)) name = `${name}_${used.size}`;
  } while (used.has(name));
  used.add(name);

  const system = rng.pick(SYSTEMS);
  let description = `${titleCase(verb)} ${noun.startsWith("log") ? "" : "a "}${noun.replace(/_/g, " ")} in ${system}.`;
  for (let i = rng.skewed(0, 4); i > 0; i--) description += " " + rng.pick(EXTRA_SENTENCES);
  // Descriptions written for models are often long, with examples and bullet lists.
  if (rng.chance(0.2))
    description += `\n\nExamples:\n- ${sentence(rng)}\n- ${sentence(rng)}\n\nNotes: ${prose(rng, rng.int(80, 500))}`;

  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let i = rng.skewed(1, 9); i > 0; i--) {
    const p = rng.pick(params);
    if (properties[p.name] !== undefined) continue;
    properties[p.name] = p.schema();
    if (rng.chance(0.4)) required.push(p.name);
  }
  const inputSchema: Record<string, unknown> = { type: "object", properties };
  if (required.length > 0) inputSchema.required = required;
  // Schemas made from zod carry these two; hand-written ones usually do not.
  if (rng.chance(0.5)) {
    inputSchema.additionalProperties = false;
    inputSchema.$schema = "http://json-schema.org/draft-07/schema#";
  }

  const tool: Tool = { name, description, inputSchema };
  if (rng.chance(0.4)) tool.title = titleCase(name);
  if (rng.chance(0.5)) {
    const readOnly = READ_VERBS.has(verb);
    tool.annotations = {
      ...(rng.chance(0.5) ? { title: titleCase(name) } : {}),
      readOnlyHint: readOnly,
      ...(readOnly
        ? {}
        : { destructiveHint: verb === "delete" || verb === "archive", idempotentHint: verb === "update" }),
      openWorldHint: rng.chance(0.6),
    };
  }
  if (rng.chance(0.15)) {
    tool.outputSchema = {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "string" }, title: { type: "string" }, url: { type: "string", format: "uri" } },
            required: ["id"],
          },
        },
        next_cursor: { type: ["string", "null"] },
      },
      required: ["items"],
    };
  }
  return tool;
}

/** Arguments a model would plausibly pass to `tool`. */
function argumentsFor(rng: Rng, tool: Tool): Record<string, unknown> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const args: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(props)) {
    if (!rng.chance(0.7)) continue;
    args[k] = valueFor(rng, k, s);
  }
  return args;
}

function valueFor(rng: Rng, key: string, s: Record<string, unknown>): unknown {
  if (Array.isArray(s.enum)) return rng.pick(s.enum as unknown[]);
  switch (s.type) {
    case "integer":
      return rng.int(
        typeof s.minimum === "number" ? s.minimum : 0,
        typeof s.maximum === "number" ? Math.min(s.maximum, 5000) : 5000,
      );
    case "number":
      return Math.round(rng.next() * 2000) / 1000;
    case "boolean":
      return rng.chance(0.5);
    case "array":
      return Array.from({ length: rng.int(1, 3) }, () =>
        rng.pick(["bug", "alice", "enhancement", "bob", "p1", "docs"]),
      );
    case "object":
      return { status: ["in_progress"], assignee: "alice@example.com" };
  }
  switch (key) {
    case "path":
      return `${rng.pick(["src", "lib", "docs", "test"])}/${rng.pick(WORDS)}/${rng.pick(WORDS)}.${rng.pick(["ts", "md", "json", "py"])}`;
    case "url":
      return `https://example.com/${rng.pick(WORDS)}/${rng.int(1, 9999)}`;
    case "email":
      return `${rng.pick(["alice", "bob", "carol"])}@example.com`;
    case "since":
      return "2026-05-01T00:00:00Z";
    case "channel_id":
      return "C024BE91L";
    case "sql":
      return `SELECT id, name, created_at FROM ${rng.pick(["users", "orders", "events"])} WHERE created_at > now() - interval '7 days' ORDER BY created_at DESC LIMIT ${rng.int(10, 100)}`;
    case "content":
      // The occasional large argument: a whole file being written.
      return code(rng, rng.skewed(200, 8000));
    case "body":
      return prose(rng, rng.skewed(40, 2000));
    default:
      return words(rng, rng.int(1, 8));
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

/**
 * How many messages of each shape one corpus holds: the traffic recipe. Tool lists are rare but
 * carry about half of the bytes; tool calls, their results and progress notifications are most
 * of the messages.
 */
const RECIPE = {
  opening: 20, // server/discover (2026-07-28) or initialize (legacy), each with its result
  toolsListRequest: 50,
  toolsListResult: [
    [1, 15],
    [10, 20],
    [50, 12],
    [200, 3],
  ] as const, // [tools in the list, how many such results]
  toolsCall: 600,
  toolsCallResult: 560,
  errorResponse: 40,
  progress: 500,
  cancelled: 20,
  listChanged: 30,
  ping: 25,
} as const;

const CLIENTS = [
  { name: "claude-code", version: "2.1.4" },
  { name: "cursor-vscode", version: "1.3.0" },
  { name: "mcp-inspector", title: "MCP Inspector", version: "0.17.2" },
];
const SERVER_INFO = { name: "acme-mcp", title: "ACME MCP server", version: "4.2.0" };

export function buildCorpus(revision: Revision, seed = 20260728): Corpus {
  const rng = new Rng(seed ^ hash(revision));
  const rules = RULES[revision];
  const modern = rules.requiredRequestMeta.length > 0;
  const params = makeParams(rng);
  const used = new Set<string>();
  const session = Array.from({ length: 12 }, () => makeTool(rng, params, used));

  const out: { shape: string; value: unknown }[] = [];
  const add = (shape: string, value: unknown) => out.push({ shape, value });
  let nextId = 1;
  const id = (): string | number =>
    rng.chance(0.8) ? nextId++ : `req-${(nextId++).toString(36)}-${rng.int(0, 1e6).toString(36)}`;

  /** The 2026-07-28 per-request envelope: every request says which revision and capabilities it speaks. */
  const requestMeta = (extra: Record<string, unknown> = {}): Record<string, unknown> | undefined => {
    if (!modern) return Object.keys(extra).length > 0 ? extra : undefined;
    const client = rng.pick(CLIENTS);
    return {
      ...extra,
      [META_PROTOCOL_VERSION]: revision,
      [META_CLIENT_CAPABILITIES]: rng.chance(0.5)
        ? {}
        : { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
      [META_CLIENT_INFO]: client,
    };
  };
  const request = (method: string, p: Record<string, unknown> | undefined, meta: Record<string, unknown> = {}) => {
    const m = requestMeta(meta);
    const full = m === undefined ? p : { ...(p ?? {}), _meta: m };
    return full === undefined
      ? { jsonrpc: "2.0", id: id(), method }
      : { jsonrpc: "2.0", id: id(), method, params: full };
  };
  /** From 2026-07-28 every result says it is complete, and servers should name themselves. */
  const resultBody = (body: Record<string, unknown>) =>
    modern ? { ...body, resultType: "complete", _meta: { [META_SERVER_INFO]: SERVER_INFO } } : body;
  const resultMsg = (body: Record<string, unknown>) => ({ jsonrpc: "2.0", id: id(), result: resultBody(body) });

  const capabilities = {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: false },
    logging: {},
  };
  for (let i = 0; i < RECIPE.opening; i++) {
    const instructions = rng.chance(0.5) ? { instructions: prose(rng, rng.int(80, 600)) } : {};
    if (modern) {
      add("request server/discover", request("server/discover", undefined));
      add(
        "result server/discover",
        resultMsg({ supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18"], capabilities, ...instructions }),
      );
    } else {
      const client = rng.pick(CLIENTS);
      add(
        "request initialize",
        request("initialize", {
          protocolVersion: revision,
          capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
          clientInfo: client,
        }),
      );
      add(
        "result initialize",
        resultMsg({ protocolVersion: revision, capabilities, serverInfo: SERVER_INFO, ...instructions }),
      );
      add("notification initialized", { jsonrpc: "2.0", method: "notifications/initialized" });
    }
  }
  for (let i = 0; i < RECIPE.toolsListRequest; i++) {
    add(
      "request tools/list",
      request("tools/list", rng.chance(0.2) ? { cursor: `c${rng.int(1, 1e6).toString(36)}` } : undefined),
    );
  }
  for (const [size, count] of RECIPE.toolsListResult) {
    for (let i = 0; i < count; i++) {
      // A fresh server each time, so large lists are not the same few tools repeated.
      const names = new Set<string>();
      const tools =
        size <= session.length && rng.chance(0.5)
          ? session.slice(0, size)
          : Array.from({ length: size }, () => makeTool(rng, params, names));
      add(
        `result tools/list ×${size}`,
        resultMsg({ tools, ...(rng.chance(0.1) ? { nextCursor: "eyJvZmZzZXQiOjUwfQ" } : {}) }),
      );
    }
  }
  const progressTokens: (string | number)[] = [];
  for (let i = 0; i < RECIPE.toolsCall; i++) {
    const tool = rng.pick(session);
    const token = rng.chance(0.3)
      ? rng.chance(0.5)
        ? rng.int(1, 1e6)
        : `pt-${rng.int(1, 1e9).toString(36)}`
      : undefined;
    if (token !== undefined) progressTokens.push(token);
    add(
      "request tools/call",
      request(
        "tools/call",
        { name: tool.name, arguments: argumentsFor(rng, tool) },
        token === undefined ? {} : { progressToken: token },
      ),
    );
  }
  for (let i = 0; i < RECIPE.toolsCallResult; i++) {
    const u = rng.next();
    let text: string;
    if (u < 0.55) text = sentence(rng) + (rng.chance(0.5) ? " " + sentence(rng) : "");
    else if (u < 0.8) text = jsonText(rng, rng.skewed(1, 25));
    else if (u < 0.93) text = prose(rng, rng.skewed(300, 4000));
    else text = code(rng, rng.skewed(1000, 20000));
    const isError = rng.chance(0.05);
    const body: Record<string, unknown> = {
      content: [{ type: "text", text: isError ? `Error: ${sentence(rng)}` : text }],
    };
    if (isError) body.isError = true;
    else if (rng.chance(0.15))
      body.structuredContent = { items: [{ id: String(rng.int(1, 9999)), title: sentence(rng) }], next_cursor: null };
    add("result tools/call", resultMsg(body));
  }
  const errors: readonly { code: number; message: string; data?: unknown }[] = modern
    ? [
        { code: -32602, message: "Invalid params: 'path' must be a relative path", data: { field: "path" } },
        { code: -32601, message: "Method not found: resources/subscribe" },
        { code: -32603, message: "Internal error" },
        {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: ["2026-07-28", "2025-11-25"], requested: "2024-10-07" },
        },
        {
          code: -32021,
          message: "Missing required client capability: sampling",
          data: { requiredCapabilities: { sampling: {} } },
        },
      ]
    : [
        { code: -32602, message: "Invalid params: 'path' must be a relative path", data: { field: "path" } },
        { code: -32601, message: "Method not found: resources/subscribe" },
        { code: -32603, message: "Internal error" },
        { code: -32002, message: "Resource not found", data: { uri: "file:///etc/passwd" } },
        { code: -32600, message: "Invalid Request: batch not supported" },
      ];
  for (let i = 0; i < RECIPE.errorResponse; i++) add("error", { jsonrpc: "2.0", id: id(), error: rng.pick(errors) });
  for (let i = 0; i < RECIPE.progress; i++) {
    const total = rng.chance(0.7) ? rng.int(2, 200) : undefined;
    const progress = total === undefined ? rng.int(0, 1000) : rng.int(0, total);
    const p: Record<string, unknown> = {
      progressToken: progressTokens.length > 0 ? rng.pick(progressTokens) : 1,
      progress,
    };
    if (total !== undefined) p.total = total;
    if (rng.chance(0.5)) p.message = words(rng, rng.int(2, 8));
    add("notification progress", { jsonrpc: "2.0", method: "notifications/progress", params: p });
  }
  for (let i = 0; i < RECIPE.cancelled; i++) {
    add("notification cancelled", {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: {
        requestId: rng.int(1, nextId),
        reason: rng.pick(["User requested cancellation", "Timed out after 60s"]),
      },
    });
  }
  for (let i = 0; i < RECIPE.listChanged; i++) {
    add("notification list_changed", {
      jsonrpc: "2.0",
      method: rng.pick([
        "notifications/tools/list_changed",
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
      ]),
    });
  }
  for (let i = 0; i < RECIPE.ping; i++) {
    add("request ping", request("ping", undefined));
    add("result ping", resultMsg({}));
  }

  // Traffic interleaves shapes; a sorted corpus would flatter branch predictors and inline caches.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  const texts = out.map((m) => JSON.stringify(m.value));
  const shapes = out.map((m) => m.shape);
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
  return { revision, texts, shapes, bytes };
}

/** Changes whenever any message does: two runs with the same fingerprint measured the same strings. */
export function fingerprint(c: Corpus): string {
  let h = 2166136261;
  for (const t of c.texts) h = Math.imul(h ^ hash(t), 16777619);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Count and bytes per shape, in first-seen order of a fixed shape ordering. */
export function breakdown(c: Corpus): { shape: string; count: number; bytes: number }[] {
  const by = new Map<string, { count: number; bytes: number }>();
  c.texts.forEach((t, i) => {
    const s = c.shapes[i]!;
    const e = by.get(s) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += Buffer.byteLength(t, "utf8");
    by.set(s, e);
  });
  return [...by.entries()].map(([shape, e]) => ({ shape, ...e })).sort((a, b) => a.shape.localeCompare(b.shape));
}
