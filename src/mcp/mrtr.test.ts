/**
 * Multi Round-Trip Requests from the client's side, over the memory pair: McpClient against
 * mcp-wire's own server (its conformance fixtures sign their requestState, so an echo that is
 * not exact fails there) and against servers that ask without end, ask for what the client
 * cannot give, or break the rules; and the same handlers answering a legacy server's requests.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "../codec/message.js";
import { ConnectionErrorCode } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import type { Transport } from "../peer/transport.js";
import { createMemoryPair } from "../transport/memory.js";
import { McpClient, type ClientOptions } from "./client.js";
import { createConformanceServer } from "../fleet/conformance-server.js";
import { within } from "../testkit/mcp-interop.js";
import type { CallToolResult, InputRequiredResult } from "./meta.js";
import { InputRequiredError, type InputContext, type InputHandlers } from "./mrtr.js";
import { McpServer, type ServeContext } from "./server.js";

const NO_ARGS = { type: "object", properties: {} };

/** What the client sent, parsed, in order. */
function recording(transport: Transport): JsonObject[] {
  const sent: JsonObject[] = [];
  const send = transport.send.bind(transport);
  transport.send = (text, message, related) => {
    sent.push(JSON.parse(text) as JsonObject);
    return send(text, message, related);
  };
  return sent;
}

async function connect(server: McpServer | ((t: Transport) => void), options: ClientOptions = {}) {
  const [a, b] = createMemoryPair();
  if (server instanceof McpServer) server.connect(b);
  else server(b);
  const sent = recording(a);
  const client = await within(
    McpClient.connect(() => a, { revision: "2026-07-28", ...options }),
    "connect",
  );
  return { client, sent };
}

/** The tools/call requests among what the client sent. */
const calls = (sent: JsonObject[]) =>
  sent.filter((m) => m.method === "tools/call").map((m) => ({ id: m.id, params: m.params as JsonObject }));

