/**
 * `check --stdio`'s process group, and the SDKs' HTTP refusals judged alike by tap and check.
 * (A dual-era server that starts late, judged in the revision that opened each process:
 * interop/check-eras.test.ts.)
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { NODE, fixture, scratch, startListening } from "../testkit/interop-harness.js";
import { Linter } from "../lint/lint.js";
import { within } from "../testkit/within.js";
import { checkStdio } from "./check.js";

const V2 = fixture("v2-sdk-server.mjs");

describe("check --stdio: the server's process group", () => {
  test("a helper process the server forked ends with the check", async () => {
    const dir = scratch();
    const pidFile = join(dir.dir, "helper.pid");
    let helper = 0;
    try {
      const args = [fixture("forking-server.mjs"), pidFile, V2, "dual"];
      const r = await within(checkStdio(NODE, args, { revisions: ["2025-11-25"] }), "the check", 60_000);
      assert.equal(r.revisions["2025-11-25"], "ok");
      helper = Number(readFileSync(pidFile, "utf8"));
      assert.ok(helper > 0);
      await within(
        (async () => {
          while (alive(helper)) await new Promise((resolve) => setTimeout(resolve, 50));
        })(),
        "the helper's end",
        10_000,
      );
    } finally {
      if (helper > 0 && alive(helper)) process.kill(helper, "SIGKILL");
      dir.cleanup();
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the SDKs' HTTP refusals, judged alike everywhere", () => {
  test("the official SDK v1's 400 body (id null) on 2025-11-25: tap's judge is silent, as check is", async () => {
    const { proc, url } = await startListening(NODE, [fixture("everything-http.mjs"), "streamable"]);
    try {
      // a request before initialize: the SDK's transport refuses it itself, before any id is read
      const request = { jsonrpc: "2.0", id: 1, method: "tools/list" };
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(request),
      });
      assert.equal(res.status, 400);
      const text = await res.text();
      assert.equal((JSON.parse(text) as { id?: unknown }).id, null, text);
      const linter = new Linter({ revision: "2025-11-25", schema: true });
      const line = (bytes: Buffer, from: "client" | "server", status?: number) =>
        linter.line(
          { bytes, crlf: false, overflow: false, size: bytes.length },
          {
            from,
            conversation: "c",
            http: { method: "POST", path: "/mcp", exchange: 1, ...(status ? { status } : {}) },
          },
        );
      line(Buffer.from(JSON.stringify(request)), "client");
      assert.deepEqual(line(Buffer.from(text), "server", 400).defects, []);
    } finally {
      await proc.stop(1000);
    }
  });
});
