import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Revision } from "../rules/revisions.js";
import { Conversation, type Sender } from "./conversation.js";
import { decode } from "./decode.js";
import type { Defect, DefectCode } from "./defects.js";
import { ALL, LEGACY, MODERN, assertDefectShape, json, request, result } from "../testkit/codec.js";

/** Feeds `[sender, message]` pairs through decode and the checker; returns each step's defects. */
function run(revision: Revision, steps: [Sender, unknown][], remember?: number): Defect[][] {
  const c = new Conversation(remember === undefined ? { revision } : { revision, remember });
  return steps.map(([from, m]) => {
    const text = typeof m === "string" ? m : json(m);
    const found = c.observe(decode(text, { revision, role: from }), from);
    for (const d of found) assertDefectShape(d);
    return found;
  });
}

const codesOf = (steps: Defect[][]) => steps.map((s) => s.map((d) => d.code));
const flat = (steps: Defect[][]): DefectCode[] => steps.flat().map((d) => d.code);
const note = (method = "notifications/initialized") => ({ jsonrpc: "2.0", method });
const error = (id: unknown, code = -32603) =>
  id === undefined
    ? { jsonrpc: "2.0", error: { code, message: "x" } }
    : { jsonrpc: "2.0", id, error: { code, message: "x" } };

