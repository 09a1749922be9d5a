/**
 * Eras kept apart: a dual-era server (the official SDK v2's `serveStdio`) that starts late answers
 * both the `server/discover` a dual-era client sends first and the `initialize` it sends beside
 * it after a second of silence, and serves that process in the legacy revision. `check` and
 * `probe` judge such a process in the revision that opened it, and learn of 2026-07-28 from a
 * fresh process: no false error, whatever the start-up time.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { NODE, fixture, scratch, startListening } from "../testkit/interop-harness.js";
import { Linter } from "../lint/lint.js";
import { within } from "../testkit/within.js";
import { probeStdio } from "../probe/probe.js";
import { checkStdio } from "./check.js";

const V2 = fixture("v2-sdk-server.mjs");

describe("a dual-era server that starts late", () => {
  test("check: its first start takes 1.5 s (as under npx), and not one error: every revision ok, none judged in another's rules", async () => {
    const dir = scratch();
    try {
      const args = [fixture("peers/slow-first-start.mjs"), join(dir.dir, "started"), "1500", V2, "dual"];
      const r = await within(checkStdio(NODE, args), "the check", 90_000);
      assert.equal(r.unchecked, null);
      assert.deepEqual(r.revisions, {
        "2026-07-28": "ok",
        "2025-11-25": "ok",
        "2025-06-18": "ok",
        "2025-03-26": "ok",
        "2024-11-05": "ok",
      });
      const errors = r.findings.filter((f) => f.severity === "error");
      assert.deepEqual(errors, [], errors.map((f) => `${f.id} ${f.revision} ${f.method} ${f.message}`).join("\n"));
      assert.ok(!r.findings.some((f) => f.id === "result_type_missing"), JSON.stringify(r.findings));
      // the SDK's -32603 for a bad cursor is the SDK's to change: info, naming it
      const badParams = r.findings.filter((f) => f.id === "bad_params_not_32602");
      assert.ok(badParams.length > 0);
      for (const f of badParams) {
        assert.equal(f.severity, "info");
        assert.match(f.message, /the official TypeScript MCP SDK/);
      }
    } finally {
      dir.cleanup();
    }
  });

  test("probe: every start takes 1.5 s, and it is ok (modern) on 2026-07-28 with no defect", async () => {
    const args = [fixture("peers/slow-start.mjs"), "1500", V2, "dual"];
    const r = await within(probeStdio(NODE, args, { timeout: 15_000 }), "the probe", 30_000);
    assert.equal(r.class, "ok", JSON.stringify(r.trace));
    assert.equal(r.detail, "modern");
    assert.equal(r.revision, "2026-07-28");
    assert.equal(r.tools, 2);
    assert.deepEqual(r.defects, []);
  });
});

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
