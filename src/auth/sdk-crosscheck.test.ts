/**
 * `clients.lenient` is what the official TypeScript SDK does, not a guess: the SDK's own `auth()`
 * (v1 `@modelcontextprotocol/sdk` and v2 `@modelcontextprotocol/client`) runs against every
 * sign-in fixture exactly as its Streamable HTTP transport starts it on a 401 (the challenge read
 * with its `extractWWWAuthenticateParams`), with an in-memory provider that records the
 * authorization URL instead of opening a browser. Reaching that redirect is "ok". The SDK may
 * register itself (a POST the walk never sends); that is the SDK's behaviour, here only.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { auth as authV1, extractWWWAuthenticateParams as extractV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { auth as authV2, extractWWWAuthenticateParams as extractV2 } from "@modelcontextprotocol/client";
import { startSigninServer, type SigninServer } from "../fleet/signin.js";
import { ORIGIN_CASES } from "../fleet/signin-cases.js";
import { probeHttp } from "../probe/probe.js";

const REDIRECT = "http://127.0.0.1:1/callback";

/** An OAuthClientProvider kept in memory: it registers, stores, and records where it would send the user. */
function recordingProvider() {
  let info: unknown;
  let verifier = "";
  const provider = {
    authorizationUrl: undefined as URL | undefined,
    redirectUrl: REDIRECT,
    clientMetadataUrl: "https://client.mcp-wire.example/oauth/client-metadata.json",
    clientMetadata: {
      client_name: "mcp-wire cross-check",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    clientInformation: () => info,
    saveClientInformation: (i: unknown) => {
      info = i;
    },
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (url: URL) => {
      provider.authorizationUrl = url;
    },
    saveCodeVerifier: (v: string) => {
      verifier = v;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

type Sdk = {
  auth: (provider: never, options: never) => Promise<string>;
  extract: (res: Response) => { resourceMetadataUrl?: URL; scope?: string };
};
const SDKS: Record<string, Sdk> = {
  v1: { auth: authV1 as unknown as Sdk["auth"], extract: extractV1 as unknown as Sdk["extract"] },
  v2: { auth: authV2 as unknown as Sdk["auth"], extract: extractV2 as unknown as Sdk["extract"] },
};

async function sdkSignIn(sdk: Sdk, url: string): Promise<"ok" | "fails"> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cross-check", version: "0" } },
    }),
  });
  await res.text();
  // the transport hands a 401, and only a 401, to auth()
  if (res.status !== 401) return "fails";
  const { resourceMetadataUrl, scope } = sdk.extract(res);
  const provider = recordingProvider();
  try {
    const outcome = await sdk.auth(provider as never, { serverUrl: url, resourceMetadataUrl, scope } as never);
    return outcome === "REDIRECT" && provider.authorizationUrl !== undefined ? "ok" : "fails";
  } catch {
    return "fails";
  }
}

/** All the shared-origin cases on one server; each origin case on a server of its own. */
let servers: SigninServer[] = [];
before(async () => {
  servers = await Promise.all([startSigninServer(), ...ORIGIN_CASES.map((c) => startSigninServer([c]))]);
});
after(() => Promise.all(servers.map((s) => s.close())));

test("lenient says what the TypeScript SDK (v1 and v2) did, on every fixture", async (t) => {
  t.mock.method(console, "warn", () => undefined);
  const disagreements: string[] = [];
  for (const [server, c] of servers.flatMap((s) => s.cases.map((c) => [s, c] as const))) {
    const url = server.url(c.name);
    const walk = (await probeHttp(url, { revision: c.expect.rules, timeout: 5000 })).auth;
    for (const [version, sdk] of Object.entries(SDKS)) {
      const did = await sdkSignIn(sdk, url);
      if (did !== walk?.clients.lenient)
        disagreements.push(
          `${c.name}: SDK ${version} ${did}, lenient ${walk?.clients.lenient ?? "none"}${walk?.lenientStops ? ` (${walk.lenientStops})` : ""}`,
        );
    }
  }
  assert.deepEqual(disagreements, []);
});
