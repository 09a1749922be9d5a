/**
 * The progress line of `check`: on a terminal one line rewritten in place while a step waits and
 * erased when it ends; elsewhere plain lines now and then, only with `--progress`; nothing for a
 * wait too short to wonder about; never on stdout (`--json` stays one object).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { mcpWire } from "../testkit/cli-child.js";
import { progressLine } from "./check.js";
import { ProgressLine } from "./progress-line.js";

const ZOO = fileURLToPath(new URL("../testkit/zoo-server.js", import.meta.url));

/** A stream that keeps what is written, and a clock the test moves. */
function bench(tty: boolean) {
  let written = "";
  let t = 0;
  const stream = { columns: 60, write: (s: string) => ((written += s), true) } as unknown as NodeJS.WritableStream;
  const line = new ProgressLine("mcp-wire check", { stream, tty, now: () => t });
  return {
    line,
    written: () => written,
    at: (ms: number) => {
      t = ms;
      line.tick();
    },
  };
}

describe("the progress line", () => {
  test("on a terminal: shown once a wait passes a second, rewritten in place as the seconds change, erased when the wait ends", () => {
    const b = bench(true);
    b.line.waiting("tools/list (2025-11-25)");
    b.at(500);
    assert.equal(b.written(), "", "a short wait shows nothing");
    b.at(1200);
    b.at(1700);
    b.at(2300);
    assert.equal(
      b.written(),
      "\r\x1b[Kmcp-wire check: waiting for tools/list (2025-11-25) (1 s)\r\x1b[Kmcp-wire check: waiting for tools/list (2025-11-25) (2 s)",
    );
    b.line.waiting(null);
    assert.ok(b.written().endsWith("\r\x1b[K"), "erased");
    b.line.waiting("a very long step name that goes on and on past the width of the terminal");
    b.at(4000);
    const last = b.written().split("\r\x1b[K").at(-1)!;
    assert.ok(last.length <= 59 && last.endsWith("…"), last);
    b.line.stop();
    assert.ok(b.written().endsWith("\r\x1b[K"));
  });

  test("elsewhere: a plain line once a wait passes 2 s, then at most one each 10 s; no carriage return", () => {
    const b = bench(false);
    b.line.waiting("ping (2025-06-18)");
    b.at(1500);
    assert.equal(b.written(), "");
    for (const t of [2100, 3100, 9000, 12_200]) b.at(t);
    assert.equal(
      b.written(),
      "mcp-wire check: waiting for ping (2025-06-18) (2 s)\nmcp-wire check: waiting for ping (2025-06-18) (12 s)\n",
    );
    b.line.waiting("tools/list (2025-06-18)");
    b.at(13_000);
    b.line.stop();
    assert.ok(!b.written().includes("\r"));
  });

  test("on by default on a terminal only: --progress turns it on anywhere, --no-progress off", () => {
    const on = (flag: boolean | undefined, tty: boolean) => {
      const line = progressLine(flag, tty);
      line?.stop();
      return line !== undefined;
    };
    assert.deepEqual(
      [on(undefined, true), on(undefined, false), on(true, false), on(false, true)],
      [true, false, true, false],
    );
  });

  test("the command in a CI log (stderr not a terminal): quiet, or with --progress plain lines on stderr and --json alone on stdout", async () => {
    // ping unanswered for 2.5 s: a step that waits
    const args = (more: string[]) => [
      "check",
      "--json",
      ...more,
      "-r",
      "2025-11-25",
      "--timeout",
      "2500",
      "--stdio",
      "--",
      process.execPath,
      ZOO,
      "ping-silent",
    ];
    const loud = mcpWire(args(["--progress"]));
    const quiet = mcpWire(args([]));
    const [a, b] = await Promise.all([loud.exit(60_000), quiet.exit(60_000)]);
    assert.deepEqual([a, b], [1, 1], loud.stderr() + quiet.stderr());
    assert.match(loud.stderr(), /^mcp-wire check: waiting for ping \(2025-11-25\) \(2 s\)$/m);
    assert.ok(!loud.stderr().includes("\r"));
    assert.ok(!quiet.stderr().includes("waiting for"), quiet.stderr());
    for (const c of [loud, quiet]) {
      assert.ok(!c.stdout().includes("waiting for"));
      const report = JSON.parse(c.stdout()) as { findings: { id: string }[] };
      assert.ok(report.findings.some((f) => f.id === "request_unanswered"));
    }
  });
});
