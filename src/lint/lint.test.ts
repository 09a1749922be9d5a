import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import type { Line } from "../codec/lines.js";
import { assertDefectShape } from "../testkit/codec.js";
import type { Revision } from "../rules/revisions.js";
import { Linter, lintStream, NotACaptureError, summaryLine, type LintOptions, type LintRecord } from "./lint.js";

const j = (v: unknown) => JSON.stringify(v);
const tap = (from: "client" | "server", message: unknown) =>
  j({ from, line: typeof message === "string" ? message : j(message) });

function lint(lines: string[], options: LintOptions = {}) {
  const linter = new Linter(options);
  const records = lines.map((text) => {
    const crlf = text.endsWith("\r");
    const bytes = Buffer.from(crlf ? text.slice(0, -1) : text);
    const line: Line = { bytes, crlf, overflow: false, size: bytes.length };
    const r = linter.line(line);
    for (const d of r.defects) assertDefectShape(d);
    return r;
  });
  return { records, summary: linter.summary, codes: records.map((r) => r.defects.map((d) => d.code)) };
}

async function lintText(chunks: (string | Buffer)[], options: LintOptions = {}) {
  const records: LintRecord[] = [];
  const summary = await lintStream(Readable.from(chunks), options, async (r) => {
    await new Promise((resolve) => setImmediate(resolve));
    records.push(r);
  });
  return { records, summary };
}

const initialize = (version: string, id: number | string = 1) =>
  j({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
const initialized = (version: string, id: number | string = 1) =>
  j({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
  });
const modern = (id: number | string, version: string = "2026-07-28") =>
  j({
    jsonrpc: "2.0",
    id,
    method: "tools/list",
    params: {
      _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} },
    },
  });
const modernResult = (id: number | string) => j({ jsonrpc: "2.0", id, result: { resultType: "complete", tools: [] } });
const list = (id: number | string) => j({ jsonrpc: "2.0", id, method: "tools/list" });
const empty = (id: number | string) => j({ jsonrpc: "2.0", id, result: {} });

