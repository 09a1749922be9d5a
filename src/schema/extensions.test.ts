import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { UnknownRevisionError, type Revision } from "../rules/revisions.js";
import { validate } from "./validate.js";

// the messages of the tasks extension's own text (SEP-2663), on 2026-07-28
const REV = "2026-07-28";
const task = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:50:00Z",
  ttlMs: 60000,
  pollIntervalMs: 5000,
};
const answer = (result: unknown) => ({ jsonrpc: "2.0", id: 1, result });
const call = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 1, method, params });
const seen = (defects: { path: string; definition?: string; keyword?: string }[]) =>
  defects.map((d) => [d.path, d.definition, d.keyword]);

describe("validate: the tasks extension's official schema (ext-tasks)", () => {
  test("sound task results and task methods are clean", () => {
    const sound: [unknown, string | undefined][] = [
      [answer({ resultType: "task", ...task }), "tools/call"],
      [answer({ resultType: "task", ...task }), undefined],
      [answer({ resultType: "complete", ...task }), "tasks/get"],
      [
        answer({
          resultType: "complete",
          ...task,
          status: "completed",
          result: { content: [{ type: "text", text: "Hello" }], isError: false },
        }),
        "tasks/get",
      ],
      [answer({ resultType: "complete", ...task, status: "failed", error: { code: -32603, message: "boom" } }), "tasks/get"],
      [answer({ resultType: "complete" }), "tasks/cancel"],
      [answer({ resultType: "complete" }), "tasks/update"],
      [call("tasks/get", { taskId: task.taskId }), undefined],
      [call("tasks/cancel", { taskId: task.taskId }), undefined],
      [call("tasks/update", { taskId: task.taskId, inputResponses: {} }), undefined],
      [{ jsonrpc: "2.0", method: "notifications/tasks", params: { ...task, status: "cancelled" } }, undefined],
    ];
    for (const [message, method] of sound) {
      assert.deepEqual(validate(message, method ? { revision: REV, method } : { revision: REV }), [], JSON.stringify(message));
    }
  });

  test("broken ones are schema_invalid against the extension's definitions", () => {
    const { ttlMs: _t, ...noTtl } = task;
    assert.deepEqual(seen(validate(answer({ resultType: "task", ...noTtl }), { revision: REV, method: "tools/call" })), [
      ["/result", "CreateTaskResult", "required"],
    ]);
    assert.deepEqual(seen(validate(answer({ resultType: "task", ...task, status: "sleeping" }), { revision: REV })).map((d) => d[1]), [
      "CreateTaskResult",
    ]);
    // a completed task carries its result
    const completed = validate(answer({ resultType: "complete", ...task, status: "completed" }), { revision: REV, method: "tasks/get" });
    assert.ok(completed.length > 0 && completed.every((d) => d.definition === "GetTaskResult"), JSON.stringify(completed));
    // the acknowledgement of tasks/cancel must say complete
    assert.deepEqual(seen(validate(answer({}), { revision: REV, method: "tasks/cancel" })).map((d) => d[1]), ["CancelTaskResult"]);
    assert.deepEqual(seen(validate(call("tasks/get", {}), { revision: REV })), [["/params", "GetTaskRequest", "required"]]);
    const note = validate({ jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: 5 } }, { revision: REV });
    assert.ok(note.length > 0 && note.every((d) => d.definition === "TaskStatusNotification"), JSON.stringify(note));
  });

  test("2025-11-25's experimental tasks are held to that revision's own definitions", () => {
    const t = { taskId: "t1", status: "working", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: 60000 };
    const opts = (method?: string) => (method ? { revision: "2025-11-25" as const, method } : { revision: "2025-11-25" as const });
    assert.deepEqual(validate(answer(t), opts("tasks/get")), []);
    assert.deepEqual(validate(answer({ tasks: [t] }), opts("tasks/list")), []);
    assert.deepEqual(validate(answer(t), opts("tasks/cancel")), []);
    assert.deepEqual(validate({ jsonrpc: "2.0", method: "notifications/tasks/status", params: t }, opts()), []);
    assert.deepEqual(seen(validate(call("tasks/result", {}), opts())), [["/params", "GetTaskPayloadRequest", "required"]]);
    // the 2026-07-28 shape is not 2025-11-25's
    assert.deepEqual(seen(validate(answer({ tasks: [{ ...t, ttl: undefined }] }), opts("tasks/list"))).map((d) => d[1]), [
      "ListTasksResult",
    ]);
  });
});

describe("validate: what it could not judge", () => {
  test("an unknown revision throws UnknownRevisionError (ERR_MCP_WIRE_UNKNOWN_REVISION), not a file error", () => {
    for (const revision of ["2099-01-01", "toString", "../2025-11-25", ""]) {
      assert.throws(
        () => validate(answer({}), { revision: revision as Revision }),
        (e: unknown) => e instanceof UnknownRevisionError && e.code === "ERR_MCP_WIRE_UNKNOWN_REVISION" && e.revision === revision,
      );
    }
  });

  test("a result judged without its method says so (info), and a result with it does not", () => {
    const [only] = validate(answer({ tools: [] }), { revision: "2025-06-18" });
    assert.equal(only?.code, "schema_envelope_only");
    assert.equal(only?.severity, "info");
    assert.deepEqual(validate(answer({ tools: [] }), { revision: "2025-06-18", method: "tools/list" }), []);
  });
});
