/**
 * The shortcut for clean messages answers exactly as the full check: it names a kind only for
 * messages the full check finds no defect in, and whatever it does, checkValue's verdict is the
 * full check's verdict.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  REVISIONS,
  RULES,
  type Revision,
} from "../rules/revisions.js";
import { checkEveryRule, checkValue, type Role } from "./check.js";
import { cleanKind } from "./clean.js";
import { decode } from "./decode.js";
import { exceedsDepth } from "./depth.js";
import { MODERN, request, result } from "../testkit/codec.js";

const ABSENT = Symbol("absent");
type Maybe = unknown;

/** An object with the members whose value is not ABSENT, in the order given. */
function build(members: readonly [string, Maybe][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of members) if (v !== ABSENT) o[k] = v;
  return o;
}

const meta = fc
  .tuple(
    fc.constantFrom<Maybe>(ABSENT, "2026-07-28", "2025-11-25", 1, null),
    fc.constantFrom<Maybe>(ABSENT, {}, { roots: { listChanged: true } }, [], "x", null),
    fc.constantFrom<Maybe>(
      ABSENT,
      { name: "c", version: "1" },
      { name: "c" },
      { version: "1" },
      { name: 1, version: "1" },
      "c",
      [],
      null,
    ),
    fc.constantFrom<Maybe>(ABSENT, "tok", 7),
  )
  .map(([v, c, i, p]) =>
    build([
      [META_PROTOCOL_VERSION, v],
      [META_CLIENT_CAPABILITIES, c],
      [META_CLIENT_INFO, i],
      ["progressToken", p],
    ]),
  );

const params = fc.oneof(
  fc.constantFrom<Maybe>(ABSENT, {}, { name: "echo" }, [], "x", null),
  fc.tuple(meta, fc.constantFrom<Maybe>(ABSENT, "echo")).map(([m, name]) =>
    build([
      ["name", name],
      ["_meta", m],
    ]),
  ),
  fc.constantFrom<Maybe>({ _meta: [] }, { _meta: null }, { _meta: "x" }),
);

const resultValue = fc.constantFrom<Maybe>(
  ABSENT,
  {},
  { resultType: "complete" },
  { content: [], resultType: "input_required" },
  { resultType: "partial" },
  { resultType: 1 },
  [],
  null,
  "x",
);

const errorValue = fc.oneof(
  fc.constantFrom<Maybe>(ABSENT, "boom", [], null),
  fc
    .tuple(
      fc.constantFrom<Maybe>(
        ABSENT,
        -32601,
        -32602,
        -32603,
        -32002,
        -32077,
        -32000,
        -32001,
        -32100,
        -32768,
        -32800,
        5,
        1.5,
        "1",
        null,
      ),
      fc.constantFrom<Maybe>(ABSENT, "no", "", 1),
      fc.constantFrom<Maybe>(ABSENT, { why: 1 }, null),
      fc.constantFrom<Maybe>(ABSENT, "extra"),
    )
    .map(([code, message, data, extra]) =>
      build([
        ["code", code],
        ["message", message],
        ["data", data],
        ["extra", extra],
      ]),
    ),
);

const jsonrpc = fc.constantFrom<Maybe>("2.0", "2.0", "2.0", ABSENT, "1.0", 2);
const id = fc.constantFrom<Maybe>(ABSENT, 1, "a", 0, null, 1.5, 2 ** 60, true, {});
const method = fc.constantFrom<Maybe>(ABSENT, "tools/call", "tools/list", "", "rpc.discover", "initialize", 42);
const extra = fc.constantFrom<Maybe>(ABSENT, ABSENT, ABSENT, "extra", undefined);
/** Now and then a member that has no business in the message at hand. */
const stray = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant<Maybe>(ABSENT), weight: 6 }, { arbitrary: a, weight: 1 });

const envelope = fc.oneof(
  // any mix of members
  fc.tuple(jsonrpc, id, method, params, resultValue, errorValue, extra).map(([j, i, m, p, r, e, x]) =>
    build([
      ["jsonrpc", j],
      ["id", i],
      ["method", m],
      ["params", p],
      ["result", r],
      ["error", e],
      ["extra", x],
    ]),
  ),
  // shaped like a request or notification, a result, an error
  fc.tuple(jsonrpc, id, method, params, stray(resultValue), stray(errorValue), extra).map(([j, i, m, p, r, e, x]) =>
    build([
      ["jsonrpc", j],
      ["id", i],
      ["method", m],
      ["params", p],
      ["result", r],
      ["error", e],
      ["extra", x],
    ]),
  ),
  fc
    .tuple(jsonrpc, id, stray(method), stray(params), resultValue, stray(errorValue), extra)
    .map(([j, i, m, p, r, e, x]) =>
      build([
        ["jsonrpc", j],
        ["id", i],
        ["result", r],
        ["method", m],
        ["params", p],
        ["error", e],
        ["extra", x],
      ]),
    ),
  fc
    .tuple(jsonrpc, id, stray(method), stray(params), stray(resultValue), errorValue, extra)
    .map(([j, i, m, p, r, e, x]) =>
      build([
        ["jsonrpc", j],
        ["id", i],
        ["error", e],
        ["method", m],
        ["params", p],
        ["result", r],
        ["extra", x],
      ]),
    ),
);

const role = fc.constantFrom<Role | undefined>(undefined, "client", "server");

function agrees(value: unknown, rev: Revision, who: Role | undefined): void {
  const rules = RULES[rev];
  const full = checkEveryRule(value, rules, who);
  assert.deepEqual(checkValue(value, rules, who), full);
  const kind =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? cleanKind(value as Record<string, unknown>, rules, who)
      : undefined;
  if (kind !== undefined) {
    assert.equal(full.kind, kind);
    assert.deepEqual(full.defects, [], `the shortcut passed ${JSON.stringify(value)} on ${rev}`);
  }
}

