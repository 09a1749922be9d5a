/**
 * `mcp-wire tap -- <command>` as a real process between a test playing the client and a fixture
 * server: the bytes each way are exactly what was written, each defect is reported at its line
 * and direction, the `--log` file re-linted gives the same defects, and the session ends as the
 * stdio transport says (exit code, stdin closing, signals).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { TapProcess, fixture, liveDefects, lintJson, until, within, messageRecords } from "../testkit/tap.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-tap-"));
const taps: TapProcess[] = [];
function tap(args: readonly string[]): TapProcess {
  const t = new TapProcess(args);
  taps.push(t);
  return t;
}

after(() => {
  for (const t of taps) t.kill();
  rmSync(dir, { recursive: true, force: true });
});

const j = (v: unknown) => JSON.stringify(v);

describe("tap: the pass-through", () => {
  test("every byte each way arrives unchanged and in order: odd chunks, CRLF, non-JSON, invalid UTF-8, an over-long line", async () => {
    const fromServer = Buffer.concat([
      Buffer.from(
        j({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "héllo ✓" } }) + "\n",
      ),
      Buffer.from('{"jsonrpc":"2.0","method":"a"}\r\n'),
      Buffer.from("not JSON at all\n\n   \n"),
      Buffer.from([0x7b, 0xff, 0xfe, 0xc0, 0xaf, 0x00, 0x7d, 0x0a]),
      Buffer.from("x".repeat(5 * 1024 * 1024) + "\n"),
      Buffer.from('{"jsonrpc":"2.0","method":"no newline at the end"}'),
    ]);
    const blob = join(dir, "blob.bin");
    writeFileSync(blob, fromServer);
    const t = tap(["--", process.execPath, fixture("raw-echo-server.mjs"), blob, "7"]);
    await until(() => t.stdout.length >= fromServer.length, "the server's bytes");
    const fromClient = [
      Buffer.from('{"jsonrpc":"2.0",'),
      Buffer.from('"id":1,"method":"ping"}\r\n{"jsonrpc"'),
      Buffer.from([0x3a, 0xe2, 0x82]),
      Buffer.from([0xac, 0xff, 0x0a, 0x0a]),
      Buffer.from("tail without newline"),
    ];
    for (const chunk of fromClient) await t.write(chunk);
    const expected = Buffer.concat([fromServer, ...fromClient]);
    await until(() => t.stdout.length >= expected.length, "the echo of the client's bytes");
    const exit = await t.end();
    assert.equal(exit.code, 7, `the server's exit code; stderr:\n${t.stderr}`);
    assert.ok(
      t.stdout.equals(expected),
      `${t.stdout.length} bytes out, ${expected.length} expected; first difference at ${firstDifference(t.stdout, expected)}`,
    );
    assert.match(t.stderr, /^raw-echo: ready$/m, "the server's stderr passes through");
    const codes = new Set(liveDefects(t.stderr).map((d) => `${d.from} ${d.code}`));
    for (const expect of ["server parse_error", "server invalid_utf8", "server too_large", "client invalid_utf8"])
      assert.ok(codes.has(expect), `${expect} in ${[...codes].join(", ")}`);
    assert.match(t.stderr, /the server exited with code 7/);
  });
});

/** The test plays the client: one line at a time, each once the server has answered the last. */
const CLIENT: { line: string; serverLinesAfter: number }[] = [
  {
    line: j({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
    serverLinesAfter: 1,
  },
  { line: j({ jsonrpc: "2.0", method: "notifications/initialized" }), serverLinesAfter: 2 },
  { line: j({ jsonrpc: "2.0", id: 2, method: "tools/list" }), serverLinesAfter: 6 },
  {
    line: j({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: {} } }),
    serverLinesAfter: 9,
  },
  { line: j({ jsonrpc: "2.0", id: 2, method: "ping" }), serverLinesAfter: 10 },
  { line: j({ jsonrpc: "2.0", id: null, method: "tools/list" }), serverLinesAfter: 10 },
];

/** Where broken-server.mjs and the client above go wrong, as `direction line: codes`. */
const EXPECTED = [
  "server line 2: id_null response_to_notification",
  "server line 4: duplicate_response",
  "server line 5: parse_error",
  "server line 6: unknown_response_id",
  "server line 7: result_and_error",
  "server line 8: invalid_utf8",
  "client line 5: id_reused_in_session",
  "client line 6: id_null",
];

async function converse(t: TapProcess): Promise<void> {
  for (const step of CLIENT) {
    await t.write(step.line + "\n");
    await t.untilLines(step.serverLinesAfter);
  }
  const exit = await t.end();
  assert.equal(exit.code, 0, t.stderr);
}

function grouped(entries: { key: string; code: string }[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const e of entries) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e.code]);
  return [...byKey].map(([k, codes]) => `${k}: ${codes.join(" ")}`).sort();
}

