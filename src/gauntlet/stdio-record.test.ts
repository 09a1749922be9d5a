/**
 * A `--stdio-server` holds its records and writes them together, but never behind its client:
 * whatever the client got an answer to is on disk before the answer leaves, so a host that
 * kills the server with SIGKILL the moment it has read an answer still leaves the call and its
 * answer in the recording. Each call costs one write instead of two.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { McpClient } from "../mcp/client.js";
import { within } from "../testkit/within.js";
import { StreamTransport } from "../transport/stream.js";
import { VERSION } from "../version.js";
import { scenarioOf } from "./catalogue.js";
import { buildCore, serveStdio } from "./server.js";
import { Tape } from "./tape.js";
import { LiveRecording } from "./tape-file.js";
import { Witness } from "./witness.js";

const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));

test("a stdio server killed with SIGKILL right after an answer has recorded the call and the answer", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-held-"));
  const file = join(dir, "lifecycle.ndjson");
  const server = spawn(process.execPath, [MAIN, "gauntlet", "--stdio-server", "lifecycle", "--record", file], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  try {
    const client = await within(
      McpClient.connect(() => new StreamTransport(server.stdout!, server.stdin!), { revision: "2025-11-25" }),
      "the stdio server's answer to initialize",
      30_000,
    );
    for (let i = 0; i < 3; i++) await within(client.callTool("gauntlet_lifecycle", {}), "an answer", 30_000);
    server.kill("SIGKILL");
    await within(new Promise((resolve) => server.once("exit", resolve)), "the server's end after SIGKILL", 30_000);
    const records = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { from?: string; line?: string; event?: string });
    const calls = records.filter((r) => r.from === "client" && r.line?.includes('"tools/call"'));
    const answers = records.filter((r) => r.from === "server" && r.line?.includes('"gauntlet_lifecycle: done"'));
    assert.equal(calls.length, 3, JSON.stringify(records));
    assert.equal(answers.length, 3, JSON.stringify(records));
    // SIGKILL left it no chance to see its end: no event was recorded
    assert.equal(records.filter((r) => r.event !== undefined).length, 0);
  } finally {
    server.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every record is on disk before the answer it led to reaches the client", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-held-"));
  const file = join(dir, "lifecycle.ndjson");
  const header = { recording: 1 as const, tool: "mcp-wire" as const, version: VERSION, transport: "stdio" as const };
  const recording = new LiveRecording(file, header, true);
  const tape = new Tape(header);
  recording.follow(tape);
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  serveStdio(buildCore(scenarioOf("lifecycle")!, ["2025-11-25"], "stdio"), toServer, toClient, new Witness(tape, "p1"));
  const client = await McpClient.connect(() => new StreamTransport(toClient, toServer), { revision: "2025-11-25" });
  try {
    for (let i = 1; i <= 3; i++) {
      await client.callTool("gauntlet_lifecycle", {});
      // read in the same turn the answer came in: nothing held for later has been written yet
      const lines = readFileSync(file, "utf8").split("\n");
      assert.equal(lines.filter((l) => l.includes('\\"tools/call\\"')).length, i);
      assert.equal(lines.filter((l) => l.includes("gauntlet_lifecycle: done")).length, i);
    }
  } finally {
    await client.close();
    await recording.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
