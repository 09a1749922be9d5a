import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemoryStore } from "../testkit/memory-store.js";
import { attempt, surfaceOf } from "../testkit/store-contract.js";
import { changesOf, renderChanges } from "./changes.js";

const A = "https://a.example/mcp";
const B = "https://b.example/mcp";
const echo = {
  name: "echo",
  description: "Echoes",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
};
const add = { name: "add", inputSchema: { type: "object" } };

function history(): MemoryStore {
  const store = new MemoryStore();
  const run = () => store.startRun("t", [], {});
  const r1 = run();
  store.recordAttempt(
    attempt(r1, A, "2026-12-01T07:00:00.000Z", { surface: surfaceOf([echo, add], { prompts: ["greet"] }) }),
  );
  store.recordAttempt(attempt(r1, B, "2026-12-01T07:00:01.000Z", { surface: surfaceOf([echo]) }));
  const r2 = run();
  // A goes down: no surface, and its tools are not "removed"
  store.recordAttempt(
    attempt(r2, A, "2026-12-02T07:03:00.000Z", {
      class: "unreachable",
      detail: "refused",
      era: null,
      revision: null,
      tools: null,
      surface: null,
    }),
  );
  store.recordAttempt(
    attempt(r2, B, "2026-12-02T07:03:01.000Z", {
      revision: "2025-11-25",
      era: "legacy",
      detail: "legacy",
      surface: surfaceOf([echo]),
    }),
  );
  const r3 = run();
  // A comes back with echo redefined (its description), add gone, search new, a prompt renamed
  store.recordAttempt(
    attempt(r3, A, "2026-12-03T07:03:00.000Z", {
      surface: surfaceOf(
        [
          { ...echo, description: "Says it back" },
          { name: "search", inputSchema: { type: "object" } },
        ],
        { prompts: ["hello"] },
      ),
    }),
  );
  store.recordAttempt(
    attempt(r3, B, "2026-12-03T07:03:01.000Z", {
      revision: "2025-11-25",
      era: "legacy",
      detail: "legacy",
      surface: surfaceOf([echo]),
    }),
  );
  return store;
}

describe("report --changes", () => {
  test("class transitions, revision changes and surface drift per target, a surface compared with the last one listed", async () => {
    const all = await changesOf(history().asStore(), { since: "2026-11-01T00:00:00.000Z" });
    assert.deepEqual(
      all.map((t) => [t.target, t.attempts]),
      [
        [A, 3],
        [B, 3],
      ],
    );
    const [a, b] = all;
    assert.deepEqual(a!.changes, [
      {
        kind: "class",
        at: "2026-12-02T07:03:00.000Z",
        from: "ok",
        to: "unreachable",
        fromDetail: "modern",
        toDetail: "refused",
      },
      {
        kind: "class",
        at: "2026-12-03T07:03:00.000Z",
        from: "unreachable",
        to: "ok",
        fromDetail: "refused",
        toDetail: "modern",
      },
      {
        kind: "surface",
        at: "2026-12-03T07:03:00.000Z",
        tools: { added: ["search"], removed: ["add"], redefined: [{ name: "echo", changed: ["description"] }] },
        resources: { added: [], removed: [] },
        resourceTemplates: { added: [], removed: [] },
        prompts: { added: ["hello"], removed: ["greet"] },
      },
    ]);
    assert.deepEqual(b!.changes, [
      { kind: "revision", at: "2026-12-02T07:03:01.000Z", from: "2026-07-28", to: "2025-11-25" },
    ]);
  });

  test("the same tools in another order or key order are no change; a window with one attempt per target has none", async () => {
    const store = new MemoryStore();
    const r1 = store.startRun("t", [], {});
    store.recordAttempt(attempt(r1, A, "2026-12-01T07:00:00.000Z", { surface: surfaceOf([echo, add]) }));
    const r2 = store.startRun("t", [], {});
    const shuffled = {
      inputSchema: { properties: { text: { type: "string" } }, type: "object" },
      description: "Echoes",
      name: "echo",
    };
    store.recordAttempt(attempt(r2, A, "2026-12-02T07:00:00.000Z", { surface: surfaceOf([add, shuffled]) }));
    assert.deepEqual((await changesOf(store.asStore(), {}))[0]!.changes, []);
    assert.deepEqual((await changesOf(store.asStore(), { runIds: [2] }))[0]!.changes, []);
  });

  test("as text: one line a change under each target that changed, the others counted", async () => {
    const all = await changesOf(history().asStore(), { since: "2026-11-01T00:00:00.000Z" });
    assert.equal(
      renderChanges(all, "2026-11-03T00:00:00.000Z"),
      [
        "Since 3 November 2026: 2 targets with 6 attempts; 2 changed.",
        "",
        A,
        "  2 December 07:03  ok → unreachable (refused)",
        "  3 December 07:03  unreachable → ok (modern)",
        "  3 December 07:03  tools: + search; − add; ~ echo (description) · prompts: + hello; − greet",
        "",
        B,
        "  2 December 07:03  revision 2026-07-28 → 2025-11-25",
        "",
      ].join("\n"),
    );
  });
});
