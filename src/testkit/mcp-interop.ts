/**
 * Helpers shared by the interop tests (real peers over real stdio pipes). A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { fileURLToPath } from "node:url";
import type { Transport } from "../peer/transport.js";
import { within as settled } from "./within.js";
import { ChildServer } from "../transport/child.js";

/** The built `mcp-wire` command: `node CLI serve --stdio` runs the reference server. */
export const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
export const SERVE_ARGS: readonly string[] = [CLI, "serve", "--stdio"];
/** The v2 SDK server fixture; its one argument picks the eras: dual, legacy, modern. */
export const V2_SDK_SERVER = fileURLToPath(new URL("../../../test/fixtures/v2-sdk-server.mjs", import.meta.url));
/** A legacy server that exits on any message before `initialize`, like servers built on rmcp. */
export const EXIT_BEFORE_INITIALIZE_SERVER = fileURLToPath(
  new URL("../../../test/fixtures/exit-before-initialize-server.mjs", import.meta.url),
);
export const SERVER_EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** Deadline for one step of a test; generous, since only a hang should ever reach it. */
export const STEP_MS = 15_000;

/** `promise`, or a rejection naming `what` once `ms` (a step's deadline by default) have passed. */
export function within<T>(promise: Promise<T>, what: string, ms = STEP_MS): Promise<T> {
  return settled(promise, what, ms);
}

/** Resolves once `condition()` holds; rejects naming `what` if it still does not after `ms`. */
export async function until(condition: () => boolean, what: string, ms = STEP_MS): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error(`${what}: still not true after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A resolvable promise, for "the first progress notification has arrived". */
export function signal(): { promise: Promise<void>; fire(): void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/**
 * Spawns stdio servers for `McpClient.connect` and keeps every one it started, so a test can
 * look at them (how many, their stderr) and shut them all down at the end.
 */
export class Spawner {
  readonly children: ChildServer[] = [];
  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
  ) {}

  readonly connector = (): Transport => {
    const child = new ChildServer(this.command, this.args);
    this.children.push(child);
    return child.transport;
  };

  get last(): ChildServer {
    const child = this.children.at(-1);
    if (!child) throw new Error("no server was spawned");
    return child;
  }

  stderr(): string {
    return this.children.map((c) => c.stderrTail()).join("");
  }

  /** Shuts every child down, quickly: these servers all exit when their input closes. */
  async shutdown(): Promise<void> {
    await Promise.all(this.children.map((c) => c.shutdown(1000)));
  }
}
