/**
 * McpServer over the memory pair, both eras on one connection: methods 2026-07-28 removed,
 * per-era tools and methods, capabilities derived from what is served, caching hints,
 * Multi Round-Trip Requests, logging by level, and legacy requests to the client mid-call.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import { createMemoryPair } from "../transport/memory.js";
import { within } from "../testkit/mcp-interop.js";
import { McpServer, type ServerOptions } from "./server.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function modern(params: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return { ...params, _meta: { ...META, ...meta } };
}

function connect(server: McpServer) {
  const [a, b] = createMemoryPair();
  server.connect(b);
  const client = new Peer(a, { revision: "2025-11-25", role: "client" });
  const notifications: JsonObject[] = [];
  client.onNotification("notifications/message", (params) => notifications.push(params ?? {}));
  return { client, notifications };
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

async function initialize(client: Peer, capabilities: JsonObject = {}): Promise<JsonObject> {
  const result = await within(
    client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "t", version: "1" },
    }),
    "initialize",
  );
  await client.notify("notifications/initialized");
  return result;
}

function server(options: Partial<ServerOptions> = {}): McpServer {
  return new McpServer({ serverInfo: { name: "test", version: "1" }, ...options });
}

describe("McpServer", () => {
  test("initialize, ping and logging/setLevel sent as 2026-07-28 requests are unknown methods (-32601)", async () => {
    const { client } = connect(server({ logging: true }));
    for (const method of ["initialize", "ping", "logging/setLevel"]) {
      const e = await errorOf(client.request(method, modern({ level: "info" })));
      assert.equal(e.code, -32601, method);
    }
    await client.close();
  });

  test("connectRequest answers a 2026-07-28 request as connect does before any session: lifecycle methods, era rules, methods added later", async () => {
    const s = server({ logging: true });
    s.method("resources/subscribe", () => ({}), { eras: ["legacy"] });
    const asked = async (
      open: (t: Parameters<McpServer["connect"]>[0]) => unknown,
      method: string,
      params: JsonObject,
    ) => {
      const [a, b] = createMemoryPair();
      open(b);
      const client = new Peer(a, { revision: "2025-11-25", role: "client" });
      const outcome = await within(
        client.request(method, params).then(
          (r) => ({ result: r }),
          (e: unknown) => ({ error: e instanceof ResponseError ? [e.code, e.message] : String(e) }),
        ),
        method,
      );
      await client.close();
      return outcome;
    };
    const requests: [string, JsonObject][] = [
      ["initialize", modern({ protocolVersion: "2025-11-25", capabilities: {} })],
      ["ping", modern()],
      ["logging/setLevel", modern({ level: "info" })],
      ["server/discover", modern()],
      ["tools/list", modern()],
      ["resources/subscribe", modern({ uri: "x" })],
      ["nothing/here", modern()],
      ["tools/list", {}],
      ["later", modern()],
    ];
    for (const [method, params] of requests) {
      if (method === "later") s.method("later", () => ({ added: true }));
      const one = await asked((t) => s.connectRequest(t), method, params);
      assert.deepEqual(one, await asked((t) => s.connect(t), method, params), method);
      if (method === "later")
        assert.deepEqual(one, {
          result: {
            resultType: "complete",
            added: true,
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "test", version: "1" } },
          },
        });
    }
  });

  test("a legacy-only method is -32601 to a modern request and served in a session; a modern-only tool is invisible to legacy", async () => {
    const s = server();
    s.method("resources/subscribe", () => ({}), { eras: ["legacy"] });
    s.tools.define({ name: "now", inputSchema: { type: "object" } }, () => ({ content: [] }), { eras: ["modern"] });
    s.tools.define({ name: "always", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const { client } = connect(s);
    assert.equal((await errorOf(client.request("resources/subscribe", modern({ uri: "x" })))).code, -32601);
    const modernTools = (
      await within(client.request<{ tools: { name: string }[] }>("tools/list", modern()), "tools/list")
    ).tools;
    assert.deepEqual(
      modernTools.map((t) => t.name),
      ["now", "always"],
    );
    await initialize(client);
    assert.deepEqual(await within(client.request("resources/subscribe", { uri: "x" }), "subscribe"), {});
    const legacyTools = (await within(client.request<{ tools: { name: string }[] }>("tools/list", {}), "tools/list"))
      .tools;
    assert.deepEqual(
      legacyTools.map((t) => t.name),
      ["always"],
    );
    assert.equal((await errorOf(client.request("tools/call", { name: "now" }))).code, -32602);
    await client.close();
  });

  test("capabilities follow what is served, per era: subscriptions (resources/subscribe or subscriptions/listen) and logging", async () => {
    const s = server({ logging: true, capabilities: { experimental: { x: {} } } });
    s.method("resources/list", () => ({ resources: [] }));
    s.method("resources/subscribe", () => ({}), { eras: ["legacy"] });
    s.method("prompts/list", () => ({ prompts: [] }));
    s.method("completion/complete", () => ({ completion: { values: [] } }));
    assert.deepEqual(s.capabilitiesFor("legacy"), {
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      experimental: { x: {} },
    });
    assert.deepEqual(s.capabilitiesFor("modern").resources, { subscribe: true, listChanged: true });
    const { client } = connect(s);
    const discovered = await within(
      client.request<{ capabilities: JsonObject }>("server/discover", modern()),
      "discover",
    );
    assert.deepEqual(discovered.capabilities, s.capabilitiesFor("modern"));
    assert.deepEqual((await initialize(client)).capabilities, s.capabilitiesFor("legacy"));
    await client.close();
  });

  test("a cacheable 2026-07-28 result gets ttlMs and cacheScope unless the handler set them; an input_required one does not", async () => {
    const s = server();
    s.method("resources/list", () => ({ resources: [] }));
    s.method("prompts/list", () => ({ prompts: [], ttlMs: 5000, cacheScope: "public" }));
    s.method("resources/read", () => ({
      resultType: "input_required",
      inputRequests: { a: { method: "roots/list" } },
    }));
    const { client } = connect(s);
    const list = await within(client.request<JsonObject>("resources/list", modern()), "resources/list");
    assert.equal(list.ttlMs, 0);
    assert.equal(list.cacheScope, "private");
    const prompts = await within(client.request<JsonObject>("prompts/list", modern()), "prompts/list");
    assert.equal(prompts.ttlMs, 5000);
    const read = await within(client.request<JsonObject>("resources/read", modern({ uri: "x" })), "resources/read");
    assert.equal(read.resultType, "input_required");
    assert.equal(read.ttlMs, undefined);
    await client.close();
  });

  test("Multi Round-Trip Requests: the handler sees inputResponses and requestState; malformed ones are -32602", async () => {
    const s = server();
    const seen: unknown[] = [];
    s.tools.define({ name: "ask", inputSchema: { type: "object" } }, (_args, context) => {
      seen.push([context.inputResponses, context.requestState]);
      if (!context.inputResponses)
        return {
          resultType: "input_required",
          inputRequests: { name: { method: "elicitation/create", params: {} } },
          requestState: "s1",
        };
      return { content: [{ type: "text", text: "done" }] };
    });
    const { client } = connect(s);
    const first = await within(client.request<JsonObject>("tools/call", modern({ name: "ask" })), "first try");
    assert.equal(first.resultType, "input_required");
    const second = await within(
      client.request<JsonObject>(
        "tools/call",
        modern({ name: "ask", inputResponses: { name: { action: "accept" } }, requestState: "s1" }),
      ),
      "retry",
    );
    assert.equal(second.resultType, "complete");
    assert.deepEqual(seen, [
      [undefined, undefined],
      [{ name: { action: "accept" } }, "s1"],
    ]);
    assert.equal(
      (
        await errorOf(
          client.request("tools/call", modern({ name: "ask", inputResponses: null as unknown as JsonObject })),
        )
      ).code,
      -32602,
    );
    assert.equal((await errorOf(client.request("tools/call", modern({ name: "ask", requestState: 7 })))).code, -32602);
    await client.close();
  });

  test("a tool's required client capabilities: -32021 naming them when a modern call lacks them", async () => {
    const s = server();
    s.tools.define({ name: "sample", inputSchema: { type: "object" } }, () => ({ content: [] }), {
      requires: { sampling: {} },
    });
    const { client } = connect(s);
    const e = await errorOf(client.request("tools/call", modern({ name: "sample" })));
    assert.equal(e.code, -32021);
    assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
    const ok = await within(
      client.request<JsonObject>(
        "tools/call",
        modern({ name: "sample" }, { "io.modelcontextprotocol/clientCapabilities": { sampling: {} } }),
      ),
      "with sampling",
    );
    assert.deepEqual(ok.content, []);
    await client.close();
  });

  test("logging: a modern request gets log lines only at or above its _meta logLevel; a session at or above its setLevel", async () => {
    const s = server({ logging: true });
    s.tools.define({ name: "log", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.log("debug", "d");
      await context.log("warning", "w");
      return { content: [] };
    });
    const { client, notifications } = connect(s);
    await within(client.request("tools/call", modern({ name: "log" })), "no logLevel");
    await within(
      client.request("tools/call", modern({ name: "log" }, { "io.modelcontextprotocol/logLevel": "info" })),
      "logLevel info",
    );
    assert.deepEqual(
      notifications.map((n) => n.data),
      ["w"],
    );
    assert.equal(
      (
        await errorOf(
          client.request("tools/call", modern({ name: "log" }, { "io.modelcontextprotocol/logLevel": "loud" })),
        )
      ).code,
      -32602,
    );
    notifications.length = 0;
    await initialize(client);
    await within(client.request("tools/call", { name: "log" }), "session, default level");
    await within(client.request("logging/setLevel", { level: "error" }), "setLevel");
    await within(client.request("tools/call", { name: "log" }), "session, error level");
    assert.deepEqual(
      notifications.map((n) => n.data),
      ["d", "w"],
    );
    assert.equal((await errorOf(client.request("logging/setLevel", { level: "loud" }))).code, -32602);
    await client.close();
  });

  test("a legacy handler asks the client mid-call; a modern one cannot, and is told to answer input_required instead", async () => {
    const s = server();
    s.tools.define({ name: "sample", inputSchema: { type: "object" } }, async (_args, context) => {
      try {
        const r = await context.request<{ content: { text: string } }>("sampling/createMessage", {
          messages: [],
          maxTokens: 1,
        });
        return { content: [{ type: "text", text: r.content.text }] };
      } catch (e) {
        return { content: [{ type: "text", text: (e as Error).message }], isError: true };
      }
    });
    const { client } = connect(s);
    client.handle("sampling/createMessage", () => ({ role: "assistant", content: { type: "text", text: "sampled" } }));
    const refused = await within(
      client.request<{ content: { text: string }[]; isError?: boolean }>("tools/call", modern({ name: "sample" })),
      "modern",
    );
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]!.text, /input_required/);
    await initialize(client, { sampling: {} });
    const sampled = await within(
      client.request<{ content: { text: string }[] }>("tools/call", { name: "sample" }),
      "legacy",
    );
    assert.equal(sampled.content[0]!.text, "sampled");
    await client.close();
  });
});
