/**
 * `mcp-wire tap -- <server command>`: stands in for a stdio server. The real server runs as a
 * child; every chunk either side writes is copied on at once, unchanged, and a copy is split into
 * lines and judged on the side, so the analysis can never reframe, reorder or hold up the bytes.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import type { Sender } from "../codec/conversation.js";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import { LineSplitter } from "../codec/lines.js";
import type { Revision } from "../rules/revisions.js";
import { settlesWhileProgressing, settlesWithin } from "../peer/within.js";
import { JudgeThread } from "./judge-thread.js";
import { InOrder } from "./judging.js";
import type { TapReport } from "./report.js";

export interface StdioTapOptions {
  command: string;
  args: readonly string[];
  report: TapReport;
  /** Judge by this revision; without it the revision is read from the conversation. */
  revision?: Revision;
  /** Validate each message against its revision's official schema.json (`schema_invalid`). Default true. */
  schema?: boolean;
  /** How long judging one message's schema may take, off the forwarding path, before it is `schema_not_judged`. Default 1 s. */
  schemaBudgetMs?: number;
  /** Longest line analysed; longer ones pass through and are reported as `too_large`. Default 4 MiB. */
  maxLineBytes?: number;
  /** How long the server gets to exit once its input is closed, and again after SIGTERM. Default 2 s. */
  graceMs?: number;
  /** The client's side. Default: this process's stdin and stdout. */
  input?: Readable;
  output?: Writable;
}

export interface TapExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The server could not be started (ENOENT, EACCES): no exit followed. */
  error?: Error;
  /** Who ended the session. */
  endedBy: "server" | "client" | "spawn";
}

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
/** After the server exits, how long its stdout may stay open (a grandchild holding it) before we stop waiting. */
const DRAIN_MS = 1000;
/**
 * After the session, the messages still being judged get as long as verdicts keep coming (a busy
 * machine judges slowly, and a record left out is a record lost) — but not 2 s without one, and
 * not 30 s in all: past that, what is left is said to be left out of the report.
 */
const JUDGING_DRAIN = { quietMs: 2000, capMs: 30_000 };

/** The exit status a shell would show for the server's end: its code, or 128 + the signal's number. */
export function exitCodeOf(exit: TapExit): number {
  if (exit.error) return (exit.error as NodeJS.ErrnoException).code === "ENOENT" ? 127 : 126;
  if (exit.code !== null) return exit.code;
  const n = exit.signal ? constants.signals[exit.signal] : undefined;
  return n === undefined ? 1 : 128 + n;
}

/** Runs the session to its end. Resolves with how the server ended; never rejects. */
export function runStdioTap(options: StdioTapOptions): { revisions(): string; done: Promise<TapExit> } {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  const graceMs = options.graceMs ?? 2000;
  const { judging, inOrder, fromClient, fromServer } = judgedLines(options, maxLineBytes);

  // the server's stderr is ours: inherited, so it arrives exactly as written and unbuffered
  const child = spawn(options.command, [...options.args], { stdio: ["pipe", "pipe", "inherit"] });
  // a server that dies mid-write must not crash the tap with EPIPE; its exit ends the session
  child.stdin.on("error", () => undefined);
  let clientGone = false;
  output.on("error", () => clientClosed());

  const forward = (sig: NodeJS.Signals) => () => {
    child.kill(sig);
  };
  const handlers = FORWARDED_SIGNALS.map((sig) => [sig, forward(sig)] as const);
  for (const [sig, h] of handlers) process.on(sig, h);

  copy(input, child.stdin, fromClient);
  copy(child.stdout, output, fromServer);
  input.once("end", () => clientClosed());
  input.once("error", () => clientClosed());

  let exitStatus: Omit<TapExit, "endedBy"> | undefined;
  const exited = new Promise<Omit<TapExit, "endedBy">>((resolve) => {
    child.on("error", (error) => {
      // spawn failures come here with no exit after them; a failed kill later changes nothing
      exitStatus ??= { code: null, signal: null, error };
      resolve(exitStatus);
    });
    child.once("exit", (code, signal) => {
      exitStatus ??= { code, signal };
      resolve(exitStatus);
    });
  });
  const stdoutClosed = new Promise<void>((resolve) => child.stdout.once("close", resolve));

  /** The client closed its side: close the server's input, then SIGTERM, then SIGKILL (stdio "Shutdown"). */
  function clientClosed(): void {
    if (clientGone) return;
    clientGone = true;
    fromClient.end();
    child.stdin.end();
    void (async () => {
      if (await settlesWithin(exited, graceMs)) return;
      child.kill("SIGTERM");
      if (await settlesWithin(exited, graceMs)) return;
      child.kill("SIGKILL");
    })();
  }

  const done = (async (): Promise<TapExit> => {
    const status = await exited;
    const endedBy = status.error ? "spawn" : clientGone ? "client" : "server";
    // what the server wrote before it died still reaches the client, unless something else holds its stdout
    if (!status.error && !(await settlesWithin(stdoutClosed, DRAIN_MS))) child.stdout.destroy();
    fromServer.end();
    for (const [sig, h] of handlers) process.off(sig, h);
    if (!clientGone) {
      fromClient.end();
      input.pause();
    }
    await drainJudging(judging, inOrder);
    return { ...status, endedBy };
  })();
  return { revisions: () => judging.revisions(), done };
}

