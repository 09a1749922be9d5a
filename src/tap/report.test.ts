/** The tap's report: live lines, log records that lint reads back, the summary, a log that falls behind. */
import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { describe, test } from "node:test";
import { defect } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import { Linter } from "../lint/lint.js";
import { TapReport, liveLines, type TapMessage } from "./report.js";

const line = (bytes: Buffer, crlf = false): Line => ({ bytes, crlf, overflow: false, size: bytes.length });

function message(over: Partial<TapMessage>): TapMessage {
  return {
    from: "server",
    no: 3,
    where: "line 3",
    line: line(Buffer.from('{"jsonrpc":"2.0","id":null,"result":{}}')),
    kind: "invalid",
    defects: [],
    ...over,
  };
}

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _e: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe("TapReport", () => {
  test("a live line per defect: direction, where, severity, code, path, message", () => {
    const m = message({ defects: [defect("id_null", "/id", "id is null"), defect("unexpected_member", "", "has x")] });
    assert.equal(
      liveLines(m),
      "tap: server→client line 3: error id_null at /id: id is null\ntap: server→client line 3: warning unexpected_member: has x\n",
    );
  });

  test("log records lint judges again as the tap did: text, bytes that are not UTF-8, \\r\\n, an over-long line", () => {
    const bad = Buffer.from([0x7b, 0xff, 0x7d]);
    const log = new Sink();
    const report = new TapReport({ live: new Sink(), log });
    report.message(
      message({
        from: "client",
        no: 1,
        line: line(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'), true),
        kind: "request",
      }),
    );
    report.message(message({ no: 1, line: line(bad) }));
    report.message(message({ no: 2, line: { bytes: Buffer.alloc(0), crlf: false, overflow: true, size: 9_000_000 } }));
    const [header, ...records] = log.text.trimEnd().split("\n");
    assert.equal((JSON.parse(header!) as { recording: number }).recording, 1, "a header first");
    const parsed = records.map((r) => JSON.parse(r) as Record<string, unknown>);
    assert.deepEqual(Object.keys(parsed[0]!), ["at", "from", "no", "line", "crlf", "kind", "defects"]);
    assert.equal(parsed[1]!.base64, bad.toString("base64"));
    assert.deepEqual([parsed[2]!.line, parsed[2]!.overflow, parsed[2]!.size], ["", true, 9_000_000]);
    const linter = new Linter({ revision: "2025-11-25" });
    const judged = records.map((r) => linter.line(line(Buffer.from(r.trimEnd()))));
    assert.deepEqual(
      judged.map((r) => [r.from, r.kind, r.defects.map((d) => d.code)]),
      [
        ["client", "request", []],
        ["server", "invalid", ["invalid_utf8"]],
        ["server", "invalid", ["too_large"]],
      ],
    );
    assert.equal(linter.summary.crlf, 1);
  });

  test("the summary counts each way and by code; blank lines and \\r\\n are noted, not counted as messages", () => {
    const live = new Sink();
    const report = new TapReport({ live });
    report.message(message({ from: "client", kind: "request", defects: [] }));
    report.message(message({ defects: [defect("id_null", "/id", "x")] }));
    report.message(
      message({ defects: [defect("id_null", "/id", "x"), defect("result_type_missing", "/result", "y")] }),
    );
    report.message(message({ kind: "blank", line: line(Buffer.alloc(0), true) }));
    assert.equal(
      report.summary("revision 2026-07-28 (from the _meta)"),
      [
        "tap: 1 message client→server, 2 server→client; revision 2026-07-28 (from the _meta)",
        "tap: 3 defects (2 messages with errors): 2 id_null (error), 1 result_type_missing (warning)",
        "tap: 1 line ended in \\r\\n; 1 blank line",
        "",
      ].join("\n"),
    );
    assert.equal(new TapReport({ live }).summary("r").split("\n")[1], "tap: no defects");
  });

  test("with a log, stderr stays quiet; a log too far behind drops records and says how many", async () => {
    const live = new Sink();
    const log = new PassThrough({ highWaterMark: 16 });
    const report = new TapReport({ live, log, maxLogBacklog: 200 });
    for (let i = 0; i < 5; i++) report.message(message({ defects: [defect("id_null", "/id", "x")] }));
    assert.equal(live.text, "");
    assert.match(report.summary("r"), /records? left out of the log, which fell behind/);
    log.resume();
    await report.close();
  });
});
