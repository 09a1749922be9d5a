/**
 * A census session on a real SQLite store: a new run records its settings; a picked-up run
 * keeps them unless new ones are given, asks again for headers it was started with, and gets
 * its targets' secrets back from the targets file, or says it cannot.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT } from "./census.js";
import { SecretSafeStore } from "./secret-safe-store.js";
import { SessionRefused, openSession } from "./session.js";
import { SqliteStore } from "./sqlite-store.js";
import { parseTargets } from "./targets.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-session-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `s${++files}.db`);
/** The store as a census process opens it: one that knows no secret but those it is given. */
const storeAt = (file: string) => new SecretSafeStore(new SqliteStore(file));

const list = parseTargets("https://a.example/mcp\nhttps://b.example/mcp?api_key=k-123456\n", "servers.txt");

describe("openSession", () => {
  test("a new run records the settings given and the defaults; a resume keeps them unless given anew", async () => {
    const file = newFile();
    const started = storeAt(file);
    const first = await openSession(started, { given: { perHost: 3 }, headers: {}, list, source: "servers.txt" });
    await started.close();
    assert.equal(first.pickedUp, false);
    assert.deepEqual(first.settings, {
      concurrency: DEFAULT_CONCURRENCY,
      perHost: 3,
      perHostGap: 0,
      timeout: DEFAULT_TIMEOUT,
      allowPrivate: false,
      headers: 0,
    });
    assert.deepEqual(first.run.settings, first.settings);

    const store = storeAt(file);
    const again = await openSession(store, {
      given: { timeout: 500 },
      headers: {},
      list,
      source: "servers.txt",
      pickUp: { verb: "resume" },
    });
    assert.equal(again.pickedUp, true);
    assert.equal(again.run.id, first.run.id);
    assert.deepEqual(again.settings, { ...first.settings, timeout: 500 });
    assert.deepEqual(
      again.targets.map((t) => t.target),
      list.targets.map((t) => t.target),
      "the secret of the second target comes back from the list",
    );
    await store.close();
  });

  test("a picked-up run asks again for its headers and its secrets, and says when there is nothing to pick up", async () => {
    const file = newFile();
    const started = storeAt(file);
    const run = await openSession(started, {
      given: {},
      headers: { Authorization: "Bearer abcdef" },
      list,
      source: "servers.txt",
    });
    await started.close();
    const store = storeAt(file);
    await assert.rejects(
      openSession(store, { given: {}, headers: {}, pickUp: { verb: "resume" } }),
      (e: Error) =>
        e instanceof SessionRefused &&
        /run 1 was started with 1 --header option; give them again to resume it/.test(e.message),
    );

    const headers = { Authorization: "Bearer abcdef" };
    // the file the run came from cannot be read: its one secret target cannot be called
    const unread = openSession(store, {
      given: {},
      headers,
      pickUp: { verb: "resume" },
      reread: async () => "cannot read servers.txt: no such file",
    });
    await assert.rejects(
      unread,
      (e: Error) =>
        e instanceof SessionRefused &&
        /run 1 has 1 target whose secrets are never stored, and servers.txt does not list it/.test(e.message),
    );
    const reread = await openSession(store, {
      given: {},
      headers,
      pickUp: { verb: "resume" },
      reread: async () => list,
    });
    assert.equal(reread.targets[1]!.target, "https://b.example/mcp?api_key=k-123456");

    await store.finishRun(run.run.id);
    await assert.rejects(
      openSession(store, { given: {}, headers, pickUp: { verb: "resume" } }),
      (e: Error) => e instanceof SessionRefused && /^nothing to resume: every run in .* is finished$/.test(e.message),
    );
    await assert.rejects(
      openSession(store, { given: {}, headers, pickUp: { verb: "join", runId: 7 } }),
      (e: Error) => e instanceof SessionRefused && /^no run 7 in .* \(runs: 1\)$/.test(e.message),
    );
    await store.close();
  });
});
