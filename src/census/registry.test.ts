/**
 * `census --registry`: a local registry server that pages as the official one does (`limit`,
 * `cursor`, `metadata.nextCursor`, `version=latest`, `updated_since`, a 429 with Retry-After),
 * then the whole census through the CLI against it, its entries pointing at a real local server.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { mcpWire } from "../testkit/cli-child.js";
import { startFleet, type Fleet } from "../testkit/census-fleet.js";
import { fetchRegistry, retryAfterMs } from "./registry.js";
import { SqliteStore } from "./sqlite-store.js";
import { collect } from "./store.js";
import { RegistryPagesReader } from "./targets.js";

interface Registry {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

type Entry = Record<string, unknown>;

const official = (status: string, updatedAt = "2026-11-01T00:00:00Z") => ({
  "io.modelcontextprotocol.registry/official": { status, isLatest: true, updatedAt },
});
const entry = (name: string, remote: Record<string, unknown>, status = "active", updatedAt?: string): Entry => ({
  server: { name, version: "1.0.0", remotes: [remote] },
  _meta: official(status, updatedAt),
});

/** A registry over `entries`, `perPage` a page; `/v0.1` answers 404 when `v0Only`; the first request gets a 429 when `busy`. */
async function startRegistry(
  entries: Entry[],
  options: { perPage?: number; v0Only?: boolean; busy?: boolean; loop?: boolean } = {},
): Promise<Registry> {
  const requests: string[] = [];
  let busy = options.busy === true;
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push(req.url ?? "");
    const url = new URL(req.url ?? "/", "http://registry");
    if (busy) {
      busy = false;
      res.writeHead(429, { "Retry-After": "0" }).end();
      return;
    }
    const v01 = url.pathname.endsWith("/v0.1/servers");
    if (!(v01 || url.pathname.endsWith("/v0/servers")) || (v01 && options.v0Only)) {
      res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    const since = url.searchParams.get("updated_since");
    const listed = entries.filter(
      (e) =>
        !since ||
        Date.parse(
          (e._meta as Record<string, { updatedAt: string }>)["io.modelcontextprotocol.registry/official"]!.updatedAt,
        ) >= Date.parse(since),
    );
    const per = Math.min(Number(url.searchParams.get("limit") ?? 30), options.perPage ?? 100);
    const start = Number(url.searchParams.get("cursor") ?? 0);
    const page = listed.slice(start, start + per);
    const next = start + per < listed.length ? String(start + per) : undefined;
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        servers: page,
        metadata: { count: page.length, ...(next ? { nextCursor: options.loop ? "0" : next } : {}) },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ignore = () => undefined;

/** A server on `host` that answers every request with `answer` and counts what it got. */
async function startPlain(
  host: string,
  answer: (req: IncomingMessage, res: import("node:http").ServerResponse) => void,
): Promise<Registry> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? "");
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("the registry's API, read live", () => {
  const many = Array.from({ length: 7 }, (_, i) =>
    entry(
      `example/s${i}`,
      { type: "streamable-http", url: `https://s${i}.example/mcp` },
      "active",
      `2026-11-0${i + 1}T00:00:00Z`,
    ),
  );

  test("follows nextCursor page by page, asks for the latest versions, and passes updated_since", async () => {
    const registry = await startRegistry(many, { perPage: 3 });
    try {
      const reader = new RegistryPagesReader("registry");
      // each page is handed on before the next is asked for: none waits for the last
      const asked: number[] = [];
      const { pages, api } = await fetchRegistry(
        registry.url,
        (page, n) => {
          asked.push(registry.requests.length);
          reader.page(page, n);
        },
        { updatedSince: "2026-11-03T00:00:00.000Z" },
      );
      assert.equal(api, "/v0.1/servers");
      assert.equal(pages, 2);
      assert.deepEqual(asked, [1, 2]);
      assert.deepEqual(
        reader.done().targets.map((t) => t.target),
        [
          "https://s2.example/mcp",
          "https://s3.example/mcp",
          "https://s4.example/mcp",
          "https://s5.example/mcp",
          "https://s6.example/mcp",
        ],
      );
      for (const r of registry.requests) {
        const q = new URL(r, "http://x").searchParams;
        assert.equal(q.get("version"), "latest");
        assert.equal(q.get("limit"), "100");
        assert.equal(q.get("updated_since"), "2026-11-03T00:00:00.000Z");
      }
    } finally {
      await registry.close();
    }
  });

  test("falls back to /v0/servers on a 404, and waits out a 429 as Retry-After says", async () => {
    const registry = await startRegistry(many, { v0Only: true, busy: true });
    const waits: number[] = [];
    try {
      const reader = new RegistryPagesReader("r");
      const { api } = await fetchRegistry(registry.url, (page, n) => reader.page(page, n), {
        sleep: async (ms) => void waits.push(ms),
      });
      assert.equal(api, "/v0/servers");
      assert.equal(reader.done().targets.length, 7);
      assert.deepEqual(waits, [0]);
    } finally {
      await registry.close();
    }
    assert.equal(retryAfterMs("30", 0), 30_000);
    assert.equal(retryAfterMs(null, 2), 4_000);
    assert.equal(
      retryAfterMs(new Date(Date.parse("2026-12-03T00:01:00Z")).toUTCString(), 0, Date.parse("2026-12-03T00:00:00Z")),
      60_000,
    );
    assert.equal(retryAfterMs("86400", 0), 120_000, "a wait of a day is cut to two minutes");
  });

  test("a cursor that repeats, a page that is not JSON, and a registry that is not there are one clear error each", async () => {
    const looping = await startRegistry(many, { perPage: 3, loop: true });
    try {
      await assert.rejects(fetchRegistry(looping.url, ignore), /repeated cursor "0"/);
    } finally {
      await looping.close();
    }
    const silent = await startRegistry([]);
    await silent.close();
    await assert.rejects(fetchRegistry(silent.url, ignore), /the registry could not be read \(ECONNREFUSED\)/);
    await assert.rejects(fetchRegistry("registry.example", ignore), /--registry takes the registry's base URL/);
  });

  test("a redirect to another origin is not followed: the other host is never asked", async () => {
    // another loopback host stands in for a cloud's metadata service
    const elsewhere = await startPlain("127.0.0.2", (_req, res) => void res.writeHead(200).end('{"servers":[]}'));
    const redirecting = await startPlain(
      "127.0.0.1",
      (_req, res) => void res.writeHead(302, { Location: `${elsewhere.url}/latest/meta-data/` }).end(),
    );
    // the same host on another port is another origin too
    const otherPort = await startPlain(
      "127.0.0.1",
      (_req, res) =>
        void res.writeHead(307, { Location: `${elsewhere.url.replace("127.0.0.2", "127.0.0.1")}/x` }).end(),
    );
    try {
      await assert.rejects(
        fetchRegistry(redirecting.url, ignore),
        /the registry redirected to another origin \(http:\/\/127\.0\.0\.2:\d+\)/,
      );
      await assert.rejects(fetchRegistry(otherPort.url, ignore), /redirected to another origin/);
      assert.deepEqual(elsewhere.requests, []);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close(), otherPort.close()]);
    }
  });

  test("a redirect on the registry's own origin is followed, a bounded number of times", async () => {
    const registry = await startRegistry(many);
    const moved = await startPlain("127.0.0.1", (req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname.startsWith("/old"))
        return void res.writeHead(301, { Location: url.pathname.slice(4) + url.search }).end();
      if (url.pathname === "/loop/v0.1/servers") return void res.writeHead(302, { Location: req.url ?? "/" }).end();
      // what the registry answers, proxied by hand
      void fetch(`${registry.url}${req.url ?? "/"}`).then(async (r) =>
        res.writeHead(r.status, { "Content-Type": "application/json" }).end(await r.text()),
      );
    });
    try {
      const reader = new RegistryPagesReader("r");
      await fetchRegistry(`${moved.url}/old`, (page, n) => reader.page(page, n));
      assert.equal(reader.done().targets.length, 7);
      await assert.rejects(fetchRegistry(`${moved.url}/loop`, ignore), /more than 5 redirects/);
    } finally {
      await Promise.all([registry.close(), moved.close()]);
    }
  });

  test("the pages together are capped: past the cap, one clear error and nothing more is read", async () => {
    const registry = await startRegistry(many, { perPage: 1 });
    try {
      let read = 0;
      await assert.rejects(
        fetchRegistry(registry.url, () => void read++, { maxTotalBytes: 1500 }),
        /the registry's pages passed what a census reads of them in all/,
      );
      assert.ok(read >= 1 && read < 7, `${read} pages read`);
      assert.equal(registry.requests.length, read + 1);
    } finally {
      await registry.close();
    }
  });
});