describe("Linter: the revision", () => {
  test("from an initialize request, judging that very line by it", () => {
    const { records, summary } = lint([initialize("2025-03-26"), initialized("2025-03-26")]);
    assert.equal(summary.revision, "2025-03-26");
    assert.equal(summary.revisionSource, "initialize request");
    assert.deepEqual(
      records.map((r) => [r.kind, r.defects.length]),
      [
        ["request", 0],
        ["result", 0],
      ],
    );
  });

  test("from an initialize result, which may choose another revision than offered", () => {
    const { summary, codes } = lint([
      initialize("2025-11-25"),
      initialized("2025-06-18"),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ]);
    assert.equal(summary.revision, "2025-06-18");
    assert.equal(summary.revisionSource, "initialize result");
    assert.deepEqual(codes, [[], [], []]);
  });

  test("from a modern request's _meta", () => {
    const { summary, codes } = lint([modern(1), modernResult(1)]);
    assert.equal(summary.revision, "2026-07-28");
    assert.equal(summary.revisionSource, "_meta");
    assert.deepEqual(codes, [[], []]);
  });

  test("assumed to be the latest when nothing says otherwise", () => {
    const { summary, codes } = lint([
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
    ]);
    assert.equal(summary.revision, "2026-07-28");
    assert.equal(summary.revisionSource, "assumed");
    assert.deepEqual(codes, [[]]);
    assert.match(summaryLine(summary), /assumed: no initialize or _meta seen; pass --revision/);
  });

  test("a given revision wins over what the capture says", () => {
    const { summary, codes } = lint([initialize("2025-03-26"), initialized("2025-03-26"), "[" + list(2) + "]"], {
      revision: "2025-06-18",
    });
    assert.equal(summary.revision, "2025-06-18");
    assert.equal(summary.revisionSource, "given");
    assert.deepEqual(codes[2], ["batch_not_allowed"]);
    // learned from the capture, the same batch is fine
    assert.deepEqual(lint([initialize("2025-03-26"), initialized("2025-03-26"), "[" + list(2) + "]"]).codes[2], []);
  });

  test("the revision decides the conversation rules too", () => {
    const legacy = lint([initialize("2025-06-18"), initialized("2025-06-18"), list(1)]);
    assert.deepEqual(legacy.codes[2], ["id_reused_in_session"]);
    const now = lint([modern(1), modernResult(1), modern(1)]);
    assert.deepEqual(now.codes, [[], [], []]);
  });

  test("revision_unknown: a protocol version mcp-wire does not know", () => {
    const init = lint([initialize("2099-01-01")]);
    const d = init.records[0]!.defects.find((x) => x.code === "revision_unknown");
    assert.ok(d, JSON.stringify(init.records[0]));
    assert.equal(d.severity, "warning");
    assert.equal(d.path, "/params/protocolVersion");
    assert.match(d.message, /"2099-01-01"/);
    assert.equal(init.summary.revisionSource, "assumed");

    const res = lint([initialize("2025-06-18"), initialized("2099-01-01")]);
    assert.deepEqual(res.codes, [[], ["revision_unknown"]]);
    assert.equal(res.records[1]!.defects[0]!.path, "/result/protocolVersion");
    assert.equal(res.summary.revision, "2025-06-18");

    const meta = lint([modern(1, "2099-01-01")]);
    assert.equal(
      meta.records[0]!.defects.find((x) => x.code === "revision_unknown")?.path,
      "/params/_meta/io.modelcontextprotocol~1protocolVersion",
    );

    // known versions, other messages and a given revision raise nothing
    for (const v of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as Revision[])
      assert.deepEqual(lint([initialize(v)]).codes, [[]]);
    // a result that is not an initialize result says nothing about the revision
    assert.ok(
      !lint([list(1), j({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2099-01-01" } })])
        .codes.flat()
        .includes("revision_unknown"),
    );
    assert.deepEqual(lint([initialize("2099-01-01")], { revision: "2025-06-18" }).codes, [[]]);
  });
});

describe("Linter: lines", () => {
  test("blank lines are counted apart and keep the numbering", () => {
    const { records, summary } = lint(["", list(1), "   ", "\t", "\r", empty(1)], { revision: "2025-06-18" });
    assert.deepEqual(
      records.map((r) => [r.line, r.kind]),
      [
        [1, "blank"],
        [2, "request"],
        [3, "blank"],
        [4, "blank"],
        [5, "blank"],
        [6, "result"],
      ],
    );
    assert.equal(summary.blank, 4);
    assert.equal(summary.messages, 2);
    assert.equal(summary.crlf, 1);
  });

  test("summary counts: clean, with warnings, with errors", () => {
    const { summary, codes } = lint(
      [
        list(1),
        empty(1),
        j({ jsonrpc: "2.0", id: 2, error: { code: -32001, message: "invalid api key" } }),
        '{"tools":[]}',
        "<html><body>x</body></html>",
        list(3) + "\r",
      ],
      { revision: "2025-06-18" },
    );
    assert.deepEqual(codes, [
      [],
      [],
      ["error_code_legacy", "unknown_response_id"],
      ["no_envelope"],
      ["parse_error"],
      [],
    ]);
    assert.deepEqual(
      { ...summary },
      {
        messages: 6,
        clean: 3,
        withWarnings: 0,
        withErrors: 3,
        blank: 0,
        crlf: 1,
        revision: "2025-06-18",
        revisionSource: "given",
      },
    );
    assert.equal(
      summaryLine(summary),
      "6 messages: 3 clean, 0 with warnings, 3 with errors — 1 line ended in \\r\\n (read as \\n); revision 2025-06-18 (as given)",
    );
    const warned = lint([list(1), j({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "no key" } })], {
      revision: "2025-06-18",
    });
    assert.equal(warned.summary.withWarnings, 1);
    assert.equal(warned.summary.clean, 1);
  });

  test("a plain capture: calls from one side, answers from the other", () => {
    const { codes } = lint(
      [
        list(1),
        list(2),
        empty(2),
        empty(1),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":null,"result":{}}',
      ],
      { revision: "2025-06-18" },
    );
    assert.deepEqual(codes, [[], [], [], [], [], ["id_null", "response_to_notification"]]);
  });

  test("a plain capture: a broken answer or a batch of answers is still the other side's", () => {
    const batch = lint([
      initialize("2025-03-26"),
      initialized("2025-03-26"),
      "[" + list(2) + "," + list(3) + "]",
      "[" + empty(3) + "," + empty(2) + "]",
    ]);
    assert.deepEqual(batch.codes, [[], [], [], []]);
    const broken = lint([list(1), j({ jsonrpc: "2.0", id: 1, result: [] })], { revision: "2025-06-18" });
    assert.deepEqual(broken.codes, [[], ["result_not_object"]]);
  });

  test("tap records carry the direction, and lint uses it", () => {
    const rev = "2025-06-18";
    const lines = [
      tap("client", list(1)),
      tap("server", j({ jsonrpc: "2.0", id: 1, method: "roots/list" })),
      tap("client", empty(1)),
      tap("server", empty(1)),
    ];
    const { records, codes } = lint(lines, { revision: rev });
    assert.deepEqual(
      records.map((r) => [r.kind, r.from]),
      [
        ["request", "client"],
        ["request", "server"],
        ["result", "client"],
        ["result", "server"],
      ],
    );
    assert.deepEqual(codes, [[], [], [], []]);
    // without the direction, roots/list is still the server's by its method, and each answer
    // goes to the side whose request awaits it (the nested call first)
    const plain = lint([list(1), j({ jsonrpc: "2.0", id: 1, method: "roots/list" }), empty(1), empty(1)], {
      revision: rev,
    });
    assert.deepEqual(plain.codes, [[], [], [], []]);
    assert.deepEqual(lint([list(1), empty(1), empty(1)], { revision: rev }).codes, [[], [], ["duplicate_response"]]);
  });

  test("a plain capture: requests only a server sends are the server's, whatever their id", () => {
    for (const [rev, method] of [
      ["2024-11-05", "roots/list"],
      ["2025-03-26", "sampling/createMessage"],
      ["2025-06-18", "elicitation/create"],
      ["2025-11-25", "roots/list"],
    ] as const) {
      const { codes } = lint([
        initialize(rev, 0),
        initialized(rev, 0),
        j({ jsonrpc: "2.0", method: "notifications/initialized" }),
        j({ jsonrpc: "2.0", id: 0, method, params: {} }),
        empty(0),
        list(1),
        j({ jsonrpc: "2.0", id: 1, result: { tools: [] } }),
      ]);
      assert.deepEqual(codes, [[], [], [], [], [], [], []], `${rev} ${method}`);
    }
    // the client's own reuse of an id is still found
    assert.deepEqual(lint([initialize("2025-06-18", 0), initialized("2025-06-18", 0), list(0), empty(0)]).codes, [
      [],
      [],
      ["id_reused_in_session"],
      [],
    ]);
  });

  test("a plain capture: a ping may come from either side; it is the server's when the client's reading would reuse an id", () => {
    const rev = "2025-06-18";
    const ping = (id: number) => j({ jsonrpc: "2.0", id, method: "ping" });
    const { codes } = lint([initialize(rev, 0), initialized(rev, 0), ping(0), empty(0), ping(1), empty(1)]);
    assert.deepEqual(codes, [[], [], [], [], [], []]);
    // both sides used id 0 already: a reused id is reported, not explained away
    assert.deepEqual(
      lint([initialize(rev, 0), initialized(rev, 0), ping(0), empty(0), ping(0), empty(0)]).codes.flat(),
      ["id_reused_in_session"],
    );
  });

  test("tap --listen records: each conversation judged on its own, and an error on an HTTP error status answers its exchange's POST", () => {
    const rec = (from: "client" | "server", conversation: string, message: unknown, http: Record<string, unknown>) =>
      j({ from, line: j(message), conversation, http: { method: "POST", path: "/mcp", ...http } });
    const discover = {
      jsonrpc: "2.0",
      id: 0,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    const refusal = (id: number | null) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32000, message: "Bad Request: Server not initialized" },
    });
    const { codes, summary } = lint([
      rec("client", "c1", discover, { exchange: 1, protocolVersion: "2026-07-28" }),
      rec("server", "c1", refusal(null), { exchange: 1, status: 400 }),
      rec("client", "c2", discover, { exchange: 2, protocolVersion: "2026-07-28" }),
      rec("server", "c2", refusal(0), { exchange: 2, status: 400 }),
      // two sessions, each with its own initialize id 0
      rec("client", "c3", JSON.parse(initialize("2025-06-18", 0)), { exchange: 3 }),
      rec("server", "c3", JSON.parse(initialized("2025-06-18", 0)), { exchange: 3, status: 200 }),
      rec("client", "c4", JSON.parse(initialize("2025-11-25", 0)), { exchange: 4 }),
      rec("server", "c4", JSON.parse(initialized("2025-11-25", 0)), { exchange: 4, status: 200 }),
      // a stateless exchange after them speaks what its MCP-Protocol-Version header says
      rec(
        "client",
        "c5",
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { exchange: 5, protocolVersion: "2025-06-18" },
      ),
      rec("server", "c5", { jsonrpc: "2.0", id: 1, result: { tools: [] } }, { exchange: 5, status: 200 }),
    ]);
    assert.deepEqual(codes.flat(), []);
    assert.equal(summary.conversations, 5);
    // the same refusal with no HTTP status around it is judged as a message: warnings at most
    const plain = lint([j(discover), j(refusal(null))]);
    assert.deepEqual(
      plain.records[1]!.defects.map((d) => [d.code, d.severity]),
      [
        ["id_null", "warning"],
        ["error_code_legacy", "warning"],
        ["unknown_response_id", "warning"],
      ],
    );
  });

  test("a tap record's line is judged as its sender's message", () => {
    // 2026-07-28: the client's requests carry _meta; a server's do not have to
    const { codes } = lint([tap("server", list(5)), tap("client", list(6))], { revision: "2026-07-28" });
    assert.deepEqual(codes, [[], ["meta_missing_protocol_version"]]);
    const broken = lint([tap("client", "{oops")], { revision: "2025-06-18" });
    assert.deepEqual(broken.codes, [["parse_error"]]);
    assert.equal(broken.records[0]!.from, "client");
    // something that only looks like a record is judged as it is
    assert.deepEqual(lint([j({ from: "elsewhere", line: list(1) })], { revision: "2025-06-18" }).codes, [
      ["no_envelope"],
    ]);
    assert.deepEqual(lint([j({ jsonrpc: "2.0", from: "client", line: list(1) })], { revision: "2025-06-18" }).codes, [
      ["neither_result_nor_error"],
    ]);
  });

  test("tap records teach the revision as plain lines do", () => {
    const { summary, codes } = lint([
      tap("client", initialize("2025-03-26")),
      tap("server", initialized("2025-03-26")),
      tap("client", "[" + list(2) + "]"),
    ]);
    assert.equal(summary.revision, "2025-03-26");
    assert.deepEqual(codes, [[], [], []]);
  });

  test("tap records keep what a string cannot: bytes that are not UTF-8, a \\r\\n ending, an over-long line's size", () => {
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"a":"'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    const lines = [
      j({ from: "server", line: bad.toString("utf8"), base64: bad.toString("base64") }),
      j({ from: "client", line: list(1), crlf: true }),
      j({ from: "server", line: "", overflow: true, size: 5_000_000 }),
      j({ from: "client", line: "" }),
    ];
    const { records, codes, summary } = lint(lines, { revision: "2025-06-18" });
    assert.deepEqual(codes, [["invalid_utf8"], [], ["too_large"], []]);
    assert.deepEqual(
      records.map((r) => [r.kind, r.from]),
      [
        ["invalid", "server"],
        ["request", "client"],
        ["invalid", "server"],
        ["blank", "client"],
      ],
    );
    assert.match(records[2]!.defects[0]!.message, /a line of 5000000 bytes/);
    assert.equal(summary.crlf, 1);
    assert.equal(summary.blank, 1);
  });

  test("a caller that knows the sender passes it: the line is then the message itself, never a record", () => {
    const linter = new Linter({ revision: "2025-06-18" });
    const line = (text: string): Line => ({
      bytes: Buffer.from(text),
      crlf: false,
      overflow: false,
      size: Buffer.byteLength(text),
    });
    const record = linter.line(line(tap("client", list(1))), "server");
    assert.equal(record.from, "server");
    assert.deepEqual(
      record.defects.map((d) => d.code),
      ["no_envelope"],
    );
    // the direction counts: the server's request 1 is not the client's
    assert.deepEqual(linter.line(line(list(1)), "server").defects, []);
    assert.deepEqual(linter.line(line(list(1)), "client").defects, []);
    assert.deepEqual(linter.line(line(empty(1)), "client").defects, []);
  });

  test("an over-long line is too_large with its size", () => {
    const linter = new Linter({ revision: "2025-06-18", maxLineBytes: 100 });
    const r = linter.line({ bytes: Buffer.alloc(0), crlf: false, overflow: true, size: 12345 });
    assert.equal(r.kind, "invalid");
    assert.equal(r.defects[0]!.code, "too_large");
    assert.match(r.defects[0]!.message, /12345 bytes, over the 100-byte limit/);
    assert.equal(linter.summary.withErrors, 1);
  });
});

