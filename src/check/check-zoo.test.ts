/**
 * `check` against the zoo: a server healthy but for one planted fault per check, over HTTP and
 * stdio, in both eras. Each case asserts the finding, its severity, the exit status under each
 * `--fail-on`, and that nothing was called, read or got without being asked for. The healthy
 * zoo gives no finding at all.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { exitStatus } from "../cli/check.js";
import { startSigninServer } from "../fleet/signin.js";
import { startZoo, type RunningZoo, type ZooFault } from "../testkit/zoo-server.js";
import type { Severity } from "../codec/defects.js";
import type { Revision } from "../rules/revisions.js";
import { checkHttp, checkStdio, type CheckOptions } from "./check.js";
import type { CheckReport } from "./types.js";

const ZOO = fileURLToPath(new URL("../testkit/zoo-server.js", import.meta.url));
const SIDE_EFFECTS = ["tools/call", "resources/read", "prompts/get"];
const CALLS: CheckOptions["optIns"] = {
  calls: [
    { name: "echo", args: { text: "hi" } },
    { name: "add", args: { a: 1, b: 2 } },
  ],
};

interface Case {
  fault: ZooFault;
  id: string;
  /** The severity of its findings; a function where it depends on the revision. */
  severity: Severity | ((revision: Revision) => Severity);
  /** The revisions the finding must occur in (others must not have it). */
  revisions: readonly Revision[];
  options?: CheckOptions;
}

