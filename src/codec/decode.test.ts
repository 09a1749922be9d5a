import assert from "node:assert/strict";
import { describe, mock, test } from "node:test";
import { RULES, type Revision } from "../rules/revisions.js";
import { decode } from "./decode.js";
import { ALL, LEGACY, MODERN, dec, except, json, notRaised, raised, request, result } from "../testkit/codec.js";

const req = (extra: Record<string, unknown> = {}) => json({ jsonrpc: "2.0", id: 1, method: "tools/list", ...extra });
const err = (error: unknown, extra: Record<string, unknown> = {}) => json({ jsonrpc: "2.0", id: 1, error, ...extra });
const errCode = (code: unknown) => err({ code, message: "x" });

describe("the example messages of the README and docs/defects.md", () => {
  const seedRequest = '{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}';
  const seedResult =
    '{"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "search", "inputSchema": {"type": "object"}}]}}';
  const seedNotification = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}';
  const seedError = '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Unknown method: initialize"}}';

  for (const rev of LEGACY) {
    test(`${rev}: the request, the result, the notification and the -32601 error are clean`, () => {
      const r = dec(seedRequest, rev);
      assert.equal(r.kind, "request");
      assert.deepEqual(r.message, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
      assert.deepEqual(r.defects, []);

      const res = dec(seedResult, rev);
      assert.equal(res.kind, "result");
      assert.deepEqual(res.message, JSON.parse(seedResult));
      assert.deepEqual(res.defects, []);

      const n = dec(seedNotification, rev);
      assert.equal(n.kind, "notification");
      assert.deepEqual(n.defects, []);

      const e = dec(seedError, rev);
      assert.equal(e.kind, "error");
      assert.deepEqual(e.message, JSON.parse(seedError));
      assert.deepEqual(e.defects, []);
    });
  }

  test("2026-07-28: the request lacks the per-request _meta; the notification and the error are clean", () => {
    const r = dec(seedRequest, MODERN);
    raised(r, "meta_missing_protocol_version", { kind: "request", path: "/params/_meta" });
    assert.equal(dec(seedNotification, MODERN).kind, "notification");
    assert.deepEqual(dec(seedNotification, MODERN).defects, []);
    const e = dec(seedError, MODERN);
    assert.equal(e.kind, "error");
    assert.deepEqual(e.defects, []);
  });

  test("2026-07-28: a result without resultType is read as complete, with a warning", () => {
    const res = dec(seedResult, MODERN);
    assert.equal(res.kind, "result");
    assert.deepEqual(res.message, JSON.parse(seedResult));
    assert.equal(res.defects.length, 1);
    raised(res, "result_type_missing", { severity: "warning", path: "/result/resultType" });
    const complete = dec('{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[]}}', MODERN);
    assert.deepEqual(complete.defects, []);
  });

  for (const rev of ALL) {
    test(`${rev}: a bare array and {"tools":[...]} are rejected`, () => {
      const bare = dec('[{"name": "search", "inputSchema": {"type": "object"}}]', rev);
      raised(bare, "bare_array", { kind: "invalid", path: "" });
      const tools = dec('{"tools": [{"name": "search", "inputSchema": {"type": "object"}}]}', rev);
      raised(tools, "no_envelope", { kind: "invalid", path: "" });
      assert.match(find1(tools), /"tools"/);
    });

    test(`${rev}: a null id is rejected`, () => {
      raised(dec('{"jsonrpc": "2.0", "id": null, "method": "tools/list", "params": {}}', rev), "id_null", {
        kind: "invalid",
        path: "/id",
      });
      raised(dec('{"jsonrpc": "2.0", "id": null, "result": {}}', rev), "id_null", { kind: "invalid", path: "/id" });
    });
  }
});

function find1(d: { defects: { message: string }[] }): string {
  return d.defects[0]!.message;
}

