/**
 * Interop: McpServer (the features server of src/testkit) against clients we did not write —
 * the official SDK v1 and v2 clients and `@ai-sdk/mcp` — over stdio (a child process) and
 * Streamable HTTP (loopback): paged lists, a template read and completed, a prompt, a
 * subscription, progress, cancellation, sampling/elicitation/roots asked mid-call, and (SDK v1)
 * 2025-11-25 experimental tasks.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { createHttpHandler } from "../transport/http/server.js";
import { NOTES, createFeaturesServer, seen } from "../testkit/features-server.js";
import { signal, until, within } from "../testkit/mcp-interop.js";

const SERVER = fileURLToPath(new URL("../testkit/features-server.js", import.meta.url));
const HANDLERS = {
  sampling: { role: "assistant", content: { type: "text", text: "sampled" }, model: "m" },
  elicitation: { action: "accept", content: { name: "Ada" } },
  roots: { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] },
};

let http: Server;
let url: URL;
before(async () => {
  const handler = createHttpHandler(createFeaturesServer());
  http = createServer(handler.node);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
after(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

/** What v1 and v2 share of the client API, as these checks use it. */
interface SdkLike {
  listResources(params?: { cursor?: string }): Promise<{ resources: unknown[]; nextCursor?: string }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  complete(params: {
    ref: { type: "ref/resource"; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<{ messages: { content: unknown }[] }>;
  subscribeResource(params: { uri: string }): Promise<unknown>;
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options?: { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal; timeout?: number },
  ): Promise<{ content?: unknown }>;
}

async function sameChecks(
  client: SdkLike,
  onUpdated: (listener: (uri: string) => void) => void,
  cancelled: () => boolean,
) {
  // every page of the list, by the client's own cursor handling
  let count = 0;
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await within(client.listResources(cursor ? { cursor } : {}), "resources/list");
    count += page.resources.length;
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  // v1 hands each page back; v2 walks the cursors itself and hands back the whole list
  assert.equal(count, NOTES);
  assert.ok(pages === 3 || pages === 1, `${pages} pages`);
  const read = await within(client.readResource({ uri: "note://n7/upper" }), "resources/read");
  assert.deepEqual(read.contents, [{ uri: "note://n7/upper", text: "NOTE 7" }]);
  const done = await within(
    client.complete({
      ref: { type: "ref/resource", uri: "note://{name}/upper" },
      argument: { name: "name", value: "n24" },
    }),
    "completion/complete",
  );
  assert.deepEqual(done.completion.values, [
    "n24",
    "n240",
    "n241",
    "n242",
    "n243",
    "n244",
    "n245",
    "n246",
    "n247",
    "n248",
    "n249",
  ]);
  const prompt = await within(client.getPrompt({ name: "recall", arguments: { name: "n1" } }), "prompts/get");
  assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "Recall note 1" });

  const updated = signal();
  onUpdated((uri) => uri === "note://n3" && updated.fire());
  await within(client.subscribeResource({ uri: "note://n3" }), "resources/subscribe");
  await within(client.callTool({ name: "save", arguments: { name: "n3", text: "changed" } }), "save");
  await within(updated.promise, "notifications/resources/updated");

  const progress: number[] = [];
  await within(
    client.callTool({ name: "count", arguments: {} }, { onprogress: (p) => progress.push(p.progress) }),
    "count",
  );
  assert.deepEqual(progress, [1, 2, 3]);

  const asked = await within(client.callTool({ name: "ask", arguments: {} }), "ask");
  assert.deepEqual(asked.content, [{ type: "text", text: "sampled Ada 2" }]);

  const abort = new AbortController();
  const waiting = client.callTool({ name: "wait", arguments: {} }, { signal: abort.signal }).catch((e: unknown) => e);
  setTimeout(() => abort.abort(), 50);
  await within(waiting, "the cancelled call");
  await until(cancelled, "the handler's signal fired");
}

