/**
 * The MCP clients of the interop suite behind one small interface: the official SDK v1 and v2
 * clients, the AI SDK's own client (its JSON-RPC code is not the SDK's), and mcp-wire's own
 * (McpClient over a child process, connectHttp). A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { closeSync, openSync, readFileSync } from "node:fs";
import type { Stream } from "node:stream";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport as V1Sse } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  Client as V2Client,
  SSEClientTransport as V2Sse,
  StreamableHTTPClientTransport as V2Http,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as AiStdio } from "@ai-sdk/mcp/mcp-stdio";
// mcp-wire as its users import it
import type { JsonObject } from "../index.js";
import { ChildServer, McpClient, connectHttp } from "../entry/client.js";
import { STEP_MS, within } from "./interop-harness.js";

/** Where a client finds its server: a command it starts, or a URL. */
export type Endpoint =
  | { kind: "stdio"; command: string; args: readonly string[]; env?: Record<string, string>; stderrPath?: string }
  | { kind: "http"; url: string; sse?: boolean };

export type ClientName = "sdk-v1" | "sdk-v2" | "ai-sdk" | "mcp-wire";

/** What every client can do, reduced to what the matrix checks. */
export interface InteropClient {
  listTools(): Promise<string[]>;
  /** The text of the first content block, and whether the server said the call failed. */
  callTool(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
  /** The server's stderr, for a stdio endpoint (the tap's own, when the tap is the command). */
  stderr(): string;
  /** Anything the client reported as wrong on the side: stray messages, parse failures. */
  readonly errors: string[];
}

interface Content {
  type: string;
  text?: string;
}

function firstText(result: object): { text: string; isError: boolean } {
  const r = result as { content?: unknown; isError?: unknown };
  const content = (Array.isArray(r.content) ? r.content : []) as Content[];
  const text = content.find((c) => c.type === "text")?.text ?? "";
  return { text, isError: r.isError === true };
}

function env(extra?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return { ...out, ...extra };
}

interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  stderr: "pipe";
}