describe("the text as a whole", () => {
  test("parse_error: not JSON, empty, whitespace, CRLF; never for valid JSON", () => {
    for (const rev of ALL) {
      for (const text of ['{"jsonrpc":', "", "   ", "\r\n", "\t", "{'a':1}", "undefined", "NaN", '{"a":1,}']) {
        raised(dec(text, rev), "parse_error", { kind: "invalid", path: "" });
      }
      notRaised(dec(req(), rev), "parse_error");
    }
    assert.match(dec("", "2025-06-18").defects[0]!.message, /empty/);
    assert.match(dec(" \r\n ", "2025-06-18").defects[0]!.message, /empty/);
  });

  test("parse_error: HTML and Server-Sent Events say what they are", () => {
    const html = "<!DOCTYPE html>\n<html><head><title>Docs</title></head><body>MCP server docs</body></html>";
    for (const text of [html, "<html lang=en><body>hi</body></html>", "\n  <head><title>x</title></head>"]) {
      const d = dec(text, "2025-06-18");
      assert.match(raised(d, "parse_error").message, /HTML/);
    }
    assert.match(dec("<?xml version='1.0'?><a/>", "2025-06-18").defects[0]!.message, /markup/);
    assert.match(
      dec('event: message\ndata: {"jsonrpc":"2.0"}\n\n', "2025-06-18").defects[0]!.message,
      /Server-Sent Events/,
    );
  });

  test("parse_error: the message stays on one line whatever the text holds", () => {
    for (const text of ["a\rb", "x\u2028y", "[1,\n2,,]", '{"a"\r\n:}']) {
      const m = raised(dec(text, "2025-06-18"), "parse_error").message;
      assert.ok(!/[\r\n\u2028\u2029]/.test(m), JSON.stringify(m));
    }
  });

  test("an unknown revision is reported, never thrown", () => {
    for (const revision of ["1999-01-01", "", "toString", "__proto__", "constructor"]) {
      const d = decode(req(), { revision: revision as Revision });
      assert.equal(d.kind, "invalid");
      assert.match(raised(d, "parse_error").message, /unknown revision/);
    }
  });

  test("invalid_utf8: bytes that are not UTF-8; never for valid UTF-8 or strings", () => {
    const bad = [
      Uint8Array.from([0xff]),
      Uint8Array.from([0xc3, 0x28]),
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // a UTF-8-encoded surrogate
      Buffer.concat([Buffer.from(req()), Buffer.from([0xe2, 0x82])]), // truncated sequence
    ];
    for (const rev of ALL) {
      for (const b of bad) raised(dec(b, rev), "invalid_utf8", { kind: "invalid", path: "" });
      const ok = dec(Buffer.from(json({ jsonrpc: "2.0", method: "x", params: { s: "é 漢 😀" } })), rev);
      notRaised(ok, "invalid_utf8");
      assert.equal(ok.kind, "notification");
      assert.deepEqual(ok.message, { jsonrpc: "2.0", method: "x", params: { s: "é 漢 😀" } });
    }
  });

  test("byte_order_mark: an info defect, in bytes or text; the message keeps its kind", () => {
    const text = json(request("2025-06-18"));
    for (const input of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), "\ufeff" + text]) {
      const d = dec(input, "2025-06-18");
      raised(d, "byte_order_mark", { severity: "info", path: "", kind: "request" });
      assert.deepEqual(d.message, request("2025-06-18"));
    }
    notRaised(dec(text, "2025-06-18"), "byte_order_mark");
    // a BOM before something broken is still reported, beside the real fault
    const broken = dec("\ufeff{", "2025-06-18");
    raised(broken, "byte_order_mark");
    raised(broken, "parse_error");
    // only one mark is forgiven: a second one is not JSON whitespace
    raised(dec("\ufeff\ufeff" + text, "2025-06-18"), "parse_error");
  });

  test("too_large: over maxBytes is refused without parsing; at the limit it is parsed", () => {
    const text = req();
    const n = Buffer.byteLength(text);
    for (const rev of ALL) {
      raised(dec(text, rev, { maxBytes: n - 1 }), "too_large", { kind: "invalid", path: "" });
      raised(dec(Buffer.from(text), rev, { maxBytes: n - 1 }), "too_large", { kind: "invalid" });
      notRaised(dec(text, rev, { maxBytes: n }), "too_large");
      notRaised(dec(Buffer.from(text), rev, { maxBytes: n }), "too_large");
    }
    // counted in UTF-8 bytes, not UTF-16 units
    const wide = json({ jsonrpc: "2.0", method: "x", params: { s: "é".repeat(100) } });
    assert.ok(wide.length < 200 && Buffer.byteLength(wide) > 200);
    raised(dec(wide, "2025-06-18", { maxBytes: 200 }), "too_large");
    notRaised(dec(wide, "2025-06-18", { maxBytes: Buffer.byteLength(wide) }), "too_large");
  });

  test("too_large: nothing is parsed, so broken JSON past the limit is only too_large", () => {
    const parse = mock.method(JSON, "parse");
    try {
      const d = dec("{".repeat(5000), "2025-06-18", { maxBytes: 1000 });
      assert.deepEqual(
        d.defects.map((x) => x.code),
        ["too_large"],
      );
      const b = dec(Buffer.alloc(5000, 0xff), "2025-06-18", { maxBytes: 1000 });
      assert.deepEqual(
        b.defects.map((x) => x.code),
        ["too_large"],
      );
      assert.equal(parse.mock.callCount(), 0);
    } finally {
      parse.mock.restore();
    }
  });

  test("too_large: the default limit is 4 MiB", () => {
    const big = json({ jsonrpc: "2.0", method: "x", params: { s: "a".repeat(4 * 1024 * 1024) } });
    raised(dec(big, "2025-06-18"), "too_large");
    raised(dec(Buffer.from(big), "2025-06-18"), "too_large");
  });

  test("too_deep: one level past maxDepth is refused; maxDepth itself is fine", () => {
    const nest = (depth: number) =>
      json({ jsonrpc: "2.0", method: "x", params: { v: JSON.parse("[".repeat(depth - 2) + "]".repeat(depth - 2)) } });
    // the message object is level 1, params level 2
    for (const rev of ALL) {
      notRaised(dec(nest(128), rev), "too_deep");
      raised(dec(nest(129), rev), "too_deep", { kind: "invalid", path: "" });
      notRaised(dec(nest(10), rev, { maxDepth: 10 }), "too_deep");
      raised(dec(nest(11), rev, { maxDepth: 10 }), "too_deep");
    }
  });

  test("too_deep: a 1,000,000-deep array or object does not crash", () => {
    const n = 1_000_000;
    const arr = dec("[".repeat(n) + "]".repeat(n), "2025-06-18");
    raised(arr, "too_deep", { kind: "invalid" });
    const obj = dec('{"a":'.repeat(n) + "1" + "}".repeat(n), "2025-06-18", { maxBytes: 8 * n });
    raised(obj, "too_deep", { kind: "invalid" });
    const bytes = dec(Buffer.from("[".repeat(n) + "]".repeat(n)), "2025-06-18");
    raised(bytes, "too_deep");
  });

  test("not_object: a JSON scalar", () => {
    for (const rev of ALL) {
      for (const text of ["5", '"x"', "null", "true", "-1.5"])
        raised(dec(text, rev), "not_object", { kind: "invalid", path: "" });
      notRaised(dec(req(), rev), "not_object");
    }
  });

  test("no_envelope: an object with none of jsonrpc, id, method, result, error", () => {
    for (const rev of ALL) {
      for (const text of [
        "{}",
        '{"tools":[]}',
        '{"content":[{"type":"text","text":"hi"}],"isError":false,"x":1,"y":2}',
      ]) {
        raised(dec(text, rev), "no_envelope", { kind: "invalid", path: "" });
      }
      notRaised(dec('{"jsonrpc":"2.0"}', rev), "no_envelope");
      notRaised(dec('{"id":1,"tools":[]}', rev), "no_envelope");
    }
  });
});

