/**
 * The client as the receiver of tasks (2025-11-25), against the official SDK v1 server asking
 * for sampling and elicitation as tasks through its experimental task streams, over a real pipe
 * and over Streamable HTTP on loopback (what it asks riding the call's own stream):
 * the capability is declared as the SDK's strict check wants it, each request is answered with a
 * task handle, and the SDK follows it with tasks/get, tasks/result, tasks/list and tasks/cancel.
 * Everything the client sent is judged against the official 2025-11-25 schema. Where the client
 * runs no tasks (the option off, or an older revision), a `task` member is ignored and the
 * request answered as usual, as a receiver that did not declare tasks for it MUST.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import type { Revision } from "../rules/revisions.js";
import { validate } from "../schema/validate.js";
import { ChildServer } from "../transport/child.js";
import { within } from "../testkit/mcp-interop.js";
import { HttpFixture } from "../testkit/http-fixture.js";
import { McpClient, type ClientOptions } from "./client.js";
import { connectHttp } from "./connect-http.js";
import type { InputContext } from "./mrtr.js";

const ASKS = fileURLToPath(new URL("../../../test/fixtures/v1-sdk-asks-tasks.mjs", import.meta.url));
const SAMPLED = { role: "assistant", content: { type: "text", text: "hi" }, model: "test-model" };

type Transport = "stdio" | "http";
const children: ChildServer[] = [];
const fixtures: HttpFixture[] = [];
after(() => Promise.all([...children.map((c) => c.shutdown(500)), ...fixtures.map((f) => f.stop())]));

interface Step {
  type: string;
  status?: string;
  taskId?: string;
  code?: number;
  result?: JsonObject;
  ids?: string[];
}
interface Asked {
  steps: Step[];
  sent: JsonObject[];
  capabilities: JsonObject;
  contexts: InputContext[];
}

async function open(revision: Revision, extra: ClientOptions = {}, strict = true, transport: Transport = "stdio") {
  const contexts: InputContext[] = [];
  const options: ClientOptions = {
    revision,
    inputTasks: true,
    inputHandlers: {
      "sampling/createMessage": (params, context) => {
        contexts.push(context);
        const first = (params.messages as { content: { text: string } }[])[0]!.content.text;
        // "hold" waits for its task to be cancelled
        if (first !== "hold") return SAMPLED;
        return new Promise((_, reject) =>
          context.signal!.addEventListener("abort", () => reject(new Error("stopped"))),
        );
      },
      "elicitation/create": (_params, context) => {
        contexts.push(context);
        return { action: "accept", content: { name: "Ada" } };
      },
    },
    ...extra,
  };
  const args = strict ? ["--strict"] : [];
  let client: McpClient;
  if (transport === "http") {
    const fixture = new HttpFixture(ASKS, ["--http", ...args]);
    fixtures.push(fixture);
    await fixture.start();
    ({ client } = await within(connectHttp(fixture.url("/mcp"), { ...options, fresh: true }), "connect over HTTP"));
  } else {
    const child = new ChildServer(process.execPath, [ASKS, ...args], { graceMs: 500 });
    children.push(child);
    client = await within(
      McpClient.connect(() => child.transport, options),
      "connect over stdio",
    );
  }
  const ask = async (kind: string): Promise<Asked> => {
    const r = await within(client.callTool("ask", { kind }), `ask ${kind}`);
    const text = (r.content[0] as { text: string }).text;
    if (r.isError) assert.fail(`ask ${kind}: ${text}`);
    const asked = JSON.parse(text) as Asked;
    return { ...asked, contexts: contexts.splice(0) };
  };
  return { client, ask };
}

/** The schema defects of every message the client sent, each judged as what it answers. */
function unsound(sent: JsonObject[], revision: Revision, methods: Map<unknown, string>): string[] {
  return sent.flatMap((m) => {
    const method = typeof m.method === "string" ? undefined : methods.get(m.id);
    return validate(m, { revision, ...(method ? { method } : {}) }).map((d) => `${d.path} ${d.message}`);
  });
}

