/**
 * The package's entries, as a user imports them: each resolves through package.json's `exports`
 * to its module and its types, holds what docs/library.md says it holds, and type-checks in a
 * program written against it under `strict`. What moved out of the root entry stays out.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { exportsOf, isTestCode, sourceFiles, wordsOf } from "./testkit/house.js";
import { ROOT, typeErrors } from "./testkit/typecheck.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, { types: string; import: string } | string>;
};

/** Each entry's runtime values. A change here is a change of the public API: docs/library.md follows it. */
const ENTRIES: Readonly<Record<string, readonly string[]>> = {
  "mcp-wire": [
    "AbortedError",
    "ClosedError",
    "ConnectionError",
    "ConnectionErrorCode",
    "Conversation",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFECTS",
    "ERROR_CODES",
    "EncodeError",
    "HttpError",
    "InputRequiredError",
    "InvalidResponseError",
    "LATEST_REVISION",
    "LEGACY_REVISIONS",
    "LIBRARY_ERRORS",
    "LOG_LEVELS",
    "META_KEYS",
    "MODERN_REVISIONS",
    "MessageTooLargeError",
    "NegotiationError",
    "NotACaptureError",
    "OverloadedError",
    "REVISIONS",
    "RULES",
    "ResponseError",
    "RevisionNotSpokenError",
    "SpawnError",
    "TimeoutError",
    "UnknownRevisionError",
    "decode",
    "describeError",
    "encode",
    "isRevision",
    "rulesFor",
    "schemaProblems",
    "severityOf",
    "validate",
    "validateAgainstSchema",
    "worstSeverity",
  ],
  "mcp-wire/peer": ["Peer", "StreamTransport", "createMemoryPair", "isHttpTransport"],
  "mcp-wire/client": [
    "ChildServer",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_OPEN_TIMEOUT",
    "DEFAULT_POLL_INTERVAL",
    "DEFAULT_TASK_TIMEOUT",
    "INPUT_METHODS",
    "McpClient",
    "MethodNotInRevisionError",
    "OpeningTimeoutError",
    "PaginationError",
    "ServerExitedError",
    "Subscription",
    "TaskCancelledError",
    "TasksNotNegotiatedError",
    "connectHttp",
  ],
  "mcp-wire/server": [
    "McpServer",
    "PromptRegistry",
    "ResourceRegistry",
    "ToolRegistry",
    "createReferenceServer",
    "defineReferenceTools",
  ],
  "mcp-wire/http": [
    "SseClientTransport",
    "StreamableHttpTransport",
    "createHttpHandler",
    "decodeHeaderValue",
    "encodeHeaderValue",
  ],
  "mcp-wire/auth": ["AUTH_DEFECT_CODES", "AUTH_STEPS", "AUTH_VERDICTS", "parseChallenges", "walkAuth"],
  "mcp-wire/lint": ["LineSplitter", "Linter", "lintStream", "revisionEvidence", "summaryLine"],
  "mcp-wire/check": ["CHECK_RULES", "checkHttp", "checkStdio", "ruleOf"],
  "mcp-wire/testing": [
    "createConformanceServer",
    "defineConformanceFixtures",
    "RecordingError",
    "RecordingWriteError",
    "mockServer",
    "recordTransport",
    "startFleet",
  ],
};

test("package.json exports each entry, types and module, and they are built", () => {
  const subpaths = Object.keys(ENTRIES).map((e) => (e === "mcp-wire" ? "." : `.${e.slice("mcp-wire".length)}`));
  assert.deepEqual(Object.keys(pkg.exports).sort(), [...subpaths, "./package.json"].sort());
  for (const subpath of subpaths) {
    const target = pkg.exports[subpath] as { types: string; import: string };
    assert.deepEqual(
      Object.keys(target),
      ["types", "import"],
      `${subpath}: types first, as TypeScript reads them in order`,
    );
    assert.ok(existsSync(join(ROOT, target.types)), `${target.types} is built`);
    assert.ok(existsSync(join(ROOT, target.import)), `${target.import} is built`);
  }
});

