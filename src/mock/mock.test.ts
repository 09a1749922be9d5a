/**
 * `mcp-wire mock` and `mockServer`: a recording of a real server (server-everything, recorded
 * through `tap --log` by the official SDK v1 client) played to the SDK v2 client over stdio and
 * to v1 over HTTP gives each the same answers as the server (tools, a call, progress, a sampling
 * request of the server's), and to the AI SDK's client over HTTP; what no recording answers is -32601 naming the closest, and counted.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { McpClient } from "../mcp/client.js";
import { RecordingError } from "../recording/errors.js";
import { CLI, SERVER_EVERYTHING, STEP_MS, within } from "../testkit/mcp-interop.js";
import { everythingSession, type SessionSeen } from "../testkit/recordings.js";
import { startPrinting } from "../testkit/tap.js";
import { ROOT } from "../testkit/typecheck.js";
import { mockServer } from "./library.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-wire-mock-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const recording = join(dir, "everything.ndjson");
let real: SessionSeen;

before(async () => {
  real = await everythingSession(
    "v1",
    { stdio: [CLI, "tap", "--log", recording, "--", process.execPath, SERVER_EVERYTHING, "stdio"] },
    recording,
  );
});

/**
 * The same answers; progress arrives (how many of a burst a client counts is its own affair: the
 * v2 SDK drops the one that comes with the answer, from the real server too).
 */
function assertSame(mocked: SessionSeen, server: SessionSeen): void {
  assert.deepEqual({ ...mocked, progress: 0 }, { ...server, progress: 0 });
  assert.ok(mocked.progress >= 1, `progress reached the client: ${mocked.progress}`);
}

