/**
 * A command stopped by its PID (what a CI job's timeout does) ends what it started: the stdio
 * server it spawned, and the demo's database, closed so that no -wal or -shm is left beside it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { mcpWire, type Child } from "../testkit/cli-child.js";

const HANG = [fileURLToPath(new URL("../fleet/stdio-server.js", import.meta.url)), "hang"];
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-signals-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The state letter of a process from /proc (Z: a zombie, dead but not reaped), or undefined when it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  const s = stateOf(pid);
  return s !== undefined && s !== "Z";
};

/** The processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, "utf8")
        .replace(/^.*\) /s, "")
        .split(" ");
      if (Number(fields[1]) === pid) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Waits until `check` holds, polling; fails with `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms`);
    await sleep(50);
  }
}

/** The node processes `cli` started (its stdio servers), once there are `n`. */
async function spawned(cli: Child, n = 1): Promise<number[]> {
  let kids: number[] = [];
  await until(
    () => (kids = childrenOf(cli.process.pid!)).length >= n,
    `mcp-wire ${n} child process${n === 1 ? "" : "es"} started`,
  );
  return kids;
}

describe("stopped by its PID, a command ends the servers it started", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`probe --stdio, ${signal}: the server that ignores its input closing is gone, and the status is 128 + the signal`, async () => {
      const cli = mcpWire(["probe", "--timeout", "60000", "--stdio", "--", process.execPath, ...HANG]);
      const [server] = await spawned(cli);
      cli.process.kill(signal);
      const status = await cli.exit();
      assert.equal(status, signal === "SIGTERM" ? 143 : 130, cli.stderr());
      await until(() => !alive(server!), `the stdio server ${server} ended`);
    });
  }

  test("probe --stdio: a server that ignores SIGTERM too is killed", async () => {
    const ready = join(dir, "stubborn-ready");
    const stubborn = `process.on("SIGTERM", () => undefined); require("node:fs").writeFileSync(${JSON.stringify(ready)}, ""); process.stdin.resume(); setInterval(() => undefined, 1 << 30);`;
    const cli = mcpWire(["probe", "--timeout", "60000", "--stdio", "--", process.execPath, "-e", stubborn]);
    const [server] = await spawned(cli);
    // SIGTERM must find the handler that ignores it in place
    await until(() => existsSync(ready), "the server ignoring SIGTERM");
    cli.process.kill("SIGTERM");
    assert.equal(await cli.exit(), 143, cli.stderr());
    await until(() => !alive(server!), `the stdio server ${server} ended`);
  });

  test("check --stdio, SIGTERM: the server is gone, and the status is 143 as for every command", async () => {
    const cli = mcpWire(["check", "--timeout", "60000", "--stdio", "--", process.execPath, ...HANG]);
    const [server] = await spawned(cli);
    cli.process.kill("SIGTERM");
    assert.equal(await cli.exit(), 143, cli.stderr());
    await until(() => !alive(server!), `the checked server ${server} ended`);
  });

  test("tap --, SIGTERM: the server is gone", async () => {
    const cli = mcpWire(["tap", "--", process.execPath, ...HANG]);
    const [server] = await spawned(cli);
    cli.process.kill("SIGTERM");
    await cli.exit();
    await until(() => !alive(server!), `the tapped server ${server} ended`);
  });

  test("demo, SIGTERM mid-census: the fleet's stdio servers are gone and the database is closed (no -wal, no -shm)", async () => {
    const db = join(dir, "demo.db");
    const cli = mcpWire(["demo", "--db", db, "--html", join(dir, "demo.html")]);
    // the census is under way once a stdio server of the fleet runs
    const servers = await spawned(cli);
    cli.process.kill("SIGTERM");
    assert.equal(await cli.exit(), 143, cli.stderr());
    for (const pid of servers) await until(() => !alive(pid), `the fleet's stdio server ${pid} ended`);
    assert.ok(existsSync(db), "the database stays");
    assert.ok(!existsSync(`${db}-wal`), "no -wal left");
    assert.ok(!existsSync(`${db}-shm`), "no -shm left");
    assert.match(cli.stderr(), /mcp-wire demo: stopped/);
  });

  test("what a command registered to close on the way out is closed when it is stopped", async () => {
    const marker = join(dir, "closed.txt");
    const signals = new URL("./signals.js", import.meta.url).href;
    const script = `
      import { writeFileSync } from "node:fs";
      import { closeOnWayOut, installWayOut } from ${JSON.stringify(signals)};
      installWayOut();
      closeOnWayOut(async () => { await new Promise((r) => setTimeout(r, 50)); writeFileSync(${JSON.stringify(marker)}, "closed"); });
      setInterval(() => undefined, 1 << 30);
      process.stdout.write("ready\\n");`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await until(() => out.includes("ready"), "the script ready");
    child.kill("SIGTERM");
    assert.equal(await exited, 143);
    assert.equal(readFileSync(marker, "utf8"), "closed");
  });
});