describe("batches", () => {
  const two = json([
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
  ]);

  test("batch_not_allowed everywhere but 2025-03-26, which must receive them", () => {
    const d = dec(two, "2025-03-26");
    assert.equal(d.kind, "batch");
    assert.deepEqual(d.defects, []);
    assert.deepEqual(d.message, JSON.parse(two));
    assert.deepEqual(
      d.items?.map((i) => i.kind),
      ["request", "notification"],
    );
    for (const rev of except("2025-03-26")) {
      const x = dec(two, rev);
      raised(x, "batch_not_allowed", { kind: "invalid", path: "" });
      assert.equal(x.items?.length, 2); // each member's verdict is still there
    }
    assert.equal(RULES["2025-03-26"].batches, "receive");
  });

  test("empty_batch on 2025-03-26; elsewhere an empty array is a bare_array", () => {
    raised(dec("[]", "2025-03-26"), "empty_batch", { kind: "invalid", path: "" });
    notRaised(dec("[]", "2025-03-26"), "bare_array");
    for (const rev of except("2025-03-26")) {
      raised(dec("[]", rev), "bare_array", { kind: "invalid", path: "" });
      notRaised(dec("[]", rev), "empty_batch");
    }
  });

  test("bare_array: an array of things that are not messages; on 2025-03-26 only when it holds objects", () => {
    for (const rev of ALL) {
      raised(dec('[{"name":"search"}]', rev), "bare_array", { kind: "invalid" });
      raised(dec('[{"name":"search"}, 1]', rev), "bare_array", { kind: "invalid" });
      notRaised(dec(two, rev), "bare_array");
    }
    for (const rev of except("2025-03-26")) {
      for (const text of ["[1]", "[1,2]", "[1,2,3]", "[null]", '["a"]', "[[]]", '[[{"jsonrpc":"2.0","method":"a"}]]']) {
        raised(dec(text, rev), "bare_array", { kind: "invalid", path: "" });
      }
    }
  });

  test("2025-03-26: an array of no objects ([1], [1,2,3], [null]) is a batch of invalid members, one defect each", () => {
    for (const [text, n] of [
      ["[1]", 1],
      ["[1,2,3]", 3],
      ["[null]", 1],
      ['["a", true]', 2],
      ["[[]]", 1],
      ['[[{"jsonrpc":"2.0","method":"a"}]]', 1],
    ] as const) {
      const d = dec(text, "2025-03-26");
      assert.equal(d.kind, "batch", text);
      assert.equal(d.items?.length, n);
      assert.ok(d.items!.every((i) => i.kind === "invalid"));
      assert.deepEqual(
        d.defects.map((x) => [x.code, x.path]),
        Array.from({ length: n }, (_, i) => ["not_object", `/${i}`]),
        text,
      );
      notRaised(d, "bare_array");
    }
  });

  test("batch_mixed: requests and responses in one batch", () => {
    const mixed = json([request("2025-03-26"), result("2025-03-26", 7)]);
    raised(dec(mixed, "2025-03-26"), "batch_mixed", { kind: "invalid", path: "" });
    const answers = json([result("2025-03-26", 1), { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } }]);
    const d = dec(answers, "2025-03-26");
    notRaised(d, "batch_mixed");
    assert.equal(d.kind, "batch");
    notRaised(dec(two, "2025-03-26"), "batch_mixed");
  });

  test("batch_initialize: initialize must not be in a batch", () => {
    const init = json([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
    ]);
    raised(dec(init, "2025-03-26"), "batch_initialize", { kind: "invalid", path: "/0" });
    notRaised(dec(two, "2025-03-26"), "batch_initialize");
    // a lone initialize is fine
    notRaised(dec(json(JSON.parse(init)[0]), "2025-03-26"), "batch_initialize");
  });

  test("a member's defects carry the member's index in their path", () => {
    const d = dec(
      json([{ jsonrpc: "2.0", id: 1, method: "a" }, { jsonrpc: "2.0", id: null, method: "b" }, 5]),
      "2025-03-26",
    );
    raised(d, "id_null", { path: "/1/id" });
    raised(d, "not_object", { path: "/2" });
    assert.deepEqual(
      d.items?.map((i) => i.kind),
      ["request", "invalid", "invalid"],
    );
  });

  test("a batch inside a batch is not a message", () => {
    const nested = json([[{ jsonrpc: "2.0", method: "a" }], { jsonrpc: "2.0", method: "b" }]);
    const d = dec(nested, "2025-03-26");
    raised(d, "not_object", { path: "/0" });
    assert.equal(d.items?.[0]?.kind, "invalid");
  });
});

