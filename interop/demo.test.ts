/**
 * `npm run interop`: `mcp-wire demo` run again, as a user who types `npm start` twice, and with
 * --db and --html. Each is a whole demo (the fleet, every hang waited for), too heavy to repeat in
 * every `npm test`, where src/cli/demo.test.ts runs one. No other test of this suite starts a
 * demo, so the fleet's own ports are free for both runs.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runIn, urls } from "../src/testkit/demo.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-demo-again-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runIn(dir, args);

describe("mcp-wire demo, run again", () => {
  test("a second run starts its database afresh: one run, the same servers on the same ports, never appended", async () => {
    const first = await run(["demo"]);
    assert.equal(first.status, 0, first.stderr);
    const r = await run(["demo"]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(urls(r.stdout), urls(first.stdout), "the report names the same servers");
    const stored = JSON.parse((await run(["report", "--json", "--db", "mcp-wire-demo.db"])).stdout);
    assert.equal(stored.runs.length, 1, "a fresh database, not a second run appended");
    assert.equal(stored.runs[0].id, 1);
  });

  test("--db and --html put the census and the page where the user says", async () => {
    mkdirSync(join(dir, "elsewhere"));
    const r = await run(["demo", "--db", "elsewhere/d.db", "--html", "elsewhere/page.html"]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(dir, "elsewhere", "d.db")));
    assert.match(readFileSync(join(dir, "elsewhere", "page.html"), "utf8"), /^<!doctype html>/);
    assert.match(r.stdout, /mcp-wire report --db elsewhere\/d\.db/);
  });
});
