/**
 * The record format: what the writer writes the reader reads back (and lint judges again, schema
 * defects included), and every hostile file is a named error in bounded time and memory.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, describe, test } from "node:test";
import type { Line } from "../codec/lines.js";
import { Linter, lintStream, type LintRecord } from "../lint/lint.js";
import { createMemoryPair } from "../transport/memory.js";
import { within } from "../testkit/within.js";
import { RecordingError, RecordingWriteError } from "./errors.js";
import { recordTransport } from "./record-transport.js";
import { readRecording, type Recorded } from "./reader.js";
import { RecordingWriter } from "./writer.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-recording-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const line = (text: string): Line => {
  const bytes = Buffer.from(text);
  return { bytes, crlf: false, overflow: false, size: bytes.length };
};

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _e: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function read(file: string): Promise<{ records: Recorded[]; header: unknown; inferred: boolean }> {
  const records: Recorded[] = [];
  const r = await readRecording(file, (rec) => records.push(rec));
  return { records, header: r.header, inferred: r.inferred };
}

async function refused(file: string, reason: string, limits = {}): Promise<RecordingError> {
  const e = await within(
    readRecording(file, () => undefined, limits).then(
      () => assert.fail("read without error"),
      (e: unknown) => e,
    ),
    `reading ${file}`,
    20_000,
  );
  assert.ok(e instanceof RecordingError, String(e));
  assert.equal(e.reason, reason, e.message);
  assert.equal(e.code, "ERR_MCP_WIRE_RECORDING");
  return e;
}

describe("the recording writer and reader", () => {
  test("a message given as text is written as the same message given as bytes: redacted alike", async () => {
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "fetch", arguments: { url: "https://u:hunter2hunter2@example.com/x", note: "é€😀" } },
    });
    const written = async (m: { line: Line } | { text: string }) => {
      const out = new Sink();
      const w = new RecordingWriter(out, { transport: "stdio" });
      w.message({ from: "client", no: 1, kind: "request", defects: [], conversation: "p1", at: 0, ...m });
      await w.close();
      return out.text;
    };
    const fromText = await written({ text });
    assert.equal(fromText, await written({ line: line(text) }));
    assert.ok(!fromText.includes("hunter2hunter2"), "the secret is redacted");
    assert.ok(fromText.includes("é€😀"), "the text is kept as it is");
  });

  test("a header, message records with aliases for sessions, bodiless exchanges; read back as written", async () => {
    const out = new Sink();
    const w = new RecordingWriter(out, { transport: "streamable-http", revision: "2025-06-18" });
    const http = { method: "POST", path: "/mcp?token=hunter2hunter2", exchange: 1 };
    w.message({
      from: "client",
      no: 1,
      line: line('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
      kind: "request",
      defects: [],
      conversation: "c1",
      http,
      session: "9f1c-real-session",
    });
    w.message({
      from: "server",
      no: 1,
      line: line('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'),
      kind: "result",
      defects: [],
      conversation: "c1",
      http: { ...http, status: 200, contentType: "text/event-stream" },
      session: "9f1c-real-session",
      sse: { id: "e1", retry: 500 },
    });
    w.exchange({
      from: "client",
      http: { method: "DELETE", path: "/mcp", status: 200, exchange: 2 },
      session: "other",
    });
    await w.close();
    assert.ok(!out.text.includes("9f1c-real-session"), "the real session id is never written");
    assert.ok(!out.text.includes("hunter2hunter2"), "a secret in the path is redacted");
    const file = join(dir, "written.ndjson");
    writeFileSync(file, out.text);
    const { records, header, inferred } = await read(file);
    assert.equal(inferred, false);
    assert.deepEqual(
      { ...(header as object), version: "" },
      { recording: 1, tool: "mcp-wire", version: "", transport: "streamable-http", revision: "2025-06-18" },
    );
    assert.deepEqual(
      records.map((r) => [r.type, r.from, r.http?.session, r.http?.contentType, r.type === "message" ? r.sse : null]),
      [
        ["message", "client", "s1", undefined, undefined],
        ["message", "server", "s1", "text/event-stream", { id: "e1", retry: 500 }],
        ["exchange", "client", "s2", undefined, null],
      ],
    );
  });

  test("a log without a header is version 1, its transport inferred", async () => {
    const file = join(dir, "old.ndjson");
    writeFileSync(
      file,
      JSON.stringify({ at: "x", from: "client", no: 1, line: "{}", kind: "invalid", defects: [] }) +
        "\n" +
        JSON.stringify({
          at: "x",
          from: "client",
          no: 2,
          line: "{}",
          http: { method: "POST", path: "/mcp" },
          defects: [],
        }) +
        "\n",
    );
    const { header, inferred } = await read(file);
    assert.equal(inferred, true);
    assert.equal((header as { transport: string }).transport, "streamable-http");
  });

  test("hostile files: each a named error, bounded", async () => {
    const header = JSON.stringify({ recording: 1, tool: "mcp-wire", version: "0", transport: "stdio" }) + "\n";
    const rec = (no: number, extra = {}) =>
      JSON.stringify({ at: "x", from: "client", no, line: "{}", kind: "invalid", defects: [], ...extra }) + "\n";
    const put = (name: string, text: string) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    await refused(put("newer.ndjson", header.replace('"recording":1', '"recording":2') + rec(1)), "unknown_version");
    const e = await refused(put("garbage.ndjson", header + rec(1) + "{not json\n" + rec(3)), "invalid_json");
    assert.equal(e.line, 3);
    await refused(put("cut.ndjson", header + rec(1) + rec(2).slice(0, 30)), "truncated");
    await refused(put("backwards.ndjson", header + rec(2) + rec(1)), "out_of_order");
    await refused(put("capture.ndjson", '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'), "not_a_recording");
    await refused(put("prose.txt", "hello\n"), "invalid_json");
    await refused(put("empty.ndjson", ""), "not_a_recording");
    await refused(join(dir, "absent.ndjson"), "unreadable");
    // a symlink is followed
    const target = put("target.ndjson", header + rec(1));
    symlinkSync(target, join(dir, "link.ndjson"));
    assert.equal((await read(join(dir, "link.ndjson"))).records.length, 1);
    // a FIFO is refused without opening it (opening one waits for a writer)
    execFileSync("mkfifo", [join(dir, "fifo")]);
    await refused(join(dir, "fifo"), "not_a_file");
  });

  test("a 100 MB line is refused without holding it", async () => {
    const file = join(dir, "huge.ndjson");
    const fd = openSync(file, "w");
    writeSync(fd, '{"at":"x","from":"client","no":1,"line":"');
    const mb = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 100; i++) writeSync(fd, mb);
    writeSync(fd, '"}\n');
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const e = await refused(file, "line_too_large");
    assert.equal(e.line, 1);
    assert.ok(process.memoryUsage().rss - before < 80 * 1024 * 1024, "the line was not held");
    await refused(file, "too_large", { maxBytes: 50 * 1024 * 1024 });
  });
});

describe("lint of a recording", () => {
  test("the header and bodiless exchanges are skipped; schema defects the tap found come back without --schema", async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on("data", (c: Buffer) => chunks.push(c));
    const w = new RecordingWriter(out, { transport: "stdio" });
    // as the tap judges them: with the schema
    const tap = new Linter({ schema: true });
    const messages: [string, "client" | "server"][] = [
      [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
        "client",
      ],
      [
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}',
        "server",
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', "client"],
      // a tool without its inputSchema: only the schema says so
      ['{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}}', "server"],
    ];
    const no = { client: 0, server: 0 };
    for (const [text, from] of messages) {
      const r = tap.line(line(text), from);
      w.message({ from, no: ++no[from], line: line(text), kind: r.kind, defects: r.defects });
    }
    w.exchange({ from: "client", http: { method: "GET", path: "/mcp", status: 405 } });
    await w.close();
    const recorded = Buffer.concat(chunks).toString();
    assert.match(recorded, /schema_invalid/, "the tap found the schema defect");
    const judged: LintRecord[] = [];
    const stream = new PassThrough();
    stream.end(recorded);
    const summary = await lintStream(stream, {}, (r) => void judged.push(r));
    assert.equal(judged.length, 4, "header and exchange are no messages");
    assert.deepEqual(
      judged.map((r) => r.defects.map((d) => d.code)),
      [[], [], [], ["schema_invalid"]],
    );
    assert.equal(summary.withErrors, 1);
    assert.equal(judged[0]!.line, 2, "line numbers are the file's");
  });
});

describe("recordTransport to a file it cannot write", () => {
  const refusedAtOnce = (file: string, reason: string): void => {
    const [client] = createMemoryPair();
    assert.throws(
      () => recordTransport(client, file),
      (e: unknown) => {
        assert.ok(e instanceof RecordingWriteError, String(e));
        assert.equal(e.code, "ERR_MCP_WIRE_RECORDING_WRITE");
        assert.equal(e.reason, reason, e.message);
        assert.equal(e.file, file);
        assert.ok(e.message.startsWith(`${file}: the recording cannot be written`), e.message);
        return true;
      },
    );
  };

  test("a folder, a missing folder, no permission: a RecordingWriteError before anything is sent", () => {
    const folder = join(dir, "a-folder");
    mkdirSync(folder);
    refusedAtOnce(folder, "is_a_folder");
    refusedAtOnce(join(dir, "missing", "session.ndjson"), "no_folder");
    // root writes wherever the mode bits say no: the kernel's own sysfs refuses a new file even to root
    const locked = join(dir, "locked");
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const denied = process.getuid?.() === 0 ? "/sys/mcp-wire-recording.ndjson" : join(locked, "session.ndjson");
    refusedAtOnce(denied, "permission_denied");
    assert.equal(existsSync(denied), false);
  });

  test("a write that fails on the way (a full disk) rejects close() once the transport has closed", async () => {
    const [client, server] = createMemoryPair();
    server.start({ message: () => undefined, defect: () => undefined, closed: () => undefined });
    const recorded = recordTransport(client, "/dev/full");
    recorded.start({ message: () => undefined, defect: () => undefined, closed: () => undefined });
    await recorded.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const e = await within(
      recorded.close().then(
        () => assert.fail("closed without error"),
        (e: unknown) => e,
      ),
      "close",
    );
    assert.ok(e instanceof RecordingWriteError, String(e));
    assert.equal(e.reason, "write_failed");
    assert.equal(e.osCode, "ENOSPC");
  });

  test("a file it can write is written, header first", async () => {
    const [client, server] = createMemoryPair();
    server.start({ message: () => undefined, defect: () => undefined, closed: () => undefined });
    const file = join(dir, "written.ndjson");
    const recorded = recordTransport(client, file);
    recorded.start({ message: () => undefined, defect: () => undefined, closed: () => undefined });
    await recorded.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await recorded.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    assert.equal(lines.length, 2);
    assert.equal((JSON.parse(lines[0]!) as { transport: string }).transport, "memory");
  });
});
