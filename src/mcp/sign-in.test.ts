/**
 * A server that answers 401: connectHttp's error says where to sign in, read from the
 * protected-resource metadata (RFC 9728) the challenge names or the well-known URL publishes, and
 * stays as it was when the server publishes none. (The gauntlet's auth_challenge scores the same
 * against the model client.)
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { closedAfterEach } from "../testkit/http.js";
import { rejection } from "../testkit/peer.js";
import { HttpError } from "../transport/http/error.js";
import { connectHttp } from "./connect-http.js";

const { serve } = closedAfterEach();

function challenge(res: ServerResponse, header: string): void {
  res.writeHead(401, { "www-authenticate": header, "content-type": "application/json" }).end("{}");
}

const metadata = (origin: string) =>
  JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: ["https://auth.example/tenant"] });

async function signInError(url: string): Promise<HttpError> {
  const e = await rejection(
    connectHttp(url, { fresh: true, timeout: 5000, headers: { authorization: "Bearer old" } }),
    10_000,
  );
  assert.ok(e instanceof HttpError, `${e.name}: ${e.message}`);
  assert.equal(e.status, 401);
  return e;
}

describe("a 401 at the opening", () => {
  test("the metadata the challenge names is read, without the caller's credentials, and the error names the authorization server", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/meta/prm") res.writeHead(200, { "content-type": "application/json" }).end(metadata(s.origin));
      else challenge(res, `Bearer realm="mcp", resource_metadata="${s.origin}/meta/prm", scope="files"`);
    });
    const e = await signInError(s.url());
    assert.equal(e.resourceMetadataUrl, `${s.origin}/meta/prm`);
    assert.deepEqual(e.authorizationServers, ["https://auth.example/tenant"]);
    assert.match(e.message, /sign in at https:\/\/auth\.example\/tenant/);
    const read = s.requests.filter((r) => r.path === "/meta/prm");
    assert.equal(read.length, 1);
    assert.equal(read[0]!.headers.authorization, undefined);
  });

  test("a challenge that names none: the well-known URL of the endpoint's path", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/.well-known/oauth-protected-resource/mcp")
        res.writeHead(200, { "content-type": "application/json" }).end(metadata(s.origin));
      else if (req.url?.startsWith("/.well-known/")) res.writeHead(404).end();
      else challenge(res, `Bearer realm="mcp"`);
    });
    const e = await signInError(s.url());
    assert.equal(e.resourceMetadataUrl, `${s.origin}/.well-known/oauth-protected-resource/mcp`);
    assert.deepEqual(e.authorizationServers, ["https://auth.example/tenant"]);
  });

  test("a server that publishes no metadata: the 401 as it was, after the path and root URLs were tried", async () => {
    const s = await serve((req, res) => {
      if (req.url?.startsWith("/.well-known/")) res.writeHead(404).end();
      else challenge(res, "Bearer");
    });
    const e = await signInError(s.url());
    assert.equal(e.authorizationServers, undefined);
    assert.match(e.message, /the server wants sign-in/);
    assert.deepEqual(
      s.requests.filter((r) => r.method === "GET").map((r) => r.path),
      ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"],
    );
  });
});
