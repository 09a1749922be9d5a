/**
 * No false alarm on sound traffic from a real peer: an MCP server protected the way the official
 * SDK v1 sets one up (its `mcpAuthRouter` as authorization server and resource metadata, its
 * `requireBearerAuth` on the endpoint) is `ready` with no error defect, by the rules of every
 * revision that has resource metadata. Browser clients are another matter: the SDK leaves CORS
 * on the endpoint to the application, and the walk says so as warnings.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { probeHttp } from "../probe/probe.js";
import type { Revision } from "../rules/revisions.js";

let server: Server;
let endpoint: string;

before(async () => {
  // express has no types here; it is the SDK's own dependency, used as the SDK's examples do
  const express = (await import("express" as string)).default as () => {
    use(...a: unknown[]): void;
    post(...a: unknown[]): void;
    (req: unknown, res: unknown): void;
  };
  const app = express();
  server = createServer((req, res) => app(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint = `${origin}/mcp`;
  const refuse = () => {
    throw new Error("not used: the walk never signs in");
  };
  const clients = new Map<string, unknown>();
  const provider = {
    clientsStore: {
      getClient: (id: string) => clients.get(id),
      registerClient: (c: { client_id: string }) => (clients.set(c.client_id, c), c),
    },
    authorize: refuse,
    challengeForAuthorizationCode: refuse,
    exchangeAuthorizationCode: refuse,
    exchangeRefreshToken: refuse,
    verifyAccessToken: refuse,
  };
  app.use(
    mcpAuthRouter({ provider: provider as never, issuerUrl: new URL(origin), resourceServerUrl: new URL(endpoint) }),
  );
  app.post(
    "/mcp",
    requireBearerAuth({
      verifier: provider as never,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(endpoint)),
    }),
    () => refuse(),
  );
});
after(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

test("the SDK's own authorization setup is ready, with no error defect", async () => {
  for (const revision of ["2025-06-18", "2025-11-25", "2026-07-28"] satisfies Revision[]) {
    const r = await probeHttp(endpoint, { revision, timeout: 5000 });
    const a = r.auth;
    assert.equal(r.class, "auth_required", revision);
    assert.equal(a?.verdict, "ready", `${revision}: ${JSON.stringify(a?.defects)}`);
    assert.deepEqual(
      a.defects.filter((d) => d.severity === "error"),
      [],
      revision,
    );
    assert.deepEqual(a.clients, { strict: "ok", lenient: "ok" }, revision);
    assert.ok(
      a.defects.every((d) => d.step === "cors"),
      revision,
    );
  }
});