describe("tap: a deliberately broken server", () => {
  test("each defect is reported live at its line and direction, and the summary counts them", async () => {
    const t = tap(["--", process.execPath, fixture("broken-server.mjs")]);
    await converse(t);
    const live = liveDefects(t.stderr);
    assert.deepEqual(grouped(live.map((d) => ({ key: `${d.from} ${d.where}`, code: d.code }))), [...EXPECTED].sort());
    assert.ok(live.every((d) => d.severity === "error"));
    assert.match(
      t.stderr,
      /^tap: 6 messages client→server, 10 server→client; revision 2025-11-25 \(from the initialize request\)$/m,
    );
    assert.match(t.stderr, /^tap: 9 defects \(8 messages with errors\): 2 id_null \(error\), /m);
    assert.match(t.stderr, /^tap: 1 line ended in \\r\\n$/m);
  });

  test("--log writes a record per message instead, and mcp-wire lint finds the same defects in it", async () => {
    const file = join(dir, "broken.ndjson");
    const t = tap(["--log", file, "--", process.execPath, fixture("broken-server.mjs")]);
    await converse(t);
    assert.deepEqual(liveDefects(t.stderr), [], "with --log, stderr has the summary only");
    assert.match(t.stderr, /^tap: 9 defects/m);

    const records = messageRecords<{
      at: string;
      from: "client" | "server";
      no: number;
      line: string;
      base64?: string;
      crlf?: boolean;
      defects: { code: string }[];
    }>(file);
    assert.equal(records.length, 16);
    for (const r of records) assert.ok(!Number.isNaN(Date.parse(r.at)), `an ISO time: ${r.at}`);
    const logged = grouped(
      records.flatMap((r) => r.defects.map((d) => ({ key: `${r.from} line ${r.no}`, code: d.code }))),
    );
    assert.deepEqual(logged, [...EXPECTED].sort());
    // the record keeps the message text exactly: bytes that are not UTF-8 also in base64, \r\n as a flag
    const utf8 = records.find((r) => r.from === "server" && r.no === 8)!;
    assert.deepEqual([...Buffer.from(utf8.base64!, "base64").subarray(-5)], [0xff, 0xfe, 0x22, 0x7d, 0x7d]);
    assert.equal(records.find((r) => r.from === "server" && r.no === 9)!.crlf, true);
    assert.equal(records.find((r) => r.from === "client" && r.no === 1)!.line, CLIENT[0]!.line);

    const lint = lintJson(file);
    assert.equal(lint.status, 1);
    assert.equal(lint.records.length, records.length);
    lint.records.forEach((l, i) => {
      assert.equal(l.from, records[i]!.from, `record ${i + 1}'s direction`);
      assert.deepEqual(
        l.defects.map((d) => d.code),
        records[i]!.defects.map((d) => d.code),
        `record ${i + 1} (${records[i]!.from} line ${records[i]!.no})`,
      );
    });
  });
});

// each its own tap and server, the first mostly waiting out two grace periods: side by side
describe("tap: how a session ends", { concurrency: true }, () => {
  test("the client closing stdin closes the server's; one that ignores it and SIGTERM is killed", async () => {
    const t = tap(["--", process.execPath, fixture("child-stubborn.mjs")]);
    await t.untilLines(1, "the stubborn server's ready message");
    const exit = await within(t.end(), "the tap exiting", 20_000);
    assert.equal(exit.code, 128 + 9, t.stderr);
    assert.match(t.stderr, /ignoring the end of stdin/);
    assert.match(t.stderr, /ignoring SIGTERM/);
    assert.match(t.stderr, /the client closed the session; the server ended by SIGKILL/);
  });

  test("SIGTERM to the tap reaches the server, and the tap exits as the server did", async () => {
    const t = tap(["--", process.execPath, fixture("child-echo.mjs")]);
    await t.untilLines(1, "the echo server's hello");
    t.child.kill("SIGTERM");
    const exit = await within(t.exited, "the tap exiting");
    assert.equal(exit.code, 128 + 15, t.stderr);
    assert.match(t.stderr, /the server ended by SIGTERM/);
  });

  test("a server that exits ends the session at once, with its exit code", async () => {
    const t = tap([
      "--",
      process.execPath,
      "-e",
      'process.stdout.write(\'{"jsonrpc":"2.0","method":"bye"}\\n\'); process.exit(3)',
    ]);
    const exit = await within(t.exited, "the tap exiting");
    assert.equal(exit.code, 3);
    assert.equal(t.stdout.toString(), '{"jsonrpc":"2.0","method":"bye"}\n');
    assert.match(t.stderr, /^tap: 0 messages client→server, 1 server→client/m);
  });

  test("a command that cannot start: 127 and why; usage errors: 2", async () => {
    const missing = tap(["--", "/nonexistent/mcp-wire-no-such-server"]);
    assert.equal((await within(missing.exited, "the tap exiting")).code, 127);
    assert.match(missing.stderr, /tap: cannot start "\/nonexistent\/mcp-wire-no-such-server": ENOENT/);
    for (const args of [
      [],
      ["--listen", "0"],
      ["--listen", "x", "--upstream", "http://127.0.0.1:1/mcp"],
      ["--listen", "0", "--upstream", "ftp://x/"],
      ["--listen", "0", "--upstream", "http://127.0.0.1:1/", "--", "node"],
      ["--log", join(dir, "no/such/dir/x"), "--", "node"],
    ]) {
      const t = tap(args);
      assert.equal((await within(t.exited, "the tap exiting")).code, 2, `${args.join(" ")}: ${t.stderr}`);
    }
  });
});

function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}