describe("the jsonrpc member", () => {
  test("missing_jsonrpc", () => {
    for (const rev of ALL) {
      raised(dec('{"id":1,"method":"tools/list"}', rev), "missing_jsonrpc", { kind: "invalid", path: "" });
      raised(dec('{"id":1,"result":{}}', rev), "missing_jsonrpc", { kind: "invalid" });
      notRaised(dec(req(), rev), "missing_jsonrpc");
    }
  });

  test("wrong_jsonrpc_version", () => {
    for (const rev of ALL) {
      for (const v of ["1.0", "2", 2, 2.0, null, " 2.0", {}])
        raised(dec(req({ jsonrpc: v }), rev), "wrong_jsonrpc_version", { kind: "invalid", path: "/jsonrpc" });
      notRaised(dec(req(), rev), "wrong_jsonrpc_version");
    }
  });
});

describe("ids", () => {
  test("id_null: an error on requests and results, on every revision", () => {
    for (const rev of ALL) {
      raised(dec(req({ id: null }), rev), "id_null", { kind: "invalid", path: "/id" });
      raised(dec('{"jsonrpc":"2.0","id":null,"result":{}}', rev), "id_null", { kind: "invalid", path: "/id" });
      notRaised(dec(req({ id: 0 }), rev), "id_null");
      notRaised(dec(req({ id: "" }), rev), "id_null");
    }
  });

  test("id_null on an error response: JSON-RPC's mark for an unreadable id, only a warning", () => {
    for (const rev of ALL) {
      const d = dec('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', rev);
      raised(d, "id_null", { severity: "warning", kind: "error", path: "/id" });
    }
  });

  test("id_missing: a result always needs its id", () => {
    for (const rev of ALL) {
      raised(dec('{"jsonrpc":"2.0","result":{}}', rev), "id_missing", { kind: "invalid", path: "" });
      notRaised(dec(json(result(rev)), rev), "id_missing");
    }
  });

  test("id_missing on an error response: a warning before 2025-11-25 (an error without an id is a warning at most), allowed from it", () => {
    const text = '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}';
    for (const rev of ["2024-11-05", "2025-03-26", "2025-06-18"] as const) {
      raised(dec(text, rev), "id_missing", { kind: "error", severity: "warning" });
    }
    for (const rev of ["2025-11-25", "2026-07-28"] as const) {
      const d = dec(text, rev);
      notRaised(d, "id_missing");
      assert.equal(d.kind, "error");
      assert.deepEqual(d.defects, []);
    }
  });

  test("id_invalid_type: booleans, objects, arrays", () => {
    for (const rev of ALL) {
      for (const id of [true, false, {}, [1], { id: 1 }]) {
        raised(dec(req({ id }), rev), "id_invalid_type", { kind: "invalid", path: "/id" });
        raised(dec(json({ jsonrpc: "2.0", id, result: {} }), rev), "id_invalid_type", { kind: "invalid" });
        raised(dec(json({ jsonrpc: "2.0", id, error: { code: -32601, message: "x" } }), rev), "id_invalid_type", {
          kind: "invalid",
        });
      }
      notRaised(dec(req({ id: "abc" }), rev), "id_invalid_type");
      notRaised(dec(req({ id: -3 }), rev), "id_invalid_type");
    }
  });

  test("id_fractional; 1.0 and 1e3 are integers in JSON's number model", () => {
    for (const rev of ALL) {
      for (const text of [
        '{"jsonrpc":"2.0","id":1.5,"method":"a"}',
        '{"jsonrpc":"2.0","id":-0.25,"result":{}}',
        '{"jsonrpc":"2.0","id":1e-3,"error":{"code":1,"message":"x"}}',
      ]) {
        raised(dec(text, rev), "id_fractional", { kind: "invalid", path: "/id" });
      }
      for (const text of ['{"jsonrpc":"2.0","id":1.0,"method":"a"}', '{"jsonrpc":"2.0","id":1e3,"method":"a"}']) {
        notRaised(dec(text, rev), "id_fractional");
      }
    }
  });

  test("id_unsafe_integer: a warning past 2^53, the kind is kept", () => {
    for (const rev of LEGACY) {
      raised(dec('{"jsonrpc":"2.0","id":9007199254740993,"method":"a"}', rev), "id_unsafe_integer", {
        severity: "warning",
        kind: "request",
        path: "/id",
      });
      raised(dec('{"jsonrpc":"2.0","id":-1e300,"result":{}}', rev), "id_unsafe_integer", { kind: "result" });
      notRaised(dec('{"jsonrpc":"2.0","id":9007199254740991,"method":"a"}', rev), "id_unsafe_integer");
      notRaised(dec('{"jsonrpc":"2.0","id":"9007199254740993","method":"a"}', rev), "id_unsafe_integer");
    }
  });
});

