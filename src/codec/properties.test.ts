/**
 * fast-check properties of the codec: decode never throws and keeps its invariants on any input;
 * every valid message survives encode → decode; every broken one is flagged by decode and
 * refused by encode, by the same defects.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { RULES, type Revision } from "../rules/revisions.js";
import { decode } from "./decode.js";
import type { DefectCode } from "./defects.js";
import { EncodeError, encode } from "./encode.js";
import type { Message, MessageKind } from "./message.js";
import { ALL, MODERN, assertDefectShape, assertSound, hasError } from "../testkit/codec.js";

const RUNS = { numRuns: 300 };
const revision = fc.constantFrom(...ALL);

/** What JSON.parse would give for a value: no -0, own `__proto__` keys, plain prototypes. */
const asParsed = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const jsonValue = fc
  .oneof(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 2, stringUnit: "binary" }))
  .map(asParsed);
const key = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "toString", "_meta", "a/b~c"),
);
const object = fc.dictionary(key, jsonValue, { maxKeys: 5, noNullPrototype: true }).map(asParsed);

const id = fc
  .oneof(fc.string({ maxLength: 16 }), fc.string({ unit: "binary", maxLength: 8 }), fc.integer(), fc.maxSafeInteger())
  .map((v) => (v === 0 ? 0 : v));
const method = fc
  .oneof(
    fc.constantFrom("tools/list", "tools/call", "ping", "resources/read", "notifications/progress", "server/discover"),
    fc.string({ minLength: 1, maxLength: 24 }),
    fc.string({ unit: "binary", minLength: 1, maxLength: 8 }),
  )
  .filter((m) => !m.startsWith("rpc.") && m !== "initialize");

/** Codes that leave an error response clean on `rev` (warnings allowed, errors not). */
function errorCode(rev: Revision): fc.Arbitrary<number> {
  const rules = RULES[rev];
  const legacy = fc
    .integer({ min: -32019, max: -32000 })
    .filter((c) => !rules.retiredErrorCodes.some((r) => r.code === c));
  return fc.oneof(
    fc.constantFrom(-32700, -32600, -32601, -32602, -32603),
    fc.integer({ min: -31999, max: 2 ** 31 }),
    fc.integer({ min: -(2 ** 31), max: -32769 }),
    legacy,
    fc.integer({ min: -32768, max: -32100 }), // reserved by JSON-RPC: a warning only
    rules.definedErrorCodes.length > 0
      ? fc.constantFrom(...rules.definedErrorCodes.map((d) => d.code))
      : fc.constant(-32603),
    rules.partitionedServerErrors ? fc.constant(-32001) : fc.integer({ min: -32099, max: -32000 }),
  );
}

type Generated = {
  kind: Exclude<MessageKind, "invalid">;
  message: Record<string, unknown> | Record<string, unknown>[];
};

