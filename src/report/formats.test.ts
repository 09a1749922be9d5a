import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemoryStore } from "../testkit/memory-store.js";
import { CSV_COLUMNS, renderCsv } from "./csv.js";
import { attempt, fail, ok, rpc, seedCensus } from "../testkit/report-fixtures.js";
import { reportObject } from "./json.js";
import { renderText } from "./text.js";

/** RFC 4180, enough to read back what renderCsv writes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  return rows;
}

describe("report --json", () => {
  test("the stable members docs/report.md names, with the story and tables as data", () => {
    const store = seedCensus();
    const r = JSON.parse(
      JSON.stringify(reportObject(store.aggregate({ runIds: [1] }), { runs: [1], since: null, target: null })),
    );
    assert.deepEqual(Object.keys(r.runs[0]), ["id", "startedAt", "finishedAt", "source", "targets", "attempts"]);
    assert.deepEqual(r.runs[0], {
      id: 1,
      startedAt: "2026-08-20T09:00:00.000Z",
      finishedAt: "2026-08-20T09:00:00.000Z",
      source: "registry.json",
      targets: 1100,
      attempts: 1100,
    });
    assert.deepEqual(r.classes, {
      ok: 1000,
      unreachable: 40,
      timeout: 14,
      auth_required: 13,
      http_error: 12,
      web_page: 9,
      not_jsonrpc: 5,
      rpc_error: 3,
      protocol_violation: 4,
    });
    assert.equal(r.targets.length, 1100);
    const t = r.targets.find((x: { target: string }) => x.target === "https://mcp0000.example.com/mcp");
    assert.deepEqual(Object.keys(t.latest).slice(0, 5), ["class", "detail", "era", "revision", "at"]);
    const {
      class: cls,
      detail,
      era,
      revision,
      at,
      tools,
      httpStatus,
      rpcCode,
      serverName,
      serverVersion,
      defects,
    } = t.latest;
    assert.deepEqual(
      { cls, detail, era, revision, at, tools },
      { cls: "ok", detail: "modern", era: "modern", revision: "2026-07-28", at: "2026-08-20T09:00:00.000Z", tools: 3 },
    );
    assert.deepEqual(
      { httpStatus, rpcCode, serverName, serverVersion, defects },
      { httpStatus: 200, rpcCode: null, serverName: null, serverVersion: null, defects: [] },
    );
    assert.equal(t.attempts, 1);
    assert.match(r.summary[0], /^Called 1,100 servers once each\.$/);
    assert.deepEqual(r.totals, {
      attempts: 1100,
      targets: 1100,
      firstAt: "2026-08-20T09:00:00.000Z",
      lastAt: "2026-08-20T09:18:19.000Z",
    });
    assert.deepEqual(
      r.errorCodes.map((e: { code: number; range: string; count: number }) => [e.code, e.range, e.count]),
      [
        [-32001, "legacy", 3],
        [-32601, "standard", 1],
        [-32602, "standard", 1],
        [-32603, "standard", 1],
      ],
    );
    assert.deepEqual(r.revisions, [
      { era: "modern", revision: "2026-07-28", count: 700 },
      { era: "legacy", revision: "2025-06-18", count: 250 },
      { era: "legacy", revision: "2025-03-26", count: 50 },
    ]);
    assert.equal(
      r.latency.reduce((n: number, b: { count: number }) => n + b.count, 0),
      1100,
    );
  });
});

describe("report --csv", () => {
  test("one row per target: target, attempts, latest class, detail, era, revision, at, tools, HTTP status, elapsed time, server name and version, JSON-RPC code", () => {
    const rows = parseCsv(renderCsv(seedCensus().aggregate()));
    assert.deepEqual(rows[0], [...CSV_COLUMNS]);
    assert.deepEqual(rows[0], [
      "target",
      "attempts",
      "class",
      "detail",
      "era",
      "revision",
      "at",
      "tools",
      "http_status",
      "elapsed_ms",
      "server_name",
      "server_version",
      "rpc_code",
    ]);
    assert.equal(rows.length, 1101);
    assert.deepEqual(rows[1]!.slice(0, 8), [
      "https://mcp0000.example.com/mcp",
      "1",
      "ok",
      "modern",
      "modern",
      "2026-07-28",
      "2026-08-20T09:00:00.000Z",
      "3",
    ]);
    assert.deepEqual([rows[1]![8], rows[1]![10], rows[1]![12]], ["200", "", ""]);
    assert.match(rows[1]![9]!, /^\d+$/);
    const web = rows.find((r) => r[2] === "web_page")!;
    assert.deepEqual(web.slice(1, 8), ["1", "web_page", "text/html", "", "", web[6]!, ""]);
    const refused = rows.find((r) => r[12] === "-32001");
    assert.ok(refused, "a refusal's JSON-RPC code is a column");
  });

  test("quotes what needs quoting, and defuses what a spreadsheet would run", () => {
    const store = new MemoryStore();
    const run = store.startRun("list.txt", [], {});
    store.recordAttempt(
      attempt(run, 'https://x.example/mcp?a=1,b="2"', "2026-08-20T09:00:00Z", ok("legacy", "2025-11-25", 0)),
    );
    store.recordAttempt(
      attempt(run, '=HYPERLINK("http://evil")', "2026-08-20T09:00:01Z", fail("invalid_target", "bad_url")),
    );
    store.recordAttempt(attempt(run, "line\nbreak", "2026-08-20T09:00:02Z", fail("invalid_target", "bad_url")));
    const text = renderCsv(store.aggregate());
    const rows = parseCsv(text);
    assert.equal(rows.length, 4);
    assert.deepEqual(
      rows.map((r) => r.length),
      [13, 13, 13, 13],
    );
    assert.deepEqual(
      rows.map((r) => r[0]),
      ["target", `'=HYPERLINK("http://evil")`, 'https://x.example/mcp?a=1,b="2"', "line\nbreak"],
    );
    assert.equal(rows[2]![7], "0");
  });
});

describe("report as text", () => {
  test("an ok server with an error defect says so beside it, with the code; one without says nothing more", () => {
    const store = new MemoryStore();
    const run = store.startRun("list.txt", [], {});
    const broken = {
      ...ok("modern", "2026-07-28", 2),
      defects: [
        {
          code: "schema_invalid" as const,
          severity: "error" as const,
          path: "/result/tools/0",
          message: "inputSchema missing",
        },
      ],
    };
    store.recordAttempt(attempt(run, "https://broken.example/mcp", "2026-08-20T09:00:00Z", broken));
    store.recordAttempt(
      attempt(run, "https://clean.example/mcp", "2026-08-20T09:00:01Z", ok("modern", "2026-07-28", 2)),
    );
    const text = renderText(store.aggregate(), { width: 100 });
    assert.match(text, /\n {2}https:\/\/broken\.example\/mcp {2}2 tools {2}but one error defect \(schema_invalid\)\n/);
    assert.match(text, /\n {2}https:\/\/clean\.example\/mcp {2}2 tools\n/);
  });

  test("the story, the tables and each target under its verdict, with the advice once a group", () => {
    const text = renderText(seedCensus().aggregate(), { width: 100 });
    assert.match(
      text,
      /^Census run 1 \(registry\.json\), 20 August 2026 09:00 UTC\n\nCalled 1,100 servers once each\./,
    );
    assert.match(
      text,
      /\nClasses\n {2}class +attempts +share +in plain words\n {2}ok +1,000 +90\.9% +answered, tools listed\n/,
    );
    assert.match(text, /\nRevisions spoken\n {2}revision +era +answered +share\n {2}2026-07-28 +modern +700 +70\.0%\n/);
    assert.match(
      text,
      /\n {2}-32001 +legacy +Implementation-defined +3 +auth_required\/rpc_error_instead_of_401 +"invalid api key", "Authentication failed", "Unauthorized"\n/,
    );
    assert.match(text, /\n✗ unreachable \(dns\): 25\n {4}The host name does not resolve\./);
    assert.equal(text.match(/The host name does not resolve/g)?.length, 1);
    assert.match(text, /\n✓ ok \(modern, 2026-07-28\): 700\n {2}https:\/\/mcp0000\.example\.com\/mcp {2}3 tools\n/);
  });

  test("what a server wrote cannot drive the terminal", () => {
    const store = new MemoryStore();
    const run = store.startRun("list.txt", [], {});
    store.recordAttempt(
      attempt(
        run,
        "https://x.example/\x1b[2J",
        "2026-08-20T09:00:00Z",
        rpc("rpc_error", "other", 12, "\x1b]0;pwned\x07\u009b31m"),
      ),
    );
    const text = renderText(store.aggregate());
    assert.doesNotMatch(text, /[\x1b\x07\u009b]/);
    assert.match(text, /https:\/\/x\.example\/\\u001b\[2J/);
  });
});