describe("method and params", () => {
  test("method_invalid: not a string, rpc.-prefixed, or params with no method", () => {
    for (const rev of ALL) {
      for (const method of [5, "rpc.discover", null, ["x"]]) {
        raised(dec(req({ method }), rev), "method_invalid", { kind: "invalid", path: "/method" });
        raised(dec(json({ jsonrpc: "2.0", method }), rev), "method_invalid", { kind: "invalid" });
      }
      raised(dec('{"jsonrpc":"2.0","id":1,"params":{}}', rev), "method_invalid", { kind: "invalid", path: "" });
      for (const method of ["tools/list", "rpc", "rpcx", "RPC.x", "x.rpc.y"])
        notRaised(dec(req({ method }), rev), "method_invalid");
    }
  });

  test('an empty method name "" is a well-formed call of a method nobody has (answered -32601)', () => {
    for (const rev of ALL) {
      const r = dec(rev === MODERN ? json(request(rev, 1, "")) : req({ method: "" }), rev);
      assert.equal(r.kind, "request");
      assert.deepEqual(r.defects, []);
      const n = dec(json({ jsonrpc: "2.0", method: "" }), rev);
      assert.equal(n.kind, "notification");
      assert.deepEqual(n.defects, []);
    }
  });

  test("params_not_object: MCP params are always an object", () => {
    for (const rev of ALL) {
      for (const params of [[], [1, 2], "x", 1, null, true]) {
        raised(dec(req({ params }), rev), "params_not_object", { kind: "invalid", path: "/params" });
        raised(dec(json({ jsonrpc: "2.0", method: "notifications/x", params }), rev), "params_not_object", {
          kind: "invalid",
        });
      }
      notRaised(dec(json(request(rev)), rev), "params_not_object");
      notRaised(dec('{"jsonrpc":"2.0","method":"ping"}', rev), "params_not_object");
    }
  });
});

describe("responses", () => {
  test("ambiguous_kind: method beside result or error", () => {
    for (const rev of ALL) {
      raised(dec(req({ result: {} }), rev), "ambiguous_kind", { kind: "invalid", path: "" });
      raised(dec(json({ jsonrpc: "2.0", method: "a", error: { code: 1, message: "x" } }), rev), "ambiguous_kind", {
        kind: "invalid",
      });
      notRaised(dec(req(), rev), "ambiguous_kind");
      notRaised(dec(json(result(rev)), rev), "ambiguous_kind");
    }
  });

  test("result_and_error", () => {
    for (const rev of ALL) {
      raised(
        dec('{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"x"}}', rev),
        "result_and_error",
        { kind: "invalid", path: "" },
      );
      notRaised(dec(json(result(rev)), rev), "result_and_error");
      notRaised(dec(errCode(-32603), rev), "result_and_error");
    }
  });

  test("neither_result_nor_error", () => {
    for (const rev of ALL) {
      raised(dec('{"jsonrpc":"2.0","id":1}', rev), "neither_result_nor_error", { kind: "invalid", path: "" });
      raised(dec('{"jsonrpc":"2.0"}', rev), "neither_result_nor_error", { kind: "invalid" });
      notRaised(dec(json(result(rev)), rev), "neither_result_nor_error");
    }
  });

  test("result_not_object", () => {
    for (const rev of ALL) {
      for (const r of [[], "ok", 5, null, true, [{ resultType: "complete" }]]) {
        raised(dec(json({ jsonrpc: "2.0", id: 1, result: r }), rev), "result_not_object", {
          kind: "invalid",
          path: "/result",
        });
      }
      notRaised(dec(json(result(rev)), rev), "result_not_object");
    }
  });

  test("error_invalid: not an object, no code, no message, message not a string", () => {
    for (const rev of ALL) {
      for (const [error, path] of [
        ["boom", "/error"],
        [null, "/error"],
        [[], "/error"],
        [{ message: "x" }, "/error/code"],
        [{ code: -32603 }, "/error/message"],
        [{ code: -32603, message: 5 }, "/error/message"],
        [{ code: -32603, message: null }, "/error/message"],
      ] as const) {
        raised(dec(err(error), rev), "error_invalid", { kind: "invalid", path });
      }
      notRaised(dec(err({ code: -32603, message: "" }), rev), "error_invalid");
      notRaised(dec(err({ code: -32603, message: "x", data: null }), rev), "error_invalid");
    }
  });

  test("error_code_not_integer", () => {
    for (const rev of ALL) {
      for (const code of ["-32601", -32601.5, null, true, {}])
        raised(dec(errCode(code), rev), "error_code_not_integer", { kind: "invalid", path: "/error/code" });
      notRaised(dec(errCode(-32601), rev), "error_code_not_integer");
      notRaised(dec('{"jsonrpc":"2.0","id":1,"error":{"code":-32601.0,"message":"x"}}', rev), "error_code_not_integer");
    }
  });

  test("unexpected_member: a warning with an escaped JSON Pointer; the kind is kept", () => {
    for (const rev of ALL) {
      raised(dec(json({ ...request(rev), extra: 1 }), rev), "unexpected_member", {
        severity: "warning",
        path: "/extra",
        kind: "request",
      });
      raised(dec(json({ ...result(rev), "a/b~c": 1 }), rev), "unexpected_member", { path: "/a~1b~0c", kind: "result" });
      raised(dec(err({ code: -32601, message: "x", details: "y" }), rev), "unexpected_member", {
        path: "/error/details",
        kind: "error",
      });
      raised(dec(json({ jsonrpc: "2.0", method: "notifications/x", _meta: {} }), rev), "unexpected_member", {
        path: "/_meta",
        kind: "notification",
      });
      notRaised(dec(json(request(rev)), rev), "unexpected_member");
      notRaised(dec(err({ code: -32601, message: "x", data: { a: 1 } }), rev), "unexpected_member");
    }
  });

  test("unexpected_member: params on a response is not a response member", () => {
    for (const rev of ALL) {
      raised(dec(json({ ...result(rev), params: {} }), rev), "unexpected_member", { path: "/params", kind: "result" });
      raised(
        dec(json({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "x" }, params: {} }), rev),
        "unexpected_member",
        { path: "/params", kind: "error" },
      );
    }
  });
});

