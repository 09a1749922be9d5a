/**
 * The model of what the TypeScript SDK would do, on metadata the walk could not read whole: it
 * says the body passed the cap, never that the document is not JSON.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Fetcher } from "./fetcher.js";
import { lenientOutcome } from "./sdk-model.js";

test("authorization server metadata past the cap: the SDK's outcome is unknown (too_large), not a rejection as not JSON", async () => {
  const cap = 4096;
  let base = "";
  const server = createServer((req, res) => {
    const json = (value: unknown) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.url === "/.well-known/oauth-protected-resource/mcp")
      return json({ resource: `${base}/mcp`, authorization_servers: [base] });
    if (req.url === "/.well-known/oauth-authorization-server")
      return json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        response_types_supported: ["code"],
        pad: "x".repeat(cap),
      });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetcher = new Fetcher({ deadline: Date.now() + 10_000, maxBytes: cap, protocolVersion: "2025-11-25" });
  try {
    const outcome = await lenientOutcome(`${base}/mcp`, 401, 'Bearer realm="mcp"', (url, step) =>
      fetcher.get(url, step),
    );
    assert.deepEqual(outcome, {
      ok: false,
      stops: `the metadata at ${base}/.well-known/oauth-authorization-server passed the body cap and was not read (too_large)`,
    });
  } finally {
    fetcher.close();
    server.closeAllConnections();
    server.close();
  }
});
