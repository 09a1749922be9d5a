/**
 * The client's side of tasks, against real peers: our McpServer (the features server, over stdio
 * as a process and over Streamable HTTP on loopback) in both wire forms — 2025-11-25's
 * experimental tasks and the 2026-07-28 extension — and server-everything over stdio (its
 * `simulate-research-query` tool must run as a task). A call followed to its result, a failed
 * task, cancels (`tasks/cancel`, an AbortSignal, a deadline), status notifications, input a task
 * asks for, and what is refused before anything is sent. No defect on any of it: a negotiated
 * `resultType: "task"` is a sound answer.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Defect } from "../codec/defects.js";
import { AbortedError, ResponseError, TimeoutError } from "../peer/errors.js";
import type { Revision } from "../rules/revisions.js";
import { ChildServer } from "../transport/child.js";
import { createHttpHandler } from "../transport/http/server.js";
import { createFeaturesServer } from "../testkit/features-server.js";
import { SERVER_EVERYTHING, within } from "../testkit/mcp-interop.js";
import { McpClient, type ClientOptions } from "./client.js";
import { connectHttp } from "./connect-http.js";
import { MethodNotInRevisionError } from "./methods.js";
import { TaskCancelledError, TasksNotNegotiatedError, type AnyTask, type LegacyTask } from "./task-client.js";

const FEATURES = fileURLToPath(new URL("../testkit/features-server.js", import.meta.url));
const ELICITED = { action: "accept", content: { go: true } };

let http: Server;
let url: string;
const children: ChildServer[] = [];
before(async () => {
  http = createServer(createHttpHandler(createFeaturesServer()).node);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
after(async () => {
  await Promise.all(children.map((c) => c.shutdown(500)));
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

async function open<R extends Revision>(transport: "stdio" | "http", revision: R, extra: ClientOptions<R> = {}) {
  const defects: Defect[] = [];
  const options: ClientOptions<R> = {
    revision,
    tasks: true,
    inputHandlers: { "elicitation/create": () => ELICITED },
    onDefect: (r) => defects.push(r.defect),
    ...extra,
  };
  if (transport === "http") {
    const { client } = await within(connectHttp(url, { ...options, fresh: true }), "connect over HTTP");
    return { client, defects };
  }
  const child = new ChildServer(process.execPath, [FEATURES], { graceMs: 500 });
  children.push(child);
  return {
    client: await within(
      McpClient.connect(() => child.transport, options),
      "connect over stdio",
    ),
    defects,
  };
}

const text = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text).join("");
/** The rejection of `p`, which must reject. */
const rejection = (p: Promise<unknown>, what: string) =>
  within(
    p.then(
      () => assert.fail(`${what} resolved`),
      (e: unknown) => e as Error,
    ),
    what,
  );

