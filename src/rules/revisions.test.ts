/**
 * The revision records against what each revision's specification says (basic/index or, for
 * 2024-11-05, basic/messages; schema.ts; the 2026-07-28 changelog).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  LATEST_LEGACY_REVISION,
  LATEST_REVISION,
  LEGACY_REVISIONS,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  REVISIONS,
  RULES,
  isRevision,
  rulesFor,
} from "./revisions.js";

const codes = (list: readonly { code: number }[]) => list.map((d) => d.code).sort((a, b) => a - b);

describe("revisions", () => {
  test("five revisions, oldest first; the latest and the latest legacy", () => {
    assert.deepEqual([...REVISIONS], ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    assert.equal(LATEST_REVISION, "2026-07-28");
    assert.equal(LATEST_LEGACY_REVISION, "2025-11-25");
    assert.deepEqual([...LEGACY_REVISIONS], ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
    for (const r of REVISIONS) {
      assert.equal(RULES[r].revision, r);
      assert.equal(rulesFor(r), RULES[r]);
    }
  });

  test("isRevision knows the five and nothing else, inherited names included", () => {
    for (const r of REVISIONS) assert.ok(isRevision(r));
    for (const v of [
      "2025-01-01",
      "draft",
      "",
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      20250618,
      null,
      undefined,
      {},
    ]) {
      assert.equal(isRevision(v), false, String(v));
    }
  });

  test("batches: receive on 2025-03-26 only (added there, removed in 2025-06-18)", () => {
    assert.deepEqual(
      REVISIONS.map((r) => RULES[r].batches),
      ["none", "receive", "none", "none", "none"],
    );
  });

  test("ids must not repeat within the session, then only among requests awaiting an answer", () => {
    assert.deepEqual(
      REVISIONS.map((r) => RULES[r].idReuse),
      ["session", "session", "session", "session", "in-flight"],
    );
  });

  test("an error response may omit its id from 2025-11-25", () => {
    assert.deepEqual(
      REVISIONS.map((r) => RULES[r].errorIdOptional),
      [false, false, false, true, true],
    );
  });

  test("era, opening and resultType change together on 2026-07-28", () => {
    for (const r of REVISIONS) {
      const modern = r === "2026-07-28";
      assert.equal(RULES[r].era, modern ? "modern" : "legacy");
      assert.equal(RULES[r].opening, modern ? "per-request-meta" : "initialize");
      assert.equal(RULES[r].resultType, modern ? "required" : "absent");
      assert.deepEqual([...RULES[r].resultTypes], modern ? ["complete", "input_required"] : []);
      assert.deepEqual(
        [...RULES[r].requiredRequestMeta],
        modern ? [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES] : [],
      );
      assert.equal(RULES[r].partitionedServerErrors, modern);
      assert.equal(RULES[r].http.sessions, r !== "2024-11-05" && !modern);
    }
    assert.equal(META_PROTOCOL_VERSION, "io.modelcontextprotocol/protocolVersion");
    assert.equal(META_CLIENT_CAPABILITIES, "io.modelcontextprotocol/clientCapabilities");
  });

  test("error codes defined and retired per revision", () => {
    for (const r of ["2024-11-05", "2025-03-26", "2025-06-18"] as const) {
      assert.deepEqual(codes(RULES[r].definedErrorCodes), [-32002]);
      assert.deepEqual(codes(RULES[r].retiredErrorCodes), []);
    }
    assert.deepEqual(codes(RULES["2025-11-25"].definedErrorCodes), [-32042, -32002]);
    assert.deepEqual(codes(RULES["2025-11-25"].retiredErrorCodes), []);
    assert.deepEqual(codes(RULES["2026-07-28"].definedErrorCodes), [-32022, -32021, -32020]);
    assert.deepEqual(codes(RULES["2026-07-28"].retiredErrorCodes), [-32042, -32002]);
  });

  test("HTTP: HTTP+SSE, then Streamable HTTP with sessions, then headers without sessions", () => {
    assert.equal(RULES["2024-11-05"].http.transport, "http+sse");
    for (const r of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const)
      assert.equal(RULES[r].http.transport, "streamable-http");
    assert.ok(RULES["2025-03-26"].http.requestHeaders.includes("Mcp-Session-Id"));
    assert.ok(!RULES["2025-03-26"].http.requestHeaders.includes("MCP-Protocol-Version"));
    for (const r of ["2025-06-18", "2025-11-25"] as const)
      assert.ok(RULES[r].http.requestHeaders.includes("MCP-Protocol-Version"));
    assert.deepEqual([...RULES["2026-07-28"].http.requestHeaders], ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"]);
  });
});
