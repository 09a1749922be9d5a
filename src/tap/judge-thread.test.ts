/**
 * The judging thread's backlog is bounded: handed messages faster than it judges them, it stops
 * judging the conversations it could not keep up with (says so once for each), and judges those
 * that begin once it has caught up. What is still being judged when it closes is said to be left
 * out of the report, and a close that waits for the verdicts leaves nothing out.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Line } from "../codec/lines.js";
import { within } from "../testkit/within.js";
import { JudgeThread } from "./judge-thread.js";

function line(text: string): Line {
  const bytes = Buffer.from(text);
  return { bytes, crlf: false, overflow: false, size: bytes.length };
}

const call = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "x", arguments: { pad: "p".repeat(100_000) } },
  });

describe("JudgeThread backlog", () => {
  test("past its byte budget a conversation is judged no further, said once; a conversation begun after it caught up is judged", async () => {
    const told: string[] = [];
    const judge = new JudgeThread({ maxLineBytes: 1 << 20, schema: false }, (why) => told.push(why), 1 << 20);
    try {
      // handed over in one go: no verdict can come back in between, so the backlog only grows
      const verdicts = Array.from({ length: 30 }, (_, i) =>
        judge.judge(line(call(i + 1)), { from: "client", conversation: "a" }),
      );
      const other = judge.judge(line(call(1)), { from: "client", conversation: "b" });
      const settled = await within(Promise.all(verdicts), "the verdicts", 30_000);
      const judged = settled.filter((v) => v !== undefined);
      assert.ok(judged.length >= 5 && judged.length < 30, `${judged.length} of 30 judged`);
      assert.ok(
        judged.every((v) => v!.kind === "request"),
        JSON.stringify(judged[0]),
      );
      // once dropped, never judged again: no answer can look unasked for
      assert.ok(
        settled.slice(judged.length).every((v) => v === undefined),
        "the rest is unjudged",
      );
      // b came while the backlog was still over the budget: left too, and said for itself
      assert.equal(await within(other, "b"), undefined);
      assert.deepEqual(
        told.map((t) => /the rest of conversation (\w) crosses unjudged/.exec(t)?.[1]),
        ["a", "b"],
      );
      assert.equal(await judge.judge(line(call(99)), { from: "client", conversation: "a" }), undefined);
      assert.equal(told.length, 2, "said once per conversation");
      const later = await within(judge.judge(line(call(2)), { from: "client", conversation: "c" }), "c");
      assert.equal(later?.kind, "request", "with the backlog judged, a new conversation is judged again");
    } finally {
      await judge.close();
    }
  });
});

describe("JudgeThread close", () => {
  test("messages still being judged when the tap ends are said to be left out of the report, with their count", async () => {
    const told: string[] = [];
    const judge = new JudgeThread({ maxLineBytes: 1 << 20, schema: false }, (why) => told.push(why));
    // handed over and closed in one go, without waiting: no verdict can have come back
    const verdicts = [1, 2, 3].map((id) => judge.judge(line(call(id)), { from: "client", conversation: "a" }));
    await within(judge.close(0), "the close", 30_000);
    assert.deepEqual(told, ["the tap closed with 3 messages not yet judged: left out of the report"]);
    assert.deepEqual(await within(Promise.all(verdicts), "the verdicts"), [undefined, undefined, undefined]);
  });

  test("a close that waits for the verdicts leaves nothing out and says nothing", async () => {
    const told: string[] = [];
    const judge = new JudgeThread({ maxLineBytes: 1 << 20, schema: false }, (why) => told.push(why));
    const verdicts = [1, 2, 3].map((id) => judge.judge(line(call(id)), { from: "client", conversation: "a" }));
    await within(judge.close(), "the close", 30_000);
    assert.deepEqual(told, []);
    const settled = await within(Promise.all(verdicts), "the verdicts");
    assert.deepEqual(
      settled.map((v) => v?.kind),
      ["request", "request", "request"],
    );
  });
});
