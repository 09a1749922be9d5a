/**
 * A PostgreSQL store whose server goes away after it was opened: shut down (connections cut,
 * new ones refused) or frozen (SIGSTOP: connections open, no answer ever). Each call then fails
 * as StoreUnreachable, within the store's deadline, and closing the store does not hang; what
 * was committed before is there when the server is back. A server of its own, since these tests
 * stop it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { A, B, TARGETS, attempt } from "../../testkit/store-contract.js";
import { StoreUnreachable, collect } from "../store.js";
import { startPostgres, type TestPostgres } from "../../testkit/postgres.js";
import { PostgresStore } from "./store.js";

let server: TestPostgres;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

const isUnreachable = (e: unknown) =>
  e instanceof StoreUnreachable && e.code === "ERR_MCP_WIRE_STORE_UNREACHABLE" && !e.message.includes(server.password);

describe("a PostgreSQL store whose server goes away", () => {
  test("shut down: every call fails as StoreUnreachable; what was committed is there once the server is back", async () => {
    const url = await server.database("halted");
    const store = await PostgresStore.open(url);
    const run = await store.startRun("t", TARGETS, {});
    await store.recordAttempt(attempt(run, A, "2026-08-01T00:00:00.000Z"));
    const worker = await store.share(run, { leaseMs: 30_000, label: "w" });
    await server.halt();
    try {
      await assert.rejects(store.recordAttempt(attempt(run, B, "2026-08-01T00:00:01.000Z")), isUnreachable);
      await assert.rejects(store.pendingTargets(run), isUnreachable);
      await assert.rejects(worker.claim(5, 1), isUnreachable);
      await assert.rejects(worker.leave(), isUnreachable);
      await store.close();
    } finally {
      await server.restart();
    }
    const again = await PostgresStore.open(url);
    assert.deepEqual(
      (await collect(again.attempts())).map((a) => a.target),
      [A],
    );
    await again.close();
  });

  test("frozen: a call fails as StoreUnreachable once its deadline passes, and closing cuts the connections", async () => {
    const url = await server.database("frozen");
    const store = await PostgresStore.open(url, { deadlineMs: 1_000 });
    const run = await store.startRun("t", TARGETS, {});
    const worker = await store.share(run, { leaseMs: 30_000, label: "w" });
    server.freeze();
    try {
      await assert.rejects(store.recordAttempt(attempt(run, A, "2026-08-01T00:00:00.000Z")), isUnreachable);
      await assert.rejects(worker.claim(5, 1), isUnreachable);
      await assert.rejects(worker.leave(), isUnreachable);
      await store.close();
    } finally {
      server.thaw();
    }
    // the attempt that timed out was never committed: its target is still to do
    const again = await PostgresStore.open(url);
    assert.deepEqual(
      (await again.pendingTargets(run)).map((t) => t.target),
      TARGETS.map((t) => t.target),
    );
    await again.close();
  });
});
