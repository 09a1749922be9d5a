/**
 * Interop: 2025-11-25's experimental tasks between the official SDK v1 client and
 * server-everything (its `simulate-research-query` tool is task-based), through the tap: a
 * task-augmented call, its polling, its payload and the task list pass with no defect, live and
 * in the re-linted `--log`, against the official schema too.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { SERVER_EVERYTHING } from "../src/testkit/mcp-interop.js";
import { CLI, liveDefects, lintJson, until, within } from "../src/testkit/tap.js";

const TIMEOUT = 20_000;
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-tap-tasks-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("tap: experimental tasks between the SDK v1 client and server-everything", () => {
  test("a task-augmented call, polled to its result, raises no defect", async () => {
    const file = join(dir, "tasks.ndjson");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "tap", "--log", file, "--", process.execPath, SERVER_EVERYTHING, "stdio"],
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const client = new Client(
      { name: "tap-tasks", version: "1.0.0" },
      { capabilities: { tasks: { list: {}, cancel: {}, requests: {} } } },
    );
    try {
      await within(client.connect(transport, { timeout: TIMEOUT }), "connect through the tap");
      // the client learns which tools take task augmentation from the list
      await within(client.listTools(undefined, { timeout: TIMEOUT }), "tools/list");
      const kinds: string[] = [];
      const stream = client.experimental.tasks.callToolStream(
        { name: "simulate-research-query", arguments: { topic: "tides" } },
        CallToolResultSchema,
        { timeout: TIMEOUT, pollInterval: 50 } as never,
      );
      await within(
        (async () => {
          for await (const m of stream) kinds.push(m.type);
        })(),
        "the task to its result",
        TIMEOUT,
      );
      assert.equal(kinds[0], "taskCreated");
      assert.equal(kinds.at(-1), "result");
      const listed = await within(client.experimental.tasks.listTasks(), "tasks/list");
      assert.equal(listed.tasks.length, 1);
    } finally {
      await client.close().catch(() => undefined);
    }
    await until(() => /^tap: the client closed the session/m.test(stderr), "the tap's summary");
    assert.deepEqual(liveDefects(stderr), [], stderr);
    const lines = readFileSync(file, "utf8");
    for (const method of ["tasks/get", "tasks/result", "tasks/list"])
      assert.ok(lines.includes(`\\"${method}\\"`), method);
    const schema = lintJson(file, ["--schema"]);
    assert.equal(schema.status, 0);
    assert.deepEqual(
      schema.records.flatMap((r) => r.defects),
      [],
    );
  });
});
