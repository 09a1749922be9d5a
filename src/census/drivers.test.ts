/**
 * The census's drivers are optional peers: an install without them runs everything but the
 * database commands, and those say in one line which package to install. The package is laid
 * out as npm installs it into a project (its files, and its dependencies beside it) in a
 * folder no `node_modules` above can reach, so better-sqlite3 and pg are truly absent.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { within } from "../testkit/within.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the installed command; settles on `close`, once both pipes have been read to the end. */
function run(first: string, args: string[], cwd: string): Promise<Ran> {
  const child = spawn(process.execPath, [first, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const closed = new Promise<Ran>((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
  return within(closed, `mcp-wire ${args[0]}`, 30_000).finally(() => child.kill("SIGKILL"));
}

describe("the census drivers are optional: an install without them", () => {
  let dir = "";
  let main = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mcp-wire-drivers-"));
    const pkg = join(dir, "node_modules", "mcp-wire");
    cpSync(join(ROOT, "dist", "src"), join(pkg, "dist", "src"), {
      recursive: true,
      filter: (f) => !/\.test\.js$|\.map$|\.d\.ts$|[/\\]testkit$/.test(f),
    });
    cpSync(join(ROOT, "package.json"), join(pkg, "package.json"));
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ["better-sqlite3", "pg"]);
    for (const name of Object.keys(manifest.dependencies))
      symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name), "dir");
    main = join(pkg, "dist", "src", "cli", "main.js");
    writeFileSync(join(dir, "targets.txt"), "http://127.0.0.1:9/mcp\n");
    writeFileSync(join(dir, "empty.db"), "");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("decodes and connects, and census names the SQLite driver to install in one line, exit 2, nothing written", async () => {
    const library = await run(
      "--input-type=module",
      [
        "-e",
        `import { decode } from "mcp-wire"; import { McpClient } from "mcp-wire/client"; await import("mcp-wire/http");
         console.log(decode('{"jsonrpc":"2.0","id":1,"method":"ping"}', { revision: "2025-11-25" }).kind, typeof McpClient);`,
      ],
      dir,
    );
    assert.equal(library.stderr, "");
    assert.equal(library.stdout, "request function\n");
    const census = await run(main, ["census", "targets.txt", "--db", "census.db"], dir);
    assert.equal(census.status, 2);
    assert.equal(census.stdout, "");
    assert.match(
      census.stderr,
      /^mcp-wire census: the SQLite driver better-sqlite3 is not installed \(mcp-wire installs it only where a census runs\): npm install better-sqlite3 \(npm install -g better-sqlite3 beside a global mcp-wire\)\n$/,
    );
    const report = await run(main, ["report", "--db", "empty.db"], dir);
    assert.equal(report.status, 2);
    assert.match(report.stderr, /^mcp-wire report: the SQLite driver better-sqlite3 is not installed .*\n$/);
    assert.throws(() => readFileSync(join(dir, "census.db")), { code: "ENOENT" });
  });

  it("a census on PostgreSQL names pg, and never the password", async () => {
    const census = await run(main, ["census", "targets.txt", "--db", "postgres://me:hunter2@127.0.0.1:9/c"], dir);
    assert.equal(census.status, 2);
    assert.match(
      census.stderr,
      /^mcp-wire census: the PostgreSQL driver pg is not installed .*: npm install pg \(npm install -g pg beside a global mcp-wire\)\n$/,
    );
    assert.doesNotMatch(census.stderr, /hunter2/);
  });
});