const ALL: readonly Revision[] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const LEGACY: readonly Revision[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const STREAMABLE_LEGACY: readonly Revision[] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/** Faults a server can have over either transport. */
const SERVER_CASES: readonly Case[] = [
  { fault: "schema-invalid", id: "schema_invalid", severity: "error", revisions: ALL },
  { fault: "pagination-loop", id: "pagination_cursor_repeated", severity: "error", revisions: ALL },
  { fault: "pagination-stuck", id: "pagination_not_advancing", severity: "error", revisions: ALL },
  { fault: "empty-cursor", id: "pagination_empty_cursor", severity: "warning", revisions: LEGACY },
  { fault: "unknown-method-code", id: "unknown_method_not_32601", severity: "error", revisions: ALL },
  { fault: "undefined-code", id: "error_code_undefined_mcp", severity: "error", revisions: ["2026-07-28"] },
  { fault: "bad-params-result", id: "bad_params_not_32602", severity: "warning", revisions: ALL },
  { fault: "ping-error", id: "ping_failed", severity: "error", revisions: LEGACY },
  { fault: "set-level-error", id: "logging_set_level_failed", severity: "error", revisions: LEGACY },
  // a MUST on 2026-07-28; before, a declared capability promises the list without a MUST of its own
  {
    fault: "list-error",
    id: "list_failed",
    severity: (r) => (r === "2026-07-28" ? "error" : "warning"),
    revisions: ALL,
  },
  { fault: "input-schema-not-object", id: "tool_input_schema_not_object", severity: "error", revisions: ALL },
  { fault: "input-schema-invalid", id: "tool_schema_invalid", severity: "error", revisions: ALL },
  { fault: "tool-name", id: "tool_name_format", severity: "warning", revisions: ["2026-07-28", "2025-11-25"] },
  { fault: "no-content", id: "tool_result_no_content", severity: "error", revisions: ALL, options: { optIns: CALLS } },
  {
    fault: "resource-32002",
    id: "error_code_retired",
    severity: "error",
    revisions: ["2026-07-28"],
    options: { optIns: { reads: ["zoo://missing"] } },
  },
  {
    fault: "structured-invalid",
    id: "tool_structured_content_invalid",
    severity: "error",
    revisions: ["2026-07-28", "2025-11-25", "2025-06-18"],
    options: { optIns: CALLS },
  },
];

/** Faults only Streamable HTTP can carry. */
const HTTP_CASES: readonly Case[] = [
  { fault: "text-plain", id: "http_content_type", severity: "error", revisions: ["2026-07-28", ...STREAMABLE_LEGACY] },
  { fault: "notification-200", id: "http_notification_not_202", severity: "error", revisions: STREAMABLE_LEGACY },
  { fault: "session-400", id: "http_unknown_session_not_404", severity: "error", revisions: STREAMABLE_LEGACY },
  { fault: "no-header-check", id: "http_header_mismatch", severity: "error", revisions: ["2026-07-28"] },
  { fault: "version-200", id: "http_unsupported_version", severity: "error", revisions: ["2026-07-28"] },
  { fault: "unknown-200", id: "http_unknown_method_not_404", severity: "error", revisions: ["2026-07-28"] },
  { fault: "modern-only-get", id: "http_get_delete_not_405", severity: "warning", revisions: ["2026-07-28"] },
  {
    fault: "accept-json-refused",
    id: "http_accept_json_only_refused",
    severity: "info",
    revisions: ["2026-07-28", ...STREAMABLE_LEGACY],
  },
];

/** The finding's presence and severity, where it must be and nowhere else, and the exit status under each --fail-on. */
function assertCase(report: CheckReport, c: Case): void {
  const found = report.findings.filter((f) => f.id === c.id);
  assert.deepEqual(
    [...new Set(found.flatMap((f) => f.revisions))].sort(),
    [...c.revisions].sort(),
    `${c.fault}: ${c.id} in ${JSON.stringify(report.findings.map((f) => `${f.id} ${f.revisions.join(",")}`))}`,
  );
  // one finding per problem: the same rule, subject, method and pointer is never reported twice
  const keys = report.findings.map((f) => JSON.stringify([f.id, f.subject, f.method, f.subjectPath, f.message]));
  assert.equal(new Set(keys).size, keys.length, `${c.fault}: one finding per problem`);
  for (const f of found) {
    const severity = typeof c.severity === "function" ? c.severity(f.revision!) : c.severity;
    assert.equal(f.severity, severity, `${c.fault}: ${f.id} severity`);
    assert.ok(
      f.message.length > 0 && f.fix.length > 0 && f.spec.startsWith("https://"),
      `${c.fault}: a finding says what, how to fix, and where the rule is`,
    );
  }
  assert.equal(report.unchecked, null);
  const has = (s: Severity) => report.findings.some((f) => f.severity === s);
  assert.equal(exitStatus(report, "error"), has("error") ? 1 : 0, `${c.fault}: --fail-on error`);
  assert.equal(exitStatus(report, "warning"), has("error") || has("warning") ? 1 : 0, `${c.fault}: --fail-on warning`);
  assert.equal(exitStatus(report, "never"), 0, `${c.fault}: --fail-on never`);
}

describe("check over HTTP: the zoo", () => {
  let zoo: RunningZoo;
  before(async () => {
    zoo = await startZoo();
  });
  after(() => zoo.close());

  test("the healthy zoo: every revision ok, no finding, exit 0 under every --fail-on, nothing called", async () => {
    const r = await checkHttp(zoo.url("healthy"));
    assert.deepEqual(r.revisions, {
      "2026-07-28": "ok",
      "2025-11-25": "ok",
      "2025-06-18": "ok",
      "2025-03-26": "ok",
      "2024-11-05": "ok",
    });
    assert.deepEqual(r.findings, []);
    assert.ok(r.checked.messages > 20 && r.checked.pages >= 10, JSON.stringify(r.checked));
    for (const failOn of ["error", "warning", "never"] as const) assert.equal(exitStatus(r, failOn), 0);
    assert.deepEqual(
      zoo.asked("healthy").filter((m) => SIDE_EFFECTS.includes(m)),
      [],
    );
    assert.ok(
      r.ran.some((x) => x.id === "http_header_mismatch" && x.revision === "2026-07-28"),
      "the checks that ran are listed, passed or not",
    );
  });

  test("a 2026-07-28-only server answering GET and DELETE with 405: no finding, the legacy revisions refused", async () => {
    const r = await checkHttp(zoo.url("modern-only"));
    assert.deepEqual(r.findings, []);
    assert.equal(r.revisions["2026-07-28"], "ok");
    for (const rev of LEGACY) assert.notEqual(r.revisions[rev], "ok");
  });

  for (const c of [...SERVER_CASES, ...HTTP_CASES]) {
    test(`${c.fault}: ${c.id} (${c.severity})`, async () => {
      const r = await checkHttp(zoo.url(c.fault), c.options ?? {});
      assertCase(r, c);
      const called = zoo.asked(c.fault).filter((m) => SIDE_EFFECTS.includes(m));
      const named = [
        ...(c.options?.optIns?.calls?.length ? ["tools/call"] : []),
        ...(c.options?.optIns?.reads?.length ? ["resources/read"] : []),
      ];
      assert.deepEqual([...new Set(called)], named, "only what --call and --read name is called or read");
    });
  }

  test("--read and --get read and get what they name, and their answers are validated", async () => {
    const r = await checkHttp(zoo.url("healthy"), {
      revisions: ["2025-11-25", "2026-07-28"],
      optIns: { reads: ["zoo://readme"], gets: [{ name: "greet", args: {} }] },
    });
    assert.deepEqual(r.findings, []);
    const asked = zoo.asked("healthy");
    assert.ok(asked.includes("resources/read") && asked.includes("prompts/get"));
    assert.ok(!asked.includes("tools/call"));
  });

  test("each --call, --read and --get is reported; a name the server does not list is call_target_unknown, never sent", async () => {
    const r = await checkHttp(zoo.url("healthy"), {
      revisions: ["2025-11-25"],
      optIns: {
        calls: [
          { name: "echo", args: { text: "hi" } },
          { name: "nope", args: {} },
        ],
        gets: [{ name: "nope", args: {} }],
        reads: ["zoo://readme"],
      },
    });
    assert.deepEqual(
      r.findings.map((f) => [f.id, f.severity, f.subject, f.method]),
      [
        ["call_target_unknown", "error", "tool:nope", "tools/call"],
        ["call_target_unknown", "error", "prompt:nope", "prompts/get"],
      ],
    );
    assert.deepEqual(
      (r.calls ?? []).map((c) => [c.kind, c.name, c.revision, c.outcome]),
      [
        ["call", "echo", "2025-11-25", "ok"],
        ["call", "nope", "2025-11-25", "not listed"],
        ["read", "zoo://readme", "2025-11-25", "ok"],
        ["get", "nope", "2025-11-25", "not listed"],
      ],
    );
    assert.ok((r.calls ?? []).every((c) => c.elapsedMs >= 0 && c.elapsedMs < 60_000));
    assert.equal(exitStatus(r, "error"), 1);
  });

  test("a list that never ends is followed to the cap of 1,000 pages, and no further", async () => {
    const r = await checkHttp(zoo.url("pagination-endless"), { revisions: ["2025-06-18"] });
    assertCase(r, {
      fault: "pagination-endless",
      id: "pagination_page_cap",
      severity: "warning",
      revisions: ["2025-06-18"],
    });
    assert.equal(
      zoo.asked("pagination-endless").filter((m) => m === "tools/list").length,
      1001,
      "1,000 pages, then the malformed-cursor request",
    );
  });

  test("a request left unanswered: request_unanswered, and the pass goes on to the next revision", async () => {
    const r = await checkHttp(zoo.url("ping-silent"), { revisions: ["2025-06-18", "2026-07-28"], timeout: 800 });
    assertCase(r, { fault: "ping-silent", id: "request_unanswered", severity: "error", revisions: ["2025-06-18"] });
    assert.equal(r.findings.find((f) => f.id === "request_unanswered")!.method, "ping");
    assert.equal(r.revisions["2026-07-28"], "ok");
  });

  test("-r checks only the revisions named; --only and --skip choose the checks", async () => {
    const r = await checkHttp(zoo.url("ping-error"), { revisions: ["2025-03-26"], skip: ["ping_failed"] });
    assert.deepEqual(Object.keys(r.revisions), ["2025-03-26"]);
    assert.deepEqual(r.findings, []);
    const only = await checkHttp(zoo.url("text-plain"), { revisions: ["2025-11-25"], only: ["ping_failed"] });
    assert.deepEqual(only.findings, [], "http_content_type was not asked for");
    assert.deepEqual([...new Set(only.ran.map((x) => x.id))], ["ping_failed"]);
  });

  test("a server that wants credentials it was not given: unchecked (exit 3), the sign-in walk's verdict kept", async () => {
    const r = await checkHttp(zoo.url("auth-no-challenge"));
    assert.equal(r.unchecked?.class, "auth_required");
    assert.equal(r.revisions["2026-07-28"], "failed");
    assert.equal(
      r.revisions["2024-11-05"],
      "skipped",
      "a refusal for credentials is not asked again in every revision",
    );
    for (const failOn of ["error", "warning", "never"] as const) assert.equal(exitStatus(r, failOn), 3);
  });

  test("a broken sign-in chain: unchecked (exit 3), each defect of the walk a finding", async () => {
    const signin = await startSigninServer();
    try {
      const r = await checkHttp(signin.url("signin-metadata-invalid"));
      assert.equal(r.unchecked?.class, "auth_required");
      const found = r.findings.find((f) => f.id === "resource_metadata_invalid");
      assert.ok(found, JSON.stringify(r.findings));
      assert.equal(found.severity, "error");
      assert.equal(exitStatus(r, "never"), 3);
      assert.ok(!signin.requests.some((q) => q.kind === "register"), "nothing is registered");
    } finally {
      await signin.close();
    }
  });

  test("a secret in the URL or a header never appears in the report", async () => {
    const r = await checkHttp(`${zoo.url("text-plain")}?api_key=zoo-secret-1234`, {
      revisions: ["2025-11-25"],
      headers: { "X-Api-Key": "zoo-secret-5678" },
    });
    assert.ok(r.findings.length > 0);
    const text = JSON.stringify(r);
    assert.ok(!text.includes("zoo-secret-1234") && !text.includes("zoo-secret-5678"), text);
    assert.match(r.target, /api_key=(<redacted>|%3Credacted%3E)/);
  });

  test("-r naming only revisions the server does not speak: unchecked, with what it speaks instead", async () => {
    const r = await checkHttp(zoo.url("modern-only"), { revisions: ["2025-06-18"] });
    assert.notEqual(r.revisions["2025-06-18"], "ok");
    assert.deepEqual([r.unchecked?.class, r.unchecked?.detail], ["rpc_error", "unsupported_version"]);
    assert.match(r.unchecked!.message, /2026-07-28/);
    assert.equal(exitStatus(r, "never"), 3);
  });

  test("nothing listening: unchecked, unreachable, exit 3", async () => {
    const r = await checkHttp("http://127.0.0.1:1/mcp");
    assert.equal(r.unchecked?.class, "unreachable");
    assert.equal(exitStatus(r, "never"), 3);
  });
});

// a server process each, and most of the time spent waiting for one: side by side
describe("check over stdio: the zoo", { concurrency: true }, () => {
  const stdio = (fault: ZooFault, options: CheckOptions = {}) => checkStdio(process.execPath, [ZOO, fault], options);

  test("the healthy zoo: every revision ok, no finding", async () => {
    const r = await stdio("healthy", { optIns: CALLS });
    assert.deepEqual(r.revisions, {
      "2026-07-28": "ok",
      "2025-11-25": "ok",
      "2025-06-18": "ok",
      "2025-03-26": "ok",
      "2024-11-05": "ok",
    });
    assert.deepEqual(r.findings, []);
    assert.ok(r.ran.some((x) => x.id === "stdio_exit_slow"));
  });

  test("a log line on stdout: stdout_not_jsonrpc, an error, once per revision", async () => {
    const r = await stdio("log-line", { revisions: ["2026-07-28", "2025-06-18"] });
    assertCase(r, {
      fault: "log-line",
      id: "stdout_not_jsonrpc",
      severity: "error",
      revisions: ["2026-07-28", "2025-06-18"],
    });
    assert.ok(!r.findings.some((f) => f.id === "parse_error"), "the log line is said once");
  });

  test("a server fault is found over stdio as over HTTP (an undefined code in MCP's range)", async () => {
    const r = await stdio("undefined-code", { revisions: ["2026-07-28", "2025-11-25"] });
    assert.ok(
      r.findings.some(
        (f) => f.id === "error_code_undefined_mcp" && f.revisions.includes("2026-07-28") && f.severity === "error",
      ),
    );
    assert.ok(r.findings.some((f) => f.id === "unknown_method_not_32601" && f.revisions.includes("2025-11-25")));
  });

  test("a server still running past the exit wait once its input closed: stdio_exit_slow, a warning; it is ended anyway", async () => {
    // the wait is 5 s by default; a second shows the same
    const r = await stdio("slow-exit", { revisions: ["2025-11-25"], exitWaitMs: 1000 });
    assertCase(r, { fault: "slow-exit", id: "stdio_exit_slow", severity: "warning", revisions: ["2025-11-25"] });
  });

  test("a server that never answers: unchecked (timeout) after one detection, not one wait per revision", async () => {
    const hang = fileURLToPath(new URL("../fleet/stdio-server.js", import.meta.url));
    const spawned: number[] = [];
    const r = await checkStdio(process.execPath, [hang, "hang"], {
      timeout: 1500,
      exitWaitMs: 300,
      onSpawn: (c) => spawned.push(c.pid!),
    });
    assert.equal(r.unchecked?.class, "timeout");
    assert.equal(exitStatus(r, "error"), 3);
    assert.deepEqual(Object.values(r.revisions), ["failed", "failed", "skipped", "skipped", "skipped"]);
    assert.equal(spawned.length, 1);
    assert.ok(
      r.findings.some((f) => f.id === "stdio_exit_slow"),
      "it ignores its input's end too",
    );
    assert.throws(() => process.kill(spawned[0]!, 0), /ESRCH/, "and it was ended");
  });

  test("a command that cannot start: unchecked, unreachable (spawn), exit 3", async () => {
    const r = await checkStdio("/nonexistent/mcp-wire-no-such-server", []);
    assert.equal(r.unchecked?.class, "unreachable");
    assert.equal(exitStatus(r, "error"), 3);
  });
});
