import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Count, counted, day, digits, duration, list, quote, share, span, spelled } from "./words.js";

describe("words", () => {
  test("numbers as a person writes them", () => {
    assert.equal(digits(1100), "1,100");
    assert.equal(digits(1_000_000), "1,000,000");
    assert.equal(digits(999), "999");
    assert.equal(digits(-32001), "-32,001");
    assert.equal(spelled(3), "three");
    assert.equal(spelled(12), "12");
    assert.equal(Count(1), "One");
    assert.equal(Count(6), "6");
    assert.equal(counted(1, "attempt"), "one attempt");
    assert.equal(counted(82, "attempt"), "82 attempts");
    assert.equal(counted(2, "body", "bodies"), "2 bodies");
  });

  test("lists and shares", () => {
    assert.equal(list(["a"]), "a");
    assert.equal(list(["a", "b"]), "a and b");
    assert.equal(list(["-32601", "-32602", "-32603"]), "-32601, -32602 and -32603");
    assert.equal(list(["401", "403"], "or"), "401 or 403");
    assert.equal(share(1000, 1100), "90.9%");
    assert.equal(share(1, 100_000), "<0.1%");
    assert.equal(share(0, 0), "–");
  });

  test("dates in UTC: a day, and spans within a month, across months and across years", () => {
    assert.equal(day("2026-07-20T06:00:00Z"), "20 July 2026");
    assert.equal(day("2026-08-05T23:59:00Z", false), "5 August");
    assert.equal(span("2026-08-20T09:00:00Z", "2026-08-20T17:00:00Z"), "on 20 August 2026");
    assert.equal(span("2026-08-03T09:00:00Z", "2026-08-05T17:00:00Z"), "between 3 and 5 August 2026");
    assert.equal(span("2026-07-20T06:00:00Z", "2026-08-05T18:00:00Z"), "between 20 July and 5 August 2026");
    assert.equal(span("2026-07-20T06:00:00Z", "2026-08-05T18:00:00Z", false), "between 20 July and 5 August");
    assert.equal(
      span("2025-12-30T06:00:00Z", "2026-01-02T18:00:00Z", false),
      "between 30 December 2025 and 2 January 2026",
    );
  });

  test("durations", () => {
    assert.equal(duration(85), "85 ms");
    assert.equal(duration(1234), "1.2 s");
    assert.equal(duration(12_345), "12 s");
  });

  test("quoting a server's text escapes what a terminal would act on, and cuts it short", () => {
    assert.equal(quote('say "hi"'), '"say \\"hi\\""');
    assert.equal(quote("\x1b[2Jgone"), '"\\u001b[2Jgone"');
    assert.equal(quote("\u009b31mred\u202eevil"), '"\\u009b31mred\\u202eevil"');
    assert.equal(quote("x".repeat(100), 10), `"${"x".repeat(9)}…"`);
  });
});
