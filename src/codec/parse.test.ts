import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { decode } from "./decode.js";
import { bytesCannotBeJson, cannotBeJson } from "./parse.js";

const RUNS = { numRuns: 2_000 };

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Text that may start like JSON or like anything else: JSON's whitespace and value starts are over-represented. */
const textish = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc
    .tuple(
      fc.constantFrom("", " ", "\t", "\n", "\r\n", "\u00a0", "\ufeff", "\u2028"),
      fc.json(),
      fc.constantFrom("", " ", "x", "}"),
    )
    .map(([a, b, c]) => a + b + c),
  fc
    .tuple(
      fc.stringMatching(/^[ \t\r\n]{0,3}$/),
      fc.constantFrom("{", "[", '"', "-", "0", "9", "t", "f", "n", "N", "<", "e", "d", "i", "+", ".", "'", "}", "]"),
      fc.string({ maxLength: 10 }),
    )
    .map(([a, b, c]) => a + b + c),
);

describe("cannotBeJson", () => {
  test("says so only of text JSON.parse refuses, and of every blank or foreign start", () => {
    fc.assert(
      fc.property(textish, (text) => {
        if (cannotBeJson(text)) assert.equal(parses(text), false, JSON.stringify(text));
        assert.equal(bytesCannotBeJson(Buffer.from(text, "utf8")), cannotBeJson(text), JSON.stringify(text));
      }),
      RUNS,
    );
  });

  test("what it tells apart", () => {
    for (const t of [
      "",
      "   ",
      "\r\n\t ",
      "Not Found",
      "<!doctype html><html></html>",
      "event: message",
      "\ufeff{}",
      "\u00a0{}",
      "'a'",
      "+1",
      ".5",
      "}",
    ])
      assert.equal(cannotBeJson(t), true, JSON.stringify(t));
    // it judges the first character only: what follows is JSON.parse's to judge
    for (const t of ["{}", " [1]", '"x"', "-1", "0", "true", "false", "null", "\n{", "nope", "tru", "{oops"])
      assert.equal(cannotBeJson(t), false, JSON.stringify(t));
    assert.equal(bytesCannotBeJson(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), true);
    assert.equal(bytesCannotBeJson(new Uint8Array([0xff, 0x7b])), true);
  });
});

describe("decode names text that is plainly not JSON as it did when JSON.parse had refused it", () => {
  test("each kind of such text", () => {
    const cases: [string, string][] = [
      ["", "empty: no JSON at all"],
      [" \r\n", "empty: no JSON at all"],
      ["<!DOCTYPE html><html><body>hi</body></html>", "not JSON: an HTML page"],
      ["  <div>hi</div>", "not JSON: an HTML page"],
      ["<?xml version='1.0'?><a/>", "not JSON: markup (starts with <)"],
      ["event: message\ndata: {}\n\n", "not JSON: Server-Sent Events text"],
      ["data: {}", "not JSON: Server-Sent Events text"],
      ["\u00a0<html>", "not JSON: an HTML page"],
    ];
    for (const [text, message] of cases) {
      const d = decode(text, { revision: "2026-07-28" });
      assert.equal(d.kind, "invalid");
      assert.deepEqual(
        d.defects.map((x) => [x.code, x.message]),
        [["parse_error", message]],
        JSON.stringify(text),
      );
    }
  });

  test("other text that is not JSON still carries JSON.parse's own account", () => {
    let fault = "";
    try {
      JSON.parse("Not Found");
    } catch (e) {
      fault = (e as Error).message;
    }
    assert.deepEqual(
      decode("Not Found", { revision: "2026-07-28" }).defects.map((x) => [x.code, x.message]),
      [["parse_error", `not valid JSON: ${fault}`]],
    );
  });

  test("a byte-order mark before plainly foreign text is reported with it", () => {
    const d = decode("\ufeff<html><body></body></html>", { revision: "2025-11-25" });
    assert.deepEqual(
      d.defects.map((x) => x.code),
      ["byte_order_mark", "parse_error"],
    );
  });
});
