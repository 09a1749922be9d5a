import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Resolver } from "./address.js";
import { rebinding, startFleet, type Fleet } from "../testkit/census-fleet.js";
import { runCensus } from "./census.js";
import { forEachLimited, HostSlots } from "./limiter.js";
import { SqliteStore } from "./sqlite-store.js";
import { collect, type AttemptRecord, type Store, type TargetRecord } from "./store.js";
import type { ProbeResult } from "../probe/verdict.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-test-"));
let files = 0;
const newStore = () => new SqliteStore(path.join(dir, `c${++files}.db`));

/** Registry targets here are IP literals, so a resolver must never be asked; this one fails the test if it is. */
const noResolver: Resolver = async (host) => {
  throw new Error(`the test asked to resolve ${host}`);
};

const http = (target: string, extra: Partial<TargetRecord> = {}): TargetRecord => ({
  target,
  kind: "http",
  name: null,
  ...extra,
});

/** Attempts per target in a run, straight from the database. */
function attemptsPerTarget(store: SqliteStore, runId: number): Map<string, number> {
  const rows = store.db
    .prepare(
      "SELECT t.target, COUNT(*) AS n FROM attempts a JOIN targets t ON t.id = a.target_id WHERE a.run_id = ? GROUP BY t.target",
    )
    .all(runId) as { target: string; n: number }[];
  return new Map(rows.map((r) => [r.target, r.n]));
}

