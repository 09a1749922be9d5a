/**
 * What a server does to the client while it works: asks it things (a legacy server's own
 * requests, a 2026-07-28 server's input_required round trip), including methods whose names are
 * an object's own (`constructor`, `__proto__`, `hasOwnProperty`), reports progress, announces a
 * changed list, and is told when the client gives up. Against a stdio server run as a process.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import { AbortedError, TimeoutError } from "../peer/errors.js";
import type { Transport } from "../peer/transport.js";
import { McpClient, type ClientOptions } from "./client.js";
import { InputRequiredError } from "./mrtr.js";
import { Spawner, within } from "../testkit/mcp-interop.js";

const FAULTS = fileURLToPath(new URL("../../../test/fixtures/client-faults-server.mjs", import.meta.url));
const ROOTS = { roots: [{ uri: "file:///work", name: "work" }] };

function opened(args: readonly string[], options: ClientOptions = {}) {
  const spawner = new Spawner(process.execPath, [FAULTS, ...args]);
  const sent: JsonObject[] = [];
  let client: McpClient | undefined;
  before(async () => {
    const connector = (): Transport => {
      const transport = spawner.connector();
      return {
        start: (sink) => transport.start(sink),
        send: (text, message, related) => {
          sent.push(JSON.parse(text) as JsonObject);
          return transport.send(text, message, related);
        },
        close: () => transport.close(),
      };
    };
    client = await within(
      McpClient.connect(connector, {
        timeout: 10_000,
        probeTimeout: 10_000,
        inputHandlers: { "roots/list": () => ROOTS },
        ...options,
      }),
      "McpClient.connect",
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await spawner.shutdown();
  });
  return {
    sent,
    get client(): McpClient {
      assert.ok(client, `McpClient.connect failed; stderr:\n${spawner.stderr()}`);
      return client;
    },
  };
}

function textOf(result: { content: { text?: string }[] }): unknown {
  return JSON.parse(result.content[0]!.text!);
}

describe("a legacy server's requests and notifications", () => {
  const conn = opened([]);

  test("ping and roots/list are answered; unknown methods, even an object's own names, get -32601", async () => {
    const answers = new Map(
      Object.entries(textOf(await within(conn.client.callTool("ask"), "ask")) as Record<string, JsonObject>),
    );
    assert.deepEqual(answers.get("ping"), { result: {} });
    assert.deepEqual(answers.get("roots/list"), { result: ROOTS });
    for (const method of ["constructor", "__proto__", "hasOwnProperty", "no/such"])
      assert.equal((answers.get(method)?.error as { code?: number } | undefined)?.code, -32601, method);
  });

  test("progress restarts the deadline: a 600 ms call that reports every 100 ms outlives a 300 ms timeout", async () => {
    const seen: number[] = [];
    const result = await within(
      conn.client.callTool("slow", {}, { timeout: 300, onProgress: (p) => seen.push(p.progress) }),
      "slow",
    );
    assert.equal(textOf(result), "slow done");
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
    await assert.rejects(conn.client.callTool("slow", {}, { timeout: 300, progress: false }), TimeoutError);
  });

  test("maxTotalTimeout bounds a call however much progress comes", async () => {
    await assert.rejects(
      conn.client.callTool("slow", {}, { timeout: 300, maxTotalTimeout: 400 }),
      (e: unknown) => e instanceof TimeoutError && e.timeoutMs === 400,
    );
  });

  test("an aborted call rejects with AbortedError and sends notifications/cancelled for it", async () => {
    const controller = new AbortController();
    const call = conn.client.callTool("hang", {}, { signal: controller.signal });
    const id = conn.sent.findLast((m) => m.method === "tools/call")?.id;
    controller.abort(new Error("the user pressed stop"));
    await assert.rejects(call, (e: unknown) => e instanceof AbortedError && /the user pressed stop/.test(e.message));
    const cancelled = conn.sent.findLast((m) => m.method === "notifications/cancelled");
    assert.deepEqual(cancelled?.params, { requestId: id, reason: "aborted by the requester" });
  });

  test("a list-changed notification reaches every listener until it stops listening", async () => {
    const heard: string[] = [];
    const stop = conn.client.on("notifications/tools/list_changed", () => heard.push("a"));
    conn.client.on("notifications/tools/list_changed", () => heard.push("b"));
    await within(conn.client.callTool("announce"), "announce");
    stop();
    await within(conn.client.callTool("announce"), "announce");
    assert.deepEqual(heard, ["a", "b", "b"]);
  });
});

describe("a 2026-07-28 server's input_required round trip", () => {
  const conn = opened(["--modern"]);

  test("an input keyed __proto__ is answered under that key, not lost to the prototype", async () => {
    assert.equal(conn.client.era, "modern");
    const result = await within(conn.client.callTool("ask"), "ask");
    assert.deepEqual(textOf(result), JSON.parse('{"__proto__": {"roots": [{"uri": "file:///work", "name": "work"}]}}'));
  });

  test("an input for `constructor` has no handler: a named InputRequiredError, not Object()", async () => {
    await assert.rejects(conn.client.callTool("ask", { odd: true }), (e: unknown) => {
      assert.ok(e instanceof InputRequiredError);
      assert.equal(e.reason, "unhandled");
      assert.equal(e.message, "tools/call: the server asks for constructor, which the client has no handler for");
      return true;
    });
  });
});
