import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemoryStore } from "../testkit/memory-store.js";
import {
  HISTORY_TARGET,
  attempt,
  fail,
  ok,
  rpc,
  seedCensus,
  seedHistory,
  type Shape,
} from "../testkit/report-fixtures.js";
import { heading, history, summary } from "./story.js";

/** One run on 20 August 2026 over these shapes, one target each. */
function census(shapes: Shape[]) {
  const store = new MemoryStore(() => new Date("2026-08-20T09:00:00Z"));
  const targets = shapes.map((_, i) => ({ target: `https://s${i}.example/mcp`, kind: "http" as const, name: null }));
  const run = store.startRun("list.txt", targets, {});
  shapes.forEach((s, i) =>
    store.recordAttempt(attempt(run, targets[i]!.target, `2026-08-20T09:00:${String(i).padStart(2, "0")}Z`, s)),
  );
  store.finishRun(run);
  return store.aggregate();
}

describe("report: the stories docs/report.md tells come out in its words", () => {
  test("1,100 servers called once each, and the six JSON-RPC refusals of the opening request", () => {
    const text = summary(seedCensus().aggregate()).join(" ");
    assert.match(text, /^Called 1,100 servers once each\. /);
    assert.ok(
      text.includes(
        '6 rejected the opening request with a JSON-RPC error: 3 sent -32001 (legacy range), all refusing for lack of a key ("invalid api key", "Authentication failed", "Unauthorized"), which the authorization spec expects as an HTTP 401 instead; ' +
          'one each sent -32601 ("Unknown method: initialize"), -32602 ("Unsupported MCP protocol version") and -32603.',
      ),
      text,
    );
    assert.ok(
      text.includes(
        "1,000 answered and listed their tools: 700 on 2026-07-28 (stateless), 250 on 2025-06-18 and 50 on 2025-03-26.",
      ),
      text,
    );
    assert.ok(text.includes("10 asked for a key with HTTP 401, as the authorization spec expects."), text);
    assert.ok(
      text.includes(
        "We recorded 9 protocol errors, meaning the address answered and spoke something, but not MCP: 4 null ids, 3 results with no envelope and 2 bare JSON arrays.",
      ),
      text,
    );
    assert.ok(text.includes("A separate 9 answered with a web page rather than JSON at all"), text);
    assert.ok(
      text.includes("12 failed with an HTTP error and no JSON-RPC answer: HTTP 404 (8) and HTTP 502 (4)."),
      text,
    );
    assert.ok(text.includes("14 did not answer in time, stalling at initialize."), text);
    assert.ok(
      text.includes("40 could not be reached: 25 names that did not resolve and 15 refused connections."),
      text,
    );
  });

  test("82 attempts between 20 July and 5 August 2026: 4 protocol errors, and a separate 3 web pages", () => {
    const agg = seedHistory().aggregate();
    const text = summary(agg).join(" ");
    assert.equal(
      text,
      "Across 82 attempts between 20 July and 5 August 2026 we recorded 4 protocol errors, meaning the address answered and spoke something, but not MCP: 2 bare JSON arrays and 2 results with no envelope. " +
        "A separate 3 answered with a web page rather than JSON at all, which is what a documentation URL does when it is mistaken for an endpoint. " +
        "The other 75 answered and listed their tools, all on 2025-06-18.",
    );
    assert.equal(agg.perTarget.length, 1);
    assert.equal(agg.perTarget[0]!.target, HISTORY_TARGET);
    assert.equal(
      history(agg.perTarget[0]!),
      "82 attempts between 20 July and 5 August: 4 protocol errors, 3 web pages.",
    );
    assert.equal(heading(agg), "82 census runs between 20 July and 5 August 2026");
  });

  test("a heading names the run, its source and when it ran", () => {
    const store = new MemoryStore(() => new Date("2026-08-20T09:00:00Z"));
    const run = store.startRun("fleet", [], {});
    assert.match(
      heading({ ...store.aggregate(), runs: [{ ...store.runs()[0]!, attempts: 0 }] }),
      /^Census run 1 \(fleet\), started 20 August 2026 09:00 UTC, not finished$/,
    );
    store.finishRun(run);
    assert.equal(
      heading({ ...store.aggregate(), runs: [{ ...store.runs()[0]!, attempts: 0 }] }),
      "Census run 1 (fleet), 20 August 2026 09:00 UTC",
    );
  });
});

