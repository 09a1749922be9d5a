/**
 * A stdio repro line, run in a shell against a real server, replays the step it names: the
 * opening it needs first, then that step.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, test } from "node:test";
import { stdioRepro } from "./repro.js";

const run = promisify(execFile);
const LEGACY = [fileURLToPath(new URL("../fleet/stdio-server.js", import.meta.url)), "legacy"];

async function replay(line: string): Promise<{ id?: unknown; result?: Record<string, unknown>; error?: unknown }[]> {
  const { stdout } = await run("sh", ["-c", line], { timeout: 20_000 });
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { id?: unknown; result?: Record<string, unknown> });
}

describe("stdio repro lines", () => {
  test("a failed initialize is replayed as initialize, offering the latest legacy revision", async () => {
    const line = stdioRepro(process.execPath, LEGACY, { step: "initialize" });
    const answers = await replay(line);
    assert.equal(answers.length, 1, line);
    assert.equal(answers[0]!.id, 1);
    assert.equal(answers[0]!.result?.protocolVersion, "2025-06-18");
  });

  test("a failed tools/list of a legacy session is replayed after initialize and notifications/initialized", async () => {
    const line = stdioRepro(process.execPath, LEGACY, { step: "tools/list", revision: "2025-06-18" });
    const answers = await replay(line);
    assert.deepEqual(
      answers.map((a) => a.id),
      [1, 2],
      line,
    );
    assert.ok(Array.isArray(answers[1]!.result?.tools), line);
  });

  test("without a step, the first request a dual-era client sends: server/discover (a legacy server refuses it)", async () => {
    const line = stdioRepro(process.execPath, LEGACY);
    assert.match(line, /"method":"server\/discover"/);
    const answers = await replay(line);
    assert.deepEqual(
      answers.map((a) => a.id),
      [1],
    );
    assert.ok(answers[0]!.error, "-32601 from a legacy server");
  });
});