describe("lintStream", () => {
  test("chunked input of any shape, CRLF, a last line with no newline", async () => {
    const text = [initialize("2025-11-25"), initialized("2025-11-25"), "", list(2), empty(2)].join("\r\n");
    const bytes = Buffer.from(text);
    const chunks = [bytes.subarray(0, 7), bytes.subarray(7, 8), bytes.subarray(8, 150), bytes.subarray(150)];
    const { records, summary } = await lintText(chunks);
    assert.deepEqual(
      records.map((r) => [r.line, r.kind, r.defects.length]),
      [
        [1, "request", 0],
        [2, "result", 0],
        [3, "blank", 0],
        [4, "request", 0],
        [5, "result", 0],
      ],
    );
    assert.equal(summary.crlf, 4);
    assert.equal(summary.revision, "2025-11-25");
    assert.equal(summary.revisionSource, "initialize request");
    assert.equal(summary.messages, 4);
  });

  test("string chunks work as well as buffers", async () => {
    const { records } = await lintText([list(1).slice(0, 10), list(1).slice(10) + "\n", empty(1) + "\n"], {
      revision: "2025-06-18",
    });
    assert.deepEqual(
      records.map((r) => r.kind),
      ["request", "result"],
    );
  });

  test("an over-long line is reported and the lines after it still come through", async () => {
    const long = j({ jsonrpc: "2.0", method: "x", params: { s: "a".repeat(500) } });
    const { records, summary } = await lintText(
      [list(1) + "\n" + long.slice(0, 200), long.slice(200) + "\n" + empty(1) + "\n"],
      { revision: "2025-06-18", maxLineBytes: 100 },
    );
    assert.deepEqual(
      records.map((r) => r.kind),
      ["request", "invalid", "result"],
    );
    assert.equal(records[1]!.defects[0]!.code, "too_large");
    assert.match(records[1]!.defects[0]!.message, new RegExp(`a line of ${Buffer.byteLength(long)} bytes`));
    assert.deepEqual(records[2]!.defects, []);
    assert.equal(summary.withErrors, 1);
  });

  test("each record waits for the previous onRecord promise", async () => {
    const seen: number[] = [];
    let busy = false;
    await lintStream(
      Readable.from([list(1) + "\n" + list(2) + "\n" + list(3) + "\n"]),
      { revision: "2025-06-18" },
      async (r) => {
        assert.equal(busy, false);
        busy = true;
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.push(r.line);
        busy = false;
      },
    );
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test("an empty stream is zero messages", async () => {
    const { records, summary } = await lintText([]);
    assert.deepEqual(records, []);
    assert.equal(summary.messages, 0);
    assert.match(summaryLine(summary), /^0 messages: 0 clean, 0 with warnings, 0 with errors — revision 2026-07-28/);
  });

  test("what is not a capture at all is refused within its first lines, before any record is handed on", async () => {
    const refused = async (chunks: (string | Buffer)[], says: RegExp) => {
      const { records, summary } = await lintText(chunks).then(
        (r) => r,
        (e: unknown) => {
          assert.ok(e instanceof NotACaptureError, String(e));
          assert.equal(e.code, "ERR_MCP_WIRE_NOT_A_CAPTURE");
          assert.match(e.message, says);
          return { records: [], summary: undefined };
        },
      );
      assert.equal(summary, undefined, `refused: ${says}`);
      assert.deepEqual(records, []);
    };
    await refused(
      [Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4000, 1)])],
      /an SQLite database/,
    );
    await refused([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])], /a program \(ELF\)/);
    await refused([Buffer.from('{"a":1}\u0000\u0000\n')], /binary data/);
    await refused(
      ["# Notes\n\nSome prose.\nMore prose.\nAnd more.\nStill more.\n" + "x\n".repeat(100_000)],
      /first 5 lines are not JSON/,
    );
    await refused(["hello\nworld\n"], /no line of it is JSON/);
    // the binary signature decides even when it comes in the smallest chunks
    await refused([Buffer.from("SQLite"), Buffer.from(" format 3\0"), Buffer.alloc(100, 1)], /an SQLite database/);
  });

  test("a capture that opens with log lines (a server that logs to stdout) is still linted, its log lines as parse errors", async () => {
    const { records, summary } = await lintText([
      "Weather MCP Server v1.2 running on stdio\nlistening...\n\n" +
        initialize("2025-11-25") +
        "\n" +
        initialized("2025-11-25") +
        "\n",
    ]);
    assert.deepEqual(
      records.map((r) => r.kind),
      ["invalid", "invalid", "blank", "request", "result"],
    );
    assert.equal(records[0]!.defects[0]!.code, "parse_error");
    assert.equal(summary.messages, 4);
  });

  test("a capture whose first messages are JSON but not objects is a capture", async () => {
    const { records } = await lintText(['"a string"\n42\n' + list(1) + "\n"], { revision: "2025-06-18" });
    assert.deepEqual(
      records.map((r) => r.kind),
      ["invalid", "invalid", "request"],
    );
  });
});

