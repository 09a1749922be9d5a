import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  PARSE_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
  describeError,
  type ErrorDescription,
} from "./error-codes.js";
import { REVISIONS, type Revision } from "./revisions.js";

const LEGACY: Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: Revision = "2026-07-28";

function is(
  code: number,
  revision: Revision,
  range: ErrorDescription["range"],
  status: ErrorDescription["status"],
): ErrorDescription {
  const d = describeError(code, revision);
  assert.equal(d.code, code);
  assert.equal(d.range, range, `${code} on ${revision}: range`);
  assert.equal(d.status, status, `${code} on ${revision}: status`);
  assert.ok(d.name.length > 0 && d.meaning.length > 0);
  return d;
}

describe("describeError", () => {
  test("the constants are JSON-RPC's and MCP 2026-07-28's numbers", () => {
    assert.deepEqual(
      [
        PARSE_ERROR,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        INVALID_PARAMS,
        INTERNAL_ERROR,
        HEADER_MISMATCH,
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        UNSUPPORTED_PROTOCOL_VERSION,
      ],
      [-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022],
    );
  });

  test("the five standard codes, on every revision", () => {
    for (const rev of REVISIONS) {
      assert.equal(is(-32700, rev, "standard", "defined").name, "Parse error");
      assert.equal(is(-32600, rev, "standard", "defined").name, "Invalid Request");
      assert.equal(is(-32601, rev, "standard", "defined").name, "Method not found");
      assert.equal(is(-32602, rev, "standard", "defined").name, "Invalid params");
      assert.equal(is(-32603, rev, "standard", "defined").name, "Internal error");
    }
  });

  test("the rest of -32768…-32100 is reserved by JSON-RPC, undefined", () => {
    for (const rev of REVISIONS)
      for (const code of [-32768, -32500, -32100, -32604, -32701]) is(code, rev, "standard", "undefined");
  });

  test("outside -32768…-32000 is the application's", () => {
    for (const rev of REVISIONS)
      for (const code of [-32769, -31999, 0, 1, -1, 500, 2 ** 40, -(2 ** 40)])
        is(code, rev, "application", "application");
  });

  test("-32002 resource not found: defined up to 2025-11-25, retired (legacy range) on 2026-07-28", () => {
    for (const rev of LEGACY) assert.equal(is(-32002, rev, "mcp", "defined").name, "ResourceNotFound");
    const d = is(-32002, MODERN, "legacy", "retired");
    assert.match(d.meaning, /forbids sending it/);
  });

  test("-32042 URL elicitation required: defined on 2025-11-25 only, retired on 2026-07-28", () => {
    assert.equal(is(-32042, "2025-11-25", "mcp", "defined").name, "URLElicitationRequired");
    for (const rev of ["2024-11-05", "2025-03-26", "2025-06-18"] as const) is(-32042, rev, "legacy", "legacy");
    is(-32042, MODERN, "mcp", "retired");
  });

  test("-32020…-32022 are defined on 2026-07-28, implementation-defined before", () => {
    assert.equal(is(-32020, MODERN, "mcp", "defined").name, "HeaderMismatch");
    assert.equal(is(-32021, MODERN, "mcp", "defined").name, "MissingRequiredClientCapability");
    assert.equal(is(-32022, MODERN, "mcp", "defined").name, "UnsupportedProtocolVersion");
    for (const rev of LEGACY) for (const code of [-32020, -32021, -32022]) is(code, rev, "legacy", "legacy");
  });

  test("2026-07-28 splits -32000…-32099: -32000…-32019 legacy, the rest the specification's", () => {
    for (let code = -32019; code <= -32000; code++) {
      if (code === -32002) continue;
      is(code, MODERN, "legacy", "legacy");
    }
    for (let code = -32099; code <= -32023; code++) {
      if (code === -32042) continue;
      is(code, MODERN, "mcp", "undefined");
    }
  });

  test("before 2026-07-28 all of -32000…-32099 is implementation-defined", () => {
    for (const rev of LEGACY) {
      for (let code = -32099; code <= -32000; code++) {
        if (code === -32002 || (code === -32042 && rev === "2025-11-25")) continue;
        is(code, rev, "legacy", "legacy");
      }
    }
  });

  test("a non-integer code is no JSON-RPC code: application", () => {
    for (const rev of REVISIONS)
      for (const code of [-32600.5, Number.NaN, Number.POSITIVE_INFINITY])
        assert.equal(describeError(code, rev).status, "application");
  });

  test("property: every integer gets exactly one description, whatever the revision", () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(...REVISIONS), (code, rev) => {
        const d = describeError(code, rev);
        assert.ok(["standard", "legacy", "mcp", "application"].includes(d.range));
        assert.ok(["defined", "legacy", "retired", "undefined", "application"].includes(d.status));
        assert.equal(d.range === "application", code > -32000 || code < -32768);
      }),
      { numRuns: 500 },
    );
  });
});
