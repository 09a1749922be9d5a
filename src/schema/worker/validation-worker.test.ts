/**
 * The validation thread: it judges as `validate` does, a message past its budget is reported as
 * not judged and the thread behind it replaced, and closing it leaves nothing running.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { within } from "../../testkit/within.js";
import { validate, type ValidateOptions } from "../validate.js";
import { ValidationWorker } from "./validation-worker.js";

const CALL: ValidateOptions = { revision: "2025-11-25", method: "tools/call" };

/** About 3 MB of content blocks that match no branch of the content union: linear, but ~0.7 s to judge. */
function hostile(id: number): string {
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":[${"{},".repeat(1_000_000)}{}]}}`;
}

describe("ValidationWorker", () => {
  test("judges bytes and strings as validate() does, in the order they were given", async () => {
    const worker = new ValidationWorker();
    try {
      const cases: [string, ValidateOptions][] = [
        ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { revision: "2025-11-25" }],
        ['{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}', CALL],
        ['\uFEFF{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{}}', { revision: "2025-06-18" }],
        ['[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2}]', { revision: "2025-03-26" }],
      ];
      const verdicts = await within(
        Promise.all(cases.map(([text, opts], i) => worker.validate(i % 2 ? text : Buffer.from(text), opts))),
        "the verdicts",
        60_000,
      );
      cases.forEach(([text, opts], i) => {
        assert.deepEqual(verdicts[i], validate(JSON.parse(text.replace(/^\uFEFF/, "")), opts), text);
      });
      assert.deepEqual(verdicts[0], []);
      assert.ok(verdicts[1]!.some((d) => d.code === "schema_invalid"));
    } finally {
      await worker.close();
    }
  });

  test("a message past the budget is not judged; the thread is ended and a new one judges the next", async () => {
    const worker = new ValidationWorker({ budgetMs: 150 });
    try {
      const broken = '{"jsonrpc":"2.0","id":3,"result":{"content":[{}]}}';
      const [slow, next] = await within(
        Promise.all([worker.validate(Buffer.from(hostile(2)), CALL), worker.validate(broken, CALL)]),
        "both verdicts",
        60_000,
      );
      assert.deepEqual(
        slow.map((d) => [d.code, d.severity]),
        [["schema_not_judged", "info"]],
      );
      assert.match(slow[0]!.message, /ran past the 150 ms budget/);
      assert.deepEqual(next, validate(JSON.parse(broken), CALL));
      assert.equal(worker.pending, 0);
    } finally {
      await worker.close();
    }
  });

  test("closing reports what still waits as not judged, and a closed worker judges nothing", async () => {
    const worker = new ValidationWorker();
    const waiting = worker.validate(hostile(4), CALL);
    await worker.close();
    const [d] = await within(waiting, "the waiting verdict");
    assert.equal(d?.code, "schema_not_judged");
    assert.match(d!.message, /ended before it was judged/);
    const [after] = await worker.validate('{"jsonrpc":"2.0","id":1,"method":"ping"}', { revision: "2025-11-25" });
    assert.equal(after?.code, "schema_not_judged");
  });
});