describe("report: sentences for other mixes", () => {
  test("a single code says it once; a lone refusal is 'one'", () => {
    assert.deepEqual(summary(census([rpc("rpc_error", "internal_error", -32603, "boom")])), [
      "Called one server once.",
      "It did not answer with its tools.",
      'One rejected the opening request with JSON-RPC error -32603 ("boom").',
    ]);
    const two = summary(
      census([
        rpc("auth_required", "rpc_error_instead_of_401", -32001, "invalid api key"),
        rpc("auth_required", "rpc_error_instead_of_401", -32001, "invalid api key"),
      ]),
    );
    assert.ok(
      two.includes(
        '2 rejected the opening request with JSON-RPC error -32001 (legacy range), all refusing for lack of a key ("invalid api key"), which the authorization spec expects as an HTTP 401 instead.',
      ),
      two.join(" "),
    );
  });

  test("a code sent both for lack of a key and for something else says both", () => {
    const text = summary(
      census([
        rpc("auth_required", "rpc_error_instead_of_401", -32000, "token missing"),
        rpc("rpc_error", "legacy_code", -32000, "Session not found"),
        rpc("rpc_error", "method_not_found", -32601, "Method not found"),
        ok("modern", "2026-07-28"),
      ]),
    ).join(" ");
    assert.ok(
      text.includes(
        '3 rejected the opening request with a JSON-RPC error: 2 sent -32000 (legacy range), one of them refusing for lack of a key ("token missing"), which the authorization spec expects as an HTTP 401 instead, and one saying something else ("Session not found"); one sent -32601.',
      ),
      text,
    );
    assert.ok(text.includes("One answered and listed its tools, on 2026-07-28 (stateless)."), text);
  });

  test("a range and what the server said share one parenthesis", () => {
    const text = summary(
      census([
        rpc("rpc_error", "other", 503, "Service in maintenance"),
        rpc("rpc_error", "legacy_code", -32000, "Server error: upstream unavailable"),
        rpc("rpc_error", "internal_error", -32603, "Internal error."),
      ]),
    ).join(" ");
    assert.ok(
      text.includes(
        '3 rejected the opening request with a JSON-RPC error: one each sent 503 (application-defined: "Service in maintenance"), -32000 (legacy range: "Server error: upstream unavailable") and -32603.',
      ),
      text,
    );
  });

  test("targets that could not be called are not counted as called", () => {
    const text = summary(
      census([
        ok("legacy", "2025-11-25"),
        ok("legacy", "2025-11-25"),
        fail("invalid_target", "template"),
        fail("invalid_target", "private_address"),
      ]),
    ).join(" ");
    assert.match(text, /^Called 2 servers once each\. Both answered and listed their tools, on 2025-11-25\. /);
    assert.ok(text.endsWith("2 more were not called: one private address and one URL template with no default."), text);
  });

  test("one and many: one was not called, 2 were not called", () => {
    const one = summary(census([ok("legacy", "2025-11-25"), fail("invalid_target", "template")])).join(" ");
    assert.ok(one.endsWith("One more was not called: one URL template with no default."), one);
    const none = summary(census([fail("invalid_target", "bad_url")])).join(" ");
    assert.ok(none.endsWith("One was not called: one malformed URL."), none);
    const two = summary(census([fail("invalid_target", "bad_url"), fail("invalid_target", "bad_url")])).join(" ");
    assert.ok(two.endsWith("2 were not called: 2 malformed URLs."), two);
  });

  test("HTTP refusals, 401 and 403 together", () => {
    const text = summary(census([fail("auth_required", "http_401"), fail("auth_required", "http_403")])).join(" ");
    assert.ok(text.includes("2 asked for a key with HTTP 401 or 403, as the authorization spec expects."), text);
  });

  test("several attempts at several servers, none broken", () => {
    const store = new MemoryStore();
    for (const day of ["2026-08-03", "2026-08-05"]) {
      const run = store.startRun("list.txt", [], {});
      for (const t of ["https://a.example/mcp", "https://b.example/mcp"])
        store.recordAttempt(attempt(run, t, `${day}T10:00:00Z`, ok("modern", "2026-07-28")));
    }
    assert.deepEqual(summary(store.aggregate()), [
      "Across 4 attempts at 2 servers between 3 and 5 August 2026 we recorded no protocol errors.",
      "All 4 answered and listed their tools, on 2026-07-28 (stateless).",
    ]);
    assert.equal(
      history(store.aggregate().perTarget[0]!),
      "2 attempts between 3 and 5 August: all answered and listed tools.",
    );
  });

  test("nothing selected", () => {
    assert.deepEqual(summary(new MemoryStore().aggregate()), ["No attempts were recorded in the selection."]);
  });
});
