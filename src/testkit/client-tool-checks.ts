/**
 * The tool checks McpClient goes through against every real server it is tested with, whatever
 * carries the messages (stdio pipes, Streamable HTTP, HTTP+SSE): tools/list, a call, progress,
 * cancellation. A test helper (src/testkit/, left out of the package): it declares tests only when a test file calls it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AbortedError, ConnectionErrorCode } from "../peer/errors.js";
import type { Progress } from "../peer/peer.js";
import { LEGACY_REVISIONS, type Revision } from "../rules/revisions.js";
import type { McpClient } from "../mcp/client.js";
import { signal, until, within } from "./mcp-interop.js";
import type { CallToolResult } from "../mcp/meta.js";

export function isLegacy(revision: Revision): boolean {
  return (LEGACY_REVISIONS as readonly Revision[]).includes(revision);
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, "text");
  return first.text ?? "";
}

/** How to drive one server's tools. */
export interface ServerTools {
  echo: { tool: string; args: (text: string) => Record<string, string>; expect: (text: string) => string };
  /** A tool that reports `steps` progress notifications, quickly. */
  progress: (steps: number) => { tool: string; args: Record<string, number> };
  /** A tool that runs long enough to be cancelled after its first progress notification. */
  long: { tool: string; args: Record<string, number> };
  /** Present when the server says, on stderr, that it stopped a cancelled call. */
  cancelledEvidence?: RegExp;
}

/** server-everything (SDK v1), on any transport. */
export const EVERYTHING_TOOLS: ServerTools = {
  echo: { tool: "echo", args: (message) => ({ message }), expect: (message) => `Echo: ${message}` },
  // `duration` is in seconds, split evenly over the steps
  progress: (steps) => ({ tool: "trigger-long-running-operation", args: { duration: 0.02 * steps, steps } }),
  // it never looks at cancellation; the SDK only withholds the answer: keep the run short
  long: { tool: "trigger-long-running-operation", args: { duration: 1, steps: 5 } },
};

/** The v2 SDK fixtures (test/fixtures/v2-sdk-tools.mjs); `name` is the one they log under. */
export function v2Tools(name: "v2-sdk-fixture" | "v2-sdk-http-fixture"): ServerTools {
  return {
    echo: { tool: "echo", args: (text) => ({ text }), expect: (text) => text },
    progress: (steps) => ({ tool: "slow", args: { steps, intervalMs: 5 } }),
    long: { tool: "slow", args: { steps: 200, intervalMs: 50 } },
    cancelledEvidence: new RegExp(`${name}: slow cancelled at step \\d+`),
  };
}

/** An open connection and the server's stderr so far. */
export interface Connected {
  readonly client: McpClient;
  stderr(): string;
}

/** tools/list, a call, progress, and cancellation, the same for every server. */
export function toolChecks(conn: Connected, tools: ServerTools) {
  test(`tools/list finds ${tools.echo.tool} and ${tools.long.tool}`, async () => {
    const names = (await within(conn.client.listTools(), "tools/list")).map((t) => t.name);
    assert.ok(names.includes(tools.echo.tool), `${tools.echo.tool} in ${JSON.stringify(names)}`);
    assert.ok(names.includes(tools.long.tool), `${tools.long.tool} in ${JSON.stringify(names)}`);
    assert.deepEqual(conn.client.rejectedTools, []);
  });

  test(`tools/call ${tools.echo.tool} echoes`, async () => {
    const result = await within(conn.client.callTool(tools.echo.tool, tools.echo.args("héllo, wire")), tools.echo.tool);
    assert.equal(result.isError ?? false, false);
    assert.equal(textOf(result), tools.echo.expect("héllo, wire"));
  });

  test("progress notifications reach onProgress, increasing, every one before the result", async () => {
    const seen: Progress[] = [];
    const { tool, args } = tools.progress(4);
    let atResult = -1;
    const result = await within(
      conn.client.callTool(tool, args, { onProgress: (p) => seen.push(p) }).then((r) => {
        atResult = seen.length;
        return r;
      }),
      tool,
    );
    assert.equal(result.isError ?? false, false);
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total]),
      [
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ],
    );
    assert.equal(atResult, 4);
  });

  test("aborting a call rejects it with AbortedError, and the connection goes on", async () => {
    const client = conn.client;
    const controller = new AbortController();
    const first = signal();
    const call = client.callTool(tools.long.tool, tools.long.args, {
      signal: controller.signal,
      onProgress: () => first.fire(),
    });
    const settled = call.then(
      () => "resolved",
      (e: unknown) => e,
    );
    await within(first.promise, "the first progress notification");
    controller.abort();
    const outcome = await within(settled, "the aborted call");
    assert.ok(outcome instanceof AbortedError, `AbortedError, got ${String(outcome)}`);
    assert.equal(outcome.code, ConnectionErrorCode.Aborted);
    assert.equal(outcome.code, "ERR_MCP_WIRE_ABORTED");
    if (tools.cancelledEvidence) {
      const evidence = tools.cancelledEvidence;
      await until(() => evidence.test(conn.stderr()), `the server's word that it stopped (${evidence})`);
    }
    const again = await within(
      client.callTool(tools.echo.tool, tools.echo.args("still here")),
      `${tools.echo.tool} after the abort`,
    );
    assert.equal(textOf(again), tools.echo.expect("still here"));
    assert.equal(client.closed, false);
  });
}