test("each entry holds exactly its values", async () => {
  for (const [entry, names] of Object.entries(ENTRIES)) {
    const module = (await import(join(ROOT, "dist", sourceOf(entry).replace(/\.ts$/, ".js")))) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(module).sort(), [...names].sort(), entry);
  }
});

/** The source module of each entry, as package.json's `exports` names its build. */
function sourceOf(entry: string): string {
  const subpath = entry === "mcp-wire" ? "." : `.${entry.slice("mcp-wire".length)}`;
  return (pkg.exports[subpath] as { import: string }).import.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
}

/** The part of docs/library.md under `## \`entry\``, code blocks left out (they show use, not the list). */
function sectionOf(doc: string, entry: string): string {
  const start = doc.indexOf(`## \`${entry}\``);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end).replace(/```[\s\S]*?```/g, "");
}

/**
 * The names a section of docs/library.md gives as the library's: each backticked identifier
 * (alone, or called, or with a member: `McpClient`, `decode(text)`, `ERROR_CODES.PARSE_ERROR`).
 * Wire words (`tools/list`, `_meta`, `WWW-Authenticate`, `--only`) are not identifiers and are left out.
 */
function namesIn(section: string): string[] {
  return [...section.matchAll(/`([A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*(?=[`(<])/g)].map((m) => m[1]!);
}

/**
 * What is wrong with docs/library.md against the entries: a value an entry exports that its
 * section does not name, and a name the page gives that nothing of the library has — a capitalised
 * one (a class, type or constant) must be exported by an entry, or be a member of an exported
 * constant, or JavaScript's own (`Map`); any other must be a word the library's code uses (a
 * member, an option, a value it gives: `listTools`, `timeout`, `repeated_cursor`).
 */
async function libraryPageProblems(doc: string): Promise<string[]> {
  const problems: string[] = [];
  const exported = new Set<string>();
  const words = wordsOf(sourceFiles("src").filter((f) => !isTestCode(f)));
  const constantMembers = new Set<string>();
  const modules = new Map<string, Record<string, unknown>>();
  for (const entry of Object.keys(ENTRIES)) {
    const module = (await import(join(ROOT, "dist", sourceOf(entry).replace(/\.ts$/, ".js")))) as Record<
      string,
      unknown
    >;
    modules.set(entry, module);
    for (const name of Object.keys(module)) exported.add(name);
    for (const e of exportsOf(sourceOf(entry))) exported.add(e.name);
    // the members of an exported constant are named with it (`ERROR_CODES.PARSE_ERROR`, or alone after it)
    for (const value of Object.values(module))
      if (value && typeof value === "object" && !Array.isArray(value))
        for (const k of Object.keys(value)) constantMembers.add(k);
  }
  for (const [entry, module] of modules) {
    const start = doc.indexOf(`## \`${entry}\``);
    if (start === -1) {
      problems.push(`no section on ${entry}`);
      continue;
    }
    const section = sectionOf(doc, entry);
    const named = new Set(namesIn(section));
    for (const name of Object.keys(module)) if (!named.has(name)) problems.push(`${entry}: ${name} is not named`);
    for (const name of named) {
      if (exported.has(name) || constantMembers.has(name) || name in globalThis || name === "null") continue;
      if (/^[A-Z]/.test(name) || !words.has(name)) problems.push(`${entry}: ${name} is named but is not the library's`);
    }
  }
  return problems;
}

test("docs/library.md names every value of each entry under its heading, and nothing the library does not have", async () => {
  const doc = readFileSync(join(ROOT, "docs", "library.md"), "utf8");
  assert.deepEqual(await libraryPageProblems(doc), []);
});