function v1Client(): V1Client {
  const client = new V1Client(
    { name: "v1", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => HANDLERS.sampling as never);
  client.setRequestHandler(ElicitRequestSchema, () => HANDLERS.elicitation as never);
  client.setRequestHandler(ListRootsRequestSchema, () => HANDLERS.roots);
  return client;
}

function v2Client(): V2Client {
  const client = new V2Client(
    { name: "v2", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
  );
  client.setRequestHandler("sampling/createMessage", () => HANDLERS.sampling as never);
  client.setRequestHandler("elicitation/create", () => HANDLERS.elicitation as never);
  client.setRequestHandler("roots/list", () => HANDLERS.roots);
  return client;
}

for (const transport of ["stdio", "http"] as const) {
  describe(`McpServer over ${transport}`, () => {
    test("the SDK v1 client: lists, template, completion, prompt, subscription, progress, server requests, cancellation, tasks", async () => {
      const client = v1Client();
      let stderr = "";
      if (transport === "stdio") {
        const t = new V1Stdio({ command: process.execPath, args: [SERVER], stderr: "pipe" });
        t.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
        await within(client.connect(t), "connect");
      } else await within(client.connect(new V1Http(url)), "connect");
      try {
        const before = seen.cancelled;
        // v1's callTool takes a result schema before its options
        const adapted = Object.assign(Object.create(client) as V1Client, {
          callTool: (params: { name: string; arguments: Record<string, unknown> }, options?: object) =>
            client.callTool(params, undefined, options),
        });
        await sameChecks(
          adapted as unknown as SdkLike,
          (listener) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => listener(n.params.uri)),
          () => (transport === "stdio" ? stderr.includes("wait: cancelled") : seen.cancelled > before),
        );
        // 2025-11-25 experimental tasks, as the SDK drives them: create, poll, result (it learns
        // which tools take tasks from the list)
        await within(client.listTools(), "tools/list");
        const kinds: string[] = [];
        let final: unknown;
        for await (const message of client.experimental.tasks.callToolStream(
          { name: "compute", arguments: {} },
          CallToolResultSchema,
        )) {
          kinds.push(message.type);
          if (message.type === "result") final = message.result;
        }
        assert.equal(kinds[0], "taskCreated");
        assert.deepEqual((final as { content: unknown }).content, [{ type: "text", text: "computed" }]);
      } finally {
        await client.close();
      }
    });

    test("the SDK v2 client: the same checks", async () => {
      const client = v2Client();
      let stderr = "";
      if (transport === "stdio") {
        const t = new V2Stdio({ command: process.execPath, args: [SERVER], stderr: "pipe" });
        t.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
        await within(client.connect(t), "connect");
      } else await within(client.connect(new V2Http(url)), "connect");
      try {
        const before = seen.cancelled;
        await sameChecks(
          client as unknown as SdkLike,
          (listener) => client.setNotificationHandler("notifications/resources/updated", (n) => listener(n.params.uri)),
          () => (transport === "stdio" ? stderr.includes("wait: cancelled") : seen.cancelled > before),
        );
      } finally {
        await client.close();
      }
    });

    test("the AI SDK client: resources, templates, prompts and tools", async () => {
      const client = await within(
        createMCPClient({
          transport:
            transport === "stdio"
              ? new Experimental_StdioMCPTransport({ command: process.execPath, args: [SERVER] })
              : { type: "http", url: url.href },
        }),
        "connect",
      );
      try {
        const first = await within(client.listResources(), "resources/list");
        assert.equal(first.resources.length, 100);
        assert.ok(first.nextCursor);
        const templates = await within(client.listResourceTemplates(), "resources/templates/list");
        assert.equal(templates.resourceTemplates[0]?.uriTemplate, "note://{name}/upper");
        const read = await within(client.readResource({ uri: "note://n2" }), "resources/read");
        assert.deepEqual(read.contents, [{ uri: "note://n2", text: "note 2" }]);
        const prompts = await within(client.experimental_listPrompts(), "prompts/list");
        assert.deepEqual(
          prompts.prompts.map((p) => p.name),
          ["recall"],
        );
        const prompt = await within(
          client.experimental_getPrompt({ name: "recall", arguments: { name: "n5" } }),
          "prompts/get",
        );
        assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "Recall note 5" });
        const tools = await within(client.tools(), "tools/list");
        const counted = await within(
          Promise.resolve(tools.count?.execute?.({}, { toolCallId: "c", messages: [] })),
          "count",
        );
        assert.deepEqual((counted as { content: unknown }).content, [{ type: "text", text: "counted" }]);
      } finally {
        await client.close();
      }
    });
  });
}
