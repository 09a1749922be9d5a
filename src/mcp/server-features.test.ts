/**
 * McpServer's features over the memory pair, in both eras: paging, 2026-07-28
 * `subscriptions/listen` and list changes, `ask` across input_required rounds, and tasks in
 * their two wire forms (the 2026-07-28 extension, 2025-11-25's experimental tasks).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import { createMemoryPair } from "../transport/memory.js";
import { signal, within } from "../testkit/mcp-interop.js";
import { McpServer } from "./server.js";

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

function modern(params: JsonObject = {}, capabilities: JsonObject = {}): JsonObject {
  return {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": capabilities,
    },
  };
}

function connect(server: McpServer): Peer {
  const [a, b] = createMemoryPair();
  server.connect(b);
  return new Peer(a, { revision: "2025-11-25", role: "client" });
}

async function errorOf(promise: Promise<unknown>): Promise<ResponseError> {
  const outcome = await within(
    promise.then(
      () => undefined,
      (e: unknown) => e,
    ),
    "the request",
  );
  assert.ok(outcome instanceof ResponseError, `a JSON-RPC error, got ${String(outcome)}`);
  return outcome;
}

function server(pageSize?: number): McpServer {
  return new McpServer({
    serverInfo: { name: "t", version: "1" },
    tasks: { pollIntervalMs: 0 },
    ...(pageSize ? { pageSize } : {}),
  });
}

const text = (t: string) => ({ content: [{ type: "text", text: t }] });

describe("McpServer features", () => {
  test("every list is paged by pageSize; a cursor the server did not make is -32602", async () => {
    const s = server(2);
    for (const n of [1, 2, 3]) {
      s.resources.define({ uri: `r://${n}`, name: `r${n}` }, (uri) => ({ contents: [{ uri, text: String(n) }] }));
      s.prompts.define({ name: `p${n}` }, () => ({ messages: [] }));
    }
    const client = connect(s);
    for (const [method, key] of [
      ["resources/list", "resources"],
      ["prompts/list", "prompts"],
    ] as const) {
      const first = await within(client.request<JsonObject>(method, modern()), method);
      assert.equal((first[key] as unknown[]).length, 2);
      const second = await within(
        client.request<JsonObject>(method, modern({ cursor: first.nextCursor })),
        `${method} page 2`,
      );
      assert.equal((second[key] as unknown[]).length, 1);
      assert.equal(second.nextCursor, undefined);
    }
    assert.equal((await errorOf(client.request("prompts/list", modern({ cursor: "nope" })))).code, -32602);
    await client.close();
  });

  test("subscriptions/listen: acknowledged with the honoured filter, then list changes and resource updates carry its id; close ends it gracefully", async () => {
    const s = server();
    s.resources.define({ uri: "r://a", name: "a" }, (uri) => ({ contents: [{ uri, text: "a" }] }));
    const client = connect(s);
    const got: [string, JsonObject][] = [];
    const seen = signal();
    for (const m of [
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
      "notifications/resources/updated",
    ])
      client.onNotification(m, (p) => {
        got.push([m, p ?? {}]);
        if (got.length === 3) seen.fire();
      });
    const listen = client.request<JsonObject>(
      "subscriptions/listen",
      modern({ notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["r://a"] } }),
    );
    await within(
      (async () => {
        while (got.length === 0) await new Promise((r) => setTimeout(r, 5));
      })(),
      "the acknowledgement",
    );
    s.tools.define({ name: "new", inputSchema: { type: "object" } }, () => text("x"));
    s.resourceUpdated("r://a");
    s.resourceUpdated("r://other");
    await within(seen.promise, "the notifications");
    const subscriptionId = (got[0]![1]._meta as JsonObject)["io.modelcontextprotocol/subscriptionId"];
    assert.ok(subscriptionId !== undefined);
    // prompts are not served: the acknowledgement leaves them out
    assert.equal(got[0]![0], "notifications/subscriptions/acknowledged");
    assert.deepEqual(got[0]![1].notifications, { toolsListChanged: true, resourceSubscriptions: ["r://a"] });
    const meta = { "io.modelcontextprotocol/subscriptionId": subscriptionId };
    const byMethod = Object.fromEntries(got.slice(1));
    assert.deepEqual(byMethod["notifications/tools/list_changed"], { _meta: meta });
    assert.deepEqual(byMethod["notifications/resources/updated"], { uri: "r://a", _meta: meta });
    s.close();
    const end = await within(listen, "the graceful end");
    assert.equal(end.resultType, "complete");
    assert.equal((end._meta as JsonObject)["io.modelcontextprotocol/subscriptionId"], subscriptionId);
    await client.close();
  });

  test("ask on 2026-07-28: input_required, then a second round whose state carries the first answer, then the result", async () => {
    const s = server();
    s.tools.define({ name: "two", inputSchema: { type: "object" } }, async (_args, context) => {
      const name = await context.elicit({ message: "name?", requestedSchema: { type: "object", properties: {} } });
      const color = await context.elicit({ message: "color?", requestedSchema: { type: "object", properties: {} } });
      return text(`${JSON.stringify(name.content)} ${JSON.stringify(color.content)}`);
    });
    const client = connect(s);
    const caps = { elicitation: {} };
    const call = (extra: JsonObject) =>
      client.request<JsonObject>("tools/call", modern({ name: "two", ...extra }, caps));
    const r1 = await within(call({}), "round 1");
    assert.equal(r1.resultType, "input_required");
    assert.deepEqual(Object.keys(r1.inputRequests as JsonObject), ["elicitation-1"]);
    const r2 = await within(
      call({ inputResponses: { "elicitation-1": { action: "accept", content: { n: "Ada" } } } }),
      "round 2",
    );
    assert.deepEqual(Object.keys(r2.inputRequests as JsonObject), ["elicitation-2"]);
    const r3 = await within(
      call({
        requestState: r2.requestState,
        inputResponses: { "elicitation-2": { action: "accept", content: { c: "red" } } },
      }),
      "round 3",
    );
    assert.deepEqual(r3.content, [{ type: "text", text: '{"n":"Ada"} {"c":"red"}' }]);
    const state = String(r2.requestState);
    const flip = (c: string) => BASE64URL[BASE64URL.indexOf(c) ^ 1]!;
    // a character of the answers changed, and the seal's last character changed only in the bits
    // base64 leaves spare (the same bytes once decoded): neither is the text the server made
    const forged = [
      state.replace(/(mcp-wire\.1\.)(.)/, (_, p: string, c: string) => p + flip(c)),
      state.replace(/.$/, flip),
    ];
    for (const requestState of forged) assert.equal((await errorOf(call({ requestState }))).code, -32602, requestState);
    assert.equal(
      (await errorOf(client.request("tools/call", modern({ name: "two" })))).code,
      -32021,
      "no elicitation capability: -32021",
    );
    await client.close();
  });

  test("tasks on 2026-07-28: created only for a client that declared the extension, polled, answered through tasks/update, cancelled", async () => {
    const s = server();
    s.tools.define(
      { name: "job", inputSchema: { type: "object" } },
      (_args, context) =>
        context.task(async (task) => {
          const { ok } = await task.input({ ok: { method: "elicitation/create", params: { message: "go?" } } });
          return text(`answered ${String(ok?.action)}`);
        }),
      { taskSupport: "optional" },
    );
    const client = connect(s);
    const discovered = await within(client.request<JsonObject>("server/discover", modern()), "discover");
    assert.deepEqual((discovered.capabilities as JsonObject).extensions, TASKS.extensions);
    assert.equal((await errorOf(client.request("tasks/get", modern({ taskId: "x" })))).code, -32021);
    const created = await within(client.request<JsonObject>("tools/call", modern({ name: "job" }, TASKS)), "call");
    assert.equal(created.resultType, "task");
    assert.equal(created.pollIntervalMs, undefined, "pollIntervalMs 0 suggests no interval");
    const get = () => client.request<JsonObject>("tasks/get", modern({ taskId: created.taskId }, TASKS));
    let task = await within(get(), "tasks/get");
    while (task.status === "working") task = await within(get(), "tasks/get");
    assert.equal(task.status, "input_required");
    assert.deepEqual(Object.keys(task.inputRequests as JsonObject), ["ok"]);
    const ack = await within(
      client.request<JsonObject>(
        "tasks/update",
        modern({ taskId: created.taskId, inputResponses: { ok: { action: "accept" } } }, TASKS),
      ),
      "tasks/update",
    );
    assert.deepEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
    while (task.status !== "completed") task = await within(get(), "tasks/get");
    assert.deepEqual((task.result as JsonObject).content, [{ type: "text", text: "answered accept" }]);
    assert.equal((await errorOf(client.request("tasks/get", modern({ taskId: "nope" }, TASKS)))).code, -32602);
    // without the extension the same tool runs inline: its input is then asked by input_required
    const inline = await within(
      client.request<JsonObject>("tools/call", modern({ name: "job" }, { elicitation: {} })),
      "inline",
    );
    assert.equal(inline.resultType, "input_required");
    await client.close();
  });

  test("notifications/tasks go to a listen stream that named the task (with the extension declared; without it -32021)", async () => {
    const s = server();
    const release = signal();
    s.tools.define(
      { name: "job", inputSchema: { type: "object" } },
      (_args, context) =>
        context.task(async () => {
          await release.promise;
          return text("done");
        }),
      { taskSupport: "optional" },
    );
    const client = connect(s);
    const created = await within(client.request<JsonObject>("tools/call", modern({ name: "job" }, TASKS)), "call");
    const taskId = String(created.taskId);
    assert.equal(
      (await errorOf(client.request("subscriptions/listen", modern({ notifications: { taskIds: [taskId] } })))).code,
      -32021,
    );
    const acked = signal();
    const completed = signal();
    const tasks: JsonObject[] = [];
    client.onNotification("notifications/subscriptions/acknowledged", (p) => {
      assert.deepEqual(p?.notifications, { taskIds: [taskId] });
      acked.fire();
    });
    client.onNotification("notifications/tasks", (p) => {
      tasks.push(p ?? {});
      if (p?.status === "completed") completed.fire();
    });
    const listen = client.request("subscriptions/listen", modern({ notifications: { taskIds: [taskId] } }, TASKS));
    await within(acked.promise, "the acknowledgement");
    release.fire();
    await within(completed.promise, "notifications/tasks");
    const last = tasks[tasks.length - 1]!;
    assert.equal(last.taskId, taskId);
    assert.deepEqual((last.result as JsonObject).content, [{ type: "text", text: "done" }]);
    s.close();
    await within(listen, "the graceful end");
    await client.close();
  });

  test("tasks on 2025-11-25: a call with `task` gets { task }; tasks/result waits and answers as the call; tasks/list; cancel of a finished task is -32602", async () => {
    const s = server();
    const release = signal();
    s.tools.define(
      { name: "slow", inputSchema: { type: "object" } },
      (_args, context) =>
        context.task(async () => {
          await release.promise;
          return text("done");
        }),
      { taskSupport: "required" },
    );
    const client = connect(s);
    const statuses: string[] = [];
    client.onNotification("notifications/tasks/status", (p) => statuses.push(String(p?.status)));
    const init = await within(
      client.request<JsonObject>("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
      "initialize",
    );
    await client.notify("notifications/initialized");
    assert.deepEqual((init.capabilities as JsonObject).tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const tools = await within(client.request<JsonObject>("tools/list", {}), "tools/list");
    assert.deepEqual((tools.tools as JsonObject[])[0]!.execution, { taskSupport: "required" });
    assert.equal((await errorOf(client.request("tools/call", { name: "slow" }))).code, -32601);
    const created = await within(
      client.request<JsonObject>("tools/call", { name: "slow", task: { ttl: 60_000 } }),
      "call",
    );
    const task = created.task as JsonObject;
    assert.equal(task.status, "working");
    assert.equal(task.ttl, 300_000);
    const list = await within(client.request<JsonObject>("tasks/list", {}), "tasks/list");
    assert.deepEqual(
      (list.tasks as JsonObject[]).map((t) => t.taskId),
      [task.taskId],
    );
    const result = client.request<JsonObject>("tasks/result", { taskId: task.taskId });
    release.fire();
    const answer = await within(result, "tasks/result");
    assert.deepEqual(answer.content, [{ type: "text", text: "done" }]);
    assert.deepEqual((answer._meta as JsonObject)["io.modelcontextprotocol/related-task"], { taskId: task.taskId });
    assert.equal((await errorOf(client.request("tasks/cancel", { taskId: task.taskId }))).code, -32602);
    assert.ok(statuses.includes("completed"), statuses.join());
    await client.close();
  });
});