describe("Conversation", () => {
  test("a clean exchange raises nothing, on every revision", () => {
    for (const rev of ALL) {
      const steps = run(rev, [
        ["client", request(rev, 1)],
        ["server", result(rev, 1)],
        ["client", note()],
        ["client", request(rev, 2)],
        ["client", request(rev, "2")],
        ["server", error(2)],
        ["server", result(rev, "2")],
        ["server", { jsonrpc: "2.0", id: 1, method: "roots/list" }],
        ["client", result(rev, 1)],
      ]);
      assert.deepEqual(flat(steps), [], `${rev}: ${JSON.stringify(codesOf(steps))}`);
    }
  });

  test("id_reused_in_flight: on every revision", () => {
    for (const rev of ALL) {
      const steps = run(rev, [
        ["client", request(rev, 1, "tools/list")],
        ["client", request(rev, 1, "tools/call")],
      ]);
      assert.deepEqual(codesOf(steps), [[], ["id_reused_in_flight"]]);
      assert.equal(steps[1]![0]!.path, "/id");
      assert.match(steps[1]![0]!.message, /"tools\/list"/);
    }
  });

  test("id_reused_in_session: legacy revisions only; on 2026-07-28 an answered id may return", () => {
    const steps = (rev: Revision) =>
      run(rev, [
        ["client", request(rev, 1)],
        ["server", result(rev, 1)],
        ["client", request(rev, 1)],
        ["server", result(rev, 1)],
      ]);
    for (const rev of LEGACY) assert.deepEqual(codesOf(steps(rev)), [[], [], ["id_reused_in_session"], []]);
    assert.deepEqual(codesOf(steps(MODERN)), [[], [], [], []]);
    // even on 2026-07-28, reusing an id still awaiting its answer is not allowed
    assert.deepEqual(
      flat(
        run(MODERN, [
          ["client", request(MODERN, 1)],
          ["client", request(MODERN, 1)],
        ]),
      ),
      ["id_reused_in_flight"],
    );
  });

  test("ids belong to their sender: both sides may use the same id", () => {
    for (const rev of LEGACY) {
      const steps = run(rev, [
        ["client", request(rev, 1)],
        ["server", { jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: {} }],
        ["client", result(rev, 1)],
        ["server", result(rev, 1)],
      ]);
      assert.deepEqual(flat(steps), []);
    }
  });

  test('ids are compared by value and type: 5 and "5" are different ids', () => {
    for (const rev of ALL) {
      const steps = run(rev, [
        ["client", request(rev, 5)],
        ["server", result(rev, "5")],
      ]);
      assert.deepEqual(codesOf(steps), [[], ["unknown_response_id"]]);
      assert.match(steps[1]![0]!.message, /ids must match in type too/);
      const other = run(rev, [
        ["client", request(rev, "5")],
        ["server", result(rev, 5)],
      ]);
      assert.deepEqual(codesOf(other), [[], ["unknown_response_id"]]);
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", request(rev, 5)],
            ["client", request(rev, "5")],
          ]),
        ),
        [],
      );
    }
  });

  test("unknown_response_id: an answer to nothing, or with no id after no notification", () => {
    for (const rev of ALL) {
      const steps = run(rev, [["server", result(rev, 9)]]);
      assert.deepEqual(codesOf(steps), [["unknown_response_id"]]);
      assert.equal(steps[0]![0]!.path, "/id");
      // an answer to the server's own request is not an answer to the client's
      assert.deepEqual(
        flat(
          run(rev, [
            ["server", { jsonrpc: "2.0", id: 3, method: "ping" }],
            ["server", result(rev, 3)],
          ]),
        ),
        ["unknown_response_id"],
      );
    }
    assert.deepEqual(
      flat(
        run("2025-11-25", [
          ["client", request("2025-11-25", 1)],
          ["server", error(undefined)],
        ]),
      ),
      ["unknown_response_id"],
    );
  });

  test("duplicate_response: a second answer to the same request", () => {
    for (const rev of ALL) {
      const steps = run(rev, [
        ["client", request(rev, 1)],
        ["server", result(rev, 1)],
        ["server", error(1)],
      ]);
      assert.deepEqual(codesOf(steps), [[], [], ["duplicate_response"]]);
      assert.equal(steps[2]![0]!.path, "/id");
    }
  });

  test("response_to_notification: a null or absent-id response right after a notification", () => {
    for (const rev of ALL) {
      const afterNote = run(rev, [
        ["client", note()],
        ["server", error(null, -32601)],
      ]);
      assert.deepEqual(codesOf(afterNote), [[], ["response_to_notification"]]);
      assert.equal(afterNote[1]![0]!.path, "");
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["server", error(undefined, -32603)],
          ]),
        ),
        ["response_to_notification"],
      );
      // a result is how most peers wrongly answer: its null or missing id is a defect of its own
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["server", { jsonrpc: "2.0", id: null, result: {} }],
          ]),
        ),
        ["response_to_notification"],
      );
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["server", { jsonrpc: "2.0", result: {} }],
          ]),
        ),
        ["response_to_notification"],
      );
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["server", { jsonrpc: "2.0", id: null, error: null }],
          ]),
        ),
        ["response_to_notification"],
      );
      // an answer that carries a real id is judged by that id
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["server", result(rev, 4)],
          ]),
        ),
        ["unknown_response_id"],
      );
      // a request between them: the stray answer is unknown, not a reply to the notification
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", note()],
            ["client", request(rev, 1)],
            ["server", error(null, -32601)],
          ]),
        ),
        ["unknown_response_id"],
      );
    }
  });

  test("-32700 and -32600 with no id answer an unreadable request: nothing is raised", () => {
    for (const rev of ALL) {
      for (const code of [-32700, -32600]) {
        assert.deepEqual(
          flat(
            run(rev, [
              ["client", note()],
              ["server", error(null, code)],
            ]),
          ),
          [],
        );
        assert.deepEqual(
          flat(
            run(rev, [
              ["client", "{not json"],
              ["server", error(null, code)],
            ]),
          ),
          [],
        );
        assert.deepEqual(flat(run(rev, [["server", error(undefined, code)]])), []);
      }
    }
  });

  test("a response with a null or absent id and no notification before it answers no request", () => {
    for (const rev of ALL) {
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", request(rev, 1)],
            ["server", { jsonrpc: "2.0", id: null, result: {} }],
          ]),
        ),
        ["unknown_response_id"],
      );
      assert.deepEqual(flat(run(rev, [["server", error(null, -32601)]])), ["unknown_response_id"]);
    }
  });

  test("broken messages still take part when their id and shape can be read", () => {
    // a request with array params is answered like any other
    const rev = "2025-06-18";
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", { jsonrpc: "2.0", id: 1, method: "x", params: [] }],
          ["server", result(rev, 1)],
        ]),
      ),
      [],
    );
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", { jsonrpc: "2.0", id: 1, method: "x", params: [] }],
          ["client", request(rev, 1)],
        ]),
      ),
      ["id_reused_in_flight"],
    );
    // an unreadable id is not followed
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", { jsonrpc: "2.0", id: 1.5, method: "x" }],
          ["server", result(rev, 1)],
        ]),
      ),
      ["unknown_response_id"],
    );
  });

  test("batches: each member asks and answers, even where batches are forbidden", () => {
    for (const rev of ["2025-03-26", "2025-06-18"] as const) {
      const steps = run(rev, [
        ["client", [request(rev, 1), request(rev, 2), note()]],
        ["server", [result(rev, 2), result(rev, 1)]],
        ["server", [result(rev, 1)]],
      ]);
      assert.deepEqual(codesOf(steps), [[], [], ["duplicate_response"]]);
      assert.equal(steps[2]![0]!.path, "/0/id");
      const reuse = run(rev, [["client", [request(rev, 1), request(rev, 1)]]]);
      assert.deepEqual(codesOf(reuse), [["id_reused_in_flight"]]);
      assert.equal(reuse[0]![0]!.path, "/1/id");
    }
  });

  test("remember bounds the memory: the oldest ids are forgotten", () => {
    const rev = "2025-06-18";
    const steps: [Sender, unknown][] = [];
    for (let id = 1; id <= 10; id++) steps.push(["client", request(rev, id)]);
    steps.push(["client", request(rev, 10)]); // still remembered: in flight
    steps.push(["client", request(rev, 1)]); // forgotten: no defect
    steps.push(["server", result(rev, 2)]); // forgotten: looks like a stranger
    const found = codesOf(run(rev, steps, 3));
    assert.deepEqual(found.slice(10), [["id_reused_in_flight"], [], ["unknown_response_id"]]);
    // with the default memory all of them are known
    const full = codesOf(run(rev, steps));
    assert.deepEqual(full.slice(10), [["id_reused_in_flight"], ["id_reused_in_flight"], []]);
  });

  test("remember bounds the session's used ids too", () => {
    const rev = "2024-11-05";
    const steps: [Sender, unknown][] = [];
    for (let id = 1; id <= 5; id++) steps.push(["client", request(rev, id)], ["server", result(rev, id)]);
    steps.push(["client", request(rev, 5)], ["client", request(rev, 1)]);
    assert.deepEqual(codesOf(run(rev, steps, 2)).slice(10), [["id_reused_in_session"], []]);
    assert.deepEqual(codesOf(run(rev, steps)).slice(10), [["id_reused_in_session"], ["id_reused_in_session"]]);
  });

  test("the revision can be learned part-way", () => {
    const c = new Conversation({ revision: "2025-06-18" });
    const see = (m: unknown, from: Sender) =>
      c.observe(decode(json(m), { revision: c.revision, role: from }), from).map((d) => d.code);
    assert.deepEqual(see(request("2025-06-18", 1), "client"), []);
    assert.deepEqual(see(result("2025-06-18", 1), "server"), []);
    c.revision = MODERN;
    assert.equal(c.revision, MODERN);
    assert.deepEqual(see(request(MODERN, 1), "client"), []); // no session on 2026-07-28
  });

  test("an error without an id is a warning at most: answering nothing, a notification, or (over HTTP) the requests its exchange sent", () => {
    for (const rev of ALL) {
      const stray = run(rev, [
        ["client", request(rev, 1)],
        ["server", error(null, -32000)],
      ]);
      assert.deepEqual(
        stray.flat().map((d) => [d.code, d.severity]),
        [["unknown_response_id", "warning"]],
      );
      const toNote = run(rev, [
        ["client", note()],
        ["server", error(undefined, -32601)],
      ]);
      assert.deepEqual(
        toNote.flat().map((d) => [d.code, d.severity]),
        [["response_to_notification", "warning"]],
      );
      // a result with no id is still an error
      assert.deepEqual(
        run(rev, [["server", { jsonrpc: "2.0", id: null, result: {} }]])
          .flat()
          .map((d) => d.severity),
        ["error"],
      );
    }
    // told what the exchange sent, the error settles it: the id is free again, and no answer is stray
    const c = new Conversation({ revision: "2025-11-25" });
    const see = (m: unknown, from: Sender, answers?: number[]) =>
      c
        .observe(decode(json(m), { revision: "2025-11-25", role: from }), from, answers ? { answers } : {})
        .map((d) => d.code);
    assert.deepEqual(see(request("2025-11-25", 1), "client"), []);
    assert.deepEqual(see(error(null, -32000), "server", [1]), []);
    assert.deepEqual(see(result("2025-11-25", 1), "server"), ["duplicate_response"]);
  });

  test("response_after_cancel: a warning for an answer to a request its sender cancelled; the cancelled id is no longer in flight", () => {
    const cancel = (requestId: number) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId, reason: "x" },
    });
    for (const rev of LEGACY) {
      const steps = run(rev, [
        ["client", request(rev, 1)],
        ["client", cancel(1)],
        ["server", result(rev, 1)],
      ]);
      assert.deepEqual(
        steps.flat().map((d) => [d.code, d.severity]),
        [["response_after_cancel", "warning"]],
      );
      // cancelled and never answered, as the spec asks: nothing to report
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", request(rev, 1)],
            ["client", cancel(1)],
            ["client", request(rev, 2)],
            ["server", result(rev, 2)],
          ]),
        ),
        [],
      );
      // a cancellation of the other side's request, or of nothing, changes nothing
      assert.deepEqual(
        flat(
          run(rev, [
            ["client", request(rev, 1)],
            ["server", cancel(1)],
            ["server", result(rev, 1)],
          ]),
        ),
        [],
      );
    }
    // 2026-07-28 forbids only ids in flight: once cancelled, the id may be used again
    assert.deepEqual(
      flat(
        run(MODERN, [
          ["client", request(MODERN, 1)],
          ["client", cancel(1)],
          ["client", request(MODERN, 1)],
          ["server", result(MODERN, 1)],
        ]),
      ),
      [],
    );
  });

  test("initialize_version_not_latest: a server that lists a newer version than the one it chose for an unsupported request", () => {
    const init = (id: number, protocolVersion: string) => ({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    const chosen = (id: number, protocolVersion: string) => ({
      jsonrpc: "2.0",
      id,
      result: { protocolVersion, capabilities: {}, serverInfo: { name: "s", version: "1" } },
    });
    const discover = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "server/discover",
      params: {
        _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} },
      },
    });
    const listed = (id: number, supportedVersions: string[]) => ({
      jsonrpc: "2.0",
      id,
      result: { resultType: "complete", supportedVersions, capabilities: {}, serverInfo: { name: "s", version: "1" } },
    });
    const unsupported = (id: number, supported: string[]) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested: MODERN } },
    });
    const rev = "2025-03-26";
    const found = run(rev, [
      ["client", discover(0)],
      ["server", listed(0, ["2026-07-28", "2025-11-25", "2025-03-26"])],
      ["client", init(1, "2099-01-01")],
      ["server", chosen(1, "2025-03-26")],
    ]);
    assert.deepEqual(
      found.flat().map((d) => [d.code, d.severity, d.path]),
      [["initialize_version_not_latest", "warning", "/result/protocolVersion"]],
    );
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", discover(0)],
          ["server", unsupported(0, ["2025-11-25", "2024-11-05"])],
          ["client", init(1, "2099-01-01")],
          ["server", chosen(1, "2024-11-05")],
        ]),
      ),
      ["initialize_version_not_latest"],
    );
    // the version asked for, when the server speaks it, is the right answer even if it lists newer ones
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", discover(0)],
          ["server", listed(0, ["2025-11-25", "2025-03-26"])],
          ["client", init(1, "2025-03-26")],
          ["server", chosen(1, "2025-03-26")],
        ]),
      ),
      [],
    );
    // its latest legacy version is the latest an initialize can be answered with
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", discover(0)],
          ["server", listed(0, ["2026-07-28", "2025-11-25"])],
          ["client", init(1, "2099-01-01")],
          ["server", chosen(1, "2025-11-25")],
        ]),
      ),
      [],
    );
    // nothing listed elsewhere: nothing to compare with
    assert.deepEqual(
      flat(
        run(rev, [
          ["client", init(1, "2099-01-01")],
          ["server", chosen(1, "2024-11-05")],
        ]),
      ),
      [],
    );
  });
});