describe("the shortcut for clean messages", () => {
  test("agrees with the full check on envelopes of every member value", () => {
    fc.assert(
      fc.property(envelope, fc.constantFrom(...REVISIONS), role, (v, rev, who) => {
        agrees(v, rev, who);
        // as JSON.parse would hand it over, and inside a batch
        agrees(JSON.parse(JSON.stringify(v)), rev, who);
        agrees([v], rev, who);
      }),
      { numRuns: 3000 },
    );
  });

  test("is taken by clean messages of every kind", () => {
    for (const rev of REVISIONS) {
      const rules = RULES[rev];
      const modern = rev === MODERN;
      const body = modern ? { content: [], resultType: "complete" } : { content: [] };
      const cases: [Record<string, unknown>, string][] = [
        [request(rev, 1, "tools/call", { name: "echo" }), "request"],
        [request(rev, "a", "tools/list"), "request"],
        [
          { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 2 } },
          "notification",
        ],
        [{ jsonrpc: "2.0", method: "notifications/initialized" }, "notification"],
        [result(rev, 1, body), "result"],
        [{ jsonrpc: "2.0", id: 7, error: { code: -32601, message: "no such method" } }, "error"],
        [{ jsonrpc: "2.0", id: "x", error: { code: 1, message: "app", data: { why: 1 } } }, "error"],
      ];
      for (const [m, kind] of cases) {
        assert.equal(
          cleanKind(JSON.parse(JSON.stringify(m)) as Record<string, unknown>, rules, "client"),
          kind,
          `${rev}: ${JSON.stringify(m)}`,
        );
        agrees(m, rev, "client");
      }
    }
  });

  test("leaves members it cannot enumerate to the full check", () => {
    const rev = MODERN;
    const clean = request(rev, 1, "tools/list");
    const metaOf = (m: Record<string, unknown>) =>
      (m.params as Record<string, unknown>)._meta as Record<string, unknown>;

    // a clientInfo that a read by name finds but enumeration does not
    const hidden = structuredClone(clean);
    Object.defineProperty(metaOf(hidden), META_CLIENT_INFO, { value: "not an object", enumerable: false });
    agrees(hidden, rev, "client");
    assert.ok(checkValue(hidden, RULES[rev], "client").defects.some((d) => d.code === "meta_invalid"));

    // inherited members
    const inherited = Object.create({ jsonrpc: "2.0" }) as Record<string, unknown>;
    Object.assign(inherited, { id: 1, result: { resultType: "complete" } });
    agrees(inherited, rev, "client");
    const getter = structuredClone(clean);
    Object.defineProperty(getter, "result", { get: () => ({}), enumerable: false });
    agrees(getter, rev, "client");
    assert.equal(checkValue(getter, RULES[rev], "client").kind, "invalid");

    // on an object JSON.parse made, a member it lacks is read from Object.prototype, even one
    // enumeration does not see there
    for (const [name, value] of [
      ["error", { code: -32603, message: "x" }],
      ["method", "ping"],
      ["jsonrpc", "2.0"],
      ["params", {}],
    ] as const) {
      for (const m of [
        result(rev, 1, { content: [], resultType: "complete" }),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { id: 1, result: { resultType: "complete" } },
      ]) {
        const text = JSON.stringify(m);
        Object.defineProperty(Object.prototype, name, { value, enumerable: false, configurable: true, writable: true });
        try {
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const full = checkEveryRule(parsed, RULES[rev], "client");
          const kind = cleanKind(parsed, RULES[rev], "client", true);
          if (kind !== undefined) assert.deepEqual([full.kind, full.defects], [kind, []], `${name} inherited: ${text}`);
          agrees(parsed, rev, "client");
          const d = decode(text, { revision: rev, role: "client" });
          assert.deepEqual([d.kind, d.defects], [full.kind, full.defects], `${name} inherited: ${text}`);
        } finally {
          delete (Object.prototype as Record<string, unknown>)[name];
        }
      }
    }

    // a member present with the value undefined, as only a caller of encode can write it
    agrees({ ...clean, params: undefined }, "2025-11-25", "client");
    agrees({ jsonrpc: "2.0", id: 1, result: {}, error: undefined }, "2025-11-25", "client");
  });

  test("a clean message is refused as too deep exactly when its value nests deeper than the limit", () => {
    const nested = (levels: number): unknown =>
      levels === 0 ? 0 : JSON.parse("[".repeat(levels) + "]".repeat(levels));
    for (const rev of REVISIONS) {
      const modern = rev === MODERN;
      const messages = (levels: number): Record<string, unknown>[] => [
        request(rev, 1, "tools/call", { name: "echo", arguments: { v: nested(levels) } }),
        { jsonrpc: "2.0", method: "notifications/progress", params: { v: nested(levels) } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        result(rev, 1, { content: [nested(levels)] }),
        { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "x", data: nested(levels) } },
      ];
      for (const maxDepth of [0, 1, 2, 3, 5, 64, 128]) {
        for (const levels of [0, 1, maxDepth - 4, maxDepth - 3, maxDepth - 2, maxDepth]) {
          if (levels < 0) continue;
          for (const m of messages(levels)) {
            const text = JSON.stringify(m);
            const d = decode(text, { revision: rev, maxDepth, role: "client" });
            const deep = exceedsDepth(JSON.parse(text), maxDepth);
            assert.equal(
              d.defects.some((x) => x.code === "too_deep"),
              deep,
              `${rev}, maxDepth ${maxDepth}: ${text.slice(0, 120)}`,
            );
            if (!deep && !modern) assert.equal(d.defects.length, 0);
          }
        }
      }
    }
  });
});
