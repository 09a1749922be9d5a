/**
 * Interop: the official TypeScript SDK clients (v1, and v2 in both eras) against
 * `mcp-wire serve --stdio`, a real child process on real stdio pipes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { decode } from "../codec/decode.js";
import { LEGACY_REVISIONS } from "../rules/revisions.js";
import { SERVE_ARGS, signal, until, within } from "./interop-support.test.js";

interface ProgressSeen {
  progress: number;
  total?: number;
}

interface CallOptions {
  onprogress?: (p: ProgressSeen) => void;
  signal?: AbortSignal;
  timeout?: number;
}

/** What both SDK generations offer, in the shape these tests use. */
interface SdkClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<{ content: unknown[]; isError?: boolean }>;
  close(): Promise<void>;
  /** Everything the SDK reported through `onerror`: stray responses, stray progress, … */
  readonly errors: Error[];
  stderr(): string;
}

const TIMEOUT = 10_000;

function serverParams(stderr: string[]) {
  return { command: process.execPath, args: [...SERVE_ARGS], stderr: "pipe" as const, collect: (chunk: Buffer) => stderr.push(chunk.toString("utf8")) };
}

async function connectV1(): Promise<SdkClient> {
  const stderr: string[] = [];
  const { collect, ...params } = serverParams(stderr);
  const transport = new V1StdioClientTransport(params);
  transport.stderr?.on("data", collect);
  const client = new V1Client({ name: "interop-v1", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v1 connect");
  const server = client.getServerVersion();
  assert.equal(server?.name, "mcp-wire-reference");
  return {
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT, ...options }) as ReturnType<SdkClient["callTool"]>,
    close: () => client.close(),
    errors,
    stderr: () => stderr.join(""),
  };
}

async function connectV2(mode: "legacy" | { pin: string }): Promise<SdkClient & { v2: V2Client; sent: Record<string, unknown>[] }> {
  const stderr: string[] = [];
  const { collect, ...params } = serverParams(stderr);
  const transport = new V2StdioClientTransport(params);
  transport.stderr?.on("data", collect);
  // what the SDK puts on the wire, to be judged by the codec as a peer would judge it
  const sent: Record<string, unknown>[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    sent.push(JSON.parse(JSON.stringify(message)) as Record<string, unknown>);
    return send(message);
  };
  const client = new V2Client({ name: "interop-v2", version: "1.0.0" }, { versionNegotiation: { mode, probe: { timeoutMs: TIMEOUT } } });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await within(client.connect(transport, { timeout: TIMEOUT }), "v2 connect");
  return {
    v2: client,
    sent,
    listTools: () => client.listTools(undefined, { timeout: TIMEOUT }),
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, { timeout: TIMEOUT, ...options }) as ReturnType<SdkClient["callTool"]>,
    close: () => client.close(),
    errors,
    stderr: () => stderr.join(""),
  };
}

function textOf(result: { content: unknown[] }): string {
  const first = result.content[0] as { type?: string; text?: string } | undefined;
  assert.equal(first?.type, "text");
  return first.text ?? "";
}

/** The same checks for every client: tools, a call, progress, cancellation. */
function sameChecks(connection: () => SdkClient) {
  test("tools/list shows echo, add and progress", async () => {
    const { tools } = await within(connection().listTools(), "tools/list");
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo", "add", "progress"],
    );
  });

  test("tools/call echo returns its text", async () => {
    const result = await within(connection().callTool("echo", { text: "héllo, wire" }), "echo");
    assert.equal(result.isError ?? false, false);
    assert.equal(textOf(result), "héllo, wire");
  });

  test("the progress tool's notifications reach onprogress, in order, each once", async () => {
    const client = connection();
    const errorsBefore = client.errors.length;
    const seen: ProgressSeen[] = [];
    const result = await within(
      client.callTool("progress", { steps: 4, intervalMs: 5 }, { onprogress: (p) => seen.push({ progress: p.progress, total: p.total }) }),
      "progress",
    );
    assert.equal(textOf(result), "counted to 4");
    // The SDKs dispatch notifications a microtask later than responses, so a progress
    // notification read in the same chunk as the response that follows it on the wire reaches
    // onerror as an "unknown token" instead of onprogress (typescript-sdk#2580). mcp-wire writes
    // every progress notification before the response; count those the SDK turned away too.
    const late = () => lateProgress(client.errors.slice(errorsBefore));
    await until(() => seen.length + late().length >= 4, "four progress notifications, delivered or late");
    assert.deepEqual([...seen, ...late()], [1, 2, 3, 4].map((progress) => ({ progress, total: 4 })));
    assert.deepEqual(otherErrors(client.errors.slice(errorsBefore)), []);
  });

  test("aborting the call cancels it: the SDK rejects, and the server neither answers it nor reports more progress", async () => {
    const client = connection();
    const errorsBefore = client.errors.length;
    const controller = new AbortController();
    const first = signal();
    // 250 ms between steps: the cancellation has that long to reach the server before step 2
    // would be reported, so a progress notification legitimately in flight stays unlikely.
    const call = client.callTool("progress", { steps: 3, intervalMs: 250 }, { signal: controller.signal, onprogress: () => first.fire() });
    const settled = call.then(
      () => "resolved",
      (e: unknown) => e,
    );
    await within(first.promise, "the first progress notification");
    controller.abort();
    const outcome = await within(settled, "the cancelled call");
    assert.notEqual(outcome, "resolved", "a cancelled call must not resolve");
    assert.ok(outcome instanceof Error, `rejects with an Error, got ${String(outcome)}`);
    assert.match(`${outcome.name} ${outcome.message}`, /abort/i);
    // A later call on the same connection that ends after the cancelled one would have: had
    // the server gone on with the cancelled request (answering it, or reporting its progress),
    // that would arrive first, and the SDK would report the stray message through onerror.
    // This call asks for no progress, so any stray progress can only be the cancelled call's.
    const after = await within(client.callTool("progress", { steps: 4, intervalMs: 250 }), "the call after the cancelled one");
    assert.equal(textOf(after), "counted to 4");
    assert.deepEqual(
      client.errors.slice(errorsBefore).map((e) => e.message),
      [],
      `the server's stderr:\n${client.stderr()}`,
    );
  });
}