/** Either SDK generation's transport for `endpoint`; a stdio server's stderr is collected. */
function sdkTransport<S extends { stderr: Stream | null }, H>(
  endpoint: Endpoint,
  stdio: (params: StdioParams) => S,
  http: (url: URL, sse: boolean) => H,
): { transport: S | H; stderr: () => string } {
  if (endpoint.kind === "http")
    return { transport: http(new URL(endpoint.url), endpoint.sse === true), stderr: () => "" };
  let text = "";
  const transport = stdio({
    command: endpoint.command,
    args: [...endpoint.args],
    env: env(endpoint.env),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (b: Buffer) => (text += b.toString("utf8")));
  return { transport, stderr: () => text };
}

const INFO = { name: "mcp-wire-interop", version: "1.0.0" };

async function sdkV1(endpoint: Endpoint): Promise<InteropClient> {
  const errors: string[] = [];
  const { transport, stderr } = sdkTransport(
    endpoint,
    (params) => new V1Stdio(params),
    (url, sse) => (sse ? new V1Sse(url) : new V1Http(url)),
  );
  const client = new V1Client(INFO);
  client.onerror = (e) => errors.push(String(e?.message ?? e));
  await within(client.connect(transport, { timeout: STEP_MS }), "SDK v1 connect");
  return {
    listTools: async () => (await client.listTools(undefined, { timeout: STEP_MS })).tools.map((t) => t.name),
    callTool: async (name, args) =>
      firstText(await client.callTool({ name, arguments: args }, undefined, { timeout: STEP_MS })),
    close: () => client.close(),
    stderr,
    errors,
  };
}

async function sdkV2(endpoint: Endpoint): Promise<InteropClient> {
  const errors: string[] = [];
  const { transport, stderr } = sdkTransport(
    endpoint,
    (params) => new V2Stdio(params),
    (url, sse) => (sse ? new V2Sse(url) : new V2Http(url)),
  );
  // `auto`: server/discover first, the handshake if that is refused, as a dual-era client does
  const client = new V2Client(INFO, { versionNegotiation: { mode: "auto", probe: { timeoutMs: STEP_MS } } });
  client.onerror = (e) => errors.push(String(e?.message ?? e));
  await within(client.connect(transport, { timeout: STEP_MS }), "SDK v2 connect");
  return {
    listTools: async () => (await client.listTools(undefined, { timeout: STEP_MS })).tools.map((t) => t.name),
    callTool: async (name, args) => firstText(await client.callTool({ name, arguments: args }, { timeout: STEP_MS })),
    close: () => client.close(),
    stderr,
    errors,
  };
}

async function aiSdk(endpoint: Endpoint): Promise<InteropClient> {
  const errors: string[] = [];
  // this transport keeps no stderr of its own: a file takes it, when the caller gave one
  const stderrPath = endpoint.kind === "stdio" ? endpoint.stderrPath : undefined;
  const fd = stderrPath ? openSync(stderrPath, "w") : undefined;
  const transport =
    endpoint.kind === "stdio"
      ? new AiStdio({
          command: endpoint.command,
          args: [...endpoint.args],
          env: env(endpoint.env),
          stderr: fd ?? "ignore",
        })
      : { type: endpoint.sse ? ("sse" as const) : ("http" as const), url: endpoint.url };
  const client = await within(
    createMCPClient({ transport, name: INFO.name, onUncaughtError: (e: unknown) => errors.push(String(e)) }),
    "AI SDK connect",
  );
  return {
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    callTool: async (name, args) => {
      const tools = await client.tools();
      const tool = tools[name];
      if (!tool?.execute) throw new Error(`the AI SDK client offers no ${name}`);
      return firstText(
        (await within(
          Promise.resolve(tool.execute(args, { toolCallId: "interop-1", messages: [] })),
          `AI SDK ${name}`,
        )) as { content?: unknown; isError?: unknown },
      );
    },
    close: async () => {
      await client.close();
      if (fd !== undefined) closeSync(fd);
    },
    stderr: () => (stderrPath ? readFileSync(stderrPath, "utf8") : ""),
    errors,
  };
}

async function mcpWire(endpoint: Endpoint): Promise<InteropClient> {
  let child: ChildServer | undefined;
  let client: McpClient;
  if (endpoint.kind === "stdio") {
    const connector = () => {
      child = new ChildServer(endpoint.command, endpoint.args, { env: env(endpoint.env) });
      return child.transport;
    };
    client = await within(
      McpClient.connect(connector, { clientInfo: INFO, timeout: STEP_MS, probeTimeout: STEP_MS }),
      "McpClient.connect",
    );
  } else {
    client = (
      await within(
        connectHttp(endpoint.url, {
          clientInfo: INFO,
          timeout: STEP_MS,
          fresh: true,
          ...(endpoint.sse ? { transport: "http+sse" as const } : {}),
        }),
        "connectHttp",
      )
    ).client;
  }
  return {
    listTools: async () => (await client.listTools({ timeout: STEP_MS })).map((t) => t.name),
    callTool: async (name, args) => firstText(await client.callTool(name, args as JsonObject, { timeout: STEP_MS })),
    close: async () => {
      await client.close().catch(() => undefined);
      await child?.shutdown(2000);
    },
    stderr: () => child?.stderrTail() ?? "",
    errors: [],
  };
}

const CLIENTS: Record<ClientName, (endpoint: Endpoint) => Promise<InteropClient>> = {
  "sdk-v1": sdkV1,
  "sdk-v2": sdkV2,
  "ai-sdk": aiSdk,
  "mcp-wire": mcpWire,
};

export function connectClient(name: ClientName, endpoint: Endpoint): Promise<InteropClient> {
  return CLIENTS[name](endpoint);
}
