/**
 * A census of untrusted targets hands the probe the private-address rule for every URL the
 * sign-in chain leads to (the walk obeys it: src/auth/walk.test.ts), so a registry entry cannot
 * point the census at a cloud metadata address through `authorization_servers`. Targets the user
 * listed are called as given, their chains too. Every address the walk connects to obeys the
 * rule as well, and every request it makes obeys the per-host limit (hosts are separate loopback
 * addresses here: 127.0.0.2, 127.0.0.3, 127.0.0.4).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProbeOptions } from "../probe/probe.js";
import type { ProbeResult } from "../probe/verdict.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { walkAuth } from "../auth/walk.js";
import { rebinding, signinHost } from "../testkit/census-fleet.js";
import { untrustedNetwork } from "./address.js";
import { runCensus } from "./census.js";
import { HostSlots, walkHostSlot } from "./limiter.js";
import { MemoryStore } from "../testkit/memory-store.js";
import type { TargetRecord } from "./store.js";

test("registry targets get a guard that refuses private addresses; listed targets get none", async () => {
  const store = new MemoryStore();
  const targets: TargetRecord[] = [
    { target: "https://registry.example/mcp", kind: "http", name: "r", untrusted: true },
    { target: "https://listed.example/mcp", kind: "http", name: null },
  ];
  const runId = store.startRun("test", targets, {});
  const given = new Map<string, ProbeOptions>();
  const probe = async (t: TargetRecord, options: ProbeOptions): Promise<ProbeResult> => {
    given.set(t.target, options);
    return {
      target: t.target,
      class: "unreachable",
      detail: "dns",
      era: null,
      revision: null,
      transport: "streamable-http",
      http: null,
      rpcError: null,
      tools: null,
      server: null,
      defects: [],
      advice: "",
      elapsedMs: 0,
      trace: [],
    };
  };
  const resolve = async (host: string) =>
    host === "metadata.internal.example" ? ["169.254.169.254"] : ["93.184.216.34"];
  await runCensus(store.asStore(), runId, targets, { probe, resolve });
  const guard = given.get("https://registry.example/mcp")?.urlGuard;
  assert.ok(guard, "the registry target's probe has a guard");
  assert.match((await guard("http://169.254.169.254/latest/meta-data/")) ?? "", /169\.254\.169\.254/);
  assert.match(
    (await guard("https://metadata.internal.example/.well-known/oauth-authorization-server")) ?? "",
    /resolves to 169\.254\.169\.254/,
  );
  assert.equal(await guard("https://as.example/.well-known/oauth-authorization-server"), undefined);
  assert.equal(given.get("https://listed.example/mcp")?.urlGuard, undefined);
});

test("every request of a registry target's sign-in walk connects through the vetted lookup: a name checked public and rebound to loopback reaches nothing", async () => {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? "");
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ resource: "x", authorization_servers: ["http://as.example/"] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const walk = (
      lookup: NonNullable<Parameters<typeof walkAuth>[0]["lookup"]>,
      guard?: (url: string) => Promise<string | undefined>,
    ) =>
      walkAuth({
        endpoint: `http://mcp.example:${port}/mcp`,
        status: 401,
        wwwAuthenticate: `Bearer resource_metadata="http://prm.example:${port}/.well-known/oauth-protected-resource"`,
        rules: "2025-11-25",
        timeout: 3000,
        lookup,
        ...(guard ? { guard } : {}),
      });
    // each name answers 93.184.216.34 when the guard checks it, 127.0.0.1 from then on
    const network = untrustedNetwork({ lookup: rebinding([["93.184.216.34"], ["127.0.0.1"]]) });
    const result = await walk(network.lookup, network.guard);
    assert.deepEqual(paths, [], "no request of the walk reached the loopback service");
    assert.ok(result.steps.length > 1);
    assert.ok(
      result.steps.every((s) => s.step === "challenge" || s.status === null),
      JSON.stringify(result.steps),
    );
    assert.equal(network.refused?.address, "127.0.0.1");

    // the same names and the same guard with the lookup left unvetted: the walk's requests do reach it
    const open = rebinding([["93.184.216.34"], ["127.0.0.1"]]);
    const unguarded = untrustedNetwork({ lookup: open });
    await walk(open, unguarded.guard);
    assert.ok(paths.length > 0, "unvetted, the rebound names reach the loopback service");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("under --per-host 1, the sign-in walks keep it too: one request at a time on each MCP host, and on the authorization server they share", async () => {
  const as = await signinHost("127.0.0.3", () => as.origin);
  const hosts = [await signinHost("127.0.0.2", () => as.origin), await signinHost("127.0.0.4", () => as.origin)];
  const store = new MemoryStore();
  try {
    const targets: TargetRecord[] = hosts.flatMap((h) =>
      [1, 2, 3, 4].map((n) => ({ target: `${h.origin}/mcp/${n}`, kind: "http" as const, name: null })),
    );
    const runId = store.startRun("test", targets, {});
    await runCensus(store.asStore(), runId, targets, { concurrency: 8, perHost: 1, timeout: 20_000 });
    const attempts = [...store.attempts({ runIds: [runId] })];
    assert.equal(attempts.length, 8);
    for (const a of attempts) {
      assert.equal(a.class, "auth_required", a.target);
      assert.equal((a.auth as { verdict?: string } | null)?.verdict, "ready", `${a.target}: ${JSON.stringify(a.auth)}`);
    }
    assert.ok(as.hits() >= 8, `the authorization server was asked ${as.hits()} times`);
    assert.deepEqual(
      [...hosts, as].map((h) => h.peak()),
      [1, 1, 1],
      "requests held at once by 127.0.0.2, 127.0.0.4 and the authorization server on 127.0.0.3",
    );
  } finally {
    for (const h of [...hosts, as]) await h.close();
  }
});

test("a walk's wait for a slot of its authorization server's host counts against its deadline: nothing is sent there once it passes", async () => {
  const as = await signinHost("127.0.0.3", () => as.origin);
  const mcp = await signinHost("127.0.0.2", () => as.origin);
  try {
    const slots = new HostSlots(1);
    // a probe of the authorization server's host holds its one slot all along
    assert.ok(slots.tryTake("127.0.0.3"));
    const result = await walkAuth({
      endpoint: `${mcp.origin}/mcp/1`,
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${mcp.origin}/.well-known/oauth-protected-resource/mcp/1"`,
      rules: "2025-11-25",
      timeout: 1000,
      hostSlot: walkHostSlot("127.0.0.2", slots),
    });
    assert.equal(as.hits(), 0, "the authorization server was never asked");
    assert.equal(mcp.peak(), 1);
    assert.equal(result.brokenAt, "authorization_server");
    const asSteps = result.steps.filter((s) => s.url.startsWith(as.origin));
    assert.ok(
      asSteps.length > 0 && asSteps.every((s) => s.error === "no answer within the deadline"),
      JSON.stringify(asSteps),
    );
    // the defect says the server was never asked, rather than that it did not answer
    const notFound = result.defects.find((d) => d.code === "authorization_server_metadata_not_found");
    assert.match(notFound?.message ?? "", /not asked: the deadline passed while it waited for its turn at that host/);
  } finally {
    await as.close();
    await mcp.close();
  }
});
