import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Line } from "../codec/lines.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { Linter, type LintOptions } from "./lint.js";

// SEP-2663's example flow: the client declares the tasks extension in each request's _meta, the
// server in its server/discover capabilities, and a tools/call is answered with a task
const REV = "2026-07-28";
const caps = (ext: boolean) => ({
  "io.modelcontextprotocol/protocolVersion": REV,
  "io.modelcontextprotocol/clientCapabilities": ext ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
});
const task = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:50:00Z",
  ttlMs: 3600000,
  pollIntervalMs: 5000,
};
function capture(clientDeclares: boolean): unknown[] {
  return [
    { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: caps(clientDeclares) } },
    {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        supportedVersions: [REV],
        capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
        serverInfo: { name: "s", version: "1" },
      },
    },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "hello_world", arguments: {}, _meta: caps(clientDeclares) },
    },
    { jsonrpc: "2.0", id: 2, result: { resultType: "task", ...task } },
    { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: task.taskId, _meta: caps(clientDeclares) } },
    {
      jsonrpc: "2.0",
      id: 3,
      result: {
        resultType: "complete",
        ...task,
        status: "completed",
        result: { content: [{ type: "text", text: "Hello, world!" }], isError: false },
      },
    },
  ];
}

function lint(messages: unknown[], options: LintOptions = {}): string[][] {
  const linter = new Linter(options);
  return messages.map((m) => {
    const bytes = Buffer.from(JSON.stringify(m));
    const line: Line = { bytes, crlf: false, overflow: false, size: bytes.length };
    return linter.line(line).defects.map((d) => `${d.code} ${d.path}`);
  });
}

describe("lint: the tasks extension, from the exchange", () => {
  test("negotiated by both sides: the task result is clean", () => {
    assert.deepEqual(lint(capture(true)).flat(), []);
  });

  test("not declared by the client: the same task result is result_type_unknown", () => {
    const found = lint(capture(false));
    assert.deepEqual(found[3], ["result_type_unknown /result/resultType"]);
    assert.deepEqual([...found.slice(0, 3), ...found.slice(4)].flat(), []);
  });

  test("as tap records, with their direction", () => {
    const records = capture(true).map((m, i) => ({ from: i % 2 === 0 ? "client" : "server", line: JSON.stringify(m) }));
    assert.deepEqual(lint(records).flat(), []);
  });
});

describe("lint --schema: a message over the validation budget", () => {
  test("is said not to be judged (info), its envelope still judged; a small one is validated", () => {
    const big = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "x", arguments: { blob: "a".repeat(1_100_000) } },
    };
    const small = { jsonrpc: "2.0", id: 2, method: "tools/call", params: {} };
    const found = lint(
      [
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
        },
        big,
        small,
      ],
      { schema: true },
    );
    assert.deepEqual(found[1], ["schema_not_judged "]);
    assert.ok(
      found[2]!.some((d) => d.startsWith("schema_invalid /params")),
      JSON.stringify(found[2]),
    );
  });
});
