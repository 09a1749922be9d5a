/**
 * How the CLI stops when asked to (Ctrl-C, `kill PID`, a CI job's timeout): whatever it started
 * ends with it. A command that must stop in its own way (a census saving its progress, a server
 * closing its connections) listens for the signals itself; every other command ends at once, its
 * child processes with it. A child process still running when the process exits for any other
 * reason (an uncaught error, a closed stdout) is killed on the way out.
 */
import { constants } from "node:os";
import { endLiveChildren, killLiveChildren } from "../transport/child.js";

/** The signals a person or a supervisor sends to stop a program. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The exit status a shell shows for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** How long a child process is given between SIGTERM and SIGKILL when the CLI is stopped. */
const CHILD_GRACE_MS = 1000;

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
  process.on("exit", killLiveChildren);
}

let leaving = false;

/** What must be closed before the process leaves early: a database (its files complete and tidy), a temporary copy. */
const CLOSERS = new Set<() => Promise<void>>();

/** How long the closers are given when the process is stopped. */
const CLOSE_GRACE_MS = 2000;

/**
 * Has `close` run if the process is stopped while it is registered; returns the function that
 * unregisters it (call it once the thing is closed the ordinary way).
 */
export function closeOnWayOut(close: () => Promise<void>): () => void {
  CLOSERS.add(close);
  return () => void CLOSERS.delete(close);
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
  const closing = Promise.all([...CLOSERS].map((close) => close().catch(() => undefined)));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.all([
    endLiveChildren(CHILD_GRACE_MS),
    Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]),
  ]);
  clearTimeout(timer);
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