function requestArb(rev: Revision): fc.Arbitrary<Record<string, unknown>> {
  const meta = fc.record(
    {
      "io.modelcontextprotocol/protocolVersion": fc.constant(rev),
      "io.modelcontextprotocol/clientCapabilities": object,
      "io.modelcontextprotocol/clientInfo": fc.record({ name: fc.string(), version: fc.string() }),
      progressToken: fc.oneof(fc.string(), fc.integer()),
    },
    { requiredKeys: ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"] },
  );
  const params = rev === MODERN ? fc.tuple(object, meta).map(([p, m]) => ({ ...p, _meta: m })) : object;
  return fc
    .record(
      { jsonrpc: fc.constant("2.0"), id, method, params },
      { requiredKeys: rev === MODERN ? ["jsonrpc", "id", "method", "params"] : ["jsonrpc", "id", "method"] },
    )
    .map(asParsed);
}

function notificationArb(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({ jsonrpc: fc.constant("2.0"), method, params: object }, { requiredKeys: ["jsonrpc", "method"] })
    .map(asParsed);
}

function resultArb(rev: Revision): fc.Arbitrary<Record<string, unknown>> {
  const body =
    rev === MODERN
      ? fc.tuple(object, fc.constantFrom(...RULES[rev].resultTypes)).map(([b, resultType]) => ({ ...b, resultType }))
      : object;
  return fc.record({ jsonrpc: fc.constant("2.0"), id, result: body }).map(asParsed);
}

function errorArb(rev: Revision): fc.Arbitrary<Record<string, unknown>> {
  const error = fc.record(
    { code: errorCode(rev), message: fc.string(), data: jsonValue },
    { requiredKeys: ["code", "message"] },
  );
  return fc
    .record(
      { jsonrpc: fc.constant("2.0"), id, error },
      { requiredKeys: RULES[rev].errorIdOptional ? ["jsonrpc", "error"] : ["jsonrpc", "id", "error"] },
    )
    .map(asParsed);
}

function validArb(rev: Revision): fc.Arbitrary<Generated> {
  const one: fc.Arbitrary<Generated>[] = [
    requestArb(rev).map((message) => ({ kind: "request" as const, message })),
    notificationArb().map((message) => ({ kind: "notification" as const, message })),
    resultArb(rev).map((message) => ({ kind: "result" as const, message })),
    errorArb(rev).map((message) => ({ kind: "error" as const, message })),
  ];
  if (RULES[rev].batches === "none") return fc.oneof(...one);
  const calls = fc.array(fc.oneof(requestArb(rev), notificationArb()), { minLength: 1, maxLength: 4 });
  const answers = fc.array(fc.oneof(resultArb(rev), errorArb(rev)), { minLength: 1, maxLength: 4 });
  return fc.oneof(
    ...one,
    fc.oneof(calls, answers).map((message) => ({ kind: "batch" as const, message })),
  );
}

const validMessage = revision.chain((rev) => validArb(rev).map((g) => ({ rev, ...g })));

describe("properties: decode never throws", () => {
  const check = (input: string | Uint8Array, rev: Revision, extra: { maxBytes?: number; maxDepth?: number } = {}) => {
    const d = decode(input, { revision: rev, ...extra });
    assertSound(d);
    return d;
  };

  test("on any string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), revision, (s, rev) => void check(s, rev)),
      RUNS,
    );
  });

  test("on any full-Unicode string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), revision, (s, rev) => void check(s, rev)),
      RUNS,
    );
  });

  test("on any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), revision, (b, rev) => void check(b, rev)),
      RUNS,
    );
  });

  test("on any JSON text, as text and as bytes", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.json({ maxDepth: 4 }), fc.json({ maxDepth: 3, stringUnit: "binary" })),
        revision,
        (text, rev) => {
          const a = check(text, rev);
          const b = check(Buffer.from(text), rev);
          assert.deepEqual(b, a);
        },
      ),
      RUNS,
    );
  });

  test("on JSON-ish token soup", () => {
    const token = fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ":",
      ",",
      '"jsonrpc"',
      '"2.0"',
      '"id"',
      '"method"',
      '"params"',
      '"result"',
      '"error"',
      '"code"',
      '"message"',
      "null",
      "true",
      "1",
      "-32601",
      "1.5",
      "1e400",
      '"x"',
      " ",
      "\n",
      "\ufeff",
      '"\\u0000"',
      '"\\ud800"',
      "\\",
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), revision, (ts, rev) => void check(ts.join(""), rev)),
      RUNS,
    );
  });

  test("on envelope-shaped objects of any member values", () => {
    fc.assert(
      fc.property(envelopeLike, revision, (v, rev) => void check(JSON.stringify(v), rev)),
      RUNS,
    );
  });

  test("with any limits", () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), revision, fc.nat(200), fc.nat(8), (text, rev, maxBytes, maxDepth) => {
        const d = check(text, rev, { maxBytes, maxDepth });
        if (Buffer.byteLength(text) > maxBytes)
          assert.deepEqual(
            d.defects.map((x) => x.code),
            ["too_large"],
          );
        else assert.ok(!d.defects.some((x) => x.code === "too_large"));
      }),
      RUNS,
    );
  });
});

/** An object with any subset of the envelope members, each holding anything. */
const member = fc.oneof(fc.constant("2.0"), id, method, object, jsonValue, fc.constant(null));
const envelopeLike = fc.record(
  {
    jsonrpc: member,
    id: member,
    method: member,
    params: member,
    result: member,
    error: fc.oneof(member, fc.record({ code: member, message: member, data: member }, { requiredKeys: [] })),
    extra: member,
  },
  { requiredKeys: [] },
);

