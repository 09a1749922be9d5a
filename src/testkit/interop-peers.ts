/**
 * The independent MCP servers of the interop suite, one row each: how to start it, where a
 * client finds it, and one tool call whose answer shows it really ran. Adding a peer is adding a
 * row. A test helper (src/testkit/, which the package leaves out); it declares no tests.
 */
import { join } from "node:path";
import type { Endpoint } from "./interop-clients.js";
import {
  CLI,
  NODE,
  Proc,
  fixture,
  freePort,
  modulePath,
  startListening,
  startServeHttp,
  untilListening,
} from "./interop-harness.js";

export interface RunningPeer {
  endpoint: Endpoint;
  /** The arguments `mcp-wire probe` takes to reach it. */
  target: string[];
  /** Environment the stdio command needs (the probe's child inherits it). */
  env?: Record<string, string>;
  stop(): Promise<void>;
}

export interface PeerRow {
  name: string;
  transport: "stdio" | "streamable-http" | "http+sse";
  /** One call, and what its text must match. */
  call: { tool: string; args: Record<string, unknown>; expect: RegExp };
  /** `dir` is a scratch folder of the test's own. */
  start(dir: string): Promise<RunningPeer>;
  /**
   * Defect codes `probe` rightly reports on this peer (its traffic breaks a rule or a SHOULD),
   * each with the reason in a comment on the row; every other peer must probe with none.
   */
  probeDefects?: readonly string[];
}

function stdio(args: readonly string[], env?: Record<string, string>): RunningPeer {
  return {
    endpoint: { kind: "stdio", command: NODE, args, ...(env ? { env } : {}) },
    target: ["--stdio", "--", NODE, ...args],
    ...(env ? { env } : {}),
    stop: async () => undefined,
  };
}

async function http(command: string, args: readonly string[], path = "/mcp", sse = false): Promise<RunningPeer> {
  const { proc, url } = await startListening(command, args, path);
  return running(proc, url, sse);
}

function running(proc: Proc, url: string, sse = false): RunningPeer {
  return {
    endpoint: { kind: "http", url, ...(sse ? { sse } : {}) },
    target: [url],
    stop: async () => void (await proc.stop()),
  };
}

/** A server that takes its port as an argument and says nothing we can wait for: poll it. */
async function onPort(
  command: string,
  args: (port: number) => readonly string[],
  env?: Record<string, string>,
): Promise<RunningPeer> {
  const port = await freePort();
  const proc = new Proc(command, args(port), env ? { env } : {});
  const url = `http://127.0.0.1:${port}/mcp`;
  await untilListening(proc, url);
  return running(proc, url);
}

const PEERS_DIR = "peers/";
const ECHO = { tool: "echo", args: { text: "héllo, wire" }, expect: /^héllo, wire$/ };
const EVERYTHING_ECHO = { tool: "echo", args: { message: "héllo, wire" }, expect: /héllo, wire/ };
const MEMORY_READ = { tool: "read_graph", args: {}, expect: /entities/ };

export const SERVER_EVERYTHING = modulePath("@modelcontextprotocol/server-everything/dist/index.js");
const SERVER_MEMORY = modulePath("@modelcontextprotocol/server-memory/dist/index.js");
export const SERVER_FILESYSTEM = modulePath("@modelcontextprotocol/server-filesystem/dist/index.js");
const SERVER_THINKING = modulePath("@modelcontextprotocol/server-sequential-thinking/dist/index.js");
export const MCP_PROXY = modulePath("mcp-proxy/dist/bin/mcp-proxy.mjs");

/** server-memory keeps its graph in a file; never the one inside the shared install. */
const memoryEnv = (dir: string): Record<string, string> => ({ MEMORY_FILE_PATH: join(dir, "memory.jsonl") });