for (const transport of ["stdio", "http"] as const) {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    describe(`McpClient tasks, McpServer over ${transport}, ${revision}`, () => {
      test("a call as a task is followed to its result; a failed task is the call's error; input a task asks for is given", async () => {
        const { client, defects } = await open(transport, revision);
        try {
          assert.equal(client.tasksNegotiated, true);
          const seen: AnyTask[] = [];
          const done = await within(
            client.callTool("compute", {}, { task: true, onTaskStatus: (t) => seen.push(t) }),
            "compute as a task",
          );
          assert.equal(text(done), "computed");
          assert.equal(seen[0]!.status, "working");
          assert.equal(seen.at(-1)!.status, "completed");
          assert.ok(seen.every((t) => t.taskId === seen[0]!.taskId));

          const failed = await rejection(client.callTool("fail", {}, { task: true }), "fail as a task");
          assert.ok(failed instanceof ResponseError, String(failed));
          assert.equal(failed.code, -32603);
          assert.equal(failed.message, "the upstream service refused the job");
          assert.deepEqual(failed.data, { retryAfter: 60 });

          // a tool's own error is its result; 2025-11-25 calls such a task failed, the extension completed
          const statuses: AnyTask[] = [];
          const refused = await within(
            client.callTool("refuse", {}, { task: true, onTaskStatus: (t) => statuses.push(t) }),
            "refuse as a task",
          );
          assert.equal(refused.isError, true);
          assert.equal(text(refused), "no such city");
          assert.equal(statuses.at(-1)!.status, revision === "2025-11-25" ? "failed" : "completed");

          // 2026-07-28 through tasks/update, 2025-11-25 by the task's own request in the session
          assert.equal(
            text(await within(client.callTool("confirm", {}, { task: true }), "confirm")),
            "confirmed accept",
          );
          if (revision === "2026-07-28") {
            // the server decides: a plain call it makes a task is followed all the same
            assert.equal(text(await within(client.callTool("compute", {}), "a plain call")), "computed");
          } else {
            // a tool listed as requiring a task runs as one unasked
            await within(client.listTools(), "tools/list");
            const e = await rejection(client.callTool("fail", {}), "fail, listed as required");
            assert.equal((e as ResponseError).code, -32603);
          }
          assert.deepEqual(defects, []);
        } finally {
          await client.close();
        }
      });

      test("cancelled by tasks/cancel, by an AbortSignal, by its deadline; status notifications", async () => {
        const { client, defects } = await open(transport, revision);
        try {
          const created = await within(client.callToolTask({ name: "long" }), "start long");
          const taskId = "task" in created ? (created.task as LegacyTask).taskId : String(created.taskId);
          const notified = new Promise<AnyTask>((resolve) =>
            client.onTaskStatus((t) => {
              if (t.taskId === taskId && t.statusMessage?.startsWith("step")) resolve(t);
            }),
          );
          // 2026-07-28 sends them only on a listen stream that names the task
          const stream = client.isModern() ? await within(client.listen({ taskIds: [taskId] }), "listen") : undefined;
          if (stream) assert.deepEqual(stream.notifications.taskIds, [taskId]);
          assert.equal((await within(notified, "a status notification")).status, "working");
          stream?.close();
          const cancelled = await within(client.cancelTask(taskId), "tasks/cancel");
          if (revision === "2025-11-25") assert.equal((cancelled as LegacyTask).status, "cancelled");
          assert.equal((await within(client.getTask(taskId), "tasks/get")).status, "cancelled");
          const ended = await rejection(client.awaitTask(taskId), "awaitTask");
          assert.ok(ended instanceof TaskCancelledError, String(ended));
          assert.equal(ended.taskId, taskId);

          const controller = new AbortController();
          let aborted: string | undefined;
          const call = client.callTool(
            "long",
            {},
            {
              task: true,
              signal: controller.signal,
              onTaskStatus: (t) => {
                aborted ??= t.taskId;
                controller.abort(new Error("the user left"));
              },
            },
          );
          const e = await rejection(call, "long, aborted");
          assert.ok(e instanceof AbortedError, String(e));
          assert.match(e.message, /the user left/);
          // the server was told: tasks/cancel went before the rejection
          assert.equal((await within(client.getTask(aborted!), "tasks/get")).status, "cancelled");

          let timedOut: string | undefined;
          const late = await rejection(
            client.callTool("long", {}, { task: true, taskTimeout: 150, onTaskStatus: (t) => (timedOut ??= t.taskId) }),
            "long, past its deadline",
          );
          assert.ok(late instanceof TimeoutError, String(late));
          assert.equal(late.timeoutMs, 150);
          assert.equal((await within(client.getTask(timedOut!), "tasks/get")).status, "cancelled");
          if (revision === "2025-11-25" && client.isLegacy())
            assert.ok((await within(client.listTasks(), "tasks/list")).length >= 3);
          assert.deepEqual(defects, []);
        } finally {
          await client.close();
        }
      });
    });
  }
}