describe("properties: valid messages", () => {
  test("survive encode → decode unchanged, with no error defect", () => {
    fc.assert(
      fc.property(validMessage, ({ rev, kind, message }) => {
        const text = encode(message as unknown as Message, { revision: rev });
        assert.equal(text, JSON.stringify(message));
        for (const input of [text, Buffer.from(text)]) {
          const d = decode(input, { revision: rev });
          assertSound(d);
          assert.equal(d.kind, kind);
          assert.deepEqual(d.message, message);
          assert.ok(!hasError(d), JSON.stringify(d.defects));
        }
      }),
      RUNS,
    );
  });

  test("decode's parsed objects have plain prototypes and leave Object.prototype alone", () => {
    fc.assert(
      fc.property(validMessage, ({ rev, message }) => {
        const d = decode(JSON.stringify(message), { revision: rev });
        const walk = (v: unknown): void => {
          if (typeof v !== "object" || v === null) return;
          assert.equal(Object.getPrototypeOf(v), Array.isArray(v) ? Array.prototype : Object.prototype);
          for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
        };
        walk(d.message);
        assert.deepEqual(Object.keys(Object.prototype), []);
        assert.equal(({} as Record<string, unknown>).jsonrpc, undefined);
      }),
      RUNS,
    );
  });
});

type Mutant = { name: string; value: unknown; expect: DefectCode[] };

/** Ways to break a valid single message, each with the defect codes of which one must appear. */
function mutants(rev: Revision, kind: MessageKind, m: Record<string, unknown>): Mutant[] {
  const out: Mutant[] = [];
  const rules = RULES[rev];
  const add = (name: string, change: (c: Record<string, unknown>) => void, ...expect: DefectCode[]) => {
    const c = asParsed(m);
    change(c);
    out.push({ name, value: c, expect });
  };
  add("wrong jsonrpc", (c) => void (c.jsonrpc = "1.0"), "wrong_jsonrpc_version");
  add("numeric jsonrpc", (c) => void (c.jsonrpc = 2), "wrong_jsonrpc_version");
  add("null jsonrpc", (c) => void (c.jsonrpc = null), "wrong_jsonrpc_version");
  add("missing jsonrpc", (c) => void delete c.jsonrpc, "missing_jsonrpc");
  add("boolean id", (c) => void (c.id = true), "id_invalid_type");
  add("object id", (c) => void (c.id = { id: 1 }), "id_invalid_type");
  add("fractional id", (c) => void (c.id = typeof c.id === "number" ? (c.id % 1000) + 0.5 : 1.5), "id_fractional");
  if (kind === "request" || kind === "notification") {
    add("null id", (c) => void (c.id = null), "id_null");
    add("params as array", (c) => void (c.params = [c.params ?? 1]), "params_not_object");
    add("params as string", (c) => void (c.params = "x"), "params_not_object");
    add("drop method", (c) => void delete c.method, "method_invalid", "neither_result_nor_error");
    add("method not a string", (c) => void (c.method = 42), "method_invalid");
    add("rpc. method", (c) => void (c.method = "rpc.x"), "method_invalid");
    add("method beside a result", (c) => void (c.result = {}), "ambiguous_kind");
  }
  if (kind === "request" && rev === MODERN) {
    add("drop _meta", (c) => void delete (c.params as Record<string, unknown>)._meta, "meta_missing_protocol_version");
    add(
      "drop clientCapabilities",
      (c) =>
        void delete ((c.params as Record<string, unknown>)._meta as Record<string, unknown>)[
          "io.modelcontextprotocol/clientCapabilities"
        ],
      "meta_missing_client_capabilities",
    );
  }
  if (kind === "result") {
    add("null id", (c) => void (c.id = null), "id_null");
    add("drop id", (c) => void delete c.id, "id_missing");
    add("result and error", (c) => void (c.error = { code: -32603, message: "x" }), "result_and_error");
    add("result not object", (c) => void (c.result = [c.result]), "result_not_object");
    add("result null", (c) => void (c.result = null), "result_not_object");
    add("method beside result", (c) => void (c.method = "x"), "ambiguous_kind");
    add("drop result", (c) => void delete c.result, "neither_result_nor_error");
    if (rev === MODERN)
      add(
        "unknown resultType",
        (c) => void ((c.result as Record<string, unknown>).resultType = "partial"),
        "result_type_unknown",
      );
  }
  if (kind === "error") {
    add("error and result", (c) => void (c.result = {}), "result_and_error");
    add(
      "error code as string",
      (c) => void ((c.error as Record<string, unknown>).code = String((c.error as Record<string, unknown>).code)),
      "error_code_not_integer",
    );
    add(
      "fractional error code",
      (c) => void ((c.error as Record<string, unknown>).code = -32600.5),
      "error_code_not_integer",
    );
    add("error without message", (c) => void delete (c.error as Record<string, unknown>).message, "error_invalid");
    add("error without code", (c) => void delete (c.error as Record<string, unknown>).code, "error_invalid");
    add("error as string", (c) => void (c.error = "boom"), "error_invalid");
    // an error without an id is a warning at most, in every revision: not a mutation encode refuses
    if (rev === MODERN) {
      add("retired code", (c) => void ((c.error as Record<string, unknown>).code = -32002), "error_code_retired");
      add(
        "undefined MCP code",
        (c) => void ((c.error as Record<string, unknown>).code = -32077),
        "error_code_undefined_mcp",
      );
    }
  }
  if (rules.batches === "none") out.push({ name: "batch", value: [m], expect: ["batch_not_allowed"] });
  else out.push({ name: "empty batch", value: [], expect: ["empty_batch"] });
  out.push({ name: "bare value", value: 7, expect: ["not_object"] });
  return out;
}

