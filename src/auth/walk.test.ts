/**
 * The sign-in walk through the probe against every sign-in fixture: each case's verdict,
 * brokenAt, defect codes (with severities), both client tiers, a side for every defect, and that
 * nothing but GET and OPTIONS reached a metadata document or a registration endpoint. Then the
 * walk under its deadline when every metadata URL hangs or drips, and a census guard that keeps
 * it away from a private address named by `authorization_servers`.
 */
import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { startFleet } from "../fleet/fleet.js";
import { startSigninServer, type SigninServer } from "../fleet/signin.js";
import { ORIGIN_CASES, SIGNIN_CASES, paths, type SigninCase } from "../fleet/signin-cases.js";
import { guardEventLoop, within } from "../testkit/peer.js";
import { probeHttp } from "../probe/probe.js";
import type { ProbeResult } from "../probe/verdict.js";
import { authLines } from "./words.js";
import { walkAuth } from "./walk.js";

guardEventLoop();

/** How far past its deadline the walk may end before a test calls it a hang (0.5 s is what it should take at most). */
const SLACK = 3000;

const codes = (r: ProbeResult) =>
  (r.auth?.defects ?? []).map((d) => d.code + (d.severity === "warning" ? "?" : "")).sort();

describe("the sign-in walk against every fixture", () => {
  let server: SigninServer;
  const results = new Map<string, ProbeResult>();

  before(async () => {
    server = await startSigninServer();
    await Promise.all(
      server.cases.map(async (c) =>
        results.set(c.name, await probeHttp(server.url(c.name), { revision: c.expect.rules, timeout: 5000 })),
      ),
    );
  });
  after(() => server?.close());

  test("each case: verdict, brokenAt, defects, both tiers", () => {
    for (const c of server.cases) {
      const r = results.get(c.name)!;
      assert.equal(r.class, "auth_required", c.name);
      assert.equal(r.detail, c.probeDetail, c.name);
      const a = r.auth;
      assert.ok(a, `${c.name}: no auth diagnosis`);
      assert.equal(a.rules, c.expect.rules, c.name);
      assert.deepEqual(
        {
          verdict: a.verdict,
          brokenAt: a.brokenAt,
          defects: codes(r),
          strict: a.clients.strict,
          lenient: a.clients.lenient,
        },
        {
          verdict: c.expect.verdict,
          brokenAt: c.expect.brokenAt,
          defects: [...c.expect.defects].sort(),
          strict: c.expect.strict,
          lenient: c.expect.lenient,
        },
        c.name,
      );
      for (const d of a.defects)
        assert.ok(
          ["mcp_server", "authorization_server", "proxy"].includes(d.side) && d.message.length > 20,
          `${c.name}: ${d.code} says whose fix it is`,
        );
    }
  });

  test("healthy chains are ready with no error defect", () => {
    for (const name of ["signin-dcr", "signin-cimd", "signin-well-known", "signin-openid"]) {
      const a = results.get(name)!.auth!;
      assert.equal(a.verdict, "ready", name);
      assert.deepEqual(a.defects, [], name);
    }
    const cimd = results.get("signin-cimd")!.auth!;
    assert.deepEqual(cimd.authorizationServer?.registration, ["cimd"]);
    assert.deepEqual(results.get("signin-dcr")!.auth!.authorizationServer?.pkce, ["S256"]);
  });

  test("the walk sends nothing but GET and OPTIONS to metadata and registration URLs", () => {
    const others = server.requests.filter((q) => q.kind !== "endpoint" && q.method !== "GET" && q.method !== "OPTIONS");
    assert.deepEqual(others, []);
    assert.ok(server.requests.some((q) => q.kind === "document" && q.method === "GET"));
    assert.equal(
      server.requests.filter((q) => q.kind === "register").length,
      0,
      "no registration endpoint is ever called",
    );
  });

  test("the challenge, the metadata and the server are reported as found", () => {
    const a = results.get("signin-offline-access")!.auth!;
    assert.equal(a.challenge?.scheme, "Bearer");
    assert.equal(a.challenge?.scope, "mcp:read offline_access");
    assert.equal(a.resourceMetadata?.resource, server.url("signin-offline-access"));
    assert.equal(a.authorizationServer?.issuer, `${server.origin}/c/signin-offline-access/as`);
    assert.equal(results.get("signin-well-known")!.auth!.challenge?.resourceMetadata, null);
  });

  test("the text shows the chain one line a step, then the fix and whose it is", () => {
    const lines = authLines(results.get("signin-issuer-slash")!.auth!);
    assert.match(lines[0]!, /broken/);
    assert.ok(lines.some((l) => /^ {2}✓ resource metadata .*HTTP 200$/.test(l)));
    assert.ok(
      lines.some((l) =>
        /✗ issuer_mismatch — fix on the MCP server: issuer is `.*\/as` but the metadata was found for `.*\/as\/`.*strict clients refuse this, the TypeScript SDK accepts it/.test(
          l,
        ),
      ),
    );
    assert.match(results.get("signin-api-key")!.advice, /--header/);
  });
});