describe("what is refused before anything is sent", () => {
  test("tasks not declared by the client; methods the revision lacks; a ttl 2026-07-28 cannot carry", async () => {
    for (const revision of ["2025-11-25", "2026-07-28"] as const) {
      const plain = await open("http", revision, { tasks: false });
      try {
        assert.equal(plain.client.tasksNegotiated, false);
        for (const p of [plain.client.callTool("compute", {}, { task: true }), plain.client.getTask("t")]) {
          const e = await rejection(p, "a task method");
          assert.ok(e instanceof TasksNotNegotiatedError, String(e));
          assert.equal(e.reason, "client");
        }
        // undeclared, the server answers with the tool's result itself
        assert.equal(text(await within(plain.client.callTool("compute", {}), "compute")), "computed");
        if (plain.client.isModern()) {
          const e = await rejection(plain.client.listen({ taskIds: ["t"] }), "listen for a task's status");
          assert.ok(e instanceof TasksNotNegotiatedError && e.reason === "client", String(e));
        }
      } finally {
        await plain.client.close();
      }
    }
    const modern = (await open("http", "2026-07-28")).client as McpClient;
    const legacy = (await open("http", "2025-11-25")).client as McpClient;
    try {
      for (const p of [modern.getTaskResult("t"), modern.listTasks(), legacy.updateTask("t", {})]) {
        const e = await rejection(p, "a method of another revision");
        assert.ok(e instanceof MethodNotInRevisionError, String(e));
      }
      const ttl = await rejection(modern.callTool("compute", {}, { task: { ttl: 1000 } }), "a ttl on 2026-07-28");
      assert.ok(ttl instanceof TasksNotNegotiatedError && ttl.reason === "revision", String(ttl));
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});

describe("McpClient tasks, server-everything over stdio (2025-11-25)", () => {
  test("its task tool followed to its report with status notifications; a task cancelled; a tool that forbids tasks refused", async () => {
    const child = new ChildServer(process.execPath, [SERVER_EVERYTHING, "stdio"], { graceMs: 500 });
    children.push(child);
    const defects: Defect[] = [];
    const client = await within(
      McpClient.connect(() => child.transport, {
        revision: "2025-11-25",
        tasks: true,
        onDefect: (r) => defects.push(r.defect),
      }),
      "connect",
    );
    try {
      assert.equal(client.tasksNegotiated, true);
      await within(client.listTools(), "tools/list");
      const notified: string[] = [];
      client.onTaskStatus((t) => notified.push(t.status));
      const polled: AnyTask[] = [];
      // listed with execution.taskSupport "required": run as a task unasked, polled at its pollInterval
      const research = client.callTool(
        "simulate-research-query",
        { topic: "tides" },
        { onTaskStatus: (t) => polled.push(t) },
      );

      const created = await within(
        client.callToolTask({ name: "simulate-research-query", arguments: { topic: "x" } }),
        "start",
      );
      assert.ok("task" in created, JSON.stringify(created));
      const taskId = (created.task as LegacyTask).taskId;
      assert.equal((await within(client.cancelTask(taskId), "tasks/cancel")).status, "cancelled");
      const ended = await rejection(client.awaitTask(taskId), "awaitTask of a cancelled task");
      assert.ok(ended instanceof TaskCancelledError, String(ended));
      const forbidden = await rejection(client.callTool("echo", { message: "x" }, { task: true }), "echo as a task");
      assert.ok(forbidden instanceof TasksNotNegotiatedError && forbidden.reason === "tool", String(forbidden));

      const report = await within(research, "the research task", 20_000);
      assert.match(text(report), /Research Report: tides/);
      assert.equal(polled.at(-1)!.status, "completed");
      assert.ok(polled.every((t) => (t as LegacyTask).pollInterval === 1000));
      assert.ok(notified.includes("completed"), notified.join());
      assert.ok((await within(client.listTasks(), "tasks/list")).length >= 2);
      assert.deepEqual(defects, []);
    } finally {
      await client.close();
    }
  });
});