describe("mock", () => {
  test("the recording, played over stdio to the SDK v2 client and over HTTP to v1, answers as the server did", async () => {
    assert.ok(real.tools.includes("echo") && real.progress >= 1 && real.asked === 1, JSON.stringify(real));
    const overStdio = await everythingSession("v2", { stdio: [CLI, "mock", recording] });
    assertSame(overStdio, real);
    const http = await startPrinting([CLI, "mock", recording, "--listen", "0"], /^(http:\/\/\S+)$/m);
    try {
      assertSame(await everythingSession("v1", { url: http.url }), real);
    } finally {
      http.stop();
    }
  });

  test("mockServer over HTTP to the AI SDK's client: the recorded listing and call, nothing unmatched", async () => {
    const { createMCPClient } = await import("@ai-sdk/mcp");
    const mock = await mockServer(recording, { http: true });
    try {
      const client = await within(createMCPClient({ transport: { type: "http", url: mock.url! } }), "AI SDK connect");
      try {
        const listed = (await within(client.listTools(), "tools/list")).tools.map((t) => t.name).sort();
        assert.deepEqual(listed, real.tools);
        const echo = (await within(client.tools(), "tools")).echo!;
        const answer = (await within(
          Promise.resolve(echo.execute!({ message: "hi" }, { toolCallId: "mock-1", messages: [] })),
          "echo",
        )) as { content?: unknown };
        assert.deepEqual(answer.content, (real.echo as { content?: unknown }).content);
      } finally {
        await client.close();
      }
    } finally {
      const { unmatched } = await mock.close();
      assert.deepEqual(unmatched, []);
    }
  });

  test("mockServer: an in-process client gets the recorded answers; close() lists what had none, with the closest", async () => {
    const mock = await mockServer(recording);
    const client = await within(
      McpClient.connect(() => mock.transport(), { timeout: STEP_MS }),
      "connect",
    );
    const echo = await client.callTool("echo", { message: "hi" });
    assert.deepEqual(echo, real.echo);
    await assert.rejects(client.callTool("echo", { message: "something else" }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32601);
      assert.match(
        e.message,
        /closest recorded request is tools\/call \{"arguments":\{"message":"hi"\},"name":"echo"\}/,
      );
      return true;
    });
    await client.close();
    const { unmatched } = await mock.close();
    // the SDK v1 client that made the recording never asked server/discover, which McpClient tries first
    assert.deepEqual(
      unmatched.map((u) => [u.method, u.params]),
      [
        ["server/discover", "{}"],
        ["tools/call", '{"arguments":{"message":"something else"},"name":"echo"}'],
      ],
    );
  });

  test("--strict: exit 1 once the client left with a request unanswered; 0 without; a bad recording exits 2 naming why", () => {
    const init =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}\n';
    const miss = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}\n';
    const run = (input: string, ...flags: string[]) =>
      spawnSync(process.execPath, [CLI, "mock", ...flags], { input, encoding: "utf8", timeout: 20_000 });
    const strict = run(init + miss, recording, "--strict");
    assert.equal(strict.status, 1, strict.stderr);
    const lines = strict.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; error?: { code: number } });
    assert.deepEqual(
      lines.map((l) => [l.id, l.error?.code]),
      [
        [0, undefined],
        [1, -32601],
      ],
    );
    assert.match(strict.stderr, /1 request had no recorded answer/);
    assert.equal(run(init, recording, "--strict").status, 0);
    const collide = join(dir, "collide.ndjson");
    const rec = (no: number, line: string) => JSON.stringify({ at: "x", from: "client", no, line, defects: [] }) + "\n";
    writeFileSync(collide, rec(1, init.trim()) + rec(2, init.trim()));
    const bad = run("", collide);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /request id 0 twice in one conversation/);
    const usage = run("", recording, "--sessions", "2");
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--sessions counts HTTP sessions/);
  });

  test("--match sequence answers only the recorded order; --match method answers by the method alone", () => {
    const init =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}\n';
    const list = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n';
    const other =
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"other"}}}\n';
    const answers = (...flags: string[]) =>
      spawnSync(process.execPath, [CLI, "mock", recording, ...flags], {
        input: init + other + list,
        encoding: "utf8",
        timeout: 20_000,
      })
        .stdout.trim()
        .split("\n")
        .map(
          (l) =>
            JSON.parse(l) as {
              id: number;
              method?: string;
              result?: { content?: unknown; tools?: unknown };
              error?: { code: number };
            },
        )
        // the answers, without the server's own notifications played between them
        .filter((m) => m.method === undefined)
        .sort((a, b) => a.id - b.id);
    // recorded: initialize, tools/list, then the calls; a call first is out of that order
    const sequence = answers("--match", "sequence");
    assert.deepEqual(
      sequence.map((a) => [a.id, a.error?.code]),
      [
        [0, undefined],
        [1, undefined],
        [2, -32601],
      ],
    );
    const method = answers("--match", "method");
    assert.equal(method[2]!.error, undefined, "any tools/call has an answer");
    assert.deepEqual(
      method[2]!.result?.content,
      (real.echo as { content?: unknown }).content,
      "the first recorded one",
    );
  });

  test("a long recording answers before it is all read; what it holds wrong further on still fails it", async () => {
    // past the first part the reader takes: the mock has answered before it reaches the bad line
    const filler = JSON.stringify({ at: "2026-01-01T00:00:00.000Z", from: "server", event: "stdin_end" }) + "\n";
    const long = join(dir, "long.ndjson");
    writeFileSync(long, readFileSync(recording, "utf8") + filler.repeat(6_000) + "not JSON\n" + filler);
    const mock = await mockServer(long);
    const client = await within(
      McpClient.connect(() => mock.transport(), { timeout: STEP_MS }),
      "connect",
    );
    assert.deepEqual(await client.callTool("echo", { message: "hi" }), real.echo);
    await client.close();
    await assert.rejects(mock.close(), (e) => e instanceof RecordingError && e.reason === "invalid_json");
    const cli = spawnSync(process.execPath, [CLI, "mock", long], { input: "", encoding: "utf8", timeout: 20_000 });
    assert.equal(cli.status, 2, cli.stderr);
    assert.match(cli.stderr, /cannot play .*long\.ndjson, line \d+: not JSON/);
    const replayed = spawnSync(
      process.execPath,
      [CLI, "replay", long, "--", process.execPath, SERVER_EVERYTHING, "stdio"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    assert.equal(replayed.status, 2, replayed.stdout + replayed.stderr);
    assert.match(replayed.stderr, /cannot replay .*long\.ndjson, line \d+: not JSON/);
    // cut off at its end: refused before anything is served, with the line named
    const cut = join(dir, "cut.ndjson");
    writeFileSync(
      cut,
      readFileSync(recording, "utf8") + filler.repeat(6_000) + '{"at":"2026-01-01T00:00:00.000Z","from":',
    );
    await assert.rejects(
      mockServer(cut),
      (e) => e instanceof RecordingError && e.reason === "truncated" && e.line !== undefined,
    );
  });

  test("mockServer rejects a file that is no recording with a RecordingError", async () => {
    const capture = join(dir, "capture.ndjson");
    writeFileSync(capture, '{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await assert.rejects(mockServer(capture), (e) => e instanceof RecordingError && e.reason === "not_a_recording");
  });
});

describe("docs/recordings.md", () => {
  test("the client test of the page runs as written, against a recording made with recordTransport", async () => {
    const { ChildServer } = await import("../transport/child.js");
    const { recordTransport } = await import("../recording/record-transport.js");
    const made = join(dir, "library.ndjson");
    const child = new ChildServer(process.execPath, [SERVER_EVERYTHING, "stdio"]);
    const client = await within(
      McpClient.connect(() => recordTransport(child.transport, made), { timeout: STEP_MS }),
      "connect through recordTransport",
    );
    await client.listTools();
    await client.callTool("echo", { message: "hi" });
    await client.close();
    await child.shutdown(2000);
    const page = readFileSync(join(ROOT, "docs", "recordings.md"), "utf8");
    const block = /```js\n(import \{ test \} from "node:test";[\s\S]*?)```/.exec(page)?.[1];
    assert.ok(block, "the page has its client test");
    const entry = (name: string) => pathToFileURL(join(ROOT, "dist", "src", "entry", `${name}.js`)).href;
    const runnable = block
      .replace('"mcp-wire/client"', JSON.stringify(entry("client")))
      .replace('"mcp-wire/testing"', JSON.stringify(entry("testing")))
      .replace('"test/recordings/everything.ndjson"', JSON.stringify(made));
    assert.notEqual(runnable, block);
    const file = join(dir, "client.test.mjs");
    writeFileSync(file, runnable);
    // a test runner of its own, not a subtest reporting to this one
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ["--test", file], { encoding: "utf8", timeout: 60_000, env });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /# pass 1/);
  });
});