describe("census", () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet();
  });
  after(async () => {
    await fleet.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("every target gets exactly one attempt with its verdict, invalid ones without a call; a re-run appends", async () => {
    const store = newStore();
    const targets = [
      http(fleet.url("ok", 1)),
      http(fleet.url("page", 1)),
      http(fleet.url("401", 1)),
      http(fleet.url("array", 1)),
      http(fleet.url("hang", 1)),
      http("https://{tenant}.example/mcp", { invalid: "template", untrusted: true }),
      http("not a url", { invalid: "bad_url" }),
    ];
    const runId = await store.startRun("fleet", targets, {});
    const seen: string[] = [];
    const outcome = await runCensus(store, runId, targets, {
      timeout: 1500,
      concurrency: 8,
      perHost: 8,
      resolve: noResolver,
      onAttempt: (a) => seen.push(a.class),
    });
    assert.deepEqual(outcome, { runId, recorded: 7, pending: 0, stopped: false });
    assert.equal(seen.length, 7);
    const byTarget = new Map((await collect(store.attempts({ runIds: [runId] }))).map((a) => [a.target, a]));
    assert.deepEqual(
      targets.map((t) => [byTarget.get(t.target)?.class, byTarget.get(t.target)?.detail]),
      [
        ["ok", "modern"],
        ["web_page", "text/html"],
        ["auth_required", "http_401"],
        ["not_jsonrpc", "bare_array"],
        ["timeout", byTarget.get(fleet.url("hang", 1))?.detail],
        ["invalid_target", "template"],
        ["invalid_target", "bad_url"],
      ],
    );
    const ok = byTarget.get(fleet.url("ok", 1))!;
    assert.equal(ok.revision, "2026-07-28");
    assert.ok((ok.tools ?? 0) > 0);
    assert.equal(byTarget.get(fleet.url("401", 1))?.httpStatus, 401);
    assert.ok(byTarget.get(fleet.url("page", 1))?.repro?.startsWith("curl "));
    assert.ok((await store.runs())[0]?.finishedAt);

    const again = await store.startRun("fleet", targets, {});
    await runCensus(store, again, targets, { timeout: 1500, concurrency: 8, perHost: 8, resolve: noResolver });
    assert.deepEqual(
      (await store.runs()).map((r) => [r.id, r.finishedAt !== null]),
      [
        [runId, true],
        [again, true],
      ],
    );
    for (const n of attemptsPerTarget(store, again).values()) assert.equal(n, 1);
    assert.equal((await store.aggregate()).perTarget.find((t) => t.target === fleet.url("ok", 1))?.attempts, 2);
    await store.close();
  });

  test("sse targets are probed over HTTP+SSE", async () => {
    const store = newStore();
    const targets = [{ target: fleet.url("page", "sse"), kind: "sse" as const, name: null }];
    const runId = await store.startRun("fleet", targets, {});
    await runCensus(store, runId, targets, { timeout: 2000 });
    const [a] = await collect(store.attempts());
    assert.equal(a?.transport, "http+sse");
    await store.close();
  });

  test("a registry target on a loopback, private or metadata address is recorded, not called, unless allowed", async () => {
    const store = newStore();
    const targets = [
      http(fleet.url("ok", "private"), { untrusted: true }),
      http("http://169.254.169.254/latest/meta-data/", { untrusted: true }),
      http("http://[fd00::1]:9/mcp", { untrusted: true }),
    ];
    const runId = await store.startRun("registry.json", targets, {});
    await runCensus(store, runId, targets, { timeout: 1500, resolve: noResolver });
    assert.equal(fleet.hits.get("/ok/private"), undefined);
    const attempts = await collect(store.attempts());
    assert.deepEqual(
      attempts.map((a) => [a.class, a.detail]),
      targets.map(() => ["invalid_target", "private_address"]),
    );
    assert.match(attempts[0]!.advice!, /resolves to 127\.0\.0\.1/);
    assert.match(attempts[1]!.advice!, /169\.254\.169\.254/);

    // a name is resolved first, with every address it has
    const named = [http("http://internal.example/mcp", { untrusted: true })];
    const asked: string[] = [];
    const r2 = await store.startRun("registry.json", named, {});
    await runCensus(store, r2, named, { resolve: async (h) => (asked.push(h), ["93.184.216.34", "10.0.0.1"]) });
    assert.deepEqual(asked, ["internal.example"]);
    assert.equal((await collect(store.attempts({ runIds: [r2] })))[0]?.detail, "private_address");

    const allowed = [http(fleet.url("ok", "allowed"), { untrusted: true })];
    const r3 = await store.startRun("registry.json", allowed, { allowPrivate: true });
    await runCensus(store, r3, allowed, { timeout: 2000, allowPrivate: true, resolve: noResolver });
    assert.ok((fleet.hits.get("/ok/allowed") ?? 0) > 0);
    assert.equal((await collect(store.attempts({ runIds: [r3] })))[0]?.class, "ok");
    await store.close();
  });

  test("a registry name that answers a public address when checked and loopback when connected to is never called", async () => {
    const store = newStore();
    const port = new URL(fleet.base).port;
    const rebound = [http(`http://rebind.example:${port}/ok/rebind`, { untrusted: true })];
    const r1 = await store.startRun("registry.json", rebound, {});
    // the check's lookup is told 93.184.216.34, the connection's 127.0.0.1 (nothing ever connects to the former)
    const dns = rebinding([["93.184.216.34"], ["127.0.0.1"]]);
    await runCensus(store, r1, rebound, { timeout: 1500, lookup: dns });
    assert.equal(fleet.hits.get("/ok/rebind"), undefined);
    const [a] = await collect(store.attempts({ runIds: [r1] }));
    assert.deepEqual([a?.class, a?.detail], ["invalid_target", "private_address"]);
    assert.match(a!.advice!, /resolves to 127\.0\.0\.1/);

    // a lookup that fails when checked leaves the target unreachable, not allowed: nothing is sent
    const failing = [http(`http://flaky.example:${port}/ok/flaky`, { untrusted: true })];
    const r2 = await store.startRun("registry.json", failing, {});
    const flaky = rebinding(["fail", ["127.0.0.1"]]);
    await runCensus(store, r2, failing, { timeout: 1500, lookup: flaky });
    assert.equal(fleet.hits.get("/ok/flaky"), undefined);
    assert.equal(flaky.calls, 1, "the name was looked up once, to check it, and not again to connect");
    const [b] = await collect(store.attempts({ runIds: [r2] }));
    assert.deepEqual([b?.class, b?.detail], ["unreachable", "dns"]);
    assert.match(b!.advice!, /does not resolve.*ENOTFOUND; not called/);
    await store.close();
  });

  test("headers are sent, and never stored even when a server echoes them", async () => {
    const store = newStore();
    const secret = "sk-test-4f8a1c9e2b7d";
    const targets = [http(fleet.url("echo-auth", "h"))];
    const runId = await store.startRun("t", targets, {});
    await runCensus(store, runId, targets, { timeout: 2000, headers: { Authorization: `Bearer ${secret}` } });
    assert.ok(fleet.authorizations.includes(`Bearer ${secret}`));
    const [a] = await collect(store.attempts());
    assert.equal(a?.class, "auth_required");
    assert.match(a?.rpcMessage ?? "", /^invalid api key: .*<redacted>$/);
    await store.close();
    for (const f of readdirSync(dir).filter((f) => f.startsWith(`c${files}.db`))) {
      assert.equal(readFileSync(path.join(dir, f)).includes(secret), false, `${f} holds the secret`);
    }
  });

  test("at most --per-host probes at once to one host, whatever the port, on each host", async () => {
    // two hosts (127.0.0.2 and 127.0.0.3), each behind two ports that share its count
    const counters = Array.from({ length: 2 }, () => ({ active: 0, peak: 0 }));
    const servers = await Promise.all(
      counters.flatMap((counter, h) =>
        [0, 1].map(() => startFleet({ delayMs: 25, counter, address: `127.0.0.${h + 2}` })),
      ),
    );
    try {
      for (const perHost of [1, 3]) {
        for (const c of counters) c.peak = 0;
        const store = newStore();
        const targets = Array.from({ length: 12 }, (_, i) =>
          http(servers[i % servers.length]!.url("ok", `${perHost}-${i}`)),
        );
        const runId = await store.startRun("fleet", targets, {});
        await runCensus(store, runId, targets, { concurrency: 16, perHost, timeout: 5000 });
        assert.deepEqual(
          counters.map((c) => c.peak >= 1 && c.peak <= perHost),
          counters.map(() => true),
          `per host ${perHost}: the hosts saw ${counters.map((c) => c.peak).join(" and ")} requests at once`,
        );
        const attempts = await collect(store.attempts());
        // on a failure, say what the others were: a flake under load must be readable from CI's log
        const notOk = attempts.filter((x) => x.class !== "ok").map((x) => `${x.target}: ${x.class} (${x.detail})`);
        assert.equal(attempts.length - notOk.length, 12, `per host ${perHost}: not ok: ${notOk.join("; ")}`);
        await store.close();
      }
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  test("a stopped census keeps what it finished, leaves the run open, and a resume does only the rest", async () => {
    const slow = await startFleet({ delayMs: 30 });
    try {
      const store = newStore();
      const targets = Array.from({ length: 10 }, (_, i) => http(slow.url("ok", `stop-${i}`)));
      const runId = await store.startRun("fleet", targets, {});
      const stop = new AbortController();
      const first = await runCensus(store, runId, targets, {
        concurrency: 2,
        perHost: 2,
        timeout: 5000,
        signal: stop.signal,
        onAttempt: () => stop.abort(),
      });
      assert.equal(first.stopped, true);
      // a finished probe frees its place before its attempt is stored, so on a loaded machine a
      // third may finish before the first store write reports; what matters is that it stopped
      assert.ok(first.recorded >= 1 && first.recorded < targets.length, `recorded ${first.recorded}`);
      assert.equal(first.pending, 10 - first.recorded);
      assert.equal((await store.unfinishedRun())?.id, runId);

      const rest = await store.pendingTargets(runId);
      assert.equal(rest.length, first.pending);
      const second = await runCensus(store, runId, rest, { concurrency: 4, perHost: 4, timeout: 5000 });
      assert.equal(second.stopped, false);
      assert.equal(await store.unfinishedRun(), undefined);
      const counts = attemptsPerTarget(store, runId);
      assert.deepEqual(
        targets.map((t) => counts.get(t.target)),
        targets.map(() => 1),
      );
      await store.close();
    } finally {
      await slow.close();
    }
  });
});

describe("census and its store", () => {
  const verdict = (target: string): ProbeResult => ({
    target,
    class: "ok",
    detail: "modern",
    era: "modern",
    revision: "2026-07-28",
    transport: "streamable-http",
    http: null,
    rpcError: null,
    tools: 0,
    server: null,
    defects: [],
    advice: "",
    elapsedMs: 1,
    trace: [],
  });
  /** A store whose commits wait for `commit` (or fail, with `refuse`). */
  const slowStore = (refuse?: Error) => {
    const waiting: (() => void)[] = [];
    const stored: string[] = [];
    const store = {
      where: "test",
      startRun: async () => 1,
      finishRun: async () => {},
      pendingTargets: async () => [],
      recordAttempt: (a: AttemptRecord) =>
        refuse
          ? Promise.reject(refuse)
          : new Promise<void>((resolve) => waiting.push(() => (stored.push(a.target), resolve()))),
    } as unknown as Store;
    return { store, stored, commit: () => waiting.splice(0).forEach((w) => w()) };
  };
  const ticks = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  test("a probe's place is free while its attempt waits for its commit; the census ends once every attempt is stored", async () => {
    const { store, stored, commit } = slowStore();
    const targets = ["a", "b", "c"].map((h) => http(`http://${h}.test/mcp`));
    const probed: string[] = [];
    const reported: string[] = [];
    let over = false;
    const census = runCensus(store, 1, targets, {
      concurrency: 1,
      probe: async (t) => (probed.push(t.target), verdict(t.target)),
      onAttempt: (a) => reported.push(a.target),
    }).then((o) => ((over = true), o));
    await ticks(20);
    // one place, three probes done, nothing committed: none reported, and the census not over
    assert.deepEqual(
      probed,
      targets.map((t) => t.target),
    );
    assert.deepEqual(stored, []);
    assert.deepEqual(reported, []);
    assert.equal(over, false);
    commit();
    assert.deepEqual(await census, { runId: 1, recorded: 3, pending: 0, stopped: false });
    assert.deepEqual(
      stored,
      targets.map((t) => t.target),
    );
    assert.deepEqual(reported, stored);
  });

  test("a store write that fails starts no new probe and is thrown", async () => {
    const refused = new Error("disk full");
    const { store } = slowStore(refused);
    const targets = Array.from({ length: 20 }, (_, i) => http(`http://h${i}.test/mcp`));
    let probes = 0;
    await assert.rejects(
      runCensus(store, 1, targets, {
        concurrency: 1,
        probe: async (t) => {
          probes++;
          await ticks(2);
          return verdict(t.target);
        },
      }),
      refused,
    );
    assert.ok(probes < targets.length, `${probes} probes`);
  });
});

describe("forEachLimited", () => {
  test("keeps both limits, lets hosts take turns, and does every item once", async () => {
    const items = ["a1", "a2", "a3", "a4", "b1", "b2", "c1"];
    const active = new Map<string, number>();
    let running = 0;
    let peak = 0;
    const peakPerKey = new Map<string, number>();
    const order: string[] = [];
    await forEachLimited(items, {
      keyOf: (s) => s[0]!,
      limits: { concurrency: 3, perKey: 2 },
      work: async (s) => {
        const k = s[0]!;
        order.push(s);
        running++;
        active.set(k, (active.get(k) ?? 0) + 1);
        peak = Math.max(peak, running);
        peakPerKey.set(k, Math.max(peakPerKey.get(k) ?? 0, active.get(k)!));
        await new Promise((r) => setImmediate(r));
        running--;
        active.set(k, active.get(k)! - 1);
      },
    });
    assert.deepEqual([...order].sort(), [...items].sort());
    assert.ok(peak <= 3);
    for (const [k, n] of peakPerKey) assert.ok(n <= 2, `${k}: ${n} at once`);
    // the first three go to three different hosts, not to the first host's queue
    assert.deepEqual(
      order.slice(0, 3).map((s) => s[0]),
      ["a", "b", "c"],
    );
  });

  test("an abort starts nothing new and resolves when the work in flight is done", async () => {
    const stop = new AbortController();
    const started: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6], {
      keyOf: () => "k",
      limits: { concurrency: 2, perKey: 2 },
      work: async (n) => {
        started.push(n);
        if (n === 2) stop.abort();
        await new Promise((r) => setImmediate(r));
      },
      signal: stop.signal,
    });
    assert.deepEqual(started, [1, 2]);
  });

  test("no items: resolves at once", async () => {
    await forEachLimited([], { keyOf: () => "k", limits: { concurrency: 1, perKey: 1 }, work: async () => {} });
  });

  test("work may take a slot of another host for a request: that host's items wait for it, and it waits for theirs", async () => {
    const slots = new HostSlots(1);
    const log: string[] = [];
    await forEachLimited(["a1", "b1", "b2"], {
      keyOf: (s) => s[0]!,
      limits: { concurrency: 3, perKey: 1 },
      work: async (s) => {
        log.push(`start ${s}`);
        if (s === "a1") {
          // a request of a1's to host b, once b1 has started: b1 holds b's slot, so it waits, and
          // gets it before b2 starts
          await new Promise((r) => setImmediate(r));
          const release = await slots.take("b");
          log.push("a1's request to b");
          release();
        } else await new Promise((r) => setTimeout(r, 20));
        log.push(`end ${s}`);
      },
      slots,
    });
    assert.deepEqual(log, ["start a1", "start b1", "end b1", "a1's request to b", "start b2", "end a1", "end b2"]);
  });

  test("a request waiting for a slot gives up when its deadline passes, and the slot goes on to the next", async () => {
    const slots = new HostSlots(1);
    assert.ok(slots.tryTake("h"));
    const deadline = new AbortController();
    const waiting = slots.take("h", deadline.signal);
    const next = slots.take("h");
    deadline.abort(new Error("no answer within the deadline"));
    await assert.rejects(waiting, /within the deadline/);
    slots.release("h");
    const release = await next;
    assert.equal(slots.free("h"), false);
    release();
    release();
    assert.equal(slots.free("h"), true, "given back once, however often released");
  });
});