describe("lint --schema", () => {
  const lines = (...messages: unknown[]) => messages.map((m) => Buffer.from(JSON.stringify(m)));
  const run = (options: LintOptions, messages: unknown[]) => {
    const linter = new Linter(options);
    return lines(...messages).map((bytes) => linter.line({ bytes, crlf: false, overflow: false, size: bytes.length }));
  };
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  };
  const initResult = {
    jsonrpc: "2.0",
    id: 1,
    result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
  };
  const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
  const badList = {
    jsonrpc: "2.0",
    id: 2,
    result: { tools: [{ name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } }] },
  };

  test("an answer is judged by the method of the request it answers", () => {
    const records = run({ schema: true }, [init, initResult, list, badList]);
    assert.deepEqual(
      records.slice(0, 3).map((r) => r.defects),
      [[], [], []],
    );
    assert.deepEqual(
      records[3]!.defects.map((d) => [d.code, d.path, d.definition]),
      [["schema_invalid", "/result/tools/0/annotations/readOnlyHint", "ListToolsResult"]],
    );
  });

  test("an HTTP refusal's null id is what the transport allows such a body; elsewhere the schema names it", () => {
    const linter = new Linter({ revision: "2025-11-25", schema: true });
    const at = (o: unknown, from: "client" | "server", status?: number) => {
      const bytes = Buffer.from(JSON.stringify(o));
      return linter.line(
        { bytes, crlf: false, overflow: false, size: bytes.length },
        { from, conversation: "c", http: { method: "POST", path: "/mcp", exchange: 1, ...(status ? { status } : {}) } },
      );
    };
    at({ jsonrpc: "2.0", id: 7, method: "server/discover" }, "client");
    const refusal = at(
      { jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: Server not initialized" }, id: null },
      "server",
      400,
    );
    assert.deepEqual(
      refusal.defects.filter((d) => d.code === "schema_invalid"),
      [],
    );
    const plain = run({ revision: "2025-11-25", schema: true }, [
      { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null },
    ]);
    assert.deepEqual(
      plain[0]!.defects.filter((d) => d.code === "schema_invalid").map((d) => d.path),
      ["/id"],
    );
  });

  test("without --schema, or while the revision is only assumed, nothing is validated", () => {
    assert.deepEqual(
      run({}, [init, initResult, list, badList]).flatMap((r) => r.defects),
      [],
    );
    const assumed = run({ schema: true }, [list, badList]);
    assert.ok(assumed.every((r) => !r.defects.some((d) => d.code === "schema_invalid")));
  });
});
