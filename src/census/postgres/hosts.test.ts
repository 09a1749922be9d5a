/**
 * The per-host limit across workers and across many hosts: three census worker processes on one
 * PostgreSQL run over targets on ten hosts, one worker killed with SIGKILL part-way. Each host is
 * a server of its own on a loopback address (127.0.0.2 … 127.0.0.11), reached by a name
 * (`h1.test` … `h10.test`) that a lookup the census is given resolves to it, so no resolver is
 * asked and no other address is touched. Counted per address a connection was accepted on, the
 * requests held at once: never more than `--per-host`, cluster-wide.
 *
 * Run as `node hosts.test.js --worker URL RUN` it is one such worker.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import type { LookupFunction } from "node:net";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { peakPerAddress, signinHost, startHosts, until, type Fleet } from "../../testkit/census-fleet.js";
import { attemptAt, type CensusOptions } from "../census.js";
import { probeHttp } from "../../probe/probe.js";
import type { AdmissionState } from "../admission.js";
import { runWorker } from "../worker.js";
import { startPostgres, type TestPostgres } from "../../testkit/postgres.js";
import { PostgresStore } from "./store.js";

const HOSTS = 10;
const PER_HOST = 2;
const SELF = fileURLToPath(import.meta.url);

/** `hN.test` is the host listening on 127.0.0.(N+1); any other name is not found (the test never reaches a resolver). */
const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  const done = callback as (
    error: NodeJS.ErrnoException | null,
    address: string | { address: string; family: number }[],
    family?: number,
  ) => void;
  const n = Number(/^h([1-9]\d*)\.test$/.exec(hostname)?.[1]);
  if (!(n >= 1 && n <= 253))
    return done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
  const address = `127.0.0.${n + 1}`;
  if ((options as { all?: boolean }).all) done(null, [{ address, family: 4 }]);
  else done(null, address, 4);
};

const workerOptions = (): CensusOptions & { leaseMs: number } => ({
  concurrency: 8,
  perHost: PER_HOST,
  timeout: 5_000,
  leaseMs: 2_000,
  lookup: loopbackLookup,
});