const LATE_PROGRESS = "Received a progress notification for an unknown token: ";

/** The progress notifications an SDK reported through onerror because they came too late. */
function lateProgress(errors: readonly Error[]): ProgressSeen[] {
  return errors
    .filter((e) => e.message.startsWith(LATE_PROGRESS))
    .map((e) => {
      const { params } = JSON.parse(e.message.slice(LATE_PROGRESS.length)) as { params: ProgressSeen };
      return { progress: params.progress, total: params.total };
    });
}

function otherErrors(errors: readonly Error[]): string[] {
  return errors.filter((e) => !e.message.startsWith(LATE_PROGRESS)).map((e) => e.message);
}

describe("SDK v1 Client → mcp-wire serve --stdio", () => {
  let client: SdkClient | undefined;
  before(async () => {
    client = await connectV1();
  });
  after(async () => {
    await client?.close();
  });
  sameChecks(() => client!);
});

describe("SDK v2 Client, default (legacy) negotiation → mcp-wire serve --stdio", () => {
  let client: (SdkClient & { v2: V2Client }) | undefined;
  before(async () => {
    client = await connectV2("legacy");
  });
  after(async () => {
    await client?.close();
  });

  test("negotiates a legacy revision through initialize", () => {
    const v2 = client!.v2;
    assert.equal(v2.getProtocolEra(), "legacy");
    const version = v2.getNegotiatedProtocolVersion();
    assert.ok(LEGACY_REVISIONS.includes(version as (typeof LEGACY_REVISIONS)[number]), `a legacy revision, got ${version}`);
    assert.equal(v2.getServerVersion()?.name, "mcp-wire-reference");
  });
  sameChecks(() => client!);
});

describe("SDK v2 Client pinned to 2026-07-28 → mcp-wire serve --stdio", () => {
  let client: (SdkClient & { v2: V2Client; sent: Record<string, unknown>[] }) | undefined;
  before(async () => {
    client = await connectV2({ pin: "2026-07-28" });
  });
  after(async () => {
    await client?.close();
  });

  test("ends up modern at 2026-07-28, from server/discover", () => {
    const v2 = client!.v2;
    assert.equal(v2.getProtocolEra(), "modern");
    assert.equal(v2.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.ok(v2.getDiscoverResult()?.supportedVersions.includes("2026-07-28"));
    assert.equal(v2.getServerVersion()?.name, "mcp-wire-reference");
  });
  sameChecks(() => client!);

  test("the SDK's own requests are clean on 2026-07-28: its per-request _meta values pass the checks (no meta_invalid)", () => {
    const requests = client!.sent.filter((m) => m.method !== undefined && m.id !== undefined);
    assert.ok(requests.length >= 4, `requests seen: ${requests.length}`);
    assert.ok(requests.some((m) => JSON.stringify(m).includes("io.modelcontextprotocol/clientInfo")), "the SDK sends clientInfo, so its check ran");
    for (const m of requests) assert.deepEqual(decode(JSON.stringify(m), { revision: "2026-07-28", role: "client" }).defects, [], JSON.stringify(m));
    assert.equal(client!.errors.filter((e) => /invalid|-32602/i.test(e.message)).length, 0);
  });
});
