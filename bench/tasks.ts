/**
 * The tasks path on the server side: how many task-augmented `tools/call` → `tasks/get` (polled
 * with interval 0 until completed) → `tasks/result` cycles a server answers per second, in
 * memory, 2025-11-25 experimental tasks. mcp-wire's McpServer against the official SDK v1
 * McpServer (`experimental.tasks.registerToolTask` with its InMemoryTaskStore), both driven by
 * the same thin JSON-RPC driver, every message crossing as JSON text both ways (the SDK's
 * in-memory transport passes objects, so the driver writes and reads the text its stdio or HTTP
 * transport would), so the servers are what differs. The SDK v2 server has no tasks,
 * so the target against SDK v2 cannot be measured; the SDK v1 ratio is printed instead.
 * mcp-wire's 2026-07-28 path (the extension: the result inlined in `tasks/get`) is measured too.
 *
 * Tasks live 200 ms (both servers), so the stores stay small at thousands of tasks a second.
 *
 * Every cycle's result text is checked, so a server that stops answering shows.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import type { JsonObject } from "../src/codec/message.js";
import type { Transport, TransportSink } from "../src/peer/transport.js";
import { McpServer } from "../src/entry/server.js";
import {
  fmtRatio,
  measure,
  ratio,
  table,
  within,
  type Benchmark,
  type Profile,
  type TargetOutcome,
} from "./harness.js";

const CYCLES = 32;

/** Sends a request, resolves with its result; one in flight at a time is all a cycle needs. */
type Send = (method: string, params: JsonObject) => Promise<JsonObject>;

function driver(write: (message: JsonObject) => void): { send: Send; receive: (message: JsonObject) => void } {
  let next = 0;
  const waiting = new Map<number, (result: JsonObject) => void>();
  return {
    send: (method, params) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        waiting.set(id, (m) =>
          m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as JsonObject),
        );
        write({ jsonrpc: "2.0", id, method, params });
      }),
    receive: (message) => {
      const id = message.id as number;
      const done = waiting.get(id);
      if (!done) return;
      waiting.delete(id);
      done(message);
    },
  };
}

/** mcp-wire's server behind a transport that hands each message straight to the driver. */
function wire(modern: boolean): Send {
  const server = new McpServer({
    serverInfo: { name: "bench", version: "1" },
    // the SDK's in-memory store has no cap: ours is raised past what 200 ms of cycles creates
    tasks: { pollIntervalMs: 0, ttlMs: 200, maxTasks: 1_000_000 },
  });
  server.tools.define(
    { name: "compute", inputSchema: { type: "object" } },
    (_args, context) => context.task(async () => ({ content: [{ type: "text", text: "computed" }] })),
    { taskSupport: "optional" },
  );
  let sink!: TransportSink;
  const d = driver((m) => sink.message(JSON.stringify(m)));
  const transport: Transport = {
    start: (s) => (sink = s),
    send: (text) => d.receive(JSON.parse(text) as JsonObject),
    close: async () => undefined,
  };
  server.connect(transport);
  if (!modern) return d.send;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  return (method, params) => d.send(method, { ...params, _meta: meta });
}

/** The SDK v1 server, its task tool completing at creation, with a poll interval of 0. */
async function sdkV1(): Promise<Send> {
  const server = new V1McpServer(
    { name: "bench", version: "1" },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: new InMemoryTaskStore() },
  );
  server.experimental.tasks.registerToolTask(
    "compute",
    { execution: { taskSupport: "optional" } },
    {
      createTask: async (extra) => {
        const task = await extra.taskStore.createTask({ ttl: 200, pollInterval: 0 });
        await extra.taskStore.storeTaskResult(task.taskId, "completed", {
          content: [{ type: "text", text: "computed" }],
        });
        return { task };
      },
      getTask: async (extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  // the in-memory pair hands objects over where a real transport carries text: each message
  // goes through JSON as it does to and from mcp-wire's server, so both pay the same wire
  const d = driver((m) => void client.send(JSON.parse(JSON.stringify(m)) as never));
  client.onmessage = (m) => d.receive(JSON.parse(JSON.stringify(m)) as JsonObject);
  await client.start();
  await server.connect(serverSide);
  return d.send;
}

async function initialize(send: Send): Promise<void> {
  await send("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
}

/** One create → poll → result cycle; returns the result's text. */
async function cycle(send: Send, modern: boolean): Promise<unknown> {
  const created = await send("tools/call", modern ? { name: "compute" } : { name: "compute", task: { ttl: 200 } });
  const taskId = String(modern ? created.taskId : (created.task as JsonObject).taskId);
  let task = await send("tasks/get", { taskId });
  while (task.status === "working") task = await send("tasks/get", { taskId });
  const result = modern ? (task.result as JsonObject) : await send("tasks/result", { taskId });
  return (result.content as { text?: string }[])[0]?.text;
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const legacy = wire(false);
  await within(initialize(legacy), "mcp-wire initialize");
  const modern = wire(true);
  const v1 = await within(sdkV1(), "SDK v1 server");
  await within(initialize(v1), "SDK v1 initialize");
  let wrong = 0;
  const pass = (send: Send, isModern: boolean) => async () => {
    for (let i = 0; i < CYCLES; i++) if ((await cycle(send, isModern)) !== "computed") wrong++;
  };
  const m = await measure(
    "tasks: create, poll (interval 0), result, in memory",
    { items: CYCLES, bytes: 0, itemLabel: "task" },
    [
      { name: "mcp-wire 2025-11-25", pass: pass(legacy, false) },
      { name: "mcp-wire 2026-07-28", pass: pass(modern, true) },
      { name: "SDK v1 server 2025-11-25", pass: pass(v1, false) },
    ],
    profile,
  );
  if (wrong > 0) throw new Error(`tasks benchmark: ${wrong} cycles answered wrongly`);
  console.log(
    table(
      ["server", "tasks/s (median)", "spread"],
      m.results.map((r) => [
        r.name,
        Math.round(r.median * CYCLES).toLocaleString("en"),
        `${(r.spread * 100).toFixed(0)}%`,
      ]),
    ),
  );
  const vsV1 = ratio(m, "mcp-wire 2025-11-25", "SDK v1 server 2025-11-25");
  console.log(`mcp-wire / SDK v1 server, same driver, 2025-11-25: ${fmtRatio(vsV1)}`);
  console.log("target ≥ 3× SDK v2: not measurable, the SDK v2 server (@modelcontextprotocol/server) serves no tasks");
  return [
    {
      of: "mcp-wire 2025-11-25",
      versus: "SDK v1 server 2025-11-25",
      atLeast: 3,
      benchmark: "tasks",
      measurement: m.title,
      ratio: vsV1,
      met: vsV1.median >= 3,
    },
  ];
}

export const tasksBenchmark: Benchmark = {
  name: "tasks",
  title: "the tasks path on the server: create, poll with interval 0, result",
  run,
};