/**
 * Each direction's copy split into lines, each line handed to the judging thread and its record
 * reported once judged, in the order the lines came.
 */
function judgedLines(options: StdioTapOptions, maxLineBytes: number) {
  const failed = (e: unknown) =>
    options.report.note(`the analysis failed: ${e instanceof Error ? e.message : String(e)}`);
  const judging = new JudgeThread(
    {
      ...(options.revision ? { revision: options.revision } : {}),
      maxLineBytes,
      schema: options.schema ?? true,
      ...(options.schemaBudgetMs !== undefined ? { schemaBudgetMs: options.schemaBudgetMs } : {}),
    },
    failed,
  );
  const inOrder = new InOrder(failed);
  const lineNo: Record<Sender, number> = { client: 0, server: 0 };
  const splitter = (from: Sender) =>
    new LineSplitter(maxLineBytes, (line) => {
      const no = ++lineNo[from];
      const at = Date.now();
      inOrder.deliver(judging.judge(line, { from }), (r) => {
        if (r) options.report.message({ from, no, where: `line ${no}`, line, kind: r.kind, defects: r.defects, at });
      });
    });
  return { judging, inOrder, fromClient: splitter("client"), fromServer: splitter("server") };
}

/** Copies each chunk as it comes, pausing only when the destination pushes back, and shows it to `splitter`. */
function copy(from: Readable, to: Writable, splitter: LineSplitter): void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    from.resume();
  };
  from.on("data", (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (!to.destroyed && !to.write(bytes) && !waiting) {
      waiting = true;
      from.pause();
      to.once("drain", resume);
    }
    splitter.push(bytes);
  });
  // a destination that went away for good must not leave the source paused forever
  to.once("close", () => {
    if (waiting) resume();
  });
}

/**
 * Lets every message judged be reported before the summary counts them. A signal meanwhile (an SDK
 * client sends SIGTERM 2 s after closing its side, and SIGKILL 2 s after that) cuts the wait short
 * instead of ending the process: what is judged is still reported, and what is left out is said.
 * A signal before it does not: it went to the server, and a client that stops its server at once
 * (the AI SDK's, mcp-proxy) would otherwise leave no record at all.
 */
async function drainJudging(judging: JudgeThread, inOrder: InOrder): Promise<void> {
  const hurry = new Hurry(FORWARDED_SIGNALS);
  try {
    await settlesWhileProgressing(
      Promise.race([inOrder.drained(), hurry.signalled]),
      () => inOrder.delivered,
      JUDGING_DRAIN.quietMs,
      JUDGING_DRAIN.capMs,
    );
    await judging.close(hurry.fired ? 0 : undefined);
    await inOrder.drained();
  } finally {
    hurry.dispose();
  }
}

/** Hears the first of `signals` while registered, instead of the process's way out. */
class Hurry {
  fired = false;
  readonly signalled: Promise<void>;
  private readonly heard: () => void;

  constructor(private readonly signals: readonly NodeJS.Signals[]) {
    let resolve!: () => void;
    this.signalled = new Promise((r) => (resolve = r));
    this.heard = () => {
      this.fired = true;
      resolve();
    };
    for (const s of signals) process.on(s, this.heard);
  }

  dispose(): void {
    for (const s of this.signals) process.off(s, this.heard);
  }
}
