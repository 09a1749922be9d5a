/**
 * How the CLI stops when asked to (Ctrl-C, `kill PID`, a CI job's timeout): whatever it started
 * ends with it. A command that must stop in its own way (a census saving its progress, a server
 * closing its connections) listens for the signals itself; every other command ends at once, its
 * child processes with it. A child process still running when the process exits for any other
 * reason (an uncaught error, a closed stdout) is killed on the way out.
 */
import { signalExitCode } from "./exit.js";
import { settlesWithin } from "../peer/within.js";
import { endEverything, endOnWayOut, killEverything } from "../transport/way-out.js";

/** The signals a person or a supervisor sends to stop a program. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** How long each step of ending is given when the CLI is stopped (a child: SIGTERM, then SIGKILL). */
const GRACE_MS = 1000;
/** How long everything together is given: two steps, and a moment for a database's last write. */
const LEAVE_MS = 2 * GRACE_MS + 500;

let installed = false;

/** Installs the CLI's way out; once per process. */
export function installWayOut(): void {
  if (installed) return;
  installed = true;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      // a command listening for it stops its own way; this handler is then not alone
      if (process.listenerCount(signal) > 1) return;
      void leaveNow(signal);
    });
  }
  process.on("exit", killEverything);
}

let leaving = false;

/**
 * Has `close` run if the process is stopped while it is registered (a database, its files left
 * complete and tidy); returns the function that unregisters it (call it once the thing is closed
 * the ordinary way).
 */
export function closeOnWayOut(close: () => Promise<void>): () => void {
  return endOnWayOut({ end: close });
}

/** True once the process is leaving because it was stopped: what fails meanwhile (a store closed under a query) is no bug to report. */
export function leavingNow(): boolean {
  return leaving;
}

/** Ends the child processes still running, closes what is registered, then ends the process with the status `signal` calls for. */
export async function leaveNow(signal: NodeJS.Signals): Promise<never> {
  const code = signalExitCode(signal);
  // a second signal while the children are being ended: no more waiting
  if (leaving) process.exit(code);
  leaving = true;
  await settlesWithin(endEverything(GRACE_MS), LEAVE_MS);
  process.exit(code);
}

/**
 * Calls `onStop` on the first stop signal while `work` runs; a second one leaves at once (see
 * `leaveNow`). Resolves with what `work` resolves with.
 */
export async function stoppable<T>(onStop: (signal: NodeJS.Signals) => void, work: () => Promise<T>): Promise<T> {
  let stopped = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopped) return void leaveNow(signal);
    stopped = true;
    onStop(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  try {
    return await work();
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  }
}

/** Long-running commands (serve, tap) run until the user or the system asks them to stop. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      for (const s of STOP_SIGNALS) process.off(s, stop);
      resolve();
    };
    for (const s of STOP_SIGNALS) process.on(s, stop);
  });
}
