/**
 * Interop: mcp-wire/client's tasks against servers we did not write, beyond what the default
 * suite runs. The official SDK v1 server with its experimental 2025-11-25 tasks (a task store,
 * tools registered with `registerToolTask`) over stdio; server-everything's research task asking
 * for clarification (the task turns `input_required` and asks by elicitation while `tasks/result`
 * waits) over stdio; the same task over Streamable HTTP.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import type { Defect } from "../src/codec/defects.js";
import { AbortedError } from "../src/peer/errors.js";
import { McpClient } from "../src/mcp/client.js";
import { connectHttp } from "../src/mcp/connect-http.js";
import { TaskCancelledError, type AnyTask, type LegacyTask } from "../src/mcp/task-client.js";
import { ChildServer } from "../src/transport/child.js";
import { HttpFixture } from "../src/testkit/http-fixture.js";
import { SERVER_EVERYTHING, within } from "../src/testkit/mcp-interop.js";

const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url));
const text = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text).join("");
const children: ChildServer[] = [];
after(() => Promise.all(children.map((c) => c.shutdown(500))));

function stdio(command: string, args: string[]): ChildServer {
  const child = new ChildServer(command, args, { graceMs: 500 });
  children.push(child);
  return child;
}

const CLARIFY = {
  "elicitation/create": (params: Record<string, unknown>) => {
    assert.match(String(params.message), /interpretations/);
    return { action: "accept", content: { interpretation: "ocean tides" } };
  },
};

describe("McpClient tasks against the SDK v1 server (2025-11-25, stdio)", () => {
  test("completed, failed (a tool error), cancelled by tasks/cancel and by a signal, status notifications, tasks/list", async () => {
    const defects: Defect[] = [];
    const child = stdio(process.execPath, [fixture("v1-sdk-tasks-server.mjs")]);
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
      const notified: AnyTask[] = [];
      client.onTaskStatus((t) => notified.push(t));
      assert.equal(text(await within(client.callTool("compute", {}, { task: true }), "compute")), "computed");
      // listed as requiring a task: run as one unasked; a tool error fails a 2025-11-25 task,
      // and tasks/result gives the tool's result as the call would have
      const failed = await within(client.callTool("fail", {}), "fail");
      assert.equal(failed.isError, true);
      assert.equal(text(failed), "the upstream service refused the job");

      const created = await within(client.callToolTask({ name: "long" }, { ttl: 30_000 }), "start long");
      assert.ok(!("content" in created), JSON.stringify(created));
      const taskId = (created.task as LegacyTask).taskId;
      await within(
        new Promise<void>((resolve) => client.onTaskStatus((t) => t.taskId === taskId && resolve())),
        "a status notification of the long task",
      );
      assert.equal((await within(client.cancelTask(taskId), "tasks/cancel")).status, "cancelled");
      assert.ok(
        (await within(
          client.awaitTask(taskId).catch((e: unknown) => e),
          "awaitTask",
        )) instanceof TaskCancelledError,
      );

      const controller = new AbortController();
      let aborted: string | undefined;
      const e = await within(
        client
          .callTool(
            "long",
            {},
            {
              task: true,
              signal: controller.signal,
              onTaskStatus: (t) => {
                aborted ??= t.taskId;
                controller.abort();
              },
            },
          )
          .catch((error: unknown) => error),
        "long, aborted",
      );
      assert.ok(e instanceof AbortedError, String(e));
      assert.equal((await within(client.getTask(aborted!), "tasks/get")).status, "cancelled");
      assert.deepEqual((await within(client.listTasks(), "tasks/list")).map((t) => t.status).sort(), [
        "cancelled",
        "cancelled",
        "completed",
        "failed",
      ]);
      assert.ok(notified.some((t) => t.status === "completed"));
      assert.deepEqual(defects, []);
    } finally {
      await client.close();
    }
  });
});

describe("McpClient tasks against server-everything", () => {
  test("stdio: a research task that asks for clarification gets it through the elicitation handler", async () => {
    const defects: Defect[] = [];
    const child = stdio(process.execPath, [SERVER_EVERYTHING, "stdio"]);
    const client = await within(
      McpClient.connect(() => child.transport, {
        revision: "2025-11-25",
        tasks: true,
        inputHandlers: CLARIFY,
        onDefect: (r) => defects.push(r.defect),
      }),
      "connect",
    );
    try {
      const seen: string[] = [];
      const report = await within(
        client.callTool(
          "simulate-research-query",
          { topic: "tides", ambiguous: true },
          {
            task: { ttl: 60_000 },
            onTaskStatus: (t) => seen.push(t.status),
          },
        ),
        "the research task",
        30_000,
      );
      assert.match(text(report), /Clarification\*\*: ocean tides/);
      assert.ok(seen.includes("input_required"), seen.join());
      assert.deepEqual(defects, []);
    } finally {
      await client.close();
    }
  });

  test("Streamable HTTP: a research task followed to its report, another cancelled", async () => {
    const server = new HttpFixture(fixture("everything-http.mjs"), ["streamable"]);
    await server.start();
    const defects: Defect[] = [];
    try {
      const { client } = await within(
        // the revision given: the era probe's own findings on this server are not this test's
        connectHttp(server.url("/mcp"), {
          revision: "2025-11-25",
          tasks: true,
          fresh: true,
          onDefect: (r) => defects.push(r.defect),
        }),
        "connect",
      );
      try {
        assert.equal(client.tasksNegotiated, true);
        const research = client.callTool("simulate-research-query", { topic: "tides" }, { task: true });
        const created = await within(
          client.callToolTask({ name: "simulate-research-query", arguments: { topic: "x" } }),
          "start",
        );
        assert.ok(!("content" in created));
        const taskId = (created.task as LegacyTask).taskId;
        await within(client.cancelTask(taskId), "tasks/cancel");
        assert.equal((await within(client.getTask(taskId), "tasks/get")).status, "cancelled");
        assert.match(text(await within(research, "the research task", 30_000)), /Research Report: tides/);
        assert.deepEqual(defects, []);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
