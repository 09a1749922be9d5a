/**
 * The client's whole method set and its list walks: every method against server-everything (an
 * official server we did not write) over stdio, in the revision it speaks; the pages of a list
 * walked lazily; and servers whose pages would make a client loop (a repeated cursor, an endless
 * one), an empty cursor on 2026-07-28, and methods a revision lacks, each failing by name before
 * anything is sent.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Transport } from "../peer/transport.js";
import { McpClient, type ClientOptions } from "./client.js";
import { MethodNotInRevisionError } from "./methods.js";
import { PaginationError } from "./pages.js";
import { SERVER_EVERYTHING, Spawner, within } from "../testkit/mcp-interop.js";

const FAULTS = fileURLToPath(new URL("../../../test/fixtures/client-faults-server.mjs", import.meta.url));
const TIMEOUT = 10_000;

/** A channel that keeps what the client writes on it, to show what was (not) sent. */
function recorded(transport: Transport, sent: string[]): Transport {
  return {
    ...(transport.maxMessageBytes === undefined ? {} : { maxMessageBytes: transport.maxMessageBytes }),
    start: (sink) => transport.start(sink),
    send: (text, message, related) => {
      sent.push(text);
      return transport.send(text, message, related);
    },
    close: () => transport.close(),
  };
}

/** A client on `args` (the faults server unless a command is given), and what it sent. */
function opened(args: readonly string[], options: ClientOptions = {}) {
  const spawner = new Spawner(process.execPath, args);
  const sent: string[] = [];
  let client: McpClient | undefined;
  before(async () => {
    client = await within(
      McpClient.connect(() => recorded(spawner.connector(), sent), {
        timeout: TIMEOUT,
        probeTimeout: TIMEOUT,
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
    methods: () => sent.map((t) => (JSON.parse(t) as { method?: string }).method),
    get client(): McpClient {
      assert.ok(client, `McpClient.connect failed; stderr:\n${spawner.stderr()}`);
      return client;
    },
  };
}

describe("every client method against server-everything over stdio", () => {
  const handlers: ClientOptions["inputHandlers"] = {
    "roots/list": () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
    "sampling/createMessage": () => ({
      role: "assistant",
      content: { type: "text", text: "sampled" },
      model: "test-model",
    }),
    "elicitation/create": () => ({ action: "accept", content: { name: "Ada" } }),
  };
  const conn = opened([SERVER_EVERYTHING, "stdio"], { inputHandlers: handlers });

  test("resources, templates, prompts, completion, logging, subscriptions and ping", async () => {
    const { client } = conn;
    assert.equal(client.era, "legacy");
    const resources = await within(client.listResources(), "resources/list");
    assert.ok(resources.length > 0 && resources.every((r) => typeof r.uri === "string"));
    const page = await within(client.listResourcesPage(), "resources/list, one page");
    assert.deepEqual(
      page.resources.map((r) => r.uri),
      resources.slice(0, page.resources.length).map((r) => r.uri),
    );
    const templates = await within(client.listResourceTemplates(), "resources/templates/list");
    const template = templates.find((t) => t.uriTemplate.includes("{resourceId}"));
    assert.ok(template, JSON.stringify(templates));
    const read = await within(
      client.readResource({ uri: template.uriTemplate.replace("{resourceId}", "1") }),
      "resources/read",
    );
    assert.match(read.contents[0]?.text ?? String(read.contents[0]?.blob), /./);
    await within(client.subscribeResource({ uri: resources[0]!.uri }), "resources/subscribe");
    await within(client.unsubscribeResource({ uri: resources[0]!.uri }), "resources/unsubscribe");
    const prompts = await within(client.listPrompts(), "prompts/list");
    assert.ok(prompts.some((p) => p.name === "simple-prompt"));
    const prompt = await within(client.getPrompt({ name: "simple-prompt" }), "prompts/get");
    assert.ok(prompt.messages.length > 0);
    const completion = await within(
      client.complete({
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "department", value: "E" },
      }),
      "completion/complete",
    );
    assert.deepEqual(completion.completion.values, ["Engineering"]);
    await within(client.setLoggingLevel("debug"), "logging/setLevel");
    await within(client.ping(), "ping");
  });

  test("the server's requests are answered by the handlers, each with the capability it declared", async () => {
    const { client } = conn;
    const text = async (tool: string, args = {}) =>
      JSON.stringify((await within(client.callTool(tool, args), tool)).content);
    assert.match(await text("get-roots-list"), /file:\/\/\/work/);
    assert.match(await text("trigger-sampling-request", { prompt: "say hi" }), /sampled/);
    assert.match(await text("trigger-elicitation-request"), /Ada/);
  });

  test("listen on a legacy revision sends no subscriptions/listen: it agrees what the capabilities promise, subscribes each resource, and close() unsubscribes", async () => {
    const { client } = conn;
    const before = conn.sent.length;
    const uri = "demo://resource/static/document/architecture.md";
    const subscription = await within(
      client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [uri] }),
      "listen",
    );
    assert.equal(subscription.id, undefined);
    const caps = client.capabilities as Record<string, { listChanged?: boolean; subscribe?: boolean } | undefined>;
    assert.equal(subscription.notifications.toolsListChanged, caps.tools?.listChanged === true ? true : undefined);
    assert.equal(subscription.notifications.promptsListChanged, caps.prompts?.listChanged === true ? true : undefined);
    assert.equal(caps.resources?.subscribe, true, "server-everything declares resource subscriptions");
    assert.deepEqual(subscription.notifications.resourceSubscriptions, [uri]);
    const sent = () =>
      conn.sent.slice(before).map((t) => JSON.parse(t) as { method?: string; params?: { uri?: string } });
    assert.deepEqual(
      sent().map((m) => [m.method, m.params?.uri]),
      [["resources/subscribe", uri]],
    );
    subscription.close();
    await within(subscription.ended, "the subscription's end");
    await within(
      (async () => {
        while (!sent().some((m) => m.method === "resources/unsubscribe" && m.params?.uri === uri))
          await new Promise((r) => setTimeout(r, 10));
      })(),
      "resources/unsubscribe",
    );
    assert.ok(!sent().some((m) => m.method === "subscriptions/listen"));
  });
});

describe("a list of 4 pages", () => {
  const conn = opened([FAULTS, "--pages", "4", "--per", "3"]);

  test("listResources follows nextCursor to the end", async () => {
    const all = await within(conn.client.listResources(), "resources/list");
    assert.deepEqual(
      all.map((r) => r.uri),
      Array.from({ length: 12 }, (_, i) => `demo://r/${i}`),
    );
  });

  test("pages() fetches a page only when the loop asks for it", async () => {
    const count = () => conn.methods().filter((m) => m === "resources/list").length;
    const start = count();
    for await (const page of conn.client.pages("resources/list")) {
      assert.equal(page.resources.length, 3);
      break;
    }
    assert.equal(count() - start, 1);
    const second = await within(conn.client.listResourcesPage({ cursor: "1" }), "one page");
    assert.equal(second.nextCursor, "2");
    assert.equal(second.resources[0]?.uri, "demo://r/3");
  });
});

describe("pages that would make a client loop", () => {
  const stuck = opened([FAULTS, "--stuck"]);
  const endless = opened([FAULTS, "--endless"]);

  test("a cursor given twice stops the walk with a PaginationError, after two requests", async () => {
    await assert.rejects(stuck.client.listResources(), {
      name: "PaginationError",
      code: "ERR_MCP_WIRE_PAGINATION",
      reason: "repeated_cursor",
      pages: 2,
      message: 'resources/list: page 2 gave cursor "again" again: following it would loop',
    });
    assert.equal(stuck.methods().filter((m) => m === "resources/list").length, 2);
  });

  test("a cursor that never ends stops at maxPages", async () => {
    await assert.rejects(endless.client.listResources({ maxPages: 5 }), (e: unknown) => {
      assert.ok(e instanceof PaginationError);
      assert.equal(e.reason, "page_cap");
      assert.equal(e.message, "resources/list: still a nextCursor after 5 pages, the most maxPages allows");
      return true;
    });
    assert.equal(endless.methods().filter((m) => m === "resources/list").length, 5);
  });
});

describe("an empty nextCursor", () => {
  const modern = opened([FAULTS, "--modern", "--empty-cursor"]);
  const legacy = opened([FAULTS, "--empty-cursor"]);

  test('on 2026-07-28 "" is a cursor, followed to the next page', async () => {
    assert.equal(modern.client.revision, "2026-07-28");
    const all = await within(modern.client.listResources(), "resources/list");
    assert.deepEqual(
      all.map((r) => r.name),
      ["first", "after-empty"],
    );
    const asked = modern.sent
      .map((t) => JSON.parse(t) as { method?: string; params?: { cursor?: string } })
      .filter((m) => m.method === "resources/list");
    assert.deepEqual(
      asked.map((m) => m.params?.cursor),
      [undefined, ""],
    );
  });

  test("before 2026-07-28 it ends the list", async () => {
    const all = await within(legacy.client.listResources(), "resources/list");
    assert.deepEqual(
      all.map((r) => r.name),
      ["first"],
    );
  });
});

describe("methods 2026-07-28 does not have", () => {
  const conn = opened([FAULTS, "--modern", "--pages", "1"]);

  test("ping, logging/setLevel and resource subscriptions fail by name, and nothing is sent", async () => {
    const client = conn.client;
    assert.ok(client.isModern());
    const before = conn.sent.length;
    // the type of a client known to be modern has none of them: these calls go through a cast
    const untyped = client as unknown as McpClient<"2025-11-25">;
    for (const [call, method] of [
      [() => untyped.ping(), "ping"],
      [() => untyped.setLoggingLevel("info"), "logging/setLevel"],
      [() => untyped.subscribeResource({ uri: "demo://r/0" }), "resources/subscribe"],
      [() => untyped.unsubscribeResource({ uri: "demo://r/0" }), "resources/unsubscribe"],
    ] as const) {
      await assert.rejects(call(), (e: unknown) => {
        assert.ok(e instanceof MethodNotInRevisionError);
        assert.equal(e.method, method);
        assert.equal(e.revision, "2026-07-28");
        assert.match(e.message, new RegExp(`^${method} is not a method of 2026-07-28.*nothing was sent`));
        return true;
      });
    }
    assert.equal(conn.sent.length, before);
  });
});
