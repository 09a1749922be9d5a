/**
 * `check` against real servers other people wrote (the interop suite's peers, as real processes
 * over real pipes and loopback HTTP), each with the tool call its row names: no false error. The
 * few errors that are there are real, and each is named here with the reason. A test helper:
 * the default suite checks mcp-wire's own server and one real peer (src/check/check-peers.test.ts),
 * `npm run interop` every other (interop/check-peers.test.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { peer } from "./interop-peers.js";
import { scratch } from "./interop-harness.js";
import type { JsonObject } from "../codec/message.js";
import { checkHttp, checkStdio } from "../check/check.js";
import type { CheckReport } from "../check/types.js";

/**
 * Errors a peer really has. tmcp's and mcp-lite's session transports accept the DELETE that ends
 * a session (200) and then go on serving requests that name it, where 2025-03-26…2025-11-25 say
 * a request naming an ended session MUST get 404 (their transports never look a session id up).
 */
const REAL_ERRORS: Record<string, readonly string[]> = {
  "tmcp http": ["http_unknown_session_not_404"],
  "mcp-lite sessions": ["http_unknown_session_not_404"],
};

export const CHECKED_PEERS = [
  "server-everything stdio",
  "server-filesystem stdio",
  "server-memory stdio",
  "server-everything streamableHttp",
  "server-everything sse",
  "SDK v2 server stdio (dual)",
  "SDK v2 server http (dual)",
  "tmcp stdio",
  "tmcp http",
  "mcp-lite stateless",
  "mcp-lite sessions",
  "fastmcp stdio",
  "fastmcp stateless",
];

async function checkPeer(name: string): Promise<CheckReport> {
  const row = peer(name);
  const dir = scratch();
  const running = await row.start(dir.dir);
  try {
    const optIns = { calls: [{ name: row.call.tool, args: row.call.args as JsonObject }] };
    const e = running.endpoint;
    return e.kind === "stdio"
      ? await checkStdio(e.command, e.args, { optIns, ...(e.env ? { env: { ...process.env, ...e.env } } : {}) })
      : await checkHttp(e.url, { optIns });
  } finally {
    await running.stop();
    dir.cleanup();
  }
}

/** mcp-wire's own reference server, over stdio and HTTP: not one finding. */
export function ownServerSuite(): void {
  describe("check against mcp-wire's own reference server: not one finding", () => {
    for (const name of ["mcp-wire serve --stdio", "mcp-wire serve --http"]) {
      test(name, async () => {
        const r = await checkPeer(name);
        assert.deepEqual(r.findings, []);
        assert.deepEqual(Object.values(r.revisions), ["ok", "ok", "ok", "ok", "ok"]);
      });
    }
  });
}

/** Each of `names` (rows of CHECKED_PEERS) checked with its tool call: no error but the real ones. */
export function realPeersSuite(names: readonly string[]): void {
  describe("check against real peers: no false error", () => {
    for (const name of names) {
      test(name, async () => {
        const r = await checkPeer(name);
        assert.equal(r.unchecked, null, JSON.stringify(r.unchecked));
        assert.ok(Object.values(r.revisions).includes("ok"), JSON.stringify(r.revisions));
        const errors = [...new Set(r.findings.filter((f) => f.severity === "error").map((f) => f.id))].sort();
        assert.deepEqual(
          errors,
          [...(REAL_ERRORS[name] ?? [])].sort(),
          r.findings
            .filter((f) => f.severity === "error")
            .map((f) => `${f.id} ${f.revision} ${f.method}: ${f.message}`)
            .join("\n"),
        );
        assert.ok(r.checked.messages > 0 && r.checked.pages > 0);
        assert.ok(
          r.ran.some((x) => x.id === "tool_result_no_content"),
          "the named tool was called and its result judged",
        );
      });
    }
  });
}
