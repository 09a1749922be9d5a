import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { Conversation, type Sender } from "./conversation.js";
import { decode } from "./decode.js";
import { EncodeError, encode } from "./encode.js";
import { LEGACY, MODERN, codes, dec, json, notRaised, raised } from "../testkit/codec.js";

// the messages of SEP-2663's example flow (the tasks extension's own text)
const CLIENT_CAPS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } } };
const META = { "io.modelcontextprotocol/protocolVersion": MODERN, ...CLIENT_CAPS };
const PLAIN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const discover = (id: number) => ({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: PLAIN_META } });
const discovered = (id: number, extensions: Record<string, unknown> | undefined) => ({
  jsonrpc: "2.0",
  id,
  result: {
    resultType: "complete",
    supportedVersions: [MODERN],
    capabilities: { tools: {}, ...(extensions ? { extensions } : {}) },
    serverInfo: { name: "s", version: "1" },
  },
});
const call = (id: number, meta: Record<string, unknown> = META, method = "tools/call") => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { name: "hello_world", arguments: {}, _meta: meta },
});
const created = (id: number) => ({
  jsonrpc: "2.0",
  id,
  result: {
    resultType: "task",
    taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
    status: "working",
    createdAt: "2025-11-25T10:30:00Z",
    lastUpdatedAt: "2025-11-25T10:50:00Z",
    ttlMs: 3600000,
    pollIntervalMs: 5000,
  },
});

describe("decode: extensions in force", () => {
  test('resultType "task" is result_type_unknown (an error) unless the tasks extension is in force', () => {
    const text = json(created(1));
    const without = dec(text, MODERN);
    raised(without, "result_type_unknown", { kind: "result", path: "/result/resultType" });
    assert.match(without.defects[0]!.message, /io\.modelcontextprotocol\/tasks/);
    assert.deepEqual(codes(dec(text, MODERN, { extensions: [] })), ["result_type_unknown"]);
    assert.deepEqual(codes(dec(text, MODERN, { extensions: ["com.example/other"] })), ["result_type_unknown"]);
    const inForce = dec(text, MODERN, { extensions: [TASKS_EXTENSION] });
    assert.equal(inForce.kind, "result");
    assert.deepEqual(inForce.defects, []);
    // an extension does not make every value known
    raised(
      dec(json({ jsonrpc: "2.0", id: 1, result: { resultType: "partial" } }), MODERN, {
        extensions: [TASKS_EXTENSION],
      }),
      "result_type_unknown",
    );
    // and the calls without it are judged as before, whatever came in between
    raised(dec(text, MODERN), "result_type_unknown");
  });

  test('encode sends resultType "task" only with the tasks extension in force, as decode reads it', () => {
    const message = created(1) as Parameters<typeof encode>[0];
    assert.throws(() => encode(message, { revision: MODERN, role: "server" }), EncodeError);
    assert.throws(() => encode(message, { revision: MODERN, role: "server", extensions: [] }), EncodeError);
    assert.equal(
      encode(message, { revision: MODERN, role: "server", extensions: [TASKS_EXTENSION] }),
      JSON.stringify(message),
    );
  });

  test("the tasks extension is not defined before 2026-07-28: declaring it changes nothing there", () => {
    for (const rev of LEGACY) {
      const d = dec(json({ jsonrpc: "2.0", id: 1, result: { task: { taskId: "t" } } }), rev, {
        extensions: [TASKS_EXTENSION],
      });
      assert.deepEqual(d.defects, [], rev);
    }
  });
});

/** Decodes each step as lint does: judged again with the extensions the conversation says are in force. */
function judge(steps: [Sender, unknown][]): string[][] {
  const c = new Conversation({ revision: MODERN });
  return steps.map(([from, m]) => {
    const text = json(m);
    let d = decode(text, { revision: MODERN, role: from });
    const extensions = c.extensionsFor(m, from);
    if (extensions.length > 0) d = decode(text, { revision: MODERN, role: from, extensions });
    return [...d.defects, ...c.observe(d, from)].map((x) => x.code);
  });
}

describe("Conversation: extensions negotiated", () => {
  test("a task answering a tools/call whose _meta declared the extension, from a server that declared it, is silent", () => {
    const steps = judge([
      ["client", discover(1)],
      ["server", discovered(1, { [TASKS_EXTENSION]: {} })],
      ["client", call(2)],
      ["server", created(2)],
    ]);
    assert.deepEqual(steps.flat(), []);
  });

  test("a modern exchange seen without its server/discover takes the request's declaration", () => {
    assert.deepEqual(
      judge([
        ["client", call(7)],
        ["server", created(7)],
      ]).flat(),
      [],
    );
  });

  test("without negotiation the task result fires", () => {
    // the server did not declare it
    assert.deepEqual(
      judge([
        ["client", discover(1)],
        ["server", discovered(1, undefined)],
        ["client", call(2)],
        ["server", created(2)],
      ])[3],
      ["result_type_unknown"],
    );
    // this request did not declare it, whatever an earlier one did ("regardless of prior declarations")
    assert.deepEqual(
      judge([
        ["client", call(1)],
        ["server", created(1)],
        ["client", call(2, PLAIN_META)],
        ["server", created(2)],
      ]).map((s) => s.join()),
      ["", "", "", "result_type_unknown"],
    );
    // a method the extension does not augment must not be answered with a task
    assert.deepEqual(
      judge([
        ["client", call(3, META, "prompts/get")],
        ["server", created(3)],
      ])[1],
      ["result_type_unknown"],
    );
    // an answer to nothing seen is judged without the extension
    assert.deepEqual(judge([["server", created(9)]])[0], ["result_type_unknown", "unknown_response_id"]);
  });

  test("extensions: what both sides declared for the session (initialize, server/discover, requests' _meta)", () => {
    const c = new Conversation({ revision: "2025-11-25" });
    const observe = (m: unknown, from: Sender) =>
      c.observe(decode(json(m), { revision: "2025-11-25", role: from }), from);
    observe(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { extensions: { [TASKS_EXTENSION]: {}, "com.example/x": {} } },
          clientInfo: { name: "c", version: "1" },
        },
      },
      "client",
    );
    assert.deepEqual(c.extensions, []);
    observe(
      {
        jsonrpc: "2.0",
        id: 1,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
          serverInfo: { name: "s", version: "1" },
        },
      },
      "server",
    );
    assert.deepEqual(c.extensions, [TASKS_EXTENSION]);
  });
});

describe("decode: 2025-11-25's experimental tasks, as that revision defines them", () => {
  test("a CreateTaskResult, tasks/get and the status notification are clean", () => {
    const task = {
      taskId: "t1",
      status: "working",
      createdAt: "2025-11-25T10:30:00Z",
      lastUpdatedAt: "2025-11-25T10:30:00Z",
      ttl: 60000,
      pollInterval: 5000,
    };
    for (const m of [
      { jsonrpc: "2.0", id: 1, result: { task } },
      { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: "t1" } },
      { jsonrpc: "2.0", id: 2, result: task },
      { jsonrpc: "2.0", method: "notifications/tasks/status", params: task },
    ]) {
      notRaised(dec(json(m), "2025-11-25"), "result_type_unknown");
      assert.deepEqual(dec(json(m), "2025-11-25").defects, []);
    }
  });
});
