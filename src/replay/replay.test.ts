/**
 * `mcp-wire replay`: a recording of a real SDK server (made through `tap --log` by the official
 * SDK v1 client) sent again to the same server is clean; to a changed server (a tool's schema,
 * a result, a tool removed) each change shows at its path and the exit is 1; `--update` takes
 * the live answers in; a server that cannot start is exit 3, a file that is no recording 2.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, within } from "../testkit/mcp-interop.js";
import { everythingSession, throughHttpTap } from "../testkit/recordings.js";
import { fixture, startEverythingHttp, untilRecorded } from "../testkit/tap.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-replay-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const recording = join(dir, "fixture.ndjson");
const SERVER = [process.execPath, fixture("replay-server.mjs")];

function replay(change: string, ...flags: string[]) {
  return spawnSync(process.execPath, [CLI, "replay", ...flags, "--", ...SERVER], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, REPLAY_CHANGE: change },
  });
}

before(async () => {
  const client = new Client({ name: "replay-test", version: "1.0.0" });
  await within(
    client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "tap", "--log", recording, "--", ...SERVER],
        stderr: "ignore",
      }),
    ),
    "connect through the tap",
  );
  await client.listTools();
  await client.callTool({ name: "echo", arguments: { text: "hi" } });
  await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  await untilRecorded(recording, (r) => r.from === "server" && /"text":"5"/.test(r.line), "the answer of add");
  await client.close();
});

describe("replay", () => {
  test("against the same server: every answer as recorded, exit 0", () => {
    const r = replay("", recording);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /every answer as recorded/);
  });

  test("against a changed server: each change at its path, exit 1", () => {
    const schema = replay("schema", recording);
    assert.equal(schema.status, 1, schema.stderr);
    assert.match(
      schema.stdout,
      /\/result\/tools\/echo\/inputSchema\/properties\/loud: recorded \(absent\), live \{"type":"boolean"\}/,
    );
    const result = replay("result", recording, "--json");
    assert.equal(result.status, 1, result.stderr);
    const report = JSON.parse(result.stdout) as {
      differences: number;
      conversations: {
        requests: { method: string; differences: { path: string; recorded?: unknown; live?: unknown }[] }[];
      }[];
    };
    assert.equal(report.differences, 1);
    assert.deepEqual(
      report.conversations[0]!.requests.flatMap((r) => r.differences),
      [{ path: "/result/content/0/text", recorded: "5", live: "6" }],
    );
    const removed = replay("removed", recording);
    assert.equal(removed.status, 1);
    assert.match(removed.stdout, /\/result\/tools\/add: recorded \{"name":"add"/);
    assert.match(removed.stdout, /live \(absent\)/);
  });

  test("--ignore and --skip-method leave out what they name; --update takes the live answers in", () => {
    assert.equal(replay("result", recording, "--ignore", "tools/call:/content/0/text").status, 0);
    assert.equal(replay("result", recording, "--skip-method", "tools/call").status, 0);
    const copy = join(dir, "update.ndjson");
    writeFileSync(copy, readFileSync(recording));
    const updated = replay("result", copy, "--update");
    assert.equal(updated.status, 0, updated.stderr);
    assert.match(updated.stderr, /review the change/);
    assert.equal(replay("result", copy).status, 0, "the file now holds the live answers");
    assert.equal(replay("", copy).status, 1, "and the old server differs from them");
  });

  test("exit 3 when the server cannot start; 2 for a file that is no recording, or no server named", () => {
    const missing = spawnSync(process.execPath, [CLI, "replay", recording, "--", "/no/such/server"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(missing.status, 3, missing.stdout + missing.stderr);
    assert.match(missing.stderr, /could not be reached/);
    const capture = join(dir, "capture.ndjson");
    writeFileSync(capture, '{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const bad = replay("", capture);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /cannot replay .*plain capture/);
    const none = spawnSync(process.execPath, [CLI, "replay", recording], { encoding: "utf8", timeout: 20_000 });
    assert.equal(none.status, 2);
  });

  test("--junit and --markdown: check's writers, a case per method, a changed answer failing with its path", () => {
    const junit = join(dir, "replay.xml");
    const markdown = join(dir, "replay.md");
    const clean = replay("", recording, "--junit", junit, "--markdown", markdown);
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    const passed = readFileSync(junit, "utf8");
    assert.match(passed, /<testsuites name="mcp-wire replay" tests="\d+" failures="0"/);
    assert.match(passed, /<testcase [^>]*name="replay tools\/list"><\/testcase>/);
    assert.match(passed, /<testcase [^>]*name="replay tools\/call"><\/testcase>/);
    assert.match(readFileSync(markdown, "utf8"), /## mcp-wire replay: [^\n]*\n\n\*\*Passed\*\*/);

    const changed = replay("schema", recording, "--junit", junit, "--markdown", markdown);
    assert.equal(changed.status, 1, changed.stdout + changed.stderr);
    const failed = readFileSync(junit, "utf8");
    assert.match(failed, /failures="1"/);
    assert.match(
      failed,
      /<testcase [^>]*name="replay tools\/list"><failure [^>]*message="tools\/list \{\} \(conversation 1\) answered differently at \/result\/tools\/echo\/inputSchema\/properties\/loud"/,
    );
    assert.doesNotMatch(failed, /mcp-wire explain/, "replay's cases have no explain section");
    const summary = readFileSync(markdown, "utf8");
    assert.match(summary, /\*\*Failed:\*\*/);
    assert.match(summary, /\/result\/tools\/echo\/inputSchema\/properties\/loud/);
  });

  test("--junit and --markdown are refused before any work as check refuses them: same file, a file not ours", () => {
    const same = replay("", recording, "--junit", join(dir, "a"), "--markdown", join(dir, "a"));
    assert.equal(same.status, 2);
    assert.match(same.stderr, /each need a file of their own/);
    const theirs = join(dir, "theirs.xml");
    writeFileSync(theirs, "not ours\n");
    const refused = replay("", recording, "--junit", theirs);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /exists and was not written by mcp-wire/);
    assert.equal(refused.stdout, "", "nothing was replayed");
    assert.equal(readFileSync(theirs, "utf8"), "not ours\n");
  });
});

