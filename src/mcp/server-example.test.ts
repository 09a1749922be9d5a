/**
 * The server example of docs/library.md, exactly as written: it compiles under `strict` against
 * the package, and run as a stdio server it serves the official SDK v1 client everything it
 * shows — a tool, a resource template read and completed, a prompt, a subscription.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import ts from "typescript";
import { ROOT, typeErrors } from "../testkit/typecheck.js";
import { signal, within } from "../testkit/mcp-interop.js";

/** The first ```ts block of the `mcp-wire/server` section. */
function example(): string {
  const doc = readFileSync(join(ROOT, "docs/library.md"), "utf8");
  const section = doc.slice(doc.indexOf("## `mcp-wire/server`"));
  const found = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(found, "docs/library.md has the server example");
  return found[1]!;
}

const code = example();
let dir: string;
let client: Client;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-example-"));
  const entry = (name: string) => pathToFileURL(join(ROOT, `dist/src/entry/${name}.js`)).href;
  const js = ts
    .transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText.replace('"mcp-wire/server"', JSON.stringify(entry("server")))
    .replace('"mcp-wire/peer"', JSON.stringify(entry("peer")));
  writeFileSync(join(dir, "server.mjs"), js);
  client = new Client({ name: "example-test", version: "1.0.0" });
  await within(
    client.connect(new StdioClientTransport({ command: process.execPath, args: [join(dir, "server.mjs")] })),
    "connect",
  );
});

after(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the server example compiles under --strict against the package's exports", () => {
  assert.deepEqual(typeErrors({ "library-server-example.ts": code }), []);
});

test("the server example serves the SDK v1 client its tool, template, completion, prompt and subscription", async () => {
  const caps = client.getServerCapabilities();
  assert.deepEqual(caps?.resources, { subscribe: true, listChanged: true });
  assert.ok(caps?.prompts && caps.completions && caps.tools);
  const { tools } = await within(client.listTools(), "tools/list");
  assert.deepEqual(
    tools.map((t) => t.name),
    ["save"],
  );
  const { resourceTemplates } = await within(client.listResourceTemplates(), "resources/templates/list");
  assert.equal(resourceTemplates[0]?.uriTemplate, "note://{name}");
  const read = await within(client.readResource({ uri: "note://hello" }), "resources/read");
  assert.deepEqual(read.contents, [{ uri: "note://hello", text: "Hello, world" }]);
  const done = await within(
    client.complete({ ref: { type: "ref/resource", uri: "note://{name}" }, argument: { name: "name", value: "he" } }),
    "completion/complete",
  );
  assert.deepEqual(done.completion.values, ["hello"]);
  const prompt = await within(client.getPrompt({ name: "summarize", arguments: { name: "hello" } }), "prompts/get");
  assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "Summarize: Hello, world" });

  const updated = signal();
  const uris: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    uris.push(n.params.uri);
    updated.fire();
  });
  await within(client.subscribeResource({ uri: "note://todo" }), "resources/subscribe");
  await within(client.callTool({ name: "save", arguments: { name: "todo", text: "write tests" } }), "tools/call");
  await within(updated.promise, "notifications/resources/updated");
  assert.deepEqual(uris, ["note://todo"]);
  const todo = await within(client.readResource({ uri: "note://todo" }), "resources/read");
  assert.deepEqual(todo.contents, [{ uri: "note://todo", text: "write tests" }]);
});