describe("error codes by revision", () => {
  const expectCode = (code: number, rev: Revision) => dec(errCode(code), rev);

  test("the five standard codes are clean everywhere", () => {
    for (const rev of ALL)
      for (const code of [-32700, -32600, -32601, -32602, -32603]) assert.deepEqual(expectCode(code, rev).defects, []);
  });

  test("application codes (outside -32768…-32000) are clean everywhere", () => {
    for (const rev of ALL)
      for (const code of [0, 1, -1, 404, -31999, -32769, -99999, 2 ** 31])
        assert.deepEqual(expectCode(code, rev).defects, []);
  });

  test("error_code_legacy: a warning for -32000…-32019 on every revision (but -32002 where defined)", () => {
    for (const rev of ALL) {
      for (const code of [-32000, -32001, -32003, -32010, -32019])
        raised(expectCode(code, rev), "error_code_legacy", { severity: "warning", kind: "error", path: "/error/code" });
    }
    for (const rev of LEGACY) notRaised(expectCode(-32002, rev), "error_code_legacy");
    notRaised(expectCode(-32002, MODERN), "error_code_legacy");
  });

  test("before 2026-07-28 all of -32000…-32099 is implementation-defined: a legacy warning", () => {
    for (const rev of LEGACY) {
      for (const code of [-32020, -32022, -32023, -32050, -32099])
        raised(expectCode(code, rev), "error_code_legacy", { kind: "error" });
      for (const code of [-32023, -32050, -32099]) notRaised(expectCode(code, rev), "error_code_undefined_mcp");
    }
  });

  test("-32002 is defined (resource not found) up to 2025-11-25, retired on 2026-07-28", () => {
    for (const rev of LEGACY) {
      const d = expectCode(-32002, rev);
      assert.deepEqual(d.defects, []);
      assert.equal(d.kind, "error");
    }
    const m = raised(expectCode(-32002, MODERN), "error_code_retired", { kind: "error", path: "/error/code" });
    assert.match(m.message, /-32602/);
  });

  test("-32042 is defined on 2025-11-25 only, retired on 2026-07-28, meaningless before", () => {
    assert.deepEqual(expectCode(-32042, "2025-11-25").defects, []);
    raised(expectCode(-32042, MODERN), "error_code_retired", { kind: "error" });
    notRaised(expectCode(-32042, MODERN), "error_code_undefined_mcp");
    for (const rev of ["2024-11-05", "2025-03-26", "2025-06-18"] as const) {
      raised(expectCode(-32042, rev), "error_code_legacy");
      notRaised(expectCode(-32042, rev), "error_code_retired");
    }
  });

  test("error_code_retired is never raised before 2026-07-28", () => {
    for (const rev of LEGACY)
      for (const code of [-32002, -32042]) notRaised(expectCode(code, rev), "error_code_retired");
  });

  test("error_code_undefined_mcp: -32023…-32099 on 2026-07-28 only; -32020…-32022 are defined", () => {
    for (const code of [-32023, -32024, -32050, -32098, -32099])
      raised(expectCode(code, MODERN), "error_code_undefined_mcp", { kind: "error", path: "/error/code" });
    for (const code of [-32020, -32021, -32022]) assert.deepEqual(expectCode(code, MODERN).defects, []);
    for (const code of [-32019, -32100, -32000]) notRaised(expectCode(code, MODERN), "error_code_undefined_mcp");
  });

  test("error_code_reserved: a warning for -32768…-32100 outside the five", () => {
    for (const rev of ALL) {
      for (const code of [-32500, -32100, -32768, -32604, -32699, -32701])
        raised(expectCode(code, rev), "error_code_reserved", {
          severity: "warning",
          kind: "error",
          path: "/error/code",
        });
      for (const code of [-32769, -32099, -32700, -32600]) notRaised(expectCode(code, rev), "error_code_reserved");
    }
  });

  test("error-code defects also apply to a code in a batch member, with its path", () => {
    const d = dec(json([{ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "x" } }]), "2025-03-26");
    raised(d, "error_code_legacy", { path: "/0/error/code", kind: "batch" });
  });
});