test("the page check names a value left out and a name the library does not have", async () => {
  const doc = readFileSync(join(ROOT, "docs", "library.md"), "utf8");
  const without = doc.replace("`isHttpTransport` tells one", "one can tell");
  assert.deepEqual(await libraryPageProblems(without), ["mcp-wire/peer: isHttpTransport is not named"]);
  const invented = doc.replace("## `mcp-wire/lint`\n", "## `mcp-wire/lint`\n\n`LintSession` and `lintFile(path)`.\n");
  assert.deepEqual(await libraryPageProblems(invented), [
    "mcp-wire/lint: LintSession is named but is not the library's",
    "mcp-wire/lint: lintFile is named but is not the library's",
  ]);
});

test("a program written against each entry type-checks under --strict", () => {
  const errors = typeErrors({
    "root.ts": `
import { decode, encode, Conversation, describeError, ERROR_CODES, META_KEYS, LIBRARY_ERRORS, TimeoutError, HttpError, SpawnError, type Decoded, type LibraryErrorCode, type ObserveOptions } from "mcp-wire";
const d: Decoded = decode('{"jsonrpc":"2.0","id":1,"method":"ping"}', { revision: "2025-11-25" });
const method: string | undefined = d.kind === "request" ? d.message.method : undefined;
new Conversation({ revision: "2025-11-25" }).observe(d, "client");
encode({ jsonrpc: "2.0", id: 1, result: {} }, { revision: "2025-11-25" });
const code: LibraryErrorCode = new TimeoutError("ping", 1).code;
const when: string = LIBRARY_ERRORS[code].when;
const known = (e: unknown): string | undefined => (e instanceof HttpError ? e.failure : e instanceof SpawnError ? e.osCode : undefined);
describeError(ERROR_CODES.METHOD_NOT_FOUND, "2025-11-25").range;
const key: string = META_KEYS.protocolVersion;
const observe: ObserveOptions = {};
void method; void when; void known; void key; void observe;
`,
    "peer.ts": `
import { Peer, createMemoryPair, StreamTransport, isHttpTransport, type Transport, type HttpTransport } from "mcp-wire/peer";
const [a, b]: [Transport, Transport] = createMemoryPair();
const server = new Peer(b, { revision: "2025-11-25", role: "server" });
server.handle("ping", () => ({}));
const client = new Peer(a, { revision: "2025-11-25", role: "client", timeout: 1000 });
const answer: Promise<{ ok?: boolean }> = client.request<{ ok?: boolean }>("ping");
new StreamTransport(process.stdin, process.stdout, { maxLineBytes: 1 << 20 });
void answer;
// the core interface stays as small as a JSON-RPC channel; what only HTTP does is HttpTransport's
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const core: Same<keyof Transport, "maxMessageBytes" | "start" | "send" | "close" | "shutdown"> = true;
const http: Same<Exclude<keyof HttpTransport, keyof Transport>, "kind" | "cancel" | "paramHeaders" | "negotiated" | "openServerStream"> = true;
const narrowed = (t: Transport): boolean => (isHttpTransport(t) ? t.cancel?.(1) ?? false : false);
void core; void http; void narrowed;
`,
    "client.ts": `
import { McpClient, ChildServer, connectHttp, type HttpConnectOptions } from "mcp-wire/client";
const options: HttpConnectOptions = { timeout: 5000, inputHandlers: { "roots/list": () => ({ roots: [] }) } };
async function run(): Promise<number> {
  const child = new ChildServer("npx", ["some-mcp-server"]);
  const client: McpClient = await McpClient.connect(() => child.transport);
  const remote = await connectHttp("http://127.0.0.1:3000/mcp", options);
  const tools = await client.listTools();
  await remote.client.close();
  await child.shutdown();
  return tools.length;
}
void run;
`,
    "server.ts": `
import { McpServer, createReferenceServer } from "mcp-wire/server";
import { StreamTransport } from "mcp-wire/peer";
const server: McpServer = createReferenceServer();
server.connect(new StreamTransport(process.stdin, process.stdout));
`,
    "http.ts": `
import { createServer } from "node:http";
import { createHttpHandler, StreamableHttpTransport } from "mcp-wire/http";
import { walkAuth, type AuthResult, type HostSlot } from "mcp-wire/auth";
import { createReferenceServer } from "mcp-wire/server";
createServer(createHttpHandler(createReferenceServer()).node);
new StreamableHttpTransport("http://127.0.0.1:3000/mcp", { timeout: 5000 });
const walked: Promise<AuthResult> = walkAuth({ endpoint: "http://127.0.0.1:3000/mcp", status: 401, wwwAuthenticate: null, rpcError: null, rules: "2025-11-25", timeout: 5000 });
const slot: HostSlot = async () => () => undefined;
void walked; void slot;
`,
    "lint.ts": `
import { Readable } from "node:stream";
import { lintStream, summaryLine, type LineContext, type RevisionSource } from "mcp-wire/lint";
import { NotACaptureError } from "mcp-wire";
async function run(): Promise<string> {
  try {
    return summaryLine(await lintStream(Readable.from(["{}\\n"]), {}, () => undefined));
  } catch (e) {
    if (e instanceof NotACaptureError) return e.code;
    throw e;
  }
}
const source: RevisionSource | undefined = undefined;
const context: LineContext | undefined = undefined;
void run; void source; void context;
`,
    "testing.ts": `
import { startFleet, createConformanceServer, type Fleet } from "mcp-wire/testing";
import { connectHttp, type HttpEraMemory } from "mcp-wire/client";
async function run(): Promise<string> {
  const fleet: Fleet = await startFleet();
  const url = fleet.url("modern");
  const eras: HttpEraMemory = new Map();
  await connectHttp(url, { eras }).then((c) => c.client.close(), () => undefined);
  await fleet.close();
  createConformanceServer();
  return url;
}
void run;
`,
    "rule.ts": `
import { ruleOf, type CheckRuleId } from "mcp-wire/check";
const id: CheckRuleId = "schema_invalid";
ruleOf(id);
ruleOf("schema_invallid");
`,
    "moved.ts": `
import { createConformanceServer, forgetHttpEras, encodeHeaderValue, Peer, McpClient, walkAuth, lintStream, PARSE_ERROR } from "mcp-wire";
import { forgetHttpEras as reset } from "mcp-wire/testing";
`,
  });
  const moved = errors.filter((e) => e.startsWith("moved.ts:"));
  // a rule is named by its id, and a misspelt one does not compile
  const rule = errors.filter((e) => e.startsWith("rule.ts:"));
  assert.equal(rule.length, 1, rule.join("\n"));
  assert.match(rule[0]!, /^rule\.ts:5:\d+ TS2345 .*"schema_invallid"/);
  assert.deepEqual(
    errors.filter((e) => !e.startsWith("moved.ts:") && !e.startsWith("rule.ts:")),
    [],
  );
  // the test server, the global reset, the header codec, the engine and the client are not the root's
  for (const name of [
    "createConformanceServer",
    "forgetHttpEras",
    "encodeHeaderValue",
    "Peer",
    "McpClient",
    "walkAuth",
    "lintStream",
    "PARSE_ERROR",
  ]) {
    assert.ok(
      moved.some((e) => e.includes("TS2305") && e.includes(`'${name}'`)),
      `${name} is not exported by mcp-wire: ${moved.join("\n")}`,
    );
  }
  // the process-wide reset gave way to a memory the caller passes (connectHttp's `eras`)
  assert.ok(moved.some((e) => e.includes("TS2305") && e.includes("'forgetHttpEras'") && e.includes("testing")));
});

test("the root entry stays small enough to read in a minute: at most 40 values", async () => {
  const root = (await import(join(ROOT, "dist/src/index.js"))) as Record<string, unknown>;
  assert.ok(Object.keys(root).length <= 40, `${Object.keys(root).length} values`);
});
