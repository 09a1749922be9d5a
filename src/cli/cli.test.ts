import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
const SAMPLES = fileURLToPath(new URL("../../../samples/", import.meta.url));

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { input, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("mcp-wire lint", () => {
  test("a clean capture exits 0 with a summary", () => {
    const r = run(
      ["lint", "--revision", "2025-11-25", "-"],
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n',
    );
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^2 messages: 2 clean, 0 with warnings, 0 with errors — revision 2025-11-25 \(as given\)$/m);
  });

  test("an error defect exits 1 and is printed with its line, path and message", () => {
    const r = run(["lint", "--revision", "2025-11-25"], '{"jsonrpc":"2.0","id":null,"method":"tools/list"}\n');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /line 1: invalid\n\s+error\s+id_null at \/id: id is null/);
  });

  test("a member name holding terminal and CI control sequences is printed escaped, never raw", () => {
    const key = "x\u001b]0;owned\u0007\r\n::error::x\n::add-mask::x";
    const r = run(
      ["lint", "--revision", "2025-11-25"],
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", [key]: 1 })}\n`,
    );
    assert.match(r.stdout, /unexpected_member at \/x\\u001b\]0;owned\\u0007\\u000d\\u000a::error::x/);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(r.stdout), "no control character reaches the terminal");
    assert.ok(!/^::/m.test(r.stdout), "no line a CI log reads as a workflow command");
  });

  test("warnings alone exit 0", () => {
    const w = run(
      ["lint", "--revision", "2025-11-25"],
      '{"jsonrpc":"2.0","id":1,"method":"x"}\n{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"invalid api key"}}\n',
    );
    assert.equal(w.status, 0);
    assert.match(w.stdout, /error_code_legacy/);
    assert.match(w.stdout, /2 messages: 1 clean, 1 with warnings, 0 with errors/);
  });

  test("--json prints one object per input line, blank lines included", () => {
    const r = run(
      ["lint", "--json", "--revision", "2025-03-26"],
      '{"jsonrpc":"2.0","method":"a"}\n\n[{"jsonrpc":"2.0","id":1,"method":"b"}]\nnot json\n',
    );
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.line, l.kind]),
      [
        [1, "notification"],
        [2, "blank"],
        [3, "batch"],
        [4, "invalid"],
      ],
    );
    assert.equal(lines[3].defects[0].code, "parse_error");
    assert.equal(r.status, 1);
    assert.match(r.stderr, /3 messages/);
  });

  test("reads a file, and detects the revision from initialize", () => {
    const r = run(["lint", `${SAMPLES}legacy-session.ndjson`]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /revision 2025-11-25 \(from the initialize request\)/);
    assert.match(r.stdout, /1 line ended in \\r\\n/);
  });

  test("usage errors exit 2: unknown revision, unreadable file, unknown command", () => {
    assert.equal(run(["lint", "--revision", "2099-01-01", "-"], "").status, 2);
    const missing = run(["lint", "/nonexistent/capture.ndjson"]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read \/nonexistent\/capture.ndjson: no such file/);
    assert.doesNotMatch(missing.stderr, /at .*\.js:\d+/, "no stack trace");
    assert.equal(run(["frobnicate"]).status, 2);
  });

  test("an over-long line is reported and the lines after it still linted", () => {
    const big = '{"jsonrpc":"2.0","method":"x","params":{"a":"' + "x".repeat(5 * 1024 * 1024) + '"}}';
    const r = run(["lint", "--json", "--revision", "2025-11-25"], big + '\n{"jsonrpc":"2.0","method":"y"}\n');
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].defects[0].code, "too_large");
    assert.equal(lines[1].kind, "notification");
  });
});

describe("the bundled samples", () => {
  // `demo` prints only their summaries; the defects themselves are checked here
  test("show the defects they were written to show", () => {
    const out = ["legacy-session.ndjson", "modern-requests.ndjson"]
      .map((f) => run(["lint", `${SAMPLES}${f}`]).stdout)
      .join("\n");
    assert.match(out, /revision 2025-11-25 \(from the initialize request\)/);
    assert.match(out, /revision 2026-07-28 \(from the _meta\)/);
    for (const code of [
      "no_envelope",
      "bare_array",
      "id_null",
      "batch_not_allowed",
      "result_type_missing",
      "error_code_retired",
      "response_to_notification",
    ]) {
      assert.match(out, new RegExp(code));
    }
  });
});
