/**
 * The 2026-07-28 header value encoding (streamable-http.mdx, "Value Encoding"): the spec's
 * table exactly, the decode round trip, and malformed sentinels.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { decodeHeaderValue, encodeHeaderValue, isHeaderToken } from "./headers.js";

/** No lone surrogates: the string has a UTF-8 form. */
function isWellFormed(v: string): boolean {
  return Buffer.from(v, "utf8").toString("utf8") === v;
}

describe("encodeHeaderValue: the spec's Value Encoding table", () => {
  const TABLE: [original: string, reason: string, encoded: string][] = [
    ["us-west1", "plain ASCII", "us-west1"],
    ["Hello, 世界", "contains non-ASCII", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "leading/trailing spaces", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "contains newline", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "matches the sentinel pattern", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
  ];
  for (const [original, reason, encoded] of TABLE) {
    test(`${JSON.stringify(original)} (${reason}) → ${encoded}`, () => {
      assert.equal(encodeHeaderValue(original), encoded);
      assert.equal(decodeHeaderValue(encoded), original);
    });
  }

  test("the Mcp-Name examples stay plain: a tool name and a file URI", () => {
    assert.equal(encodeHeaderValue("get_weather"), "get_weather");
    assert.equal(encodeHeaderValue("file:///projects/myapp/config.json"), "file:///projects/myapp/config.json");
  });

  test("other values a plain header cannot carry are encoded: tab at an end, control characters, DEL, CR", () => {
    for (const v of ["\tx", "x\t", "a\u0001b", "a\u007fb", "a\rb", "é"]) {
      const encoded = encodeHeaderValue(v);
      assert.match(encoded, /^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/, JSON.stringify(v));
      assert.equal(decodeHeaderValue(encoded), v);
    }
  });

  test("a tab or space inside a value is still plain, as RFC 9110 allows", () => {
    assert.equal(encodeHeaderValue("a b\tc"), "a b\tc");
    assert.equal(encodeHeaderValue(""), "");
  });
});

describe("decodeHeaderValue", () => {
  test("decode(encode(v)) is v for any well-formed string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), (v) => {
        // a lone surrogate has no UTF-8 form: it cannot travel in a header, nor in the body
        fc.pre(isWellFormed(v));
        assert.equal(decodeHeaderValue(encodeHeaderValue(v)), v);
      }),
      { numRuns: 500 },
    );
  });

  test("encoded values only ever hold header-safe characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (v) => {
        fc.pre(isWellFormed(v));
        assert.match(encodeHeaderValue(v), /^[\t\x20-\x7e]*$/);
      }),
      { numRuns: 500 },
    );
  });

  test("a malformed sentinel decodes to undefined", () => {
    for (const bad of [
      "=?base64?!!!!?=", // not Base64
      "=?base64?abc?=", // length not a multiple of 4
      "=?base64?YQ===?=", // too much padding
      "=?base64?Y=Q=?=", // padding inside
      "=?base64?/w==?=", // the byte 0xff: not UTF-8
      "=?base64?wMA=?=", // an overlong UTF-8 encoding
      "=?base64?SGVsbG8 gV29ybGQ=?=", // a space inside
    ]) {
      assert.equal(decodeHeaderValue(bad), undefined, bad);
    }
  });

  test("the empty sentinel is the empty string", () => {
    assert.equal(decodeHeaderValue("=?base64??="), "");
  });

  test("plain values: taken as they are, surrounding whitespace dropped as HTTP does; control characters refused", () => {
    assert.equal(decodeHeaderValue("us-west1"), "us-west1");
    assert.equal(decodeHeaderValue("  us-west1 "), "us-west1");
    assert.equal(decodeHeaderValue("a\u0001b"), undefined);
    assert.equal(decodeHeaderValue("caf\u00e9"), undefined);
  });

  test("the markers are case-sensitive: an uppercase one is a plain value, not decoded", () => {
    assert.equal(decodeHeaderValue("=?BASE64?SGk=?="), "=?BASE64?SGk=?=");
  });
});

describe("isHeaderToken (RFC 9110 tchar)", () => {
  test("tokens", () => {
    for (const t of ["Region", "x", "a-b_c.d", "!#$%&'*+-.^_`|~09azAZ"]) assert.equal(isHeaderToken(t), true, t);
  });
  test("not tokens: empty, space, separators, control characters, non-ASCII", () => {
    for (const t of ["", "a b", "a:b", "a/b", "(a)", "a\r\nb", "a\tb", "é", 'a"b', "a,b"])
      assert.equal(isHeaderToken(t), false, JSON.stringify(t));
  });
});
