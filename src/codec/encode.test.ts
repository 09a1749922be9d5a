import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Revision } from "../rules/revisions.js";
import { decode } from "./decode.js";
import { EncodeError, encode } from "./encode.js";
import type { Message } from "./message.js";
import { ALL, LEGACY, MODERN, assertDefectShape, except, request, result } from "../testkit/codec.js";

/** Runs `fn`, expects an EncodeError and returns it. */
function refused(fn: () => unknown): EncodeError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof EncodeError, `expected EncodeError, got ${String(e)}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, "ERR_MCP_WIRE_ENCODE");
    assert.equal(e.name, "EncodeError");
    assert.ok(e.defects.length > 0);
    for (const d of e.defects) {
      assertDefectShape(d);
      assert.equal(d.severity, "error");
    }
    return e;
  }
  assert.fail("encode did not refuse");
}

const asMessage = (v: unknown) => v as Message;

describe("encode", () => {
  test("a sound message becomes its JSON text, which decodes back to it", () => {
    for (const rev of ALL) {
      for (const m of [
        request(rev, 7, "tools/call", { name: "x", arguments: { a: [1, "b", null, true, { c: 1.5 }] } }),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        result(rev, "abc", { tools: [] }),
        { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found", data: { method: "x" } } },
      ]) {
        const text = encode(asMessage(m), { revision: rev });
        assert.equal(text, JSON.stringify(m));
        const d = decode(text, { revision: rev });
        assert.deepEqual(d.message, m);
        assert.deepEqual(d.defects, []);
      }
    }
  });

  test("warnings do not stop a message: a legacy error code is still sent", () => {
    for (const rev of ALL) {
      const m = { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "invalid api key" } };
      assert.equal(encode(asMessage(m), { revision: rev }), JSON.stringify(m));
    }
  });

  test("a message that breaks the envelope is refused with EncodeError and its defects", () => {
    for (const rev of ALL) {
      const e = refused(() => encode(asMessage({ ...request(rev), id: null }), { revision: rev }));
      assert.deepEqual(
        e.defects.map((d) => d.code),
        ["id_null"],
      );
      assert.equal(e.defects[0]!.path, "/id");
      assert.match(e.message, /^refusing to encode: id_null at \/id: /);
      refused(() => encode(asMessage({ jsonrpc: "1.0", id: 1, method: "x" }), { revision: rev }));
      refused(() =>
        encode(asMessage({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }), { revision: rev }),
      );
      refused(() => encode(asMessage({ tools: [] }), { revision: rev }));
      refused(() => encode(asMessage(5), { revision: rev }));
    }
  });

  test("a content error is refused too: -32002 on 2026-07-28, a request without _meta", () => {
    const e = refused(() =>
      encode(asMessage({ jsonrpc: "2.0", id: 1, error: { code: -32002, message: "not found" } }), { revision: MODERN }),
    );
    assert.deepEqual(
      e.defects.map((d) => d.code),
      ["error_code_retired"],
    );
    for (const rev of LEGACY)
      encode(asMessage({ jsonrpc: "2.0", id: 1, error: { code: -32002, message: "not found" } }), { revision: rev });
    refused(() => encode(asMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { revision: MODERN }));
    refused(() =>
      encode(asMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { revision: MODERN, role: "client" }),
    );
    // a server's request is not bound by the client's per-request _meta
    encode(asMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { revision: MODERN, role: "server" });
  });

  test("batches: only on 2025-03-26", () => {
    const batch = [request("2025-03-26", 1), { jsonrpc: "2.0", method: "notifications/x" }] as unknown as Message[];
    assert.equal(encode(batch, { revision: "2025-03-26" }), JSON.stringify(batch));
    for (const rev of except("2025-03-26")) {
      assert.ok(refused(() => encode(batch, { revision: rev })).defects.some((d) => d.code === "batch_not_allowed"));
    }
    assert.ok(refused(() => encode([], { revision: "2025-03-26" })).defects.some((d) => d.code === "empty_batch"));
    const bad = refused(() =>
      encode([asMessage(request("2025-03-26", 1)), asMessage({ jsonrpc: "2.0", id: true, method: "x" })], {
        revision: "2025-03-26",
      }),
    );
    assert.equal(bad.defects[0]!.path, "/1/id");
  });

  test("too deep, or referring to itself: too_deep, not a stack overflow", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    const e = refused(() =>
      encode(asMessage({ jsonrpc: "2.0", method: "x", params: { deep } }), { revision: "2025-06-18" }),
    );
    assert.deepEqual(
      e.defects.map((d) => d.code),
      ["too_deep"],
    );
    const params: Record<string, unknown> = {};
    params.self = params;
    refused(() => encode(asMessage({ jsonrpc: "2.0", method: "x", params }), { revision: "2025-06-18" }));
    let huge: unknown = null;
    for (let i = 0; i < 1_000_000; i++) huge = [huge];
    refused(() => encode(asMessage({ jsonrpc: "2.0", method: "x", params: { huge } }), { revision: "2025-06-18" }));
    // with a limit deeper than recursion may go, still an EncodeError and never a RangeError
    let tall: unknown = null;
    for (let i = 0; i < 200_000; i++) tall = { a: tall };
    assert.deepEqual(
      refused(() =>
        encode(asMessage({ jsonrpc: "2.0", method: "x", params: { tall } }), {
          revision: "2025-06-18",
          maxDepth: 100_000,
        }),
      ).defects.map((d) => d.code),
      ["too_deep"],
    );
    assert.deepEqual(
      refused(() =>
        encode(asMessage({ jsonrpc: "2.0", method: "x", params }), { revision: "2025-06-18", maxDepth: 1e9 }),
      ).defects.map((d) => d.code),
      ["too_deep"],
    );
    // maxDepth is honoured both ways
    const ok = { jsonrpc: "2.0", method: "x", params: { a: { b: {} } } };
    encode(asMessage(ok), { revision: "2025-06-18", maxDepth: 4 });
    refused(() => encode(asMessage(ok), { revision: "2025-06-18", maxDepth: 3 }));
  });

  test("not JSON data: a BigInt is refused, not thrown as a TypeError", () => {
    const e = refused(() =>
      encode(asMessage({ jsonrpc: "2.0", method: "x", params: { n: 10n } }), { revision: "2025-06-18" }),
    );
    assert.equal(e.defects[0]!.code, "parse_error");
    assert.ok(
      refused(() =>
        encode(asMessage({ jsonrpc: "2.0", id: 10n, method: "x" }), { revision: "2025-06-18" }),
      ).defects.some((d) => d.code === "id_invalid_type"),
    );
  });

  test("too_large past maxBytes, counted in UTF-8 bytes", () => {
    const m = asMessage({ jsonrpc: "2.0", method: "x", params: { s: "é".repeat(100) } });
    const n = Buffer.byteLength(JSON.stringify(m));
    assert.equal(encode(m, { revision: "2025-06-18", maxBytes: n }), JSON.stringify(m));
    assert.deepEqual(
      refused(() => encode(m, { revision: "2025-06-18", maxBytes: n - 1 })).defects.map((d) => d.code),
      ["too_large"],
    );
  });

  test("an unknown revision is an EncodeError", () => {
    for (const revision of ["1999-01-01", "toString", "__proto__"]) {
      refused(() => encode(asMessage(request("2025-06-18")), { revision: revision as Revision }));
    }
  });

  test("own __proto__ keys are data and are written out as such", () => {
    const m = JSON.parse('{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"a":1}}}') as Message;
    const text = encode(m, { revision: "2025-06-18" });
    assert.equal(text, '{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"a":1}}}');
    assert.deepEqual(decode(text, { revision: "2025-06-18" }).message, m);
  });

  test("the 2026-07-28 example round-trips", () => {
    const m = result(MODERN, 2, {
      tools: [{ name: "search", inputSchema: { type: "object" } }],
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
    });
    assert.deepEqual(decode(encode(asMessage(m), { revision: MODERN }), { revision: MODERN }), {
      kind: "result",
      message: m,
      defects: [],
    });
  });
});