for (const transport of ["stdio", "http"] as const)
  test(`sampling and elicitation run as tasks the SDK v1 server follows to their results over ${transport}; a cancel ends one; every answer is schema-valid`, async () => {
    const { client, ask } = await open("2025-11-25", {}, true, transport);
    const sampled = await ask("sampling");
    assert.deepEqual(sampled.capabilities.tasks, {
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    });
    const kinds = sampled.steps.map((s) => s.type);
    assert.equal(kinds[0], "taskCreated");
    assert.equal(sampled.steps[0]!.status, "working");
    assert.deepEqual(kinds.slice(-2), ["result", "listed"]);
    const taskId = sampled.steps[0]!.taskId!;
    assert.deepEqual(sampled.steps.at(-2)!.result, {
      ...SAMPLED,
      _meta: { "io.modelcontextprotocol/related-task": { taskId } },
    });
    assert.deepEqual(sampled.steps.at(-1)!.ids, [taskId]);
    assert.equal(sampled.steps.filter((s) => s.type === "taskStatus").at(-1)!.status, "completed");
    assert.equal(sampled.contexts[0]!.taskId, taskId);
    // the client's answers: a CreateTaskResult, tasks, the result, a list, and status notifications
    const answers = sampled.sent.filter((m) => "result" in m);
    assert.deepEqual(Object.keys((answers[0]!.result as JsonObject).task as JsonObject).sort(), [
      "createdAt",
      "lastUpdatedAt",
      "pollInterval",
      "status",
      "taskId",
      "ttl",
    ]);
    const notes = sampled.sent.filter((m) => m.method === "notifications/tasks/status");
    assert.equal((notes.at(-1)!.params as JsonObject).status, "completed");

    const elicited = await ask("elicitation");
    assert.equal(elicited.steps[0]!.type, "taskCreated");
    assert.deepEqual(elicited.steps.at(-1)!.result, {
      action: "accept",
      content: { name: "Ada" },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: elicited.steps[0]!.taskId } },
    });

    const cancelled = await ask("cancel");
    assert.deepEqual(
      cancelled.steps.map((s) => [s.type, s.status ?? s.code]),
      [
        ["taskCreated", "working"],
        ["cancelled", "cancelled"],
        ["taskStatus", "cancelled"],
        // a finished task is not cancelled again, and an unknown one is not found: -32602 both
        ["error", -32602],
        ["error", -32602],
        // the result of a cancelled task is its error
        ["error", -32602],
      ],
    );
    assert.equal(cancelled.contexts[0]!.signal!.aborted, true);

    for (const { sent } of [sampled, elicited, cancelled]) {
      const methods = new Map<unknown, string>();
      for (const m of sent)
        if ("result" in m && !methods.has(m.id)) methods.set(m.id, methodOf(m.result as JsonObject));
      assert.deepEqual(unsound(sent, "2025-11-25", methods), []);
    }
    await client.close();
  });

describe("McpClient as the receiver of tasks, SDK v1 server over stdio", () => {
  test("without the option the client runs no tasks: nothing declared, a task member ignored", async () => {
    const { client, ask } = await open("2025-11-25", { inputTasks: false }, false);
    const plain = await ask("sampling");
    assert.equal(plain.capabilities.tasks, undefined);
    // the SDK expected a task handle and got the sampling result itself; no tasks are served
    assert.deepEqual(
      plain.steps.map((s) => [s.type, s.code]),
      [
        ["error", -32603],
        ["error", -32601],
      ],
    );
    assert.equal(plain.contexts[0]!.taskId, undefined);
    assert.deepEqual(plain.sent.find((m) => "result" in m)!.result, SAMPLED);
    await client.close();
  });

  test("2025-06-18 has no tasks: the capability is not declared and a task member is ignored", async () => {
    const { client, ask } = await open("2025-06-18", {}, false);
    const plain = await ask("sampling");
    assert.equal(plain.capabilities.tasks, undefined);
    assert.equal(plain.contexts[0]!.taskId, undefined);
    assert.deepEqual(plain.sent.find((m) => "result" in m)!.result, SAMPLED);
    const asked = await ask("plain");
    assert.deepEqual(asked.steps[0]!.result, SAMPLED);
    await client.close();
  });
});

/** The method a client's answer replies to, told by its shape. */
function methodOf(result: JsonObject): string {
  if ("task" in result) return "sampling/createMessage";
  if ("tasks" in result) return "tasks/list";
  if ("role" in result) return "sampling/createMessage";
  if ("action" in result) return "elicitation/create";
  return "tasks/get";
}