/** A server whose every path hangs (headers never sent) or drips its body a byte at a time. */
async function slowServer(mode: "hang" | "drip"): Promise<{ origin: string; close(): Promise<void> }> {
  const open = new Set<ServerResponse>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server: Server = createServer((_req, res) => {
    open.add(res);
    if (mode === "hang") return;
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{");
    const t = setInterval(() => res.write(" "), 20);
    timers.add(t);
    res.on("close", () => clearInterval(t));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("2025-03-26: the authorization server at the origin", () => {
  for (const c of ORIGIN_CASES) {
    test(c.name, async () => {
      const server = await startSigninServer([c]);
      try {
        const r = await probeHttp(server.url(c.name), { revision: c.expect.rules, timeout: 5000 });
        assert.deepEqual(
          {
            verdict: r.auth?.verdict,
            brokenAt: r.auth?.brokenAt,
            defects: codes(r),
            strict: r.auth?.clients.strict,
            lenient: r.auth?.clients.lenient,
          },
          {
            verdict: c.expect.verdict,
            brokenAt: c.expect.brokenAt,
            defects: [...c.expect.defects].sort(),
            strict: c.expect.strict,
            lenient: c.expect.lenient,
          },
        );
        assert.equal(r.auth?.resourceMetadata, null);
      } finally {
        await server.close();
      }
    });
  }
});

describe("the walk keeps its deadline", () => {
  for (const mode of ["hang", "drip"] as const) {
    test(`when every metadata URL ${mode}s`, async () => {
      const slow = await slowServer(mode);
      try {
        const timeout = 400;
        const started = Date.now();
        const a = await within(
          walkAuth({
            endpoint: `${slow.origin}/mcp`,
            status: 401,
            wwwAuthenticate: `Bearer resource_metadata="${slow.origin}/.well-known/oauth-protected-resource/mcp"`,
            rules: "2025-11-25",
            timeout,
          }),
          "the walk",
          timeout + SLACK,
        );
        assert.ok(Date.now() - started < timeout + SLACK);
        assert.equal(a.verdict, "broken");
        assert.equal(a.brokenAt, "resource_metadata");
        assert.ok(a.steps.some((s) => s.error === "no answer within the deadline"));
      } finally {
        await slow.close();
      }
    });
  }
});

describe("a census guard", () => {
  test("keeps the walk away from a private address named by authorization_servers", async () => {
    const healthy = SIGNIN_CASES.find((c) => c.name === "signin-dcr")!;
    const pointing: SigninCase = {
      ...healthy,
      name: "signin-to-metadata-service",
      layout: (origin, base) => {
        const layout = healthy.layout(origin, base);
        const prm = layout.docs[paths(base).prmPathInserted]!;
        prm.body = { ...(prm.body as object), authorization_servers: ["http://169.254.169.254/latest/meta-data"] };
        return layout;
      },
    };
    const server = await startSigninServer([pointing]);
    try {
      const guarded: string[] = [];
      const guard = async (url: string) => {
        guarded.push(url);
        return new URL(url).hostname === "169.254.169.254"
          ? "169.254.169.254 is link-local (cloud metadata)"
          : undefined;
      };
      const r = await probeHttp(server.url(pointing.name), { revision: "2025-11-25", timeout: 3000, urlGuard: guard });
      const a = r.auth!;
      assert.ok(guarded.some((u) => u.startsWith("http://169.254.169.254/.well-known/oauth-authorization-server")));
      const refused = a.steps.filter((s) => s.url.startsWith("http://169.254.169.254"));
      assert.ok(
        refused.length > 0 &&
          refused.every((s) => s.status === null && /^not called: 169\.254\.169\.254/.test(s.error ?? "")),
      );
      // plain http to a host that is not loopback breaks the chain already at the resource metadata
      assert.equal(a.brokenAt, "resource_metadata");
      assert.deepEqual(
        a.defects.filter((d) => d.severity === "error").map((d) => d.code),
        ["insecure_endpoint", "authorization_server_metadata_not_found"],
      );
    } finally {
      await server.close();
    }
  });
});

describe("the demo fleet's sign-in cases", () => {
  test("judged by the newest rules when the server showed no era, each as the fleet expects", async () => {
    const fleet = await startFleet({ hugeBytes: 1024, dripMs: 50 });
    try {
      const cases = fleet.endpoints.filter((e) => e.expect.auth);
      assert.ok(cases.length >= 5);
      for (const e of cases) {
        const r = await probeHttp(e.url, { timeout: 5000 });
        assert.equal(r.auth?.rules, "2026-07-28", e.name);
        assert.deepEqual({ verdict: r.auth?.verdict, brokenAt: r.auth?.brokenAt }, e.expect.auth, e.name);
      }
    } finally {
      await fleet.close();
    }
  });
});

describe("the sign-in walk and a metadata body past the cap", () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((req, res) => {
      const big = JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [base], pad: "x".repeat(4096) });
      if ((req.url ?? "").startsWith("/.well-known/oauth-protected-resource"))
        return void res.writeHead(200, { "content-type": "application/json" }).end(big);
      if ((req.url ?? "").startsWith("/.well-known/"))
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ issuer: base, pad: "y".repeat(4096) }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test("says too_large, never that the document is not JSON", async () => {
    const a = await walkAuth({
      endpoint: `${base}/mcp`,
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      rules: "2025-11-25",
      timeout: 5000,
      maxBytes: 1024,
    });
    const words = JSON.stringify(a);
    assert.match(words, /too_large/);
    assert.doesNotMatch(words, /not JSON/);
  });
});