const singleMessage = revision.chain((rev) =>
  validArb(rev)
    .filter((g) => g.kind !== "batch")
    .map((g) => ({ rev, ...g })),
);
const mutation = singleMessage.chain(({ rev, kind, message }) => {
  const all = mutants(rev, kind, message as Record<string, unknown>);
  return fc.constantFrom(...all).map((mutant) => ({ rev, mutant }));
});

describe("properties: broken messages", () => {
  test("each mutation is flagged by decode and refused by encode, with the same defects", () => {
    fc.assert(
      fc.property(mutation, ({ rev, mutant }) => {
        const text = JSON.stringify(mutant.value);
        const d = decode(text, { revision: rev });
        assertSound(d);
        const errors = d.defects.filter((x) => x.severity === "error");
        assert.ok(
          errors.some((x) => mutant.expect.includes(x.code)),
          `${mutant.name}: expected one of ${mutant.expect}, got ${JSON.stringify(d.defects)}`,
        );

        let thrown: unknown;
        try {
          encode(mutant.value as Message, { revision: rev });
        } catch (e) {
          thrown = e;
        }
        assert.ok(thrown instanceof EncodeError, `${mutant.name}: encode did not refuse ${text}`);
        assert.equal(thrown.code, "ERR_MCP_WIRE_ENCODE");
        assert.ok(Array.isArray(thrown.defects) && thrown.defects.length > 0);
        for (const x of thrown.defects) {
          assertDefectShape(x);
          assert.equal(x.severity, "error");
        }
        assert.deepEqual(thrown.defects, errors);
      }),
      { numRuns: 500 },
    );
  });

  test("encode accepts exactly what decode finds no error in", () => {
    fc.assert(
      fc.property(fc.oneof(envelopeLike, fc.array(envelopeLike, { maxLength: 3 })), revision, (v, rev) => {
        const d = decode(JSON.stringify(v), { revision: rev });
        let text: string | undefined;
        try {
          text = encode(v as Message, { revision: rev });
        } catch (e) {
          assert.ok(e instanceof EncodeError, `encode threw ${String(e)}`);
          assert.deepEqual(
            e.defects,
            d.defects.filter((x) => x.severity === "error"),
          );
          return;
        }
        assert.ok(!hasError(d), `encoded what decode rejects: ${JSON.stringify(d.defects)}`);
        assert.deepEqual(decode(text, { revision: rev }), d);
      }),
      RUNS,
    );
  });

  test("defects are well formed on every input", () => {
    fc.assert(
      fc.property(fc.oneof(envelopeLike, fc.array(envelopeLike, { maxLength: 3 })), revision, (v, rev) => {
        for (const x of decode(JSON.stringify(v), { revision: rev }).defects) assertDefectShape(x);
      }),
      RUNS,
    );
  });
});
