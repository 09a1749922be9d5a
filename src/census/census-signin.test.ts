/**
 * A census of untrusted targets hands the probe the private-address rule for every URL the
 * sign-in chain leads to (the walk obeys it: src/auth/walk.test.ts), so a registry entry cannot
 * point the census at a cloud metadata address through `authorization_servers`. Targets the user
 * listed are called as given, their chains too.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProbeOptions } from "../probe/probe.js";
import type { ProbeResult } from "../probe/verdict.js";
import { runCensus } from "./census.js";
import { MemoryStore } from "./memory-store.js";
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
    return { target: t.target, class: "unreachable", detail: "dns", era: null, revision: null, transport: "streamable-http", http: null, rpcError: null, tools: null, server: null, defects: [], advice: "", elapsedMs: 0, trace: [] };
  };
  const resolve = async (host: string) => (host === "metadata.internal.example" ? ["169.254.169.254"] : ["93.184.216.34"]);
  await runCensus(store.asStore(), runId, targets, { probe, resolve });
  const guard = given.get("https://registry.example/mcp")?.urlGuard;
  assert.ok(guard, "the registry target's probe has a guard");
  assert.match((await guard("http://169.254.169.254/latest/meta-data/")) ?? "", /169\.254\.169\.254/);
  assert.match((await guard("https://metadata.internal.example/.well-known/oauth-authorization-server")) ?? "", /resolves to 169\.254\.169\.254/);
  assert.equal(await guard("https://as.example/.well-known/oauth-authorization-server"), undefined);
  assert.equal(given.get("https://listed.example/mcp")?.urlGuard, undefined);
});
