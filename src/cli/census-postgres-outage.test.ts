/**
 * `mcp-wire census` on a PostgreSQL that goes away part-way: shut down, the census says the
 * database became unreachable and how to resume (exit 1), and the resume, once the server is
 * back, finishes the run with one attempt per target; frozen (SIGSTOP), one Ctrl-C stops the
 * census within the time it promises, and the resume finishes the run once the server thaws.
 * A server of its own, since these tests stop it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { startFleet, until, type Fleet } from "../census/census-fleet.test.js";
import { startPostgres, type TestPostgres } from "../census/postgres/embedded.test.js";
import { mcpWire } from "./cli-child.test.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-census-outage-"));
let server: TestPostgres;
let fleet: Fleet;

before(async () => {
  [server, fleet] = await Promise.all([startPostgres(), startFleet({ delayMs: 20 })]);
});
after(async () => {
  await fleet?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function targetsFile(name: string, count: number): { file: string; urls: string[] } {
  const urls = Array.from({ length: count }, (_, i) => fleet.url("ok", `${name}-${i}`));
  const file = path.join(dir, `${name}.txt`);
  writeFileSync(file, `${urls.join("\n")}\n`);
  return { file, urls };
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
const attemptsPerTarget = (url: string) =>
  query<{ attempts: number }>(
    url,
    `SELECT count(a.id)::int AS attempts FROM mcp_wire.run_targets rt
     LEFT JOIN mcp_wire.attempts a ON a.run_id = rt.run_id AND a.target_id = rt.target_id WHERE rt.run_id = 1 GROUP BY rt.target_id`,
  );

async function someStored(url: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await stored(url)) < atLeast && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
}

// a short lease: the claims a census could not give back when the database went are free again soon
const census = (url: string, ...args: string[]) => mcpWire(["census", ...args, "--db", url, "--per-host", "2", "--concurrency", "2", "--timeout", "2000", "--lease", "2"]);

describe("census on a PostgreSQL that goes away", () => {
  test("shut down part-way: the database became unreachable, nothing finished lost, resume finishes the run (exit 1)", async () => {
    const url = await server.database("halted");
    const { file, urls } = targetsFile("halted", 60);
    const run = census(url, file);
    await until(() => /run 1/.test(run.stderr()), "the run to start");
    await someStored(url, 10);
    await server.halt();
    let code: number | string;
    try {
      code = await run.exit();
    } finally {
      await server.restart();
    }
    assert.equal(code, 1, run.stderr());
    const err = run.stderr();
    assert.doesNotMatch(err, /internal error|a bug in mcp-wire/);
    assert.match(err, /census: stopped: the database postgres:\/\/postgres:<redacted>@127\.0\.0\.1:\d+\/halted became unreachable: .+\. Nothing finished was lost/);
    assert.match(err, /When the database answers again, resume with: mcp-wire census --db 'postgres:\/\/postgres:<redacted>@127\.0\.0\.1:\d+\/halted' --resume\n$/);
    assert.ok(!err.includes(server.password));
    const kept = await stored(url);
    assert.ok(kept >= 10 && kept < urls.length, `${kept} attempts kept`);

    const resumed = census(url, "--resume");
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    assert.match(resumed.stderr(), new RegExp(`resuming run 1 over .*: ${urls.length - kept} of ${urls.length} targets left`));
    const per = await attemptsPerTarget(url);
    assert.equal(per.length, urls.length);
    assert.deepEqual(
      per.filter((r) => r.attempts !== 1),
      [],
    );
  });

  test("frozen part-way: one Ctrl-C stops the census with the resume command, and the resume finishes once the server thaws", async () => {
    const url = await server.database("frozen");
    const { file, urls } = targetsFile("frozen", 60);
    const run = census(url, file);
    await until(() => /run 1/.test(run.stderr()), "the run to start");
    await someStored(url, 10);
    server.freeze();
    let code: number | string;
    try {
      run.process.kill("SIGINT");
      code = await run.exit(60_000);
    } finally {
      server.thaw();
    }
    assert.equal(code, 130, run.stderr());
    assert.match(run.stderr(), /census: interrupted: run 1 has [\d,]+ targets? left; every finished attempt is saved in postgres:\/\/postgres:<redacted>@/);
    assert.match(run.stderr(), /Resume with: mcp-wire census --db '.*' --resume\n$/);

    const resumed = census(url, "--resume");
    assert.equal(await resumed.exit(), 0, resumed.stderr());
    const per = await attemptsPerTarget(url);
    assert.equal(per.length, urls.length);
    assert.deepEqual(
      per.filter((r) => r.attempts !== 1),
      [],
    );
  });
});
