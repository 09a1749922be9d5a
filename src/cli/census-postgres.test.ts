/**
 * Census workers sharing one run on a real PostgreSQL: three processes, one killed with
 * SIGKILL part-way, over four hosts (fleet servers on 127.0.0.2 … 127.0.0.5); every worker dead
 * and a resume; and the same census in SQLite and PostgreSQL giving the same report. The
 * password of the database, never printed, and taken from the environment when the URL has
 * none. On a PostgreSQL of their own, since they stop it, and side by side with the rest (they
 * mostly wait for deadlines): a PostgreSQL that goes away part-way, shut down (the census says so
 * and how to resume, exit 1) or frozen (SIGSTOP: one Ctrl-C stops the census within the time it
 * promises), and the resume that finishes the run once the server is back.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { peakPerAddress, startHosts, until, type Fleet } from "../testkit/census-fleet.js";
import { startPostgres, type TestPostgres } from "../testkit/postgres.js";
import { mcpWire } from "../testkit/cli-child.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-pg-"));
const HOSTS = 4;
let server: TestPostgres;
/** The server the outage tests stop and freeze. */
let outage: TestPostgres;
let hosts: Fleet[] = [];
/** The host the tests that need only one use. */
let fleet: Fleet;

before(async () => {
  [server, outage, hosts] = await Promise.all([startPostgres(), startPostgres(), startHosts(HOSTS, { delayMs: 10 })]);
  fleet = hosts[0]!;
});
after(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await Promise.all([server?.stop(), outage?.stop()]);
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

const stored = async (url: string) =>
  (await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM mcp_wire.attempts").catch(() => [{ n: 0 }]))[0]!.n;

/** Per target of run 1: its attempts and how many times it was claimed. */
async function perTarget(url: string) {
  return query<{ target: string; attempts: number; claims: number }>(
    url,
    `SELECT t.target, count(a.id)::int AS attempts, rt.claims FROM mcp_wire.run_targets rt JOIN mcp_wire.targets t ON t.id = rt.target_id
     LEFT JOIN mcp_wire.attempts a ON a.run_id = rt.run_id AND a.target_id = rt.target_id WHERE rt.run_id = 1 GROUP BY t.target, rt.claims`,
  );
}

const PER_HOST = "3";
const worker = (url: string, ...args: string[]) =>
  mcpWire([
    "census",
    ...args,
    "--db",
    url,
    "--per-host",
    PER_HOST,
    "--concurrency",
    "6",
    "--lease",
    "2",
    "--timeout",
    "5000",
  ]);

describe("census on PostgreSQL", { concurrency: true }, () => {
  describe("census workers on PostgreSQL", { concurrency: 1 }, () => {
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
      let n: number;
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
      assert.ok(
        [...peaks.values()].includes(Number(PER_HOST)),
        `requests in flight at once per host: ${JSON.stringify([...peaks])}`,
      );
      // a target probed once costs the same number of requests each time; more means probed again
      const hits = urls.map((u) => hitsOf(u) - hitsBefore.get(u)!);
      const once = Math.min(...hits);
      const again = urls.filter((_, i) => hits[i]! > once);
      const taken = new Set(rows.filter((r) => r.claims > 1).map((r) => r.target));
      for (const h of hosts) {
        const here = [...taken].filter((t) => hostOf(t) === h).length;
        assert.ok(
          here <= Number(PER_HOST),
          `${here} claims on ${h.address} taken over; the dead worker could hold at most ${PER_HOST} there`,
        );
      }
      for (const u of again) assert.ok(taken.has(u), `${u} was probed twice without a claim taken over`);
      assert.equal(
        (
          await query<{ finished: boolean }>(
            url,
            "SELECT finished_at IS NOT NULL AS finished FROM mcp_wire.runs WHERE id = 1",
          )
        )[0]?.finished,
        true,
      );

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
      assert.match(
        resumed.stdout(),
        /^Run 1: 60 targets \(\d+ by this process\) in .*ok 60\. Stored in postgres:\/\/postgres:<redacted>@127\.0\.0\.1:/m,
      );
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
        ...["ok", "page", "401", "array", "echo-auth"].flatMap((b) => [
          fleet.url(b as "ok", `same-${b}-1`),
          fleet.url(b as "ok", `same-${b}-2`),
        ]),
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

  describe("the password of a PostgreSQL census", { concurrency: 1 }, () => {
    /** A role of its own on a database of its own, with this password; the URL without a password. */
    async function roleWith(name: string, password: string): Promise<string> {
      const admin = await server.database(name);
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`CREATE ROLE ${name} LOGIN PASSWORD ${c.escapeLiteral(password)}`);
        await c.query(`GRANT CREATE ON DATABASE ${name} TO ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://${name}@127.0.0.1:${server.port}/${name}`;
    }
    const withPassword = (url: string, password: string) => url.replace("@", `:${password}@`);
    // a file that is not there: the machine's own ~/.pgpass plays no part
    const noFile = { PGPASSFILE: path.join(dir, "no-pgpass") };

    test("a password with characters pg takes raw (@, space, <>\") is never printed: not in 'Stored in', not in a connection error", async () => {
      const password = `p@ss w<>"rd-${process.pid}`;
      const url = await roleWith("oddpw", password);
      const file = targetsFile("oddpw", [fleet.url("ok", "oddpw-1")]);
      const run = mcpWire(["census", file, "--db", withPassword(url, password), "--timeout", "5000"], noFile);
      assert.equal(await run.exit(), 0, run.stderr());
      assert.match(
        run.stdout(),
        new RegExp(
          `Stored in postgres://oddpw:<redacted>@127\\.0\\.0\\.1:${server.port}/oddpw; mcp-wire report --db 'postgres://oddpw:<redacted>@`,
        ),
      );
      const report = mcpWire(["report", "--db", withPassword(url, password)], noFile);
      assert.equal(await report.exit(), 0, report.stderr());

      const wrong = `wr@ng pass<>"-${process.pid}`;
      const refused = mcpWire(["census", file, "--db", withPassword(url, wrong)], noFile);
      assert.equal(await refused.exit(), 2);
      assert.match(
        refused.stderr(),
        /^mcp-wire census: cannot open postgres:\/\/oddpw:<redacted>@127\.0\.0\.1:\d+\/oddpw: password authentication failed for user "oddpw"\n$/,
      );
      const closed = mcpWire(
        ["census", file, "--db", withPassword(url, wrong).replace(`:${server.port}/`, ":1/")],
        noFile,
      );
      assert.equal(await closed.exit(), 2);
      assert.match(
        closed.stderr(),
        /^mcp-wire census: cannot open postgres:\/\/oddpw:<redacted>@127\.0\.0\.1:1\/oddpw: .*ECONNREFUSED/,
      );
      for (const child of [run, report, refused, closed]) {
        const text = child.stdout() + child.stderr();
        for (const piece of [password, wrong, "ss w", "ng pass", '<>"'])
          assert.ok(!text.includes(piece), `${JSON.stringify(piece)} printed:\n${text}`);
      }
    });

    test("a URL without a password takes it from PGPASSWORD, or from a password file (PGPASSFILE, ~/.pgpass), as psql does", async () => {
      const password = `from-env-${process.pid}`;
      const url = await roleWith("envpw", password);
      const file = targetsFile("envpw", [fleet.url("ok", "envpw-1")]);

      const none = mcpWire(["census", file, "--db", url], noFile);
      assert.equal(await none.exit(), 2, none.stderr());
      assert.match(none.stderr(), /empty password|password authentication failed/);
      assert.match(none.stderr(), /cannot open postgres:\/\/envpw@127\.0\.0\.1:\d+\/envpw: /);

      const fromEnv = mcpWire(["census", file, "--db", url], { ...noFile, PGPASSWORD: password });
      assert.equal(await fromEnv.exit(), 0, fromEnv.stderr());

      const passfile = path.join(dir, "pgpass");
      writeFileSync(
        passfile,
        `# host:port:database:user:password\n127.0.0.1:${server.port}:envpw:envpw:${password}\n`,
        {
          mode: 0o600,
        },
      );
      const fromFile = mcpWire(["census", file, "--db", url], { PGPASSFILE: passfile });
      assert.equal(await fromFile.exit(), 0, fromFile.stderr());
      assert.equal(fromFile.stderr().includes("Warning"), false, fromFile.stderr());
      const report = mcpWire(["report", "--db", url, "--json"], { PGPASSFILE: passfile });
      assert.equal(await report.exit(), 0, report.stderr());
      // the report reads the newest run: the one made with the password file
      assert.deepEqual((JSON.parse(report.stdout()) as { selection: { runs: number[] } }).selection.runs, [2]);
      for (const child of [none, fromEnv, fromFile, report])
        assert.ok(!(child.stdout() + child.stderr()).includes(password));
    });
  });

  // a short lease: the claims a census could not give back when the database went are free again soon
  const outageCensus = (url: string, ...args: string[]) =>
    mcpWire([
      "census",
      ...args,
      "--db",
      url,
      "--per-host",
      "2",
      "--concurrency",
      "2",
      "--timeout",
      "2000",
      "--lease",
      "2",
    ]);

  /** A census over 100 targets in a database of its own, once it has stored ten of them. */
  async function partWay(name: string) {
    const url = await outage.database(name);
    const urls = Array.from({ length: 100 }, (_, i) => fleet.url("ok", `${name}-${i}`));
    const run = outageCensus(url, targetsFile(name, urls));
    await until(() => /run 1/.test(run.stderr()), "the run to start");
    const deadline = Date.now() + 30_000;
    while ((await stored(url)) < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
    return { url, urls, run };
  }

  /** `--resume` finishes the run: every target with exactly one attempt. */
  async function resumeFinishes(url: string, urls: string[]): Promise<string> {
    const resumed = outageCensus(url, "--resume");
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    const per = await perTarget(url);
    assert.equal(per.length, urls.length);
    assert.deepEqual(
      per.filter((r) => r.attempts !== 1),
      [],
    );
    return resumed.stderr();
  }

  describe("census on a PostgreSQL that goes away", { concurrency: 1 }, () => {
    test("shut down part-way: the database became unreachable, nothing finished lost, resume finishes the run (exit 1)", async () => {
      const { url, urls, run } = await partWay("halted");
      await outage.halt();
      let code: number | string;
      try {
        code = await run.exit();
      } finally {
        await outage.restart();
      }
      assert.equal(code, 1, run.stderr());
      const err = run.stderr();
      assert.doesNotMatch(err, /internal error|a bug in mcp-wire/);
      assert.match(
        err,
        /census: stopped: the database postgres:\/\/postgres:<redacted>@127\.0\.0\.1:\d+\/halted became unreachable: .+\. Nothing finished was lost/,
      );
      assert.match(
        err,
        /When the database answers again, resume with: mcp-wire census --db 'postgres:\/\/postgres:<redacted>@127\.0\.0\.1:\d+\/halted' --resume\n$/,
      );
      assert.ok(!err.includes(outage.password));
      const kept = await stored(url);
      assert.ok(kept >= 10 && kept < urls.length, `${kept} attempts kept`);

      assert.match(
        await resumeFinishes(url, urls),
        new RegExp(`resuming run 1 over .*: ${urls.length - kept} of ${urls.length} targets left`),
      );
    });

    test("frozen part-way: one Ctrl-C stops the census with the resume command, and the resume finishes once the server thaws", async () => {
      const { url, urls, run } = await partWay("frozen");
      outage.freeze();
      let code: number | string;
      try {
        run.process.kill("SIGINT");
        code = await run.exit(60_000);
      } finally {
        outage.thaw();
      }
      assert.equal(code, 130, run.stderr());
      assert.match(
        run.stderr(),
        /census: interrupted: run 1 has [\d,]+ targets? left; every finished attempt is saved in postgres:\/\/postgres:<redacted>@/,
      );
      assert.match(run.stderr(), /Resume with: mcp-wire census --db '.*' --resume\n$/);

      await resumeFinishes(url, urls);
    });
  });
});

/** A report with its clock readings taken out: times, durations (a sign-in step's `ms` too), and the latency they make. */
function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless);
  if (typeof value === "string") return value.replace(/\d{1,2} \w+ \d{4} \d{2}:\d{2} UTC/g, "<time>");
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([k]) => !["startedAt", "finishedAt", "firstAt", "lastAt", "at", "elapsedMs", "ms", "latency"].includes(k),
      )
      .map(([k, v]) => [k, timeless(v)]),
  );
}
