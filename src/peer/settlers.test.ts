import assert from "node:assert/strict";
import { test } from "node:test";
import { settledOn, type Settlers } from "./settlers.js";

function holder<T>(): Settlers<T> {
  return { resolve: () => assert.fail("not bound"), reject: () => assert.fail("not bound") };
}

test("settledOn: the promise is settled through the settlers stored on the holder, each holder its own", async () => {
  const a = holder<number>();
  const b = holder<number>();
  const pa = settledOn(a);
  const pb = settledOn(b);
  b.resolve(2);
  a.resolve(1);
  assert.deepEqual(await Promise.all([pa, pb]), [1, 2]);
  const c = holder<number>();
  const pc = settledOn(c);
  c.reject(new Error("no"));
  await assert.rejects(pc, /no/);
});
