/**
 * `mcp-wire tap`: between a client and a stdio server (`tap -- <command> [args…]`), or as a
 * reverse proxy in front of a Streamable HTTP server (`tap --listen PORT --upstream URL`).
 * Reports on stderr (or to `--log FILE`) and never changes a byte of the conversation.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import type { Revision } from "../rules/revisions.js";
import { TapReport } from "../tap/report.js";
import { usageError } from "./exit.js";
import { cannotWrite } from "./file-errors.js";
import { cannotListen } from "./listen-error.js";
import { wholeNumber } from "./numbers.js";
import { serverUrl } from "./target-url.js";
import { untilStopped } from "./signals.js";

export interface TapCliOptions {
  log?: string;
  revision?: Revision;
  listen?: string;
  upstream?: string;
  /** false with `--no-schema`: no schema validation (docs/schema.md). */
  schema?: boolean;
}

function usage(message: string): number {
  return usageError("tap", message);
}

async function openLog(file: string): Promise<WriteStream | Error> {
  const log = createWriteStream(file, { flags: "w" });
  return new Promise((resolve) => {
    log.once("open", () => resolve(log)).once("error", resolve);
  });
}

export async function runTap(command: readonly string[], opts: TapCliOptions): Promise<number> {
  const http = opts.listen !== undefined || opts.upstream !== undefined;
  if (http && command.length > 0)
    return usage("either a server command after --, or --listen with --upstream, not both");
  if (http && (opts.listen === undefined || opts.upstream === undefined))
    return usage("--listen and --upstream go together");
  if (!http && command.length === 0)
    return usage("say which server to run: mcp-wire tap [--log FILE] -- <command> [args…]");
  let port = 0;
  if (opts.listen !== undefined) {
    const n = wholeNumber("--listen", opts.listen, 0, 65535, "a port number", "0: any free one");
    if (typeof n !== "number") return usage(n.error);
    port = n;
  }
  if (opts.upstream !== undefined) {
    const url = serverUrl(opts.upstream);
    if (!(url instanceof URL)) return usage(`--upstream takes an http:// or https:// URL: ${url.error}`);
  }
  let log: WriteStream | undefined;
  if (opts.log !== undefined) {
    const opened = await openLog(opts.log);
    if (opened instanceof Error) return usage(cannotWrite(opts.log, opened));
    log = opened;
  }
  const report = new TapReport({
    live: process.stderr,
    ...(log ? { log, transport: http ? ("streamable-http" as const) : ("stdio" as const) } : {}),
  });
  const schema = opts.schema !== false;
  return http
    ? tapHttp(port, opts.upstream!, opts.revision, report, schema)
    : tapStdio(command, opts.revision, report, schema);
}

async function tapStdio(
  command: readonly string[],
  revision: Revision | undefined,
  report: TapReport,
  schema: boolean,
): Promise<number> {
  const { exitCodeOf, runStdioTap } = await import("../tap/stdio-tap.js");
  // our stdout is the client's pipe: when the client stops reading, the session ends and the
  // server is shut down, rather than the whole process exiting as other commands do on EPIPE
  process.stdout.removeAllListeners("error");
  const { revisions, done } = runStdioTap({
    command: command[0]!,
    args: command.slice(1),
    report,
    schema,
    ...(revision ? { revision } : {}),
  });
  const exit = await done;
  if (exit.error) {
    report.note(
      `cannot start ${JSON.stringify(command[0])}: ${(exit.error as NodeJS.ErrnoException).code ?? exit.error.message}`,
    );
  } else {
    process.stderr.write(report.summary(revisions()));
    report.note(
      `${exit.endedBy === "client" ? "the client closed the session; " : ""}the server ${exit.signal ? `ended by ${exit.signal}` : `exited with code ${exit.code}`}`,
    );
  }
  await report.close();
  await flushStdout();
  // stdin may still be open (the server ended first): nothing else would let the process end
  process.exit(exitCodeOf(exit));
}

async function tapHttp(
  port: number,
  upstream: string,
  revision: Revision | undefined,
  report: TapReport,
  schema: boolean,
): Promise<number> {
  const { startHttpTap, shown } = await import("../tap/http-tap.js");
  let tap;
  try {
    tap = await startHttpTap({ upstream, port, report, schema, ...(revision ? { revision } : {}) });
  } catch (e) {
    await report.close();
    return usage(cannotListen("127.0.0.1", port, e));
  }
  report.note(`listening on ${tap.url} → ${shown(upstream)}`);
  await untilStopped();
  await tap.close();
  process.stderr.write(report.summary(tap.revisions()));
  await report.close();
  return 0;
}

/** Resolves once what was written to stdout has been handed to the system, or it is gone. */
function flushStdout(): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.destroyed || process.stdout.writableEnded) return resolve();
    const timer = setTimeout(resolve, 1000);
    process.stdout.write("", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
