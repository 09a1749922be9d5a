/**
 * The client's type narrows by revision, as a user's strict program sees it through the
 * package's `exports`: a client opened on exactly 2026-07-28 has no `ping`, `setLoggingLevel` or
 * resource subscriptions, and its `listen` subscription has a request id; one opened on a legacy
 * revision has the legacy methods, and its subscription has no id; one whose revision is
 * settled at connect time has every method, checked when called, and `isModern()` /
 * `isLegacy()` narrow it. Each `@ts-expect-error` fails the compile if the call it marks type-checks.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { typeErrors } from "../testkit/typecheck.js";

test("the methods a client's type offers follow its revision", () => {
  const errors = typeErrors({
    "narrow.ts": `
import {
  McpClient, ChildServer, connectHttp, type Tool, type Resource, type ListToolsResult,
  type LegacyTask, type ModernTask, type AnyTask,
} from "mcp-wire/client";
const connector = () => new ChildServer("server").transport;

export async function modern(): Promise<void> {
  const client = await McpClient.connect(connector, { revision: "2026-07-28" });
  const tools: Tool[] = await client.listTools();
  const page: ListToolsResult = await client.listToolsPage({ cursor: "" });
  const subscription = await client.listen({ toolsListChanged: true });
  const id: string | number = subscription.id;
  subscription.close();
  // @ts-expect-error 2026-07-28 has no ping
  await client.ping();
  // @ts-expect-error nor logging/setLevel
  await client.setLoggingLevel("info");
  // @ts-expect-error nor resources/subscribe
  await client.subscribeResource({ uri: "file:///a" });
  // the tasks extension: tasks/get (the result inlined), tasks/update, tasks/cancel
  const task: ModernTask = await client.getTask("t");
  await client.updateTask("t", { ok: { action: "accept" } });
  await client.cancelTask("t");
  const created = await client.callToolTask({ name: "long" });
  if ("resultType" in created && created.resultType === "task") void created.ttlMs;
  // @ts-expect-error the extension has no tasks/result: tasks/get carries the result
  await client.getTaskResult("t");
  // @ts-expect-error nor tasks/list
  await client.listTasks();
  const ttl: number | null = task.ttlMs;
  void ttl;
  void tools; void page; void id;
}

export async function tasks2025(): Promise<void> {
  const client = await McpClient.connect(connector, { revision: "2025-11-25", tasks: true });
  const task: LegacyTask = await client.getTask("t");
  const listed: LegacyTask[] = await client.listTasks();
  const cancelled: LegacyTask = await client.cancelTask("t");
  await client.getTaskResult("t");
  const created = await client.callToolTask({ name: "long" }, { ttl: 60_000 });
  // a tool's result has content, a task does not
  if (!("content" in created)) void created.task.pollInterval;
  await client.callTool("long", {}, { task: { ttl: 1000 }, taskTimeout: 5000, onTaskStatus: (t: AnyTask) => void t.status });
  // @ts-expect-error tasks/update is the 2026-07-28 extension's
  await client.updateTask("t", {});
  void task; void listed; void cancelled;
}

export async function legacy(): Promise<void> {
  const client = await McpClient.connect(connector, { revision: "2025-06-18" });
  await client.ping();
  await client.setLoggingLevel("debug");
  await client.subscribeResource({ uri: "file:///a" });
  const subscription = await client.listen({ toolsListChanged: true });
  const none: undefined = subscription.id;
  // @ts-expect-error no subscriptions/listen request is sent before 2026-07-28: no id
  const id: string | number = subscription.id;
  // @ts-expect-error 2025-06-18 has no tasks
  await client.getTask("t");
  // @ts-expect-error nor tasks/cancel
  await client.cancelTask("t");
  // @ts-expect-error a log level is one of RFC 5424's
  await client.setLoggingLevel("verbose");
  void none; void id;
}

export async function either(): Promise<void> {
  const { client } = await connectHttp("http://127.0.0.1:1/mcp");
  await client.ping();
  await client.listen({});
  for await (const page of client.pages("resources/list")) {
    const resources: Resource[] = page.resources;
    void resources;
  }
  const any: AnyTask = await client.getTask("t");
  void any;
  if (client.isModern()) {
    // @ts-expect-error narrowed to 2026-07-28
    await client.ping();
    const narrowed: ModernTask = await client.getTask("t");
    void narrowed;
  }
  const either = await client.listen({});
  // @ts-expect-error a subscription's id is known only once the revision is
  const id: string | number = either.id;
  void id;
  if (client.isLegacy()) {
    const legacy = await client.listen({});
    // @ts-expect-error narrowed to the legacy revisions, whose subscriptions have no id
    const narrowed: string | number = legacy.id;
    void narrowed;
  }
  // @ts-expect-error not a list
  client.pages("tools/call");
}
`,
  });
  assert.deepEqual(errors, []);
});