if (process.argv[2] === "--worker") {
  const [url, run] = process.argv.slice(3);
  const store = await PostgresStore.open(url!);
  try {
    const outcome = await runWorker(store, Number(run), workerOptions());
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  } finally {
    await store.close();
  }
} else {
  describe("census workers on PostgreSQL, many hosts", () => {
    let server: TestPostgres;
    let fleets: Fleet[] = [];
    before(async () => {
      [server, fleets] = await Promise.all([startPostgres(), startHosts(HOSTS, { delayMs: 15 })]);
    });
    after(async () => {
      await Promise.all(fleets.map((f) => f.close()));
      await server?.stop();
    });

    /** The URL of host `hN.test` (N from 1), reached on the port its own server listens on. */
    const at = (n: number, path: string) => `http://h${n}.test:${fleets[n - 1]!.port}${path}`;
    const requests = () => fleets.flatMap((f) => f.requests);
    const worker = (url: string, run: number): { process: ChildProcess; exit: Promise<number | string> } => {
      const child = spawn(process.execPath, [SELF, "--worker", url, String(run)], {
        stdio: ["ignore", "ignore", "inherit"],
      });
      return {
        process: child,
        exit: new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? "?"))),
      };
    };

    test("three workers over ten hosts, one killed part-way: never more than --per-host in flight to one host, one attempt per target", async () => {
      const url = await server.database("hosts");
      const targets = Array.from({ length: 200 }, (_, i) => ({
        target: at((i % HOSTS) + 1, `/ok/hosts-${i}`),
        kind: "http" as const,
        name: null,
      }));
      const paths = new Set(targets.map((t) => new URL(t.target).pathname));
      const store = await PostgresStore.open(url);
      try {
        const run = await store.startRun("hosts", targets, { perHost: PER_HOST });
        const workers = [worker(url, run), worker(url, run), worker(url, run)];
        const victim = workers[0]!;
        await until(
          () => requests().filter((r) => paths.has(r.path)).length >= 60,
          "the workers to be under way",
          60_000,
        );
        victim.process.kill("SIGKILL");
        assert.equal(await victim.exit, "SIGKILL");
        for (const w of workers.slice(1)) assert.equal(await w.exit, 0);

        const latest = (await store.aggregate({ runIds: [run] })).perTarget;
        assert.equal(latest.length, targets.length);
        assert.deepEqual(
          latest
            .filter((t) => t.attempts !== 1 || t.latest.class !== "ok")
            .map((t) => `${t.target}: ${t.attempts} attempts, ${t.latest.class}`),
          [],
        );
      } finally {
        await store.close();
      }

      // each name reached its own host, and per host (the address the connection was accepted on)
      // the most requests held at once
      const mine = requests().filter((r) => paths.has(r.path));
      assert.deepEqual(
        [...new Set(mine.map((r) => `${r.host} on ${r.local}`))].sort(),
        fleets.map((f, i) => `h${i + 1}.test on ${f.address}`).sort(),
        "every name reached the fleet on its own address",
      );
      const peaks = peakPerAddress(mine);
      assert.deepEqual(
        [...peaks].filter(([, n]) => n > PER_HOST),
        [],
        `at most ${PER_HOST} requests at once to one host`,
      );
      // more places (three workers of eight) than the hosts allow (ten of two): the limit was met, not just never approached
      assert.ok([...peaks.values()].includes(PER_HOST), `the most at once on any host: ${Math.max(...peaks.values())}`);
    });

    test("a worker probes again a target whose timeout fell in a stall of its own, as a one-process census does", async () => {
      const url = await server.database("stall");
      const targets = Array.from({ length: 3 }, (_, i) => ({
        target: at(i + 1, `/ok/stall-${i}`),
        kind: "http" as const,
        name: null,
      }));
      const store = await PostgresStore.open(url);
      try {
        const run = await store.startRun("stall", targets, {});
        let stalled = false;
        let admission: AdmissionState | undefined;
        await runWorker(store, run, {
          ...workerOptions(),
          timeout: 2_000,
          onAdmission: (s) => void (admission = s),
          probe: async (t, o) => {
            if (stalled || !t.target.endsWith("stall-1")) return probeHttp(t.target, o);
            stalled = true;
            const probing = probeHttp(t.target, o);
            // this process's loop stops past the probe's deadline: the answers wait unread
            const end = performance.now() + 2_500;
            while (performance.now() < end) {
              // spinning on purpose
            }
            return probing;
          },
        });
        assert.ok(stalled, "the stall happened");
        const latest = (await store.aggregate({ runIds: [run] })).perTarget;
        assert.deepEqual(
          latest.map((t) => t.latest.class),
          ["ok", "ok", "ok"],
        );
        // (a probe of another host in flight during the stall may have met it too)
        assert.ok((admission?.reprobed ?? 0) >= 1, `re-probed ${admission?.reprobed}`);
      } finally {
        await store.close();
      }
    });

    test("a worker's sign-in walks keep --per-host 1 too: on each MCP host, and on the authorization server they share", async () => {
      const as = await signinHost("127.0.0.3", () => as.origin);
      const hosts = [await signinHost("127.0.0.2", () => as.origin), await signinHost("127.0.0.4", () => as.origin)];
      const url = await server.database("walks");
      const store = await PostgresStore.open(url);
      try {
        const targets = hosts.flatMap((h) =>
          [1, 2, 3].map((n) => ({ target: `${h.origin}/mcp/${n}`, kind: "http" as const, name: null })),
        );
        const run = await store.startRun("walks", targets, { perHost: 1 });
        await runWorker(store, run, { concurrency: 8, perHost: 1, timeout: 20_000, leaseMs: 2_000 });
        const latest = (await store.aggregate({ runIds: [run] })).perTarget;
        assert.deepEqual(
          latest.map((t) => [t.latest.class, (t.latest.auth as { verdict?: string } | null)?.verdict]),
          targets.map(() => ["auth_required", "ready"]),
        );
        assert.ok(as.hits() >= 6, `the authorization server was asked ${as.hits()} times`);
        assert.deepEqual(
          [...hosts, as].map((h) => h.peak()),
          [1, 1, 1],
        );
      } finally {
        await store.close();
        for (const h of [...hosts, as]) await h.close();
      }
    });

    test("a registry target whose name the lookup gives a loopback address is not called", async () => {
      const t = { target: at(1, "/ok/registry"), kind: "http" as const, name: null, untrusted: true };
      const attempt = await attemptAt(1, t, { lookup: loopbackLookup, timeout: 5_000 });
      assert.equal(attempt.detail, "private_address");
      assert.equal(fleets[0]!.hits.get("/ok/registry"), undefined, "never called");
      const allowed = await attemptAt(1, t, { lookup: loopbackLookup, allowPrivate: true, timeout: 5_000 });
      assert.equal(allowed.class, "ok");
    });
  });
}
