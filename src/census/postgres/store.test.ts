import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { MemoryStore } from "../../testkit/memory-store.js";
import { SqliteStore } from "../sqlite-store.js";
import { A, TARGETS, attempt, fill, storeContract } from "../../testkit/store-contract.js";
import { StoreRefused, collect, type Aggregates, type Store } from "../store.js";
import { startPostgres, type TestPostgres } from "../../testkit/postgres.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION, pgMigrate } from "./schema.js";
import { PostgresStore } from "./store.js";

let server: TestPostgres;
let databases = 0;
const urls = new WeakMap<Store, string>();
async function fresh(): Promise<string> {
  return server.database(`t${++databases}`);
}
async function openNew(): Promise<Store> {
  const url = await fresh();
  const store = await PostgresStore.open(url);
  urls.set(store, url);
  return store;
}

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

storeContract("PostgreSQL", openNew, async (store) => PostgresStore.open(urls.get(store)!));

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

describe("PostgresStore", () => {
  test("the same attempts give SQLite's aggregates", async () => {
    const pgStore = await fill(await openNew());
    const sqlite = await fill(new SqliteStore(":memory:"));
    // the runs were started at different moments; everything else is the attempts'
    const timeless = (agg: Aggregates) => ({
      ...agg,
      runs: agg.runs.map((r) => ({ ...r, startedAt: "", finishedAt: r.finishedAt === null ? null : "" })),
    });
    for (const q of [{}, { runIds: [2] }, { target: A }, { since: "2026-08-01" }])
      assert.deepEqual(timeless(await pgStore.aggregate(q)), timeless(await sqlite.aggregate(q)));
    await pgStore.close();
    await sqlite.close();
  });

  test("attempts stream page by page, in time order, as many as there are", async () => {
    const store = await openNew();
    const memory = new MemoryStore();
    const targets = Array.from({ length: 2500 }, (_, i) => ({
      target: `https://t${i}.example/mcp`,
      kind: "http" as const,
      name: null,
    }));
    const run = await store.startRun("many.txt", targets, {});
    memory.startRun("many.txt", targets, {});
    const all = targets.map((t, i) =>
      attempt(run, t.target, new Date(Date.UTC(2026, 7, 1) + (i % 7) * 1000).toISOString(), { elapsedMs: i }),
    );
    await (store as PostgresStore).share(run, { leaseMs: 30_000, label: "test" }).then((w) => w.finish(all));
    for (const a of all) memory.recordAttempt(a);
    assert.deepEqual(
      (await collect(store.attempts())).map((a) => a.target),
      [...memory.attempts()].map((a) => a.target),
    );
    assert.deepEqual(await store.pendingTargets(run), []);
    await store.close();
  });

  test("a version-1 schema is migrated: history kept, targets marked done, hosts filled in", async () => {
    const url = await fresh();
    const c = new pg.Client({ connectionString: url, options: "-c search_path=mcp_wire" });
    await c.connect();
    assert.equal(await pgMigrate(c, "test", 1), 1);
    await c.query(`
      INSERT INTO runs (id, started_at, source, targets) VALUES (1, '2026-07-01T00:00:00Z', 'old.txt', 2);
      INSERT INTO targets (id, target, kind) VALUES (1, 'https://User@A.Example:8443/mcp', 'http'), (2, 'https://b.example/mcp', 'http');
      INSERT INTO run_targets (run_id, target_id, position) VALUES (1, 1, 0), (1, 2, 1);
      INSERT INTO attempts (run_id, target_id, at, class, detail, defects, elapsed_ms, latency_bucket) VALUES (1, 1, '2026-07-01T00:00:10Z', 'timeout', 'initialize', '[]', 10000, 7);
      SELECT setval('runs_id_seq', 1); SELECT setval('targets_id_seq', 2);
    `);
    await c.end();

    const store = await PostgresStore.open(url);
    assert.deepEqual(
      (await sql(url, "SELECT version FROM mcp_wire.schema_version ORDER BY version")).rows.map((r) => r.version),
      PG_MIGRATIONS.map((m) => m.version),
    );
    assert.deepEqual((await sql(url, "SELECT host, done FROM mcp_wire.run_targets ORDER BY position")).rows, [
      { host: "a.example", done: true },
      { host: "b.example", done: false },
    ]);
    assert.deepEqual(
      (await store.pendingTargets(1)).map((t) => t.target),
      ["https://b.example/mcp"],
    );
    assert.equal((await store.unfinishedRun())?.id, 1);
    const w = await store.share(1, { leaseMs: 30_000, label: "test" });
    assert.deepEqual(
      (await w.claim(5, 1)).map((t) => t.target),
      ["https://b.example/mcp"],
    );
    assert.equal((await store.aggregate()).attempts, 1);
    await store.close();
  });

  test("a database whose mcp_wire schema holds other tables is refused and left as it was; other schemas are not ours to judge", async () => {
    const url = await fresh();
    await sql(url, "CREATE TABLE public.runs (x int); INSERT INTO public.runs VALUES (7)");
    await (await PostgresStore.open(url)).close();
    assert.deepEqual((await sql(url, "SELECT x FROM public.runs")).rows, [{ x: 7 }]);

    const foreign = await fresh();
    await sql(
      foreign,
      "CREATE SCHEMA mcp_wire; CREATE TABLE mcp_wire.runs (x int); INSERT INTO mcp_wire.runs VALUES (1)",
    );
    const tables = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'mcp_wire' ORDER BY 1";
    for (const readonly of [false, true]) {
      await assert.rejects(
        PostgresStore.open(foreign, { readonly }),
        (e: Error) =>
          e instanceof StoreRefused && /mcp_wire holds tables mcp-wire did not make \(runs\)/.test(e.message),
      );
    }
    assert.deepEqual((await sql(foreign, tables)).rows, [{ table_name: "runs" }]);

    const newer = await fresh();
    await (await PostgresStore.open(newer)).close();
    await sql(newer, `INSERT INTO mcp_wire.schema_version VALUES (${PG_SCHEMA_VERSION + 1}, now(), 'the future')`);
    await assert.rejects(PostgresStore.open(newer), /newer mcp-wire/);
  });

  /** Every object in the mcp_wire schema, as the catalogs list them whoever owns them. */
  const objectsOf = async (url: string) =>
    (
      await sql(
        url,
        `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'mcp_wire'
         UNION ALL SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'mcp_wire' ORDER BY 1`,
      )
    ).rows.map((r: { name: string }) => r.name);

  test("a table in mcp_wire that the census's own role cannot see is still another program's: refused, nothing added beside it", async () => {
    const url = await fresh();
    const role = `census_${databases}`;
    // the census connects as a role of its own, which may create in the schema but not read the payroll
    await sql(
      url,
      `CREATE ROLE ${role} LOGIN PASSWORD 'census-pw';
       GRANT CREATE ON DATABASE ${new URL(url).pathname.slice(1)} TO ${role};
       CREATE SCHEMA mcp_wire; GRANT USAGE, CREATE ON SCHEMA mcp_wire TO ${role};
       CREATE TABLE mcp_wire.payroll (who text, pay integer); INSERT INTO mcp_wire.payroll VALUES ('ann', 100);
       REVOKE ALL ON mcp_wire.payroll FROM PUBLIC`,
    );
    const asCensus = Object.assign(new URL(url), { username: role, password: "census-pw" }).href;
    const hidden = await sql(
      asCensus,
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'mcp_wire'",
    );
    assert.equal(hidden.rows[0].n, 0, "the census's role does not see the payroll in information_schema");
    for (const readonly of [false, true]) {
      await assert.rejects(
        PostgresStore.open(asCensus, { readonly }),
        (e: Error) =>
          e instanceof StoreRefused && /mcp_wire holds tables mcp-wire did not make \(payroll\)/.test(e.message),
      );
    }
    assert.deepEqual(await objectsOf(url), ["payroll"]);
    assert.deepEqual((await sql(url, "SELECT who, pay FROM mcp_wire.payroll")).rows, [{ who: "ann", pay: 100 }]);
  });

  test("a schema holding only a function with the name of ours is refused before anything is created", async () => {
    const url = await fresh();
    await sql(
      url,
      `CREATE SCHEMA mcp_wire;
       CREATE FUNCTION mcp_wire.claim(bigint, bigint, integer, integer) RETURNS integer LANGUAGE sql AS 'SELECT 1'`,
    );
    await assert.rejects(
      PostgresStore.open(url),
      (e: Error) =>
        e instanceof StoreRefused &&
        /mcp_wire holds objects mcp-wire did not make \(function claim\(bigint,bigint,integer,integer\)\)/.test(
          e.message,
        ),
    );
    assert.deepEqual(await objectsOf(url), ["claim"]);
  });

  test("a report reads without writing, and refuses a database with no census", async () => {
    const empty = await fresh();
    await assert.rejects(PostgresStore.open(empty, { readonly: true }), /holds no mcp-wire census/);
    assert.equal(
      (await sql(empty, "SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'mcp_wire'"))
        .rows[0].n,
      0,
    );
    const url = await fresh();
    await (await fill(await PostgresStore.open(url))).close();
    const reader = await PostgresStore.open(url, { readonly: true });
    assert.equal((await reader.aggregate()).attempts, 6);
    await assert.rejects(reader.startRun("x", TARGETS, {}), /read-only transaction/);
    await reader.close();
  });

  test("a wrong password is a clear error that does not show the password", async () => {
    const url = (await fresh()).replace(server.password, "wrong-secret-77");
    await assert.rejects(
      PostgresStore.open(url),
      (e: Error) => /password authentication failed/.test(e.message) && !e.message.includes("wrong-secret-77"),
    );
  });

  describe("the shared run", () => {
    const target = (i: number, host: string) => ({
      target: `http://${host}/mcp/${i}`,
      kind: "http" as const,
      name: null,
    });

    test("claims never put more than per-host in flight to a host across workers, and a dead worker's claims come back when its lease runs out", async () => {
      const store = (await openNew()) as PostgresStore;
      const targets = [
        ...Array.from({ length: 6 }, (_, i) => target(i, "one.example")),
        ...Array.from({ length: 3 }, (_, i) => target(i, "two.example")),
      ];
      const run = await store.startRun("t", targets, {});
      const a = await store.share(run, { leaseMs: 30_000, label: "a" });
      const b = await store.share(run, { leaseMs: 400, label: "b" });
      const byA = await a.claim(10, 2);
      assert.deepEqual(
        byA.map((t) => t.target),
        [targets[0]!.target, targets[1]!.target, targets[6]!.target, targets[7]!.target],
      );
      // every slot of both hosts is taken: nothing for b
      assert.deepEqual(await b.claim(10, 2), []);
      await a.finish([attempt(run, targets[0]!.target, "2026-08-01T00:00:00.000Z")]);
      const byB = await b.claim(10, 2);
      assert.deepEqual(
        byB.map((t) => t.target),
        [targets[2]!.target],
      );
      // b dies holding targets[2]; once its lease is over, a takes it back
      assert.deepEqual(await a.claim(10, 2), []);
      await new Promise((r) => setTimeout(r, 600));
      assert.deepEqual(
        (await a.claim(10, 2)).map((t) => t.target),
        [targets[2]!.target],
      );
      // b comes back late with its attempt: the target has one, from whoever finished first
      assert.equal(
        (await a.finish([attempt(run, targets[2]!.target, "2026-08-01T00:00:01.000Z", { detail: "by a" })])).length,
        1,
      );
      assert.equal(
        (await b.finish([attempt(run, targets[2]!.target, "2026-08-01T00:00:02.000Z", { detail: "by b" })])).length,
        0,
      );
      assert.deepEqual(
        (await collect(store.attempts({ target: targets[2]!.target }))).map((x) => x.detail),
        ["by a"],
      );
      const p = await a.progress();
      assert.deepEqual([p.done, p.total, [...p.classes]], [2, 9, [["ok", 2]]]);
      await a.leave();
      await store.close();
    });

    test("a host in its gap is not claimed until the gap is over", async () => {
      const store = (await openNew()) as PostgresStore;
      const targets = Array.from({ length: 2 }, (_, i) => target(i, "gap.example"));
      const run = await store.startRun("t", targets, {});
      const w = await store.share(run, { leaseMs: 30_000, gapMs: 500, label: "w" });
      const [first] = await w.claim(1, 5);
      assert.equal(first?.target, targets[0]!.target);
      assert.equal((await w.claim(1, 5)).length, 1, "no gap before the first answer");
      await w.finish([attempt(run, targets[0]!.target, "2026-08-01T00:00:00.000Z")]);
      await w.leave();
      const again = await store.share(run, { leaseMs: 30_000, gapMs: 500, label: "again" });
      assert.deepEqual(await again.claim(5, 5), [], "the host is in its gap");
      await new Promise((r) => setTimeout(r, 700));
      assert.equal((await again.claim(5, 5)).length, 1);
      await store.close();
    });
  });
});
