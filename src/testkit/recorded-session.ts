/**
 * One session of a real client — the official SDK v1 or v2 client, or `@ai-sdk/mcp` — reduced to
 * what must come out the same from a real server and from `mock` of its recording: the tool
 * names, a call's result, a call that reports progress (and how much came), and a call during
 * which the server asks the client (`elicitation/create`, declined). Every client declares the
 * same capabilities, so a server that lists tools by them lists the same to each. A test helper,
 * not shipped.
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport as V1Sse } from "@modelcontextprotocol/sdk/client/sse.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as V2Client,
  SSEClientTransport as V2Sse,
  StreamableHTTPClientTransport as V2Http,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { createMCPClient, ElicitationRequestSchema } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as AiStdio } from "@ai-sdk/mcp/mcp-stdio";
import type { Endpoint } from "./interop-clients.js";
import { STEP_MS, within } from "./mcp-interop.js";

export type RecordedClient = "sdk-v1" | "sdk-v2" | "ai-sdk";

/** The calls of a session, as a server names its tools. */
export interface SessionPlan {
  echo: { tool: string; args: Record<string, unknown> };
  /** A call that reports progress when the request carries a token. */
  progress: { tool: string; args: Record<string, unknown> };
  /** A call during which the server sends `elicitation/create` to the client. */
  ask: { tool: string; args: Record<string, unknown> };
}

export interface Seen {
  tools: string[];
  echo: unknown;
  /** The progress call's result. */
  long: unknown;
  /** Progress notifications the client handed to its callback (the AI SDK client takes none). */
  progress: number;
  ask: unknown;
  /** How many times the server asked the client. */
  asked: number;
}

const INFO = { name: "mcp-wire-recordings", version: "1.0.0" };
const CAPABILITIES = { elicitation: {} };
/** What every client answers the server's question with. */
const DECLINE = { action: "decline" as const };

function env(extra?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return { ...out, ...extra };
}

/** The parts of a result that must match: its content, structured content and error flag. */
function essence(result: unknown): unknown {
  const r = result as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  return {
    content: r.content,
    ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
    isError: r.isError === true,
  };
}

/** One session of `client` against `endpoint`, following `plan`. */
export function recordedSession(client: RecordedClient, endpoint: Endpoint, plan: SessionPlan): Promise<Seen> {
  return client === "ai-sdk" ? aiSession(endpoint, plan) : sdkSession(client, endpoint, plan);
}

async function sdkSession(sdk: "sdk-v1" | "sdk-v2", endpoint: Endpoint, plan: SessionPlan): Promise<Seen> {
  const seen: Seen = { tools: [], echo: undefined, long: undefined, progress: 0, ask: undefined, asked: 0 };
  const v1 = sdk === "sdk-v1";
  const client = v1
    ? new V1Client(INFO, { capabilities: CAPABILITIES })
    : new V2Client(INFO, { capabilities: CAPABILITIES });
  const handler = async () => {
    seen.asked++;
    return DECLINE;
  };
  if (v1) (client as V1Client).setRequestHandler(ElicitRequestSchema, handler);
  else (client as V2Client).setRequestHandler("elicitation/create", handler);
  const transport =
    endpoint.kind === "stdio"
      ? new (v1 ? V1Stdio : V2Stdio)({
          command: endpoint.command,
          args: [...endpoint.args],
          env: env(endpoint.env),
          stderr: "ignore",
        })
      : new (endpoint.sse ? (v1 ? V1Sse : V2Sse) : v1 ? V1Http : V2Http)(new URL(endpoint.url));
  await within((client as V1Client).connect(transport as never), `${sdk} connect`);
  const c = client as V1Client;
  try {
    seen.tools = (await within(c.listTools(), `${sdk} tools/list`)).tools.map((t) => t.name).sort();
    const call = (p: SessionPlan["echo"]) => ({ name: p.tool, arguments: p.args });
    seen.echo = essence(await within(c.callTool(call(plan.echo)), `${sdk} ${plan.echo.tool}`));
    const onprogress = () => void seen.progress++;
    // v2 takes the options second, v1 third (after a result schema)
    const long = v1
      ? (c.callTool(call(plan.progress), undefined, { onprogress, timeout: STEP_MS }) as Promise<unknown>)
      : ((client as V2Client).callTool(call(plan.progress), { onprogress, timeout: STEP_MS }) as Promise<unknown>);
    seen.long = essence(await within(long, `${sdk} ${plan.progress.tool}`));
    seen.ask = essence(await within(c.callTool(call(plan.ask)), `${sdk} ${plan.ask.tool}`));
  } finally {
    await c.close();
  }
  return seen;
}

async function aiSession(endpoint: Endpoint, plan: SessionPlan): Promise<Seen> {
  const seen: Seen = { tools: [], echo: undefined, long: undefined, progress: 0, ask: undefined, asked: 0 };
  const transport =
    endpoint.kind === "stdio"
      ? new AiStdio({ command: endpoint.command, args: [...endpoint.args], env: env(endpoint.env), stderr: "ignore" })
      : { type: endpoint.sse ? ("sse" as const) : ("http" as const), url: endpoint.url };
  const client = await within(
    createMCPClient({ transport, clientName: INFO.name, capabilities: CAPABILITIES }),
    "ai-sdk connect",
  );
  try {
    client.onElicitationRequest(ElicitationRequestSchema, () => {
      seen.asked++;
      return DECLINE;
    });
    seen.tools = (await within(client.listTools(), "ai-sdk tools/list")).tools.map((t) => t.name).sort();
    const tools = await within(client.tools(), "ai-sdk tools");
    const call = async (p: SessionPlan["echo"]) => {
      const tool = tools[p.tool];
      if (!tool?.execute) throw new Error(`the AI SDK client offers no ${p.tool}`);
      const result = await within(
        Promise.resolve(tool.execute(p.args, { toolCallId: `recorded-${p.tool}`, messages: [] })),
        `ai-sdk ${p.tool}`,
      );
      return essence(result);
    };
    seen.echo = await call(plan.echo);
    seen.long = await call(plan.progress);
    seen.ask = await call(plan.ask);
  } finally {
    await client.close();
  }
  return seen;
}
