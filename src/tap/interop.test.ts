/**
 * Interop: the official SDK client launches `mcp-wire tap -- <server-everything>` where it would
 * launch server-everything itself. The conversation works unchanged, and the tap finds nothing
 * wrong with it, live or in its `--log` re-linted.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SERVER_EVERYTHING } from "../testkit/mcp-interop.js";
import { CLI, liveDefects, lintJson, until, within, messageRecords } from "../testkit/tap.js";

const TIMEOUT = 10_000;
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-tap-interop-"));
const transports: StdioClientTransport[] = [];
after(async () => {
  for (const t of transports) await t.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** The SDK client on `tap [extra] -- node server-everything stdio`, with the tap's stderr kept. */
async function connect(
  extra: readonly string[],
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "tap", ...extra, "--", process.execPath, SERVER_EVERYTHING, "stdio"],
    stderr: "pipe",
  });
  transports.push(transport);
  let err = "";
  transport.stderr!.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const client = new Client({ name: "tap-interop", version: "1.0.0" });
  await within(client.connect(transport, { timeout: TIMEOUT }), "connect through the tap");
  return { client, transport, stderr: () => err };
}

async function session(client: Client): Promise<void> {
  const { tools } = await within(client.listTools(undefined, { timeout: TIMEOUT }), "tools/list");
  assert.ok(tools.some((t) => t.name === "echo"));
  const echo = (await within(
    client.callTool({ name: "echo", arguments: { message: "héllo through the tap" } }, undefined, { timeout: TIMEOUT }),
    "echo",
  )) as { content: { text?: string }[] };
  assert.equal(echo.content[0]?.text, "Echo: héllo through the tap");
  const seen: number[] = [];
  await within(
    client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.1, steps: 3 } }, undefined, {
      timeout: TIMEOUT,
      onprogress: (p) => seen.push(p.progress),
    }),
    "a call with progress",
  );
  // not always all three: SDK v1 runs notification handlers a microtask late but settles a request
  // at once, so a last progress that arrives in the same chunk as the result is dropped (the
  // --log test shows the server sent all three)
  assert.ok(seen.length >= 1 && seen.every((p, i) => p === i + 1), `progress in order: ${JSON.stringify(seen)}`);
  // cancelled after its first progress: server-everything goes on sending progress for the
  // cancelled token, which no rule mcp-wire checks forbids (cancellation is a SHOULD), so no defect
  const controller = new AbortController();
  let first!: () => void;
  const progressed = new Promise<void>((resolve) => (first = resolve));
  const long = client.callTool(
    { name: "trigger-long-running-operation", arguments: { duration: 0.6, steps: 6 } },
    undefined,
    { timeout: TIMEOUT, signal: controller.signal, onprogress: () => first() },
  );
  const outcome = long.then(
    () => "resolved",
    (e: unknown) => e,
  );
  await within(progressed, "the long call's first progress");
  controller.abort();
  assert.ok((await within(outcome, "the cancelled call")) instanceof Error);
  const again = (await within(
    client.callTool({ name: "echo", arguments: { message: "after" } }, undefined, { timeout: TIMEOUT }),
    "echo after the cancel",
  )) as { content: { text?: string }[] };
  assert.equal(again.content[0]?.text, "Echo: after");
}

describe("tap between the SDK client and server-everything", () => {
  test("the conversation works unchanged, and the tap reports no defect", async () => {
    const { client, stderr } = await connect([]);
    await session(client);
    await client.close();
    await until(
      () => /^tap: the client closed the session; the server exited with code 0$/m.test(stderr()),
      "the tap's summary",
    );
    assert.deepEqual(liveDefects(stderr()), [], stderr());
    assert.match(
      stderr(),
      /^tap: \d+ messages client→server, \d+ server→client; revision 2025-11-25 \(from the initialize request\)$/m,
    );
    assert.match(stderr(), /^tap: no defects$/m);
  });

  test("--log records every message, and mcp-wire lint finds it clean", async () => {
    const file = join(dir, "everything.ndjson");
    const { client, stderr } = await connect(["--log", file]);
    await session(client);
    await client.close();
    await until(() => /server exited with code 0/.test(stderr()), "the tap's summary");
    const records = messageRecords<{ from: string; defects: unknown[] }>(file);
    assert.ok(records.length >= 8, `${records.length} records`);
    assert.ok(records.some((r) => r.from === "client") && records.some((r) => r.from === "server"));
    assert.ok(records.every((r) => r.defects.length === 0));
    const progress = records.filter(
      (r) => r.from === "server" && /"notifications\/progress"/.test((r as { line?: string }).line ?? ""),
    );
    assert.ok(progress.length >= 4, `the server's progress notifications are all passed on: ${progress.length}`);
    const lint = lintJson(file);
    assert.equal(lint.status, 0);
    assert.equal(lint.records.length, records.length);
    assert.ok(lint.records.every((r) => r.defects.length === 0));
    // and against the official schema: every message, each answer by the method it answers
    const schema = lintJson(file, ["--schema"]);
    assert.equal(schema.status, 0);
    assert.deepEqual(
      schema.records.flatMap((r) => r.defects),
      [],
    );
  });
});
