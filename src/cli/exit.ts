import { constants } from "node:os";
import { writeErr } from "./output.js";

/** Exit statuses every subcommand shares. */
export const OK = 0;
/** The input or the server broke a rule (lint found an error, probe's verdict is not ok). */
export const FOUND_PROBLEMS = 1;
/** The command line itself was wrong, or a file could not be read. */
export const USAGE_ERROR = 2;
/** Says what was wrong with `command`'s command line, in one line, and gives the status for it. */
export function usageError(command: string, message: string): number {
  writeErr(`mcp-wire ${command}: ${message}\n`);
  return USAGE_ERROR;
}

/** `check`: the target could not be checked at all (unreachable, not MCP, sign-in required). */
export const UNCHECKED = 3;

/** The exit status a shell shows for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}