describe("2026-07-28 content rules", () => {
  test("result_type_missing: only on 2026-07-28", () => {
    raised(dec('{"jsonrpc":"2.0","id":1,"result":{}}', MODERN), "result_type_missing", {
      severity: "warning",
      kind: "result",
      path: "/result/resultType",
    });
    for (const rev of LEGACY) notRaised(dec('{"jsonrpc":"2.0","id":1,"result":{}}', rev), "result_type_missing");
    notRaised(dec(json(result(MODERN)), MODERN), "result_type_missing");
  });

  test("result_type_unknown: an error that keeps the kind; complete and input_required are known", () => {
    for (const rt of ["partial", "", "Complete", 5, null, {}, ["complete"]]) {
      raised(dec(json({ jsonrpc: "2.0", id: 1, result: { resultType: rt } }), MODERN), "result_type_unknown", {
        kind: "result",
        path: "/result/resultType",
      });
    }
    for (const rt of ["complete", "input_required"])
      assert.deepEqual(dec(json({ jsonrpc: "2.0", id: 1, result: { resultType: rt } }), MODERN).defects, []);
    // earlier revisions have no resultType: whatever is there is the result's own business
    for (const rev of LEGACY)
      notRaised(dec(json({ jsonrpc: "2.0", id: 1, result: { resultType: "partial" } }), rev), "result_type_unknown");
  });

  test("meta_missing_protocol_version: a 2026-07-28 request without it is an error that keeps the kind", () => {
    const cases: [unknown, string][] = [
      [undefined, "/params/_meta"],
      [{}, "/params/_meta"],
      [{ _meta: null }, "/params/_meta"],
      [
        { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
        "/params/_meta/io.modelcontextprotocol~1protocolVersion",
      ],
    ];
    for (const [params, path] of cases) {
      const m =
        params === undefined
          ? { jsonrpc: "2.0", id: 1, method: "tools/list" }
          : { jsonrpc: "2.0", id: 1, method: "tools/list", params };
      raised(dec(json(m), MODERN), "meta_missing_protocol_version", { kind: "request", path });
    }
    notRaised(dec(json(request(MODERN)), MODERN), "meta_missing_protocol_version");
    for (const rev of LEGACY) notRaised(dec(req(), rev), "meta_missing_protocol_version");
    // notifications and server-sent requests are not bound by it
    notRaised(
      dec('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}', MODERN),
      "meta_missing_protocol_version",
    );
    notRaised(dec(req(), MODERN, { role: "server" }), "meta_missing_protocol_version");
    raised(dec(req(), MODERN, { role: "client" }), "meta_missing_protocol_version");
  });

  test("meta_missing_client_capabilities", () => {
    const pv = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    raised(
      dec(json({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: pv } }), MODERN),
      "meta_missing_client_capabilities",
      {
        kind: "request",
        path: "/params/_meta/io.modelcontextprotocol~1clientCapabilities",
      },
    );
    notRaised(dec(json(request(MODERN)), MODERN), "meta_missing_client_capabilities");
    for (const rev of LEGACY)
      notRaised(
        dec(json({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: pv } }), rev),
        "meta_missing_client_capabilities",
      );
  });

  test("meta_invalid: present per-request _meta values of the wrong type, an error that keeps the kind", () => {
    const PV = "io.modelcontextprotocol/protocolVersion";
    const CAPS = "io.modelcontextprotocol/clientCapabilities";
    const INFO = "io.modelcontextprotocol/clientInfo";
    const at = (...tokens: string[]) => ["/params/_meta", ...tokens.map((t) => t.replace("/", "~1"))].join("/");
    const cases: [Record<string, unknown>, string][] = [
      [{ [PV]: 20260728 }, at(PV)],
      [{ [PV]: null }, at(PV)],
      [{ [PV]: ["2026-07-28"] }, at(PV)],
      [{ [CAPS]: null }, at(CAPS)],
      [{ [CAPS]: "all" }, at(CAPS)],
      [{ [CAPS]: [] }, at(CAPS)],
      [{ [INFO]: "client/1.0" }, at(INFO)],
      [{ [INFO]: null }, at(INFO)],
      [{ [INFO]: [] }, at(INFO)],
      [{ [INFO]: { version: "1" } }, at(INFO) + "/name"],
      [{ [INFO]: { name: "c" } }, at(INFO) + "/version"],
      [{ [INFO]: { name: 5, version: "1" } }, at(INFO) + "/name"],
      [{ [INFO]: { name: "c", version: 1 } }, at(INFO) + "/version"],
    ];
    for (const [change, path] of cases) {
      const m = request(MODERN, 1, "tools/list");
      const params = m.params as Record<string, unknown>;
      params._meta = { ...(params._meta as Record<string, unknown>), ...change };
      const d = dec(json(m), MODERN);
      raised(d, "meta_invalid", { kind: "request", path });
      assert.equal(d.defects.length, 1, JSON.stringify(d.defects));
    }
    // present and sound, or clientInfo absent (it is optional): silent
    notRaised(dec(json(request(MODERN)), MODERN), "meta_invalid");
    const noInfo = request(MODERN, 1, "tools/list");
    delete ((noInfo.params as Record<string, unknown>)._meta as Record<string, unknown>)[INFO];
    assert.deepEqual(dec(json(noInfo), MODERN).defects, []);
    const richer = request(MODERN, 1, "tools/list");
    ((richer.params as Record<string, unknown>)._meta as Record<string, unknown>)[INFO] = {
      name: "c",
      version: "1",
      title: "C",
      websiteUrl: "https://example.com",
    };
    assert.deepEqual(dec(json(richer), MODERN).defects, []);
    // a server's requests and the legacy revisions are not bound by the per-request fields
    const wrong = json({
      jsonrpc: "2.0",
      id: 1,
      method: "roots/list",
      params: { _meta: { [PV]: 1, [CAPS]: 1, [INFO]: 1 } },
    });
    notRaised(dec(wrong, MODERN, { role: "server" }), "meta_invalid");
    for (const rev of LEGACY) notRaised(dec(wrong, rev), "meta_invalid");
  });

  test("a clean 2026-07-28 request, result, error and notification", () => {
    for (const m of [
      request(MODERN, "a", "tools/call", { name: "search", arguments: { q: "x" } }),
      result(MODERN, "a", { content: [] }),
      {
        jsonrpc: "2.0",
        id: "a",
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: ["2026-07-28"], requested: "2099-01-01" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 0.5 } },
    ]) {
      const d = dec(json(m), MODERN);
      assert.deepEqual(d.defects, []);
      assert.deepEqual(d.message, m);
    }
  });
});

