/**
 * Census workers sharing one run on a real PostgreSQL: three processes, one killed with
 * SIGKILL part-way, over four hosts (fleet servers on 127.0.0.2 … 127.0.0.5); every worker dead
 * and a resume; and the same census in SQLite and PostgreSQL giving the same report.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { peakPerAddress, startHosts, until, type Fleet } from "../census/census-fleet.test.js";
import { startPostgres, type TestPostgres } from "../census/postgres/embedded.test.js";
import { mcpWire } from "./cli-child.test.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-pg-"));
const HOSTS = 4;
let server: TestPostgres;
let hosts: Fleet[] = [];
/** The host the tests that need only one use. */
let fleet: Fleet;

before(async () => {
  [server, hosts] = await Promise.all([startPostgres(), startHosts(HOSTS, { delayMs: 10 })]);
  fleet = hosts[0]!;
});
after(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function targetsFile(name: string, urls: string[]): string {
  const file = path.join(dir, `${name}.txt`);
  writeFileSync(file, `${urls.join("\n")}\n`);
  return file;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

const stored = async (url: string) => (await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM mcp_wire.attempts").catch(() => [{ n: 0 }]))[0]!.n;

/** Per target of run 1: its attempts and how many times it was claimed. */
async function perTarget(url: string) {
  return query<{ target: string; attempts: number; claims: number }>(
    url,
    `SELECT t.target, count(a.id)::int AS attempts, rt.claims FROM mcp_wire.run_targets rt JOIN mcp_wire.targets t ON t.id = rt.target_id
     LEFT JOIN mcp_wire.attempts a ON a.run_id = rt.run_id AND a.target_id = rt.target_id WHERE rt.run_id = 1 GROUP BY t.target, rt.claims`,
  );
}

const PER_HOST = "3";
const worker = (url: string, ...args: string[]) => mcpWire(["census", ...args, "--db", url, "--per-host", PER_HOST, "--concurrency", "6", "--lease", "2", "--timeout", "5000"]);

describe("census workers on PostgreSQL", () => {
  test("three workers over four hosts, one killed part-way: one attempt per target, the per-host limit held on each host, only the dead worker's claims probed twice", async () => {
    const url = await server.database("three");
    const urls = Array.from({ length: 200 }, (_, i) => hosts[i % HOSTS]!.url("ok", `three-${i}`));
    const paths = new Set(urls.map((u) => new URL(u).pathname));
    const hostOf = (u: string) => hosts.find((h) => h.address === new URL(u).hostname)!;
    const hitsOf = (u: string) => hostOf(u).hits.get(new URL(u).pathname) ?? 0;
    const hitsBefore = new Map(urls.map((u) => [u, hitsOf(u)]));
    const first = worker(url, targetsFile("three", urls));
    await until(() => /run 1/.test(first.stderr()), "the run to start");
    const joiners = [worker(url, "--join"), worker(url, "--join", "1")];
    const victim = joiners[0]!;
    // kill it once the run is under way and it has claims of its own
    await until(() => /joining run 1/.test(victim.stderr()), "the first joiner to start");
    let n = 0;
    const deadline = Date.now() + 30_000;
    while ((n = await stored(url)) < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
    victim.process.kill("SIGKILL");
    assert.equal(await victim.exit(), "SIGKILL");
    for (const w of [first, joiners[1]!]) assert.equal(await w.exit(), 0, w.stderr());
    assert.ok(n < urls.length, "the kill came part-way");

    const rows = await perTarget(url);
    assert.equal(rows.length, urls.length);
    assert.deepEqual(
      rows.filter((r) => r.attempts !== 1),
      [],
      "exactly one finished attempt per target",
    );
    // per host, counted on the address each connection was accepted on
    const peaks = peakPerAddress(hosts.flatMap((h) => h.requests).filter((r) => paths.has(r.path)));
    assert.deepEqual(
      hosts.map((h) => peaks.get(h.address)! <= Number(PER_HOST)),
      hosts.map(() => true),
      `requests in flight at once per host: ${JSON.stringify([...peaks])}`,
    );
    // more places (three workers of six) than the hosts allow (four of three): the limit was met, not just never approached
    assert.ok([...peaks.values()].includes(Number(PER_HOST)), `requests in flight at once per host: ${JSON.stringify([...peaks])}`);
    // a target probed once costs the same number of requests each time; more means probed again
    const hits = urls.map((u) => hitsOf(u) - hitsBefore.get(u)!);
    const once = Math.min(...hits);
    const again = urls.filter((_, i) => hits[i]! > once);
    const taken = new Set(rows.filter((r) => r.claims > 1).map((r) => r.target));
    for (const h of hosts) {
      const here = [...taken].filter((t) => hostOf(t) === h).length;
      assert.ok(here <= Number(PER_HOST), `${here} claims on ${h.address} taken over; the dead worker could hold at most ${PER_HOST} there`);
    }
    for (const u of again) assert.ok(taken.has(u), `${u} was probed twice without a claim taken over`);
    assert.equal((await query<{ finished: boolean }>(url, "SELECT finished_at IS NOT NULL AS finished FROM mcp_wire.runs WHERE id = 1"))[0]?.finished, true);

    const report = mcpWire(["report", "--db", url, "--json"]);
    assert.equal(await report.exit(), 0, report.stderr());
    const json = JSON.parse(report.stdout()) as { runs: { attempts: number }[]; classes: Record<string, number> };
    assert.equal(json.runs[0]?.attempts, urls.length);
    assert.deepEqual(json.classes, { ok: urls.length });
  });

  test("--resume after every worker died finishes the run, once each", async () => {
    const url = await server.database("resume");
    const urls = Array.from({ length: 60 }, (_, i) => fleet.url("ok", `resume-${i}`));
    const first = worker(url, targetsFile("resume", urls));
    await until(() => /run 1/.test(first.stderr()), "the run to start");
    const second = worker(url, "--join");
    while ((await stored(url)) < 10) await new Promise((r) => setTimeout(r, 20));
    for (const w of [first, second]) w.process.kill("SIGKILL");
    for (const w of [first, second]) assert.equal(await w.exit(), "SIGKILL");
    const left = urls.length - (await stored(url));
    assert.ok(left > 0);

    const resumed = worker(url, "--resume");
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    assert.match(resumed.stderr(), new RegExp(`resuming run 1 over .*: ${left} of ${urls.length} targets left`));
    assert.match(resumed.stdout(), /^Run 1: 60 targets \(\d+ by this process\) in .*ok 60\. Stored in postgres:\/\/postgres:<redacted>@127\.0\.0\.1:/m);
    assert.ok(!resumed.stdout().includes(server.password) && !resumed.stderr().includes(server.password));
    assert.deepEqual(
      (await perTarget(url)).filter((r) => r.attempts !== 1),
      [],
    );
    const nothing = worker(url, "--resume");
    assert.equal(await nothing.exit(), 2);
    assert.match(nothing.stderr(), /nothing to resume: every run in postgres:\/\/postgres:<redacted>@.* is finished/);
  });

  test("the same census in SQLite and PostgreSQL gives the same report", async () => {
    const urls = [
      ...["ok", "page", "401", "array", "echo-auth"].flatMap((b) => [fleet.url(b as "ok", `same-${b}-1`), fleet.url(b as "ok", `same-${b}-2`)]),
      "ftp://files.example/mcp",
    ];
    const file = targetsFile("same", urls);
    const url = await server.database("same");
    const sqlite = path.join(dir, "same.db");
    for (const db of [sqlite, url]) {
      const run = mcpWire(["census", file, "--db", db, "--per-host", "4", "--timeout", "5000"]);
      assert.equal(await run.exit(), 0, run.stderr());
    }
    const reports: unknown[] = [];
    for (const db of [sqlite, url]) {
      const r = mcpWire(["report", "--db", db, "--json"]);
      assert.equal(await r.exit(), 0, r.stderr());
      reports.push(timeless(JSON.parse(r.stdout())));
    }
    assert.deepEqual(reports[1], reports[0]);
  });

  test("--join and --lease need PostgreSQL; --join of a run that is not there says so", async () => {
    const db = path.join(dir, "local.db");
    const join = mcpWire(["census", "--join", "--db", db]);
    assert.equal(await join.exit(), 2);
    assert.match(join.stderr(), /--join is for a run shared by several census processes: give --db postgres:\/\//);
    const url = await server.database("nojoin");
    const none = mcpWire(["census", "--join", "--db", url]);
    assert.equal(await none.exit(), 2);
    assert.match(none.stderr(), /nothing to join/);
    const lease = mcpWire(["census", "--join", "--db", url, "--lease", "0"]);
    assert.equal(await lease.exit(), 2);
    assert.match(lease.stderr(), /--lease takes seconds from 1 to 86400/);
  });
});

/** A report with its clock readings taken out: times, durations (a sign-in step's `ms` too), and the latency they make. */
function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless);
  if (typeof value === "string") return value.replace(/\d{1,2} \w+ \d{4} \d{2}:\d{2} UTC/g, "<time>");
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !["startedAt", "finishedAt", "firstAt", "lastAt", "at", "elapsedMs", "ms", "latency"].includes(k))
      .map(([k, v]) => [k, timeless(v)]),
  );
}