async function failure(promise: Promise<unknown>): Promise<InputRequiredError> {
  const outcome = await within(
    promise.then(
      () => undefined,
      (e: unknown) => e,
    ),
    "the request",
  );
  assert.ok(outcome instanceof InputRequiredError, `an InputRequiredError, got ${String(outcome)}`);
  assert.equal(outcome.code, ConnectionErrorCode.InputRequired);
  return outcome;
}

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const confirm = {
  method: "elicitation/create",
  params: { message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
};

/** Answers a form with the field names it asks for, as a person might. */
const ANSWERS: Record<string, unknown> = { name: "Ada", color: "teal", ok: true, value: "v" };
const everything: InputHandlers = {
  "elicitation/create": (params) => {
    const schema = params.requestedSchema as { properties?: Record<string, unknown> } | undefined;
    return {
      action: "accept",
      content: Object.fromEntries(Object.keys(schema?.properties ?? {}).map((k) => [k, ANSWERS[k] ?? "x"])),
    };
  },
  "sampling/createMessage": () => ({
    role: "assistant",
    content: { type: "text", text: "Hi from the model" },
    model: "test-model",
    stopReason: "endTurn",
  }),
  "roots/list": () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
};

describe("Multi Round-Trip Requests", () => {
  test("input_required: the handler answers, the request goes again with a new id, the answers and requestState exactly as sent", async () => {
    // every kind of character JSON can carry, escapes and a lone surrogate among them
    const STATE = ' {"a":1} \u00e9\u{1F600}\u2028\u0000\t\\"\ud800 =?base64?x?= ';
    const seen: {
      id: unknown;
      state: string | undefined;
      responses: JsonObject | undefined;
      capabilities: JsonObject;
    }[] = [];
    const server = new McpServer({ serverInfo: { name: "t", version: "1" } });
    server.tools.define(
      { name: "ask", inputSchema: NO_ARGS },
      (_args, context: ServeContext): CallToolResult | InputRequiredResult => {
        seen.push({
          id: context.id,
          state: context.requestState,
          responses: context.inputResponses,
          capabilities: context.clientCapabilities,
        });
        if (context.requestState === undefined)
          return { resultType: "input_required", inputRequests: { sure: confirm }, requestState: STATE };
        return text(context.requestState === STATE ? "echoed" : "altered");
      },
    );
    const contexts: InputContext[] = [];
    const { client, sent } = await connect(server, {
      inputHandlers: {
        "elicitation/create": (params, context) => {
          contexts.push(context);
          assert.deepEqual(params, confirm.params);
          return { action: "accept", content: { ok: true } };
        },
      },
    });
    const result = await within(client.callTool("ask", { q: 1 }), "tools/call");
    assert.equal(result.content[0]?.text, "echoed");
    assert.equal(result.resultType, "complete");
    assert.equal(seen.length, 2);
    assert.notEqual(seen[0]!.id, seen[1]!.id, "the retry is a new request");
    assert.equal(seen[1]!.state, STATE);
    assert.deepEqual(seen[1]!.responses, { sure: { action: "accept", content: { ok: true } } });
    assert.deepEqual(seen[0]!.capabilities, { elicitation: {} }, "a handler declares its capability");
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.key, "sure");
    assert.equal(contexts[0]!.round, 1);
    assert.deepEqual(contexts[0]!.request, { method: "tools/call", params: { name: "ask", arguments: { q: 1 } } });
    // on the wire: the original arguments kept, nothing from the first try but what the retry needs
    const [first, retry] = calls(sent);
    assert.deepEqual(Object.keys(first!.params).sort(), ["_meta", "arguments", "name"]);
    assert.deepEqual(Object.keys(retry!.params).sort(), [
      "_meta",
      "arguments",
      "inputResponses",
      "name",
      "requestState",
    ]);
    assert.deepEqual(retry!.params.arguments, { q: 1 });
    await client.close();
  });

  test("mcp-wire's conformance fixtures: a signed requestState, two rounds with the state growing, three inputs in one round", async () => {
    const { client } = await connect(createConformanceServer(), { inputHandlers: everything });
    const said = async (name: string) => (await within(client.callTool(name), name)).content[0]?.text;
    assert.equal(await said("test_input_required_result_request_state"), "state-ok: requestState validated");
    assert.equal(await said("test_input_required_result_multi_round"), "Multi-round complete for Ada who likes teal");
    assert.equal(
      await said("test_input_required_result_multiple_inputs"),
      "Name: Ada; Greeting: Hi from the model; Roots: 1",
    );
    const prompt = await within(
      client.request("prompts/get", { name: "test_input_required_result_prompt" }),
      "prompts/get",
    );
    assert.equal(prompt.resultType, "complete");
    await client.close();
  });

  test("a later round without requestState: its retry carries none, and only that round's answers", async () => {
    const server = new McpServer({ serverInfo: { name: "t", version: "1" } });
    server.tools.define(
      { name: "twice", inputSchema: NO_ARGS },
      (_args, context: ServeContext): CallToolResult | InputRequiredResult => {
        const answered = Object.keys(context.inputResponses ?? {});
        if (answered.length === 0)
          return { resultType: "input_required", inputRequests: { first: confirm }, requestState: "s1" };
        if (answered[0] === "first") return { resultType: "input_required", inputRequests: { second: confirm } };
        return text("done");
      },
    );
    const rounds: (number | undefined)[] = [];
    const { client, sent } = await connect(server, {
      inputHandlers: {
        "elicitation/create": (_params, context) => {
          rounds.push(context.round);
          return { action: "accept", content: { ok: true } };
        },
      },
    });
    assert.equal((await within(client.callTool("twice"), "tools/call")).content[0]?.text, "done");
    const wire = calls(sent);
    assert.equal(wire.length, 3);
    assert.equal(new Set(wire.map((c) => c.id)).size, 3, "every try has its own id");
    assert.equal(wire[1]!.params.requestState, "s1");
    assert.ok(!("requestState" in wire[2]!.params), "no requestState came with the second input_required");
    assert.deepEqual(Object.keys(wire[2]!.params.inputResponses as JsonObject), ["second"]);
    assert.deepEqual(rounds, [1, 2]);
    await client.close();
  });

  test("a server that never stops asking: InputRequiredError ('rounds') after maxInputRounds retries", async () => {
    let tries = 0;
    const server = new McpServer({ serverInfo: { name: "t", version: "1" } });
    server.tools.define({ name: "forever", inputSchema: NO_ARGS }, (): InputRequiredResult => {
      tries++;
      return { resultType: "input_required", inputRequests: { again: confirm }, requestState: `try-${tries}` };
    });
    const { client } = await connect(server, { inputHandlers: everything, maxInputRounds: 2 });
    const e = await failure(client.callTool("forever"));
    assert.equal(e.reason, "rounds");
    assert.equal(e.method, "tools/call");
    assert.equal(e.result.requestState, "try-3");
    assert.equal(tries, 3, "the first try and two retries");
    await client.close();
  });

  test("an input the client has no handler for: InputRequiredError ('unhandled'), no retry, no handler run", async () => {
    let tries = 0;
    const server = new McpServer({ serverInfo: { name: "t", version: "1" } });
    server.tools.define({ name: "needs", inputSchema: NO_ARGS }, (): InputRequiredResult => {
      tries++;
      return {
        resultType: "input_required",
        inputRequests: { where: { method: "roots/list", params: {} }, sure: confirm },
      };
    });
    let asked = 0;
    const { client } = await connect(server, { inputHandlers: { "roots/list": () => (asked++, { roots: [] }) } });
    const e = await failure(client.callTool("needs"));
    assert.equal(e.reason, "unhandled");
    assert.match(e.message, /elicitation\/create/);
    assert.equal(tries, 1);
    assert.equal(asked, 0, "a round that cannot be completed asks no one anything");
    await client.close();
  });

  test("no handlers at all: the first input_required is the error", async () => {
    const { client } = await connect(createConformanceServer());
    const e = await failure(client.callTool("test_input_required_result_elicitation"));
    assert.equal(e.reason, "unhandled");
    assert.equal(e.result.resultType, "input_required");
    await client.close();
  });

  describe("results as a raw server sends them", () => {
    /** A 2026-07-28 server in a few lines: discover, then `tools/call` answered by `answer`. */
    const raw = (answer: (params: JsonObject) => JsonObject) => (t: Transport) => {
      const peer = new Peer(t, { revision: "2026-07-28", role: "server" });
      peer.handle("server/discover", () => ({
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "private",
      }));
      peer.handle("tools/call", (params) => answer(params ?? {}));
    };

    test("no resultType: complete, never retried", async () => {
      let tries = 0;
      const { client } = await connect(
        raw(() => (tries++, text("plain"))),
        { inputHandlers: everything },
      );
      assert.equal((await within(client.callTool("x"), "tools/call")).content[0]?.text, "plain");
      assert.equal(tries, 1);
      await client.close();
    });

    test("input_required with neither inputRequests nor requestState: InputRequiredError ('malformed'), not the same request again", async () => {
      let tries = 0;
      const { client } = await connect(
        raw(() => (tries++, { resultType: "input_required" })),
        { inputHandlers: everything },
      );
      assert.equal((await failure(client.callTool("x"))).reason, "malformed");
      assert.equal(tries, 1);
      await client.close();
    });

    test("an input request that is not a request: InputRequiredError ('malformed')", async () => {
      const { client } = await connect(
        raw(() => ({ resultType: "input_required", inputRequests: { bad: { params: {} } } })),
        { inputHandlers: everything },
      );
      assert.equal((await failure(client.callTool("x"))).reason, "malformed");
      await client.close();
    });
  });

  test("a legacy session: the same handler answers the server's own elicitation/create, the capability declared at initialize", async () => {
    const [a, b] = createMemoryPair();
    createConformanceServer().connect(b);
    const contexts: InputContext[] = [];
    const client = await within(
      McpClient.connect(() => a, {
        revision: "2025-11-25",
        inputHandlers: {
          "elicitation/create": (_params, context) => {
            contexts.push(context);
            return { action: "accept", content: { name: "Ada" } };
          },
        },
      }),
      "connect",
    );
    const result = await within(client.callTool("test_elicitation", { message: "Who?" }), "tools/call");
    assert.equal(result.content[0]?.text, 'User response: action=accept, content={"name":"Ada"}');
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]!.key, undefined);
    assert.ok(contexts[0]!.signal instanceof AbortSignal);
    await client.close();
  });
});
