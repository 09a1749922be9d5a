/**
 * What the recording tests share: one session of an official SDK client (tools, a call,
 * progress, a sampling request of the server's) reduced to what must come out the same from a
 * real server and from a mock of its recording. A test helper, not shipped.
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport as V1Sse } from "@modelcontextprotocol/sdk/client/sse.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as V2Client,
  SSEClientTransport as V2Sse,
  StreamableHTTPClientTransport as V2Http,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { CLI, STEP_MS, within } from "./mcp-interop.js";
import { startPrinting, untilRecorded } from "./tap.js";

export type SdkEndpoint = { stdio: readonly string[] } | { url: string; sse?: boolean };

/** What a session saw: the tool names, echo's answer, how many progress notifications, the sampling tool's text and whether the client was asked. */
export interface SessionSeen {
  tools: string[];
  echo: unknown;
  progress: number;
  sampled: unknown;
  asked: number;
}

const SAMPLED = { model: "m", role: "assistant" as const, content: { type: "text" as const, text: "sampled" } };

/**
 * One session of the SDK v1 (`v1`) or v2 client against server-everything or a mock of it. With
 * `recording`, the file a `tap --log` in between writes: the session is closed only once the
 * last answer is in it (see `untilRecorded`).
 */
export async function everythingSession(
  sdk: "v1" | "v2",
  endpoint: SdkEndpoint,
  recording?: string,
): Promise<SessionSeen> {
  const seen: SessionSeen = { tools: [], echo: undefined, progress: 0, sampled: undefined, asked: 0 };
  const info = { name: "mcp-wire-recordings", version: "1.0.0" };
  const options = { capabilities: { sampling: {} } };
  const client = sdk === "v1" ? new V1Client(info, options) : new V2Client(info, options);
  const handler = async () => {
    seen.asked++;
    return SAMPLED;
  };
  if (sdk === "v1") (client as V1Client).setRequestHandler(CreateMessageRequestSchema, handler);
  else (client as V2Client).setRequestHandler("sampling/createMessage", handler);
  const transport =
    "stdio" in endpoint
      ? new (sdk === "v1" ? V1Stdio : V2Stdio)({
          command: process.execPath,
          args: [...endpoint.stdio],
          stderr: "ignore",
        })
      : new (endpoint.sse ? (sdk === "v1" ? V1Sse : V2Sse) : sdk === "v1" ? V1Http : V2Http)(new URL(endpoint.url));
  await within((client as V1Client).connect(transport as never), `SDK ${sdk} connect`);
  const c = client as V1Client;
  seen.tools = (await within(c.listTools(), "tools/list")).tools.map((t) => t.name).sort();
  seen.echo = await within(c.callTool({ name: "echo", arguments: { message: "hi" } }), "echo");
  const long = { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } };
  const onprogress = () => void seen.progress++;
  // v2 takes the options second, v1 third (after a result schema)
  await within(
    sdk === "v1"
      ? (c.callTool(long, undefined, { onprogress, timeout: STEP_MS }) as Promise<unknown>)
      : ((client as V2Client).callTool(long, { onprogress, timeout: STEP_MS }) as Promise<unknown>),
    "the long-running operation",
  );
  seen.sampled = await within(
    c.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } }),
    "the sampling request",
  );
  if (recording !== undefined)
    await untilRecorded(
      recording,
      (r) => r.from === "server" && r.line.includes('"result"') && r.line.includes("sampled"),
      "the sampling tool's answer",
    );
  await c.close();
  return seen;
}

/**
 * `session` run against `mcp-wire tap --listen 0 --upstream <upstream> --log <log>` (the tap's URL
 * with the upstream's path), the tap ended with SIGINT once it is done so the log is complete.
 */
export async function throughHttpTap<T>(
  upstream: string,
  log: string,
  session: (url: string) => Promise<T>,
): Promise<T> {
  const tap = await startPrinting(
    [CLI, "tap", "--listen", "0", "--upstream", upstream, "--log", log],
    /listening on (http:\/\/\S+)/,
  );
  const exited = new Promise<void>((resolve) => tap.child.once("exit", () => resolve()));
  try {
    const url = new URL(tap.url);
    url.pathname = new URL(upstream).pathname;
    return await session(url.href);
  } finally {
    tap.child.kill("SIGINT");
    await within(exited, "the tap to exit on SIGINT").catch(() => tap.stop());
  }
}