describe("replay to an HTTP+SSE URL", () => {
  test("server-everything's HTTP+SSE session sent again to it is clean; a stdio recording reaches the same URL", async () => {
    const server = await startEverythingHttp("sse");
    try {
      const log = join(dir, "sse.ndjson");
      // the official SDK v1 client over HTTP+SSE: a listing, calls, progress, a sampling request
      const seen = await throughHttpTap(server.url, log, (url) => everythingSession("v1", { url, sse: true }));
      assert.equal(seen.asked, 1, "the server asked the client for a sample");
      const run = (file: string) =>
        new Promise<{ status: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, [CLI, "replay", file, "--", server.url]);
          let out = "";
          child.stdout.on("data", (d: Buffer) => (out += d.toString()));
          child.stderr.on("data", (d: Buffer) => (out += d.toString()));
          child.once("close", (status) => resolve({ status, out }));
        });
      const again = await within(run(log), "replay of the HTTP+SSE recording", 60_000);
      assert.equal(again.status, 0, again.out);
      assert.match(again.out, /5 requests, all as recorded/);
      assert.match(
        again.out,
        /✓ tools\/call \{"arguments":\{"maxTokens":10,"prompt":"hi"\},"name":"trigger-sampling-request"\}/,
      );
      // a stdio recording (of another server) tries Streamable HTTP first, which the URL refuses,
      // and is sent over HTTP+SSE instead: that server's differences, not "unreachable"
      const stdio = await within(run(recording), "replay of a stdio recording to the HTTP+SSE URL", 60_000);
      assert.equal(stdio.status, 1, stdio.out);
      assert.match(stdio.out, /\/result\/tools\/get-sum: recorded \(absent\), live \{"name":"get-sum"/);
      assert.doesNotMatch(stdio.out, /could not be reached/);
    } finally {
      server.stop();
    }
  });
});

describe("check --record", () => {
  test("writes each server process of the check as a conversation, which replay sends again, clean", () => {
    const file = join(dir, "check.ndjson");
    const serve = [process.execPath, CLI, "serve", "--stdio"];
    const check = spawnSync(process.execPath, [CLI, "check", "--record", file, "--stdio", "--", ...serve], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    assert.deepEqual(JSON.parse(lines[0]!), {
      recording: 1,
      tool: "mcp-wire",
      version: (JSON.parse(lines[0]!) as { version: string }).version,
      transport: "stdio",
      scenario: "check",
    });
    const conversations = new Set(lines.slice(1).map((l) => (JSON.parse(l) as { conversation?: string }).conversation));
    assert.ok(conversations.size >= 2, `one conversation per server process: ${[...conversations].join(", ")}`);
    const again = spawnSync(process.execPath, [CLI, "replay", file, "--", ...serve], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(again.status, 0, again.stdout + again.stderr);
  });
});