export const PEERS: readonly PeerRow[] = [
  {
    name: "tmcp stdio",
    transport: "stdio",
    call: ECHO,
    start: async () => stdio([fixture(`${PEERS_DIR}tmcp.mjs`), "stdio"]),
  },
  {
    name: "tmcp http",
    transport: "streamable-http",
    call: ECHO,
    start: () => http(NODE, [fixture(`${PEERS_DIR}tmcp.mjs`), "http"]),
  },
  {
    name: "mcp-lite stateless",
    transport: "streamable-http",
    call: ECHO,
    start: () => http(NODE, [fixture(`${PEERS_DIR}mcp-lite.mjs`), "stateless"]),
  },
  {
    name: "mcp-lite sessions",
    transport: "streamable-http",
    call: ECHO,
    start: () => http(NODE, [fixture(`${PEERS_DIR}mcp-lite.mjs`), "sessions"]),
  },
  {
    name: "fastmcp stdio",
    transport: "stdio",
    call: ECHO,
    start: async () => stdio([fixture(`${PEERS_DIR}fastmcp.mjs`), "stdio"]),
  },
  {
    name: "fastmcp httpStream",
    transport: "streamable-http",
    call: ECHO,
    start: () => onPort(NODE, (port) => [fixture(`${PEERS_DIR}fastmcp.mjs`), "httpStream", String(port)]),
  },
  {
    name: "fastmcp stateless",
    transport: "streamable-http",
    call: ECHO,
    start: () => onPort(NODE, (port) => [fixture(`${PEERS_DIR}fastmcp.mjs`), "stateless", String(port)]),
  },
  {
    name: "server-filesystem stdio",
    transport: "stdio",
    call: { tool: "list_allowed_directories", args: {}, expect: /Allowed directories/i },
    start: async (dir) => stdio([SERVER_FILESYSTEM, dir]),
  },
  {
    name: "server-memory stdio",
    transport: "stdio",
    call: MEMORY_READ,
    start: async (dir) => stdio([SERVER_MEMORY], memoryEnv(dir)),
  },
  {
    name: "server-sequential-thinking stdio",
    transport: "stdio",
    call: {
      tool: "sequentialthinking",
      args: { thought: "one step", thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
      expect: /thoughtNumber/,
    },
    start: async () => stdio([SERVER_THINKING]),
  },
  {
    name: "server-everything stdio",
    transport: "stdio",
    call: EVERYTHING_ECHO,
    start: async () => stdio([SERVER_EVERYTHING, "stdio"]),
  },
  {
    name: "server-everything streamableHttp",
    transport: "streamable-http",
    call: EVERYTHING_ECHO,
    start: () => http(NODE, [fixture("everything-http.mjs"), "streamable"]),
  },
  {
    name: "server-everything sse",
    transport: "http+sse",
    call: EVERYTHING_ECHO,
    start: () => http(NODE, [fixture("everything-http.mjs"), "sse"], "/sse", true),
  },
  {
    name: "mcp-proxy (stream) → server-memory",
    transport: "streamable-http",
    call: MEMORY_READ,
    start: (dir) =>
      onPort(
        NODE,
        (port) => [
          MCP_PROXY,
          "--host",
          "127.0.0.1",
          "--port",
          String(port),
          "--server",
          "stream",
          "--",
          NODE,
          SERVER_MEMORY,
        ],
        memoryEnv(dir),
      ),
  },
  {
    name: "SDK v2 server stdio (dual)",
    transport: "stdio",
    call: ECHO,
    start: async () => stdio([fixture("v2-sdk-server.mjs"), "dual"]),
  },
  {
    name: "SDK v2 server http (dual)",
    transport: "streamable-http",
    call: ECHO,
    start: () => http(NODE, [fixture("v2-sdk-http-server.mjs"), "dual"]),
  },
];

/** mcp-wire's own server, for the clients we did not write. */
export const SERVE: readonly PeerRow[] = [
  {
    name: "mcp-wire serve --stdio",
    transport: "stdio",
    call: ECHO,
    start: async () => stdio([CLI, "serve", "--stdio"]),
  },
  {
    name: "mcp-wire serve --http",
    transport: "streamable-http",
    call: ECHO,
    start: async () => {
      const { proc, url } = await startServeHttp();
      return running(proc, url);
    },
  },
];

/** The peers `npm test` checks (fast ones, one stdio, one HTTP); `npm run interop` has the rest. */
export const QUICK: readonly string[] = ["tmcp stdio", "mcp-lite stateless"];

export function peer(name: string): PeerRow {
  const row = [...PEERS, ...SERVE].find((p) => p.name === name);
  if (!row) throw new Error(`no interop peer named ${name}`);
  return row;
}