describe("census --registry", () => {
  let fleet: Fleet;
  let registry: Registry;
  let dir: string;

  before(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "mcp-wire-registry-"));
    const ok = fleet.url("ok", "a");
    const keyed = fleet.url("ok", "b");
    registry = await startRegistry([
      entry("example/ok", { type: "streamable-http", url: ok }),
      entry("example/old", { type: "streamable-http", url: fleet.url("ok", "old") }, "deprecated"),
      entry("example/keyed", {
        type: "streamable-http",
        url: keyed,
        headers: [{ name: "X-Api-Key", isRequired: true, isSecret: true }],
      }),
      entry("example/tenant", {
        type: "streamable-http",
        url: "https://{tenant}.example/mcp",
        variables: { tenant: { isRequired: true } },
      }),
      {
        server: { name: "example/local", version: "1.0.0", packages: [{ registryType: "npm", identifier: "x" }] },
        _meta: official("active"),
      },
    ]);
  });

  after(async () => {
    await registry?.close();
    await fleet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("active entries with remotes are probed; one needing a header is needs_config, a template is template; nothing private is called without --allow-private", async () => {
    const db = join(dir, "a.db");
    const run = mcpWire(["census", "--registry", registry.url, "--db", db, "--timeout", "5000"]);
    assert.equal(await run.exit(), 0, run.stderr());
    assert.match(run.stderr() + run.stdout(), /1 deprecated or deleted left out/);
    const store = new SqliteStore(db, { readonly: true });
    const attempts = await collect(store.attempts());
    await store.close();
    const byName = new Map(attempts.map((a) => [a.target, [a.class, a.detail]]));
    assert.deepEqual(
      byName.get(fleet.url("ok", "a")),
      ["invalid_target", "private_address"],
      "a registry's loopback URL is not called",
    );
    assert.deepEqual(byName.get(fleet.url("ok", "b")), ["invalid_target", "needs_config"]);
    assert.deepEqual(byName.get("https://{tenant}.example/mcp"), ["invalid_target", "template"]);
    assert.equal(attempts.length, 3);
  });

  test("with --allow-private and the header given, both are called", async () => {
    const db = join(dir, "b.db");
    const run = mcpWire([
      "census",
      "--registry",
      registry.url,
      "--db",
      db,
      "--allow-private",
      "--header",
      "X-Api-Key: k",
      "--timeout",
      "5000",
    ]);
    assert.equal(await run.exit(), 0, run.stderr());
    const store = new SqliteStore(db, { readonly: true });
    const attempts = await collect(store.attempts());
    await store.close();
    const classes = new Map(attempts.map((a) => [a.target, a.class]));
    assert.equal(classes.get(fleet.url("ok", "a")), "ok");
    assert.equal(classes.get(fleet.url("ok", "b")), "ok");
  });

  test("--registry with a targets file, or --updated-since without --registry, is a usage error", async () => {
    const both = mcpWire(["census", "targets.txt", "--registry", registry.url, "--db", join(dir, "c.db")]);
    assert.equal(await both.exit(), 2);
    assert.match(both.stderr(), /not both/);
    const since = mcpWire(["census", "targets.txt", "--updated-since", "7d", "--db", join(dir, "c.db")]);
    assert.equal(await since.exit(), 2);
    assert.match(since.stderr(), /--updated-since reads the registry's API/);
  });
});