describe("hostile keys", () => {
  test("__proto__ and constructor stay plain data and never reach a prototype", () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"name":"x"}}';
    for (const rev of LEGACY) {
      const d = dec(text, rev);
      assert.equal(d.kind, "request");
      const params = (d.message as { params: Record<string, unknown> }).params;
      assert.equal(Object.getPrototypeOf(params), Object.prototype);
      assert.ok(Object.hasOwn(params, "__proto__"));
      assert.deepEqual(Object.keys(params), ["__proto__", "constructor", "name"]);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal((Object.prototype as unknown as Record<string, unknown>).polluted, undefined);
    }
    const top = dec('{"__proto__":{"jsonrpc":"2.0","id":1,"method":"x"}}', "2025-06-18");
    raised(top, "no_envelope"); // inherited-looking members do not count as an envelope
    assert.equal(({} as Record<string, unknown>).jsonrpc, undefined);
  });
});

describe("kind", () => {
  test("invalid exactly when an error-severity envelope defect is present; content defects keep the kind", () => {
    // dec() checks the invariant on every call; these pin a few by hand
    assert.equal(dec(errCode(-32002), MODERN).kind, "error");
    assert.equal(dec(errCode(-32050), MODERN).kind, "error");
    assert.equal(dec('{"jsonrpc":"2.0","id":1,"result":{"resultType":"x"}}', MODERN).kind, "result");
    assert.equal(dec(req(), MODERN).kind, "request");
    assert.equal(dec(req({ extra: true }), "2025-06-18").kind, "request");
    assert.equal(dec(req({ id: 1.5 }), "2025-06-18").kind, "invalid");
    assert.equal(dec(err({ code: -32002, message: 5 }), MODERN).kind, "invalid");
  });
});

describe("the verdict's type follows its kind", () => {
  // compiled under strict with the rest: each read below type-checks only because `kind` narrows
  test("request, notification, result, error and batch each give their message's own members, with no cast", () => {
    const seen: string[] = [];
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      "{}",
    ]) {
      const d = decode(text, { revision: "2025-03-26" });
      if (d.kind === "request") seen.push(`${d.kind} ${d.message.id} ${d.message.method}`);
      else if (d.kind === "notification") seen.push(`${d.kind} ${d.message.method}`);
      else if (d.kind === "result") seen.push(`${d.kind} ${d.message.id} ${Object.keys(d.message.result).length}`);
      else if (d.kind === "error") seen.push(`${d.kind} ${d.message.error.code}`);
      else if (d.kind === "batch") seen.push(`${d.kind} ${d.message.length} ${d.items.map((i) => i.kind).join()}`);
      else seen.push(`${d.kind} ${d.message === undefined} ${JSON.stringify(d.value)}`);
    }
    assert.deepEqual(seen, [
      "request 1 ping",
      "notification notifications/initialized",
      "result 1 0",
      "error -32601",
      "batch 1 request",
      "invalid true {}",
    ]);
  });
});
