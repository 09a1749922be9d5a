/**
 * `mcp-wire mock <recording>`: serves a recording as a server, over stdio (the default) or HTTP
 * (`--listen [HOST:]PORT`), until the client leaves (stdin closed), a signal, or `--sessions N`.
 * What no recording answered is listed on stderr; with `--strict` it makes the exit status 1.
 */
import type { MatchMode } from "../mock/match.js";
import type { UnmatchedRequest } from "../mock/player.js";
import { RecordingError } from "../recording/errors.js";
import { FOUND_PROBLEMS, OK, usageError } from "./exit.js";
import { cannotListen } from "./listen-error.js";
import { wholeNumber } from "./numbers.js";
import { writeErr, writeOut } from "./output.js";
import { STOP_SIGNALS } from "./signals.js";

export interface MockCliOptions {
  stdio?: boolean;
  listen?: string;
  match?: MatchMode;
  strict?: boolean;
  sessions?: string;
}

function usage(message: string): number {
  return usageError("mock", message);
}

/** `[HOST:]PORT`: the host defaults to 127.0.0.1. */
function listenAddress(raw: string): { host: string; port: number } | { error: string } {
  const m = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d+)$/.exec(raw.trim());
  const port = wholeNumber("--listen", m?.[3] ?? raw, 0, 65535, "a port number", "0: any free one, [HOST:]PORT");
  if (typeof port !== "number") return port;
  return { host: m?.[1] ?? m?.[2] ?? "127.0.0.1", port };
}

export async function runMock(file: string, opts: MockCliOptions): Promise<number> {
  if (opts.stdio && opts.listen !== undefined) return usage("--stdio and --listen are two ways to serve: pick one");
  if (opts.sessions !== undefined && opts.listen === undefined)
    return usage(
      "--sessions counts HTTP sessions: it goes with --listen (over stdio the one client's leaving ends the mock)",
    );
  let sessions: number | undefined;
  if (opts.sessions !== undefined) {
    const n = wholeNumber("--sessions", opts.sessions, 1, 1_000_000, "a number of sessions");
    if (typeof n !== "number") return usage(n.error);
    sessions = n;
  }
  const address = opts.listen !== undefined ? listenAddress(opts.listen) : undefined;
  if (address && "error" in address) return usage(address.error);
  const { openScript } = await import("../mock/script.js");
  const { MockPlayer } = await import("../mock/player.js");
  let player;
  try {
    player = new MockPlayer(await openScript(file), opts.match ?? "exact");
  } catch (e) {
    if (e instanceof RecordingError) return usage(`cannot play ${e.message}`);
    throw e;
  }
  // the mock answers while the rest of the file is read: what it holds wrong ends the mock
  const script = player.script;
  const broken = (async () => {
    while (!script.complete) await script.more();
    return new Promise<never>(() => undefined);
  })();
  try {
    return await Promise.race([broken, serve(player, address, sessions, opts)]);
  } catch (e) {
    if (e instanceof RecordingError) return usage(`cannot play ${e.message}`);
    throw e;
  }
}

async function serve(
  player: InstanceType<typeof import("../mock/player.js").MockPlayer>,
  address: { host: string; port: number } | undefined,
  sessions: number | undefined,
  opts: MockCliOptions,
): Promise<number> {
  if (!address) {
    const { playOverStream } = await import("../mock/stdio.js");
    process.stdout.removeAllListeners("error");
    process.stdout.on("error", () => undefined);
    await playOverStream(player, process.stdin, process.stdout);
    // a client that left before the file was all read: the exit status says whether it was sound
    while (!player.script.complete) await player.script.more();
    return finish(player.unmatched, opts.strict === true);
  }
  const { MockHttpServer } = await import("../mock/http.js");
  let ended = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const server = new MockHttpServer(player, {
    host: address.host,
    port: address.port,
    sessionEnded: () => {
      if (sessions !== undefined && ++ended >= sessions) stop();
    },
  });
  try {
    await server.listen();
  } catch (e) {
    return usage(cannotListen(address.host, address.port, e));
  }
  await writeOut(server.url + "\n");
  for (const s of STOP_SIGNALS) process.on(s, stop);
  await stopped;
  for (const s of STOP_SIGNALS) process.off(s, stop);
  await server.close();
  return finish(player.unmatched, opts.strict === true);
}

function finish(unmatched: readonly UnmatchedRequest[], strict: boolean): number {
  if (unmatched.length > 0) {
    writeErr(
      `mcp-wire mock: ${unmatched.length} request${unmatched.length === 1 ? "" : "s"} had no recorded answer:\n`,
    );
    for (const u of unmatched.slice(0, 20))
      writeErr(`  ${u.method} ${u.params}${u.closest !== undefined ? ` (closest recorded: ${u.closest})` : ""}\n`);
  }
  return strict && unmatched.length > 0 ? FOUND_PROBLEMS : OK;
}
