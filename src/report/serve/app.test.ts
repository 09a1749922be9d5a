/**
 * `report --serve` over a real SQLite census: the index (filtered, sorted, paged), a server's page,
 * the JSON API with its fields, badges, caching, the policy headers, the read-only rule, and new
 * attempts appearing while it runs.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SqliteStore } from "../../census/sqlite-store.js";
import { attempt } from "../../testkit/store-contract.js";
import { fillHistory, historyUrl } from "../../testkit/census-history.js";
import { publicUrlProblem, serveReport, type ReportServer } from "./app.js";
import { serverId } from "./model.js";

const NOW = Date.parse("2026-12-03T12:00:00.000Z");
let clock = NOW;
let dir: string;
let store: SqliteStore;
let server: ReportServer;

const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers });
const json = async <T>(path: string) => (await (await get(path)).json()) as T;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-serve-"));
  const file = join(dir, "census.db");
  const writer = new SqliteStore(file);
  await fillHistory(writer, { targets: 150, runs: 10, now: NOW - 3_600_000 }, (as) => writer.recordAttempts(as));
  await writer.close();
  store = new SqliteStore(file, { readonly: true });
  server = await serveReport(store, { now: () => clock });
});

after(async () => {
  await server?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("report --serve", () => {
  test("the index pages 100 servers at a time, filters by text and status, and sorts on the server", async () => {
    const first = await get("/");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/html; charset=utf-8");
    const html = await first.text();
    assert.match(html, /150 servers checked in the last 30 days/);
    assert.equal((html.match(/<tr><td class="target"/g) ?? []).length, 100);
    assert.match(html, /page 1 of 2/);
    const second = await (await get("/?page=2")).text();
    assert.equal((second.match(/<tr><td class="target"/g) ?? []).length, 50);

    const api = await json<{ servers: { target: string; status: string }[]; total: number; pages: number }>(
      "/api/servers?status=auth_required",
    );
    assert.equal(api.total, 15);
    assert.ok(api.servers.every((s) => s.status === "auth_required"));
    const found = await json<{ servers: { target: string }[]; total: number }>(
      `/api/servers?q=${encodeURIComponent("mcp00042")}`,
    );
    assert.deepEqual(
      found.servers.map((s) => s.target),
      [historyUrl(42)],
    );
    const worst = await json<{ servers: { uptime30dPct: number }[] }>("/api/servers?sort=uptime30d");
    // servers asking for sign-in count as up: the worst are those refused in 4 of 10 runs
    assert.equal(worst.servers[0]!.uptime30dPct, 60);
    const best = await json<{ servers: { uptime30dPct: number }[] }>("/api/servers?sort=uptime30d&dir=desc");
    assert.equal(best.servers[0]!.uptime30dPct, 100);
  });

  test("the API names each server's status, uptime and p95 over three windows, and what changed", async () => {
    const all = await json<{ servers: Record<string, unknown>[] }>("/api/servers");
    const s = all.servers.find((x) => x.target === historyUrl(7))!;
    assert.deepEqual(Object.keys(s).slice(0, 8), [
      "id",
      "target",
      "status",
      "detail",
      "up",
      "uptime24hPct",
      "uptime7dPct",
      "uptime30dPct",
    ]);
    assert.equal(s.id, serverId(historyUrl(7)));
    assert.equal(s.status, "ok");
    assert.equal(s.uptime24hPct, 100);
    assert.equal(s.changedInLast24h, true, "every seventh server redefined a tool on the last day");
    assert.equal(typeof s.p95LatencyMs24h, "number");
    const refused = all.servers.find((x) => x.target === historyUrl(3))!;
    assert.equal(refused.uptime30dPct, 60, "refused in runs 0, 3, 6 and 9 of ten: 6 of 10 up");
    const detail = await json<{
      attempts: unknown[];
      changes: { kind: string; tools?: { redefined: { name: string; changed: string[] }[] } }[];
    }>(`/api/servers/${serverId(historyUrl(7))}`);
    assert.equal(detail.attempts.length, 10);
    assert.deepEqual(
      detail.changes.map((c) => [c.kind, c.tools?.redefined]),
      [["surface", [{ name: "echo", changed: ["description"] }]]],
    );
    assert.equal((await get("/api/servers/0123456789abcdef")).status, 404);
  });

  test("a server's page: timeline, latency, change log and badge", async () => {
    const res = await get(`/server/${serverId(historyUrl(7))}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.equal(
      (html.match(/<svg class="timeline"[^]*?<\/svg>/)![0].match(/<rect [^>]*><title>/g) ?? []).length,
      10,
      "one mark an attempt",
    );
    assert.match(html, /~ echo \(description\)/);
    assert.match(html, /\/badge\/[0-9a-f]{16}\.svg/);
  });

  test("badges: the class and 24 h uptime, grey unknown for an unknown id; ETags answer 304", async () => {
    const ok = await get(`/badge/${serverId(historyUrl(1))}.svg`);
    assert.equal(ok.headers.get("content-type"), "image/svg+xml");
    assert.match(await ok.text(), /<text[^>]*>ok 100%<\/text>/);
    const unknown = await (await get("/badge/nothing.svg")).text();
    assert.match(unknown, /unknown/);
    assert.match(unknown, /#9f9f9f/);
    const etag = ok.headers.get("etag")!;
    assert.ok(etag);
    const again = await get(`/badge/${serverId(historyUrl(1))}.svg`, { "If-None-Match": etag });
    assert.equal(again.status, 304);
    const api = await get("/api/servers");
    assert.equal(api.headers.get("cache-control"), "no-cache");
    assert.equal((await get("/api/servers", { "If-None-Match": api.headers.get("etag")! })).status, 304);
    // a cache may send the tag weak, or among others: compared weakly, as RFC 9110 asks of a GET
    for (const header of [`W/${etag}`, `"other", ${etag}`, `W/"other" ,W/${etag}`, "*"])
      assert.equal(
        (await get(`/badge/${serverId(historyUrl(1))}.svg`, { "If-None-Match": header })).status,
        304,
        header,
      );
    for (const header of [`"other"`, `W/"other", "x"`, etag.slice(0, -2) + '"'])
      assert.equal(
        (await get(`/badge/${serverId(historyUrl(1))}.svg`, { "If-None-Match": header })).status,
        200,
        header,
      );
  });

  test("a strict policy on every answer; read only; a Host that is not loopback is refused", async () => {
    const res = await get("/");
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'; style-src 'self'/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const post = await fetch(new URL("/api/servers", server.url), { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    // fetch will not send another Host: a plain request does, as a page whose name was rebound to 127.0.0.1 would
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) =>
        request(new URL("/api/servers", server.url), { headers: { Host: host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on("error", reject)
          .end(),
      );
    for (const host of ["attacker.example", "[::1]evil.example", "[::1].evil.example:80", "127.0.0.1.evil.example"])
      assert.equal(await withHost(host), 421, host);
    for (const host of ["127.0.0.1", "localhost:8484", "[::1]:8484"]) assert.equal(await withHost(host), 200, host);
    assert.equal((await get("/nothing/here")).status, 404);
  });

  test("--public-url: the badge snippet names it, and a request naming its host is answered on loopback", async () => {
    const id = serverId(historyUrl(7));
    const local = await (await get(`/server/${id}`)).text();
    assert.match(local, /\[!\[MCP status\]\(http:\/\/127\.0\.0\.1:\d+\/badge\/[0-9a-f]{16}\.svg\)\]/);
    assert.match(local, /is this machine&#39;s own address: start the server with --public-url/);
    const proxied = await serveReport(store, { now: () => clock, publicUrl: "https://Status.example.com/census/" });
    try {
      const html = await (await fetch(new URL(`/server/${id}`, proxied.url))).text();
      const snippet = /<p class="badge-code"><code>([^<]*)<\/code>/.exec(html)![1];
      assert.equal(
        snippet,
        `[![MCP status](https://status.example.com/census/badge/${id}.svg)](https://status.example.com/census/server/${id})`,
      );
      assert.doesNotMatch(html, /own address/);
      const status = (host: string) =>
        new Promise<number>((resolve, reject) =>
          request(new URL("/api/servers", proxied.url), { headers: { Host: host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on("error", reject)
            .end(),
        );
      assert.equal(await status("status.example.com"), 200);
      assert.equal(await status("other.example.com"), 421);
    } finally {
      await proxied.close();
    }
    await assert.rejects(serveReport(store, { publicUrl: "javascript:alert(1)" }), /http:\/\/ or https:\/\//);
    assert.equal(publicUrlProblem("https://status.example.com"), undefined);
    assert.match(publicUrlProblem("https://status.example.com/?x=1")!, /no \?query/);
  });

  test("attempts stored while it runs appear at the next request after the refresh interval", async () => {
    const writer = new SqliteStore(store.file);
    const run = await writer.startRun("late", [{ target: "https://late.example/mcp", kind: "http", name: null }], {});
    await writer.recordAttempt(attempt(run, "https://late.example/mcp", new Date(NOW - 60_000).toISOString()));
    await writer.close();
    clock = NOW + 5_000;
    const api = await json<{ total: number }>("/api/servers");
    assert.equal(api.total, 151);
    const again = await json<{ total: number }>("/api/servers");
    assert.equal(again.total, 151, "read once, not twice");
  });
});
