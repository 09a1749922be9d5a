/**
 * What a probe says when its deadline cuts a fallback short, and what `trace: false` leaves out.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { probeHttp } from "./probe.js";

async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test(
  "a POST refused with 405 whose HTTP+SSE fallback never answers is a timeout, not the refusal",
  { timeout: 20_000 },
  async () => {
    const s = await serve((req, res) => {
      if (req.method === "POST") {
        res.writeHead(405, { allow: "GET" }).end();
        return;
      }
      // the GET of the HTTP+SSE fallback: never answered
    });
    try {
      const result = await probeHttp(s.url, { timeout: 1500 });
      assert.equal(result.class, "timeout", JSON.stringify({ class: result.class, detail: result.detail }));
    } finally {
      await s.close();
    }
  },
);

test("trace: false gives the same verdict without its trace", { timeout: 20_000 }, async () => {
  const s = await serve((req, res) => {
    res.writeHead(404, { "content-type": "text/plain" }).end("no such thing");
  });
  try {
    const traced = await probeHttp(s.url, { timeout: 5000 });
    const bare = await probeHttp(s.url, { timeout: 5000, trace: false });
    assert.ok(traced.trace.length > 0);
    assert.deepEqual(bare.trace, []);
    assert.equal(bare.class, traced.class);
    assert.equal(bare.detail, traced.detail);
    assert.equal(bare.repro, traced.repro);
  } finally {
    await s.close();
  }
});
