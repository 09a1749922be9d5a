/**
 * The gauntlet's model client: what a client that does everything right does, written with
 * mcp-wire/client's public API alone and no knowledge of scenarios (it never reads MCP_WIRE_*).
 * It connects, listens for list changes where the server says its list can change, lists every
 * tool, calls each `gauntlet_` tool once with its schema's defaults, lists again when told the
 * list changed, calls what is new, and closes.
 *
 *   node gauntlet-model-client.js <url>             Streamable HTTP (HTTP+SSE found by itself)
 *   node gauntlet-model-client.js --stdio <config>  the server an mcp.json names
 *
 * `--waits FILE` first: appends to FILE how many milliseconds it stayed waiting for a list change
 * that might come, which the benchmarks take off its wall time (it is idle, by design).
 * `--also-call NAME:JSON` next: calls that tool too, with those arguments, when it is listed — the
 * benchmarks' bare run against `serve`, which has no `gauntlet_` tool, is then a
 * connect–list–call–close run like the gauntlet's.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { ChildServer, McpClient, connectHttp, type InputHandlers } from "../entry/client.js";

const handlers: InputHandlers = {
  "roots/list": () => ({ roots: [{ uri: "file:///tmp/gauntlet-model-client", name: "workspace" }] }),
  "sampling/createMessage": () => ({
    role: "assistant",
    content: { type: "text", text: "hello" },
    model: "gauntlet-model",
    stopReason: "endTurn",
  }),
  "elicitation/create": () => ({ action: "decline" }),
};

const options = {
  clientInfo: { name: "mcp-wire-model-client", version: "1.0.0" },
  inputHandlers: handlers,
  timeout: 20_000,
};

type Tool = { name: string; inputSchema?: { properties?: Record<string, { default?: unknown }> } };

function defaults(tool: Tool): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(tool.inputSchema?.properties ?? {}))
    if (schema && schema.default !== undefined) args[name] = schema.default;
  return args;
}

/**
 * How long the client stays after its work when the server said its tool list can change: a
 * 2026-07-28 change arrives on the listen stream, a connection apart from the call that caused it.
 */
const LINGER_MS = 1000;

async function exercise(client: McpClient): Promise<void> {
  const called = new Set<string>();
  let changed = false;
  let heard: (() => void) | undefined;
  client.on("notifications/tools/list_changed", () => {
    changed = true;
    heard?.();
  });
  const mayChange = (client.capabilities.tools as { listChanged?: boolean } | undefined)?.listChanged === true;
  // the server sends list changes only where the client listens: a subscriptions/listen stream
  // (2026-07-28), the session's GET stream (Streamable HTTP before it)
  const subscription = mayChange ? await client.listen({ toolsListChanged: true }).catch(() => undefined) : undefined;
  const round = async () => {
    changed = false;
    let tools: Tool[];
    try {
      tools = (await client.listTools()) as Tool[];
    } catch {
      return;
    }
    for (const tool of tools) {
      if (called.has(tool.name)) continue;
      const args = tool.name.startsWith("gauntlet_")
        ? defaults(tool)
        : tool.name === alsoCall?.name
          ? alsoCall.args
          : undefined;
      if (args === undefined) continue;
      called.add(tool.name);
      await client.callTool(tool.name, args as never).catch(() => undefined);
    }
  };
  await round();
  while (mayChange) {
    const t0 = performance.now();
    if (!changed)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, LINGER_MS);
        heard = () => (clearTimeout(timer), resolve());
      });
    waited += performance.now() - t0;
    heard = undefined;
    if (!changed) break;
    await round();
  }
  subscription?.close();
}

/** How long it stayed waiting for list changes, in ms. */
let waited = 0;
/** `--also-call`: a tool called besides the `gauntlet_` ones. */
let alsoCall: { name: string; args: Record<string, unknown> } | undefined;

async function main(): Promise<void> {
  let argv = process.argv.slice(2);
  const waits = argv[0] === "--waits" ? argv[1] : undefined;
  if (waits !== undefined) {
    argv = argv.slice(2);
    process.once("exit", () => appendFileSync(waits, `${Math.round(waited)}\n`));
  }
  if (argv[0] === "--also-call") {
    const spec = argv[1] ?? "";
    const colon = spec.indexOf(":");
    alsoCall = { name: spec.slice(0, colon), args: JSON.parse(spec.slice(colon + 1)) as Record<string, unknown> };
    argv = argv.slice(2);
  }
  if (argv[0] === "--stdio") {
    const config = JSON.parse(readFileSync(argv[1]!, "utf8")) as {
      mcpServers: Record<string, { command: string; args?: string[] }>;
    };
    const server = Object.values(config.mcpServers)[0]!;
    let child: ChildServer | undefined;
    const client = await McpClient.connect(() => {
      child = new ChildServer(server.command, server.args ?? []);
      return child.transport;
    }, options);
    try {
      await exercise(client);
    } finally {
      await client.close().catch(() => undefined);
      await child?.shutdown(2000);
    }
    return;
  }
  const url = argv[argv.length - 1]!;
  const { client } = await connectHttp(url, { ...options, fresh: true });
  try {
    await exercise(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`model client: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
