/**
 * The package's entries, as a user imports them: each resolves through package.json's `exports`
 * to its module and its types, holds what docs/library.md says it holds, and type-checks in a
 * program written against it under `strict`. What moved out of the root entry stays out.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
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
    "EncodeError",
    "HEADER_MISMATCH",
    "HttpError",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "InputRequiredError",
    "InvalidResponseError",
    "LATEST_LEGACY_REVISION",
    "LATEST_REVISION",
    "LEGACY_REVISIONS",
    "LIBRARY_ERRORS",
    "LOG_LEVELS",
    "LineSplitter",
    "Linter",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "MODERN_ERROR_CODES",
    "MODERN_REVISIONS",
    "MessageTooLargeError",
    "NegotiationError",
    "OverloadedError",
    "PARSE_ERROR",
    "REVISIONS",
    "RULES",
    "ResponseError",
    "RevisionNotSpokenError",
    "SpawnError",
    "TimeoutError",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "decode",
    "describeError",
    "encode",
    "isRevision",
    "lintStream",
    "revisionEvidence",
    "rulesFor",
    "schemaProblems",
    "severityOf",
    "summaryLine",
    "validate",
    "validateAgainstSchema",
    "worstSeverity",
  ],
  "mcp-wire/peer": ["Peer", "StreamTransport", "createMemoryPair", "isHttpTransport"],
  "mcp-wire/client": ["ChildServer", "INPUT_METHODS", "McpClient", "connectHttp"],
  "mcp-wire/server": [
    "McpServer",
    "PromptRegistry",
    "ResourceRegistry",
    "ToolRegistry",
    "createReferenceServer",
    "defineReferenceTools",
  ],
  "mcp-wire/http": [
    "AUTH_DEFECT_CODES",
    "AUTH_STEPS",
    "AUTH_VERDICTS",
    "SseClientTransport",
    "StreamableHttpTransport",
    "createHttpHandler",
    "decodeHeaderValue",
    "encodeHeaderValue",
    "parseChallenges",
    "walkAuth",
  ],
  "mcp-wire/check": ["CHECK_RULES", "checkHttp", "checkStdio", "ruleOf"],
  "mcp-wire/testing": ["createConformanceServer", "defineConformanceFixtures", "forgetHttpEras", "startFleet"],
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

test("each entry holds its values, and docs/library.md names every one under the entry's heading", async () => {
  const doc = readFileSync(join(ROOT, "docs", "library.md"), "utf8");
  for (const [entry, names] of Object.entries(ENTRIES)) {
    const subpath = entry === "mcp-wire" ? "." : `.${entry.slice("mcp-wire".length)}`;
    const module = (await import(join(ROOT, (pkg.exports[subpath] as { import: string }).import))) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(module).sort(), [...names].sort(), entry);
    const start = doc.indexOf(`## \`${entry}\``);
    assert.ok(start !== -1, `docs/library.md has a section on ${entry}`);
    const end = doc.indexOf("\n## ", start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    for (const name of names)
      assert.ok(section.includes(`\`${name}`), `docs/library.md's ${entry} section names ${name}`);
  }
});

test("a program written against each entry type-checks under --strict", () => {
  const errors = typeErrors({
    "root.ts": `
import { decode, encode, Conversation, describeError, LIBRARY_ERRORS, TimeoutError, HttpError, SpawnError, type Decoded, type LibraryErrorCode } from "mcp-wire";
const d: Decoded = decode('{"jsonrpc":"2.0","id":1,"method":"ping"}', { revision: "2025-11-25" });
const method: string | undefined = d.kind === "request" ? d.message.method : undefined;
new Conversation({ revision: "2025-11-25" }).observe(d, "client");
encode({ jsonrpc: "2.0", id: 1, result: {} }, { revision: "2025-11-25" });
const code: LibraryErrorCode = new TimeoutError("ping", 1).code;
const when: string = LIBRARY_ERRORS[code].when;
const known = (e: unknown): string | undefined => (e instanceof HttpError ? e.failure : e instanceof SpawnError ? e.osCode : undefined);
describeError(-32601, "2025-11-25").range;
void method; void when; void known;
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
const core: Same<keyof Transport, "maxMessageBytes" | "start" | "send" | "close"> = true;
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
import { createHttpHandler, StreamableHttpTransport, walkAuth, type AuthResult } from "mcp-wire/http";
import { createReferenceServer } from "mcp-wire/server";
createServer(createHttpHandler(createReferenceServer()).node);
new StreamableHttpTransport("http://127.0.0.1:3000/mcp", { timeout: 5000 });
const walked: Promise<AuthResult> = walkAuth({ endpoint: "http://127.0.0.1:3000/mcp", status: 401, wwwAuthenticate: null, rpcError: null, rules: "2025-11-25", timeout: 5000 });
void walked;
`,
    "testing.ts": `
import { startFleet, createConformanceServer, forgetHttpEras, type Fleet } from "mcp-wire/testing";
async function run(): Promise<string> {
  const fleet: Fleet = await startFleet();
  const url = fleet.url("modern");
  await fleet.close();
  forgetHttpEras();
  createConformanceServer();
  return url;
}
void run;
`,
    "moved.ts": `
import { createConformanceServer, forgetHttpEras, encodeHeaderValue, Peer, McpClient } from "mcp-wire";
`,
  });
  const moved = errors.filter((e) => e.startsWith("moved.ts:"));
  assert.deepEqual(
    errors.filter((e) => !e.startsWith("moved.ts:")),
    [],
  );
  // the test server, the global reset, the header codec, the engine and the client are not the root's
  for (const name of ["createConformanceServer", "forgetHttpEras", "encodeHeaderValue", "Peer", "McpClient"]) {
    assert.ok(
      moved.some((e) => e.includes("TS2305") && e.includes(`'${name}'`)),
      `${name} is not exported by mcp-wire: ${moved.join("\n")}`,
    );
  }
});
