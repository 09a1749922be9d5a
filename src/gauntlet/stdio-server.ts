/**
 * `gauntlet --stdio-server SCENARIO --record FILE`: one scenario's server on stdin/stdout, for a
 * host's configuration or a client that launches its servers itself. Every record is appended to
 * FILE as it happens (a restarted server appends; each process is its own conversation), with
 * what the process saw of its end — stdin closing, a signal, its exit — for `shutdown`. It lingers
 * a moment after stdin ends, so a client that signals it right after closing is seen doing so.
 */
import type { Revision } from "../rules/revisions.js";
import { VERSION } from "../version.js";
import type { ScenarioDef } from "./scenario.js";
import { buildCore, servedRevisions, serveStdio } from "./server.js";
import { Tape } from "./tape.js";
import { LiveRecording } from "./tape-file.js";
import { warmJudging } from "./warm.js";
import { Witness } from "./witness.js";

/** How long the server stays after stdin ends. */
const LINGER_MS = 500;
const SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP"];

export function runStdioServer(scenario: ScenarioDef, revisions: readonly Revision[], file: string): Promise<number> {
  const served = servedRevisions(scenario, revisions);
  const header = {
    recording: 1 as const,
    tool: "mcp-wire" as const,
    version: VERSION,
    transport: "stdio" as const,
    scenario: scenario.id,
    ...(revisions.length === 1 ? { revision: revisions[0]! } : {}),
  };
  const recording = new LiveRecording(file, header, true);
  const tape = new Tape(header);
  recording.follow(tape);
  const witness = new Witness(tape, `p${process.pid}`);
  const core = buildCore(scenario, served, "stdio");
  serveStdio(core, process.stdin, process.stdout, witness);
  warmJudging(served, () => tape.entries.length > 0);

  return new Promise((resolve) => {
    let leaving = false;
    const leave = (code: number) => {
      if (leaving) return;
      leaving = true;
      witness.event("exit");
      void recording.close().then(() => resolve(code));
    };
    process.stdin.once("end", () => {
      witness.event("stdin_end");
      setTimeout(() => leave(0), LINGER_MS);
    });
    for (const signal of SIGNALS) {
      process.on(signal, () => {
        witness.event(`signal:${signal}`);
        leave(0);
      });
    }
  });
}
