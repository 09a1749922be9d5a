/**
 * Closing a legacy Streamable HTTP session sends DELETE; against a server that never answers it,
 * the caller's signal (a probe's overall deadline) ends that exchange too.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { guardEventLoop, until, within } from "../../testkit/peer.js";
import { StreamableHttpTransport } from "./client.js";
import { closedAfterEach, sendJson, startServer } from "../../testkit/http.js";

guardEventLoop();

const { keep } = closedAfterEach();

test("close(): the DELETE of a session stops when the caller's signal fires", async () => {
  const s = await startServer((req, res, r) => {
    if (req.method === "DELETE") return; // never answered
    sendJson(
      res,
      200,
      {
        jsonrpc: "2.0",
        id: r.json?.id,
        result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } },
      },
      { "mcp-session-id": "abc" },
    );
  });
  keep(s);
  const controller = new AbortController();
  const transport = new StreamableHttpTransport(s.url(), { signal: controller.signal, timeout: 5000 });
  transport.start({ message: () => undefined, defect: () => undefined, closed: () => undefined });
  await transport.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }));
  assert.equal(transport.sessionId, "abc");
  const closing = transport.close();
  await within(
    (async () => {
      while (!s.requests.some((r) => r.method === "DELETE")) await new Promise((r) => setTimeout(r, 5));
    })(),
    "the DELETE",
    5000,
  );
  controller.abort(new Error("deadline"));
  // without the signal the DELETE waits for its own 2 s timeout
  await within(closing, "close() after the abort", 1000);
  // and the server sees the connection go
  await until(() => s.disconnects.some((r) => r.method === "DELETE"), 5000, "the DELETE's connection closing");
});
