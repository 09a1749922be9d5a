/**
 * A server on McpServer that uses every feature of the core, for tests with real clients:
 * 250 notes (three pages of 100), a note template with completion, a prompt, a tool reporting
 * progress, one waiting to be cancelled, one asking the client for sampling, elicitation and
 * roots, and tasks: one that computes, one that fails, one that runs until it is cancelled (a
 * status message each 20 ms, ending by itself after a minute), and one that asks the client to
 * confirm. Run as a program it serves stdio.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ResponseError } from "../peer/errors.js";
import { McpServer } from "../mcp/server.js";
import { StreamTransport } from "../transport/stream.js";

export const NOTES = 250;

/** What the `wait` tool saw: counted when its signal fired (the client cancelled). */
export const seen = { cancelled: 0 };

const MAIN = import.meta.url === pathToFileURL(process.argv[1] ?? "").href;

export function createFeaturesServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "features", version: "1.0.0" }, tasks: { pollIntervalMs: 10 } });
  const notes = new Map<string, string>();
  for (let i = 0; i < NOTES; i++) notes.set(`n${i}`, `note ${i}`);
  for (const name of notes.keys())
    server.resources.define({ uri: `note://${name}`, name }, (uri) => ({
      contents: [{ uri, text: notes.get(name) ?? "" }],
    }));
  server.resources.defineTemplate(
    { uriTemplate: "note://{name}/upper", name: "upper" },
    (uri, vars) => ({ contents: [{ uri, text: (notes.get(vars.name ?? "") ?? "").toUpperCase() }] }),
    { complete: { name: (prefix) => [...notes.keys()].filter((n) => n.startsWith(prefix)) } },
  );
  server.prompts.define({ name: "recall", arguments: [{ name: "name", required: true }] }, (args) => ({
    messages: [{ role: "user", content: { type: "text", text: `Recall ${notes.get(args.name ?? "") ?? "nothing"}` } }],
  }));
  const object = { type: "object" };
  server.tools.define({ name: "save", inputSchema: object }, (args) => {
    notes.set(String(args.name), String(args.text));
    server.resourceUpdated(`note://${String(args.name)}`);
    return { content: [{ type: "text", text: "saved" }] };
  });
  server.tools.define({ name: "count", inputSchema: object }, async (_args, context) => {
    // paced as real work is: the SDK v1 client drops progress that arrives in one read with the result
    for (let i = 1; i <= 3; i++) {
      await context.progress(i, 3, `step ${i}`);
      await sleep(10);
    }
    return { content: [{ type: "text", text: "counted" }] };
  });
  server.tools.define({ name: "wait", inputSchema: object }, async (_args, context) => {
    await sleep(60_000, undefined, { signal: context.signal }).catch(() => undefined);
    if (context.signal.aborted) {
      seen.cancelled += 1;
      // a test watching a child process reads it there
      if (MAIN) process.stderr.write("wait: cancelled\n");
    }
    return { content: [{ type: "text", text: "waited" }] };
  });
  server.tools.define({ name: "ask", inputSchema: object }, async (_args, context) => {
    const sampled = await context.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 10,
    });
    const elicited = await context.elicit({
      message: "name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    const roots = await context.listRoots();
    const said = (sampled.content as { text?: string } | undefined)?.text;
    const name = (elicited.content as { name?: string } | undefined)?.name;
    const count = Array.isArray(roots.roots) ? roots.roots.length : 0;
    return { content: [{ type: "text", text: `${said} ${name} ${count}` }] };
  });
  server.tools.define(
    { name: "compute", inputSchema: object },
    (_args, context) =>
      context.task(async (task) => {
        await sleep(20, undefined, { signal: task.signal });
        return { content: [{ type: "text", text: "computed" }] };
      }),
    { taskSupport: "optional" },
  );
  server.tools.define(
    { name: "fail", inputSchema: object },
    (_args, context) =>
      context.task(async () => {
        await sleep(10);
        throw new ResponseError(-32603, "the upstream service refused the job", { retryAfter: 60 });
      }),
    { taskSupport: "required" },
  );
  server.tools.define(
    { name: "refuse", inputSchema: object },
    (_args, context) =>
      context.task(async () => {
        await sleep(10);
        return { content: [{ type: "text", text: "no such city" }], isError: true };
      }),
    { taskSupport: "optional" },
  );
  server.tools.define(
    { name: "long", inputSchema: object },
    (_args, context) =>
      context.task(async (task) => {
        for (let i = 1; i <= 3000 && !task.signal.aborted; i++) {
          task.status(`step ${i}`);
          await sleep(20, undefined, { signal: task.signal }).catch(() => undefined);
        }
        return { content: [{ type: "text", text: "long done" }] };
      }),
    { taskSupport: "optional" },
  );
  server.tools.define(
    { name: "confirm", inputSchema: object },
    (_args, context) =>
      context.task(async (task) => {
        const { ok } = await task.input({
          ok: {
            method: "elicitation/create",
            params: {
              message: "go?",
              requestedSchema: { type: "object", properties: { go: { type: "boolean" } } },
            },
          },
        });
        return { content: [{ type: "text", text: `confirmed ${String(ok?.action)}` }] };
      }),
    { taskSupport: "optional" },
  );
  return server;
}

if (MAIN) {
  createFeaturesServer().connect(new StreamTransport(process.stdin, process.stdout));
}
