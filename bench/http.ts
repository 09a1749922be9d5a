/**
 * HTTP round trips on loopback: how many `tools/call` of a trivial `echo` tool a client gets
 * answered per second over Streamable HTTP on 127.0.0.1, calls awaited one after another,
 * mcp-wire client ↔ server against the official SDKs' client ↔ server, with JSON answers and
 * with SSE answers; and, as the limit of this runtime, a bare exchange with no MCP at all:
 * `fetch` POSTing a small JSON body to a `node:http` server that answers a fixed small JSON,
 * and the same with a bare `node:http` client request. Each side of mcp-wire is also measured
 * alone against the bare other side, and a bare client sends the very MCP requests to the bare
 * server: what MCP's bytes and headers cost with no library at all.
 *
 * Every server runs in this process, each on its own node:http server bound to 127.0.0.1
 * port 0 (so every client has its own keep-alive pool), and every one is closed at the end,
 * also when the run fails. Every contender is one live connection, opened and checked with a
 * non-ASCII echo before timing; every echoed text is compared with the text sent and counted
 * in a sink printed at the end.
 *
 * SSE: mcp-wire's server answers JSON unless the handler sends something before its result,
 * so its SSE contenders call the reference server's `progress` tool (steps 1, intervalMs 0)
 * with onProgress: one progress notification, then the result, on one SSE stream (and each
 * call checks that exactly one progress arrived). The SDKs answer SSE for a plain echo when
 * told to (v1/v2 legacy without enableJsonResponse, v2 2026 with responseMode "sse"), so their
 * SSE contenders carry one message less per call than mcp-wire's.
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport as V1HttpServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpClientTransport,
} from "@modelcontextprotocol/client";
import {
  McpServer as V2McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  fromJsonSchema,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { connectHttp, type McpClient } from "../src/entry/client.js";
import { createHttpHandler } from "../src/entry/http.js";
import { createReferenceServer } from "../src/entry/server.js";
import {
  checkTargets,
  echoed,
  fmtRate,
  fmtRatio,
  formatTargets,
  loadLine,
  measure,
  ratio,
  table,
  within,
  type Benchmark,
  type Contender,
  type Measurement,
  type Target,
} from "./harness.js";

/** Calls per pass, awaited one after another. */
const CALLS = 16;
const TEXTS: readonly string[] = Array.from({ length: CALLS }, (_, i) => `echo ${i}`);
const CHECK_TEXT = "round trip ✓ héllo";
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const HOST = "127.0.0.1";
// Contender names
const BARE_FETCH = "bare fetch + node:http";
const BARE_NODE = "bare node:http client";
const WIRE_MODERN_JSON = "mcp-wire 2026, JSON";
const WIRE_LEGACY_JSON = "mcp-wire legacy, JSON";
const WIRE_MODERN_SSE = "mcp-wire 2026, SSE";
const WIRE_LEGACY_SSE = "mcp-wire legacy, SSE";
const V1_JSON = "SDK v1 legacy, JSON";
const V1_SSE = "SDK v1 legacy, SSE";
const V2_LEGACY_JSON = "SDK v2 legacy, JSON";
const V2_LEGACY_SSE = "SDK v2 legacy, SSE";
const V2_MODERN_JSON = "SDK v2 2026, JSON";
const V2_MODERN_SSE = "SDK v2 2026, SSE";
const CLIENT_MODERN_JSON = "mcp-wire client 2026 → bare server, JSON";
const CLIENT_LEGACY_JSON = "mcp-wire client legacy → bare server, JSON";
const CLIENT_MODERN_SSE = "mcp-wire client 2026 → bare server, SSE";
const CLIENT_LEGACY_SSE = "mcp-wire client legacy → bare server, SSE";
const SERVER_MODERN_JSON = "bare client → mcp-wire server 2026, JSON";
const SERVER_LEGACY_JSON = "bare client → mcp-wire server legacy, JSON";
const SERVER_MODERN_SSE = "bare client → mcp-wire server 2026, SSE";
const SERVER_LEGACY_SSE = "bare client → mcp-wire server legacy, SSE";
const BARE_MCP_MODERN = "bare client → bare server, MCP 2026 bytes";
const BARE_MCP_LEGACY = "bare client → bare server, MCP legacy bytes";

/**
 * mcp-wire ≥ 2× the v2 SDK, like for like by era, and ≥ 0.8× the bare fetch exchange. The
 * ceiling shown is the bare node:http client: mcp-wire's HTTP client runs on node:http
 * (src/transport/http/fetch.ts), so that, not fetch, is the most any of its round trips can reach.
 */
const TARGETS: readonly Target[] = [
  { of: WIRE_MODERN_JSON, versus: V2_MODERN_JSON, atLeast: 2, bound: BARE_NODE },
  { of: WIRE_LEGACY_JSON, versus: V2_LEGACY_JSON, atLeast: 2, bound: BARE_NODE },
  { of: WIRE_MODERN_JSON, versus: BARE_FETCH, atLeast: 0.8, bound: BARE_NODE },
  { of: WIRE_LEGACY_JSON, versus: BARE_FETCH, atLeast: 0.8, bound: BARE_NODE },
  // at the speed of node:http: the pair, and each side in place of the bare side it replaces; the
  // ceiling is the same exchange with MCP's bytes and headers and no library on either side
  { of: WIRE_MODERN_JSON, versus: BARE_NODE, atLeast: 0.6, bound: BARE_MCP_MODERN },
  { of: WIRE_LEGACY_JSON, versus: BARE_NODE, atLeast: 0.6, bound: BARE_MCP_LEGACY },
  { of: CLIENT_MODERN_JSON, versus: BARE_NODE, atLeast: 0.75, bound: BARE_MCP_MODERN },
  { of: CLIENT_LEGACY_JSON, versus: BARE_NODE, atLeast: 0.75, bound: BARE_MCP_LEGACY },
  { of: SERVER_MODERN_JSON, versus: BARE_NODE, atLeast: 0.75, bound: BARE_MCP_MODERN },
  { of: SERVER_LEGACY_JSON, versus: BARE_NODE, atLeast: 0.75, bound: BARE_MCP_LEGACY },
];

const REPORTED: readonly [string, string][] = [
  [WIRE_MODERN_SSE, V2_MODERN_SSE],
  [WIRE_LEGACY_SSE, V2_LEGACY_SSE],
  [WIRE_LEGACY_JSON, V1_JSON],
  [WIRE_MODERN_JSON, V1_JSON],
  [WIRE_LEGACY_SSE, V1_SSE],
  [WIRE_MODERN_SSE, BARE_FETCH],
  [WIRE_LEGACY_SSE, BARE_FETCH],
  [WIRE_MODERN_SSE, BARE_NODE],
  [WIRE_LEGACY_SSE, BARE_NODE],
  [CLIENT_MODERN_SSE, BARE_NODE],
  [CLIENT_LEGACY_SSE, BARE_NODE],
  [SERVER_MODERN_SSE, BARE_NODE],
  [SERVER_LEGACY_SSE, BARE_NODE],
  // like for like: the same MCP exchange with no library, in place of one side or both
  [WIRE_MODERN_JSON, BARE_MCP_MODERN],
  [WIRE_LEGACY_JSON, BARE_MCP_LEGACY],
  [CLIENT_MODERN_JSON, BARE_MCP_MODERN],
  [CLIENT_LEGACY_JSON, BARE_MCP_LEGACY],
  [SERVER_MODERN_JSON, BARE_MCP_MODERN],
  [SERVER_LEGACY_JSON, BARE_MCP_LEGACY],
  [WIRE_MODERN_JSON, WIRE_LEGACY_JSON],
  [V1_JSON, V2_LEGACY_JSON],
  [BARE_NODE, BARE_FETCH],
];

interface Tally {
  calls: number;
  wrong: number;
}

interface Connection {
  name: string;
  negotiated: string;
  wiring: string;
  setupMs: number;
  tally: Tally;
  pass: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * One timed pass: `CALLS` calls of `one` awaited one after another, each judged by what it
 * returns (true: the right answer), counted in `tally`.
 */
function passOf(tally: Tally, one: (i: number) => Promise<boolean>): () => Promise<void> {
  return async () => {
    let wrong = 0;
    for (let i = 0; i < CALLS; i++) if (!(await one(i))) wrong++;
    tally.calls += CALLS;
    tally.wrong += wrong;
  };
}

async function firstCall(name: string, call: (text: string) => Promise<object>): Promise<void> {
  const result = await within(call(CHECK_TEXT), `${name}: first tools/call echo`);
  const text = echoed(result);
  if (text !== CHECK_TEXT)
    throw new Error(
      `${name}: echo returned ${JSON.stringify(text)} for ${JSON.stringify(CHECK_TEXT)}: ${JSON.stringify(result).slice(0, 300)}`,
    );
}

// ---------------------------------------------------------------------------------------------
// node:http servers

/** Every server this benchmark started, closed at the end whatever happens. */
const servers: Server[] = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  // the same timeouts for every stack; keep-alive long enough to outlast a round of the others
  const server = createServer({ keepAliveTimeout: 60_000, headersTimeout: 10_000, requestTimeout: 30_000 }, handler);
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return `http://${HOST}:${(server.address() as AddressInfo).port}/mcp`;
}

async function closeServers(): Promise<void> {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        }),
    ),
  );
}

/** A fetch-shaped handler served from node:http (as test/fixtures/v2-sdk-http-server.mjs does). */
function fetchOnNode(
  serve: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      const gone = new AbortController();
      res.on("close", () => gone.abort());
      try {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (Array.isArray(value)) for (const v of value) headers.append(name, v);
          else if (value !== undefined) headers.set(name, value);
        }
        const hasBody = req.method !== "GET" && req.method !== "HEAD";
        const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host}`), {
          method: req.method ?? "GET",
          headers,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
          signal: gone.signal,
        });
        const response = await serve(request);
        res.writeHead(response.status, [...response.headers].flat());
        if (!response.body) {
          res.end();
          return;
        }
        const reader = response.body.getReader();
        gone.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      } catch (e) {
        if (!res.headersSent)
          res.writeHead(500, { "content-type": "text/plain" }).end(String((e as Error)?.message ?? e));
        else res.destroy();
      }
    })();
  };
}

// ---------------------------------------------------------------------------------------------
// Bare exchanges: no MCP

const BARE_ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echo"}]}}';
const BARE_BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"echo"}}}';
const PROTOCOL_META = "io.modelcontextprotocol/protocolVersion";
const DISCOVERED = {
  resultType: "complete",
  supportedVersions: [MODERN, LEGACY],
  capabilities: { tools: { listChanged: false } },
  ttlMs: 60000,
  cacheScope: "public",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "bare", version: "1" } },
};
const INITIALIZED = {
  protocolVersion: LEGACY,
  capabilities: { tools: { listChanged: false } },
  serverInfo: { name: "bare", version: "1" },
};

/**
 * A bare node:http server that answers what an MCP client needs and nothing more: it parses each
 * body, answers discovery, initialize (with a session id it never checks) and `tools/call` echo
 * with the request's own id, 202 for notifications, 204 for DELETE. No validation, no sessions,
 * no peer: the least a server can do and still be a server mcp-wire's client talks to. `sse`:
 * the answer goes as a one-event SSE stream instead of JSON.
 */
async function bareServer(sse = false): Promise<string> {
  return listen((req, res) => {
    if (req.method === "DELETE") return void req.resume().on("end", () => res.writeHead(204).end());
    if (req.method !== "POST")
      return void req.resume().on("end", () => res.writeHead(405, { allow: "POST, DELETE" }).end());
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const m = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id?: unknown;
        method?: string;
        params?: { arguments?: { text?: string }; _meta?: Record<string, unknown> };
      };
      if (m.id === undefined) return void res.writeHead(202).end();
      let result: unknown;
      const headers: Record<string, string | number> = {};
      if (m.method === "server/discover") result = DISCOVERED;
      else if (m.method === "initialize") {
        result = INITIALIZED;
        headers["mcp-session-id"] = "bare-session";
      } else if (m.method === "tools/call") {
        const content = [{ type: "text", text: m.params?.arguments?.text }];
        result = m.params?._meta?.[PROTOCOL_META] === undefined ? { content } : { resultType: "complete", content };
      } else {
        const error = JSON.stringify({
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32601, message: "Method not found" },
        });
        return void res
          .writeHead(404, { "content-type": "application/json", "content-length": Buffer.byteLength(error) })
          .end(error);
      }
      const answer = JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
      if (sse) {
        const event = `event: message\ndata: ${answer}\n\n`;
        res
          .writeHead(200, {
            ...headers,
            "content-type": "text/event-stream",
            "content-length": Buffer.byteLength(event),
          })
          .end(event);
      } else {
        res
          .writeHead(200, {
            ...headers,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(answer),
          })
          .end(answer);
      }
    });
  });
}

/** One POST on a keep-alive agent with node:http; resolves with the status, headers and body text. */
function bareExchange(
  url: URL,
  agent: Agent,
  body: string,
  headers: Record<string, string | number>,
): Promise<{ status: number; headers: IncomingMessage["headers"]; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent,
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The JSON-RPC message an answer carries: the body itself, or the last event of an SSE body. */
function answerOf(text: string, contentType: string | undefined): { result?: object; id?: unknown } {
  if (!contentType?.startsWith("text/event-stream")) return JSON.parse(text) as { result?: object };
  const data = text.split("\n").filter((l) => l.startsWith("data:"));
  return JSON.parse(data[data.length - 1]!.slice(5)) as { result?: object };
}

async function bareFetch(name: string): Promise<Connection> {
  const t0 = performance.now();
  const url = await bareServer();
  const tally: Tally = { calls: 0, wrong: 0 };
  const one = async (): Promise<boolean> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: BARE_BODY,
    });
    const body = (await response.json()) as { result?: object };
    return response.status === 200 && body.result !== undefined && echoed(body.result) === "echo";
  };
  if (!(await within(one(), `${name}: first exchange`))) throw new Error(`${name}: wrong answer`);
  return {
    name,
    negotiated: "-",
    wiring: "node:http, fixed JSON answer",
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(tally, one),
    close: async () => undefined,
  };
}

async function bareNode(name: string): Promise<Connection> {
  const t0 = performance.now();
  const url = new URL(await bareServer());
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const tally: Tally = { calls: 0, wrong: 0 };
  const one = () =>
    new Promise<boolean>((resolve, reject) => {
      const req = httpRequest(
        {
          host: HOST,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent,
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "content-length": Buffer.byteLength(BARE_BODY),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { result?: object };
            resolve(res.statusCode === 200 && body.result !== undefined && echoed(body.result) === "echo");
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(BARE_BODY);
    });
  if (!(await within(one(), `${name}: first exchange`))) throw new Error(`${name}: wrong answer`);
  return {
    name,
    negotiated: "-",
    wiring: "node:http, fixed JSON answer",
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(tally, one),
    close: async () => agent.destroy(),
  };
}

// ---------------------------------------------------------------------------------------------
// mcp-wire

/** One mcp-wire server, both eras, as `mcp-wire serve --http` wires it (minus the CLI). */
async function wireServer(): Promise<string> {
  const handler = createHttpHandler(createReferenceServer(), {
    allowedHosts: [HOST],
    onError: (e) =>
      console.error(`mcp-wire server: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
  });
  const url = await listen((req, res) => {
    if ((req.url ?? "/").split("?")[0] === "/mcp") handler.node(req, res);
    else res.writeHead(404).end();
  });
  wireHandlers.push(handler);
  return url;
}
const wireHandlers: { close(): Promise<void> }[] = [];

async function wire(name: string, legacy: boolean, sse: boolean): Promise<Connection> {
  const t0 = performance.now();
  const url = await wireServer();
  const { client } = await within(
    connectHttp(url, { transport: "streamable-http", ...(legacy ? { revision: LEGACY } : {}) }),
    `${name}: connect`,
  );
  await firstCall(name, (text) => client.callTool("echo", { text }));
  const tally: Tally = { calls: 0, wrong: 0 };
  let pass: () => Promise<void>;
  if (sse) {
    const args = { steps: 1, intervalMs: 0 };
    let progress = 0;
    const options = { onProgress: () => void progress++ };
    const check = async (c: McpClient): Promise<boolean> => {
      progress = 0;
      const result = await c.callTool("progress", args, options);
      return echoed(result) === "counted to 1" && progress === 1;
    };
    if (!(await within(check(client), `${name}: first progress call`)))
      throw new Error(
        `${name}: progress tool did not answer "counted to 1" after one progress notification (got ${progress})`,
      );
    pass = passOf(tally, () => check(client));
  } else {
    pass = passOf(tally, async (i) => echoed(await client.callTool("echo", { text: TEXTS[i]! })) === TEXTS[i]);
  }
  return {
    name,
    negotiated: `${client.revision} (${client.era})`,
    wiring: `createHttpHandler(createReferenceServer()); ${sse ? "progress tool (1 step) + onProgress" : "echo"}`,
    setupMs: performance.now() - t0,
    tally,
    pass,
    close: () => client.close(),
  };
}

/**
 * A bare node:http client speaking MCP: a fixed body per call with the headers the transport
 * requires, the answer parsed, nothing checked but the echo. Legacy opens its session once with
 * initialize; SSE calls `progress` with a progress token, so the answer is one progress event and
 * the result on one stream, as for the pairs. Against mcp-wire's server (`to` "wire"): that
 * server alone. Against the bare server: MCP's own bytes and headers with no library on either
 * side, the most any MCP pair can reach here.
 */
async function bareClient(name: string, legacy: boolean, sse: boolean, to: "wire" | "bare"): Promise<Connection> {
  const t0 = performance.now();
  const url = new URL(to === "wire" ? await wireServer() : await bareServer());
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const meta: Record<string, unknown> = legacy
    ? {}
    : { [PROTOCOL_META]: MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
  if (legacy) {
    const opened = await within(
      bareExchange(
        url,
        agent,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "bare", version: "1" } },
        }),
        headers,
      ),
      `${name}: initialize`,
    );
    const session = opened.headers["mcp-session-id"];
    if (opened.status !== 200 || typeof session !== "string")
      throw new Error(`${name}: initialize answered ${opened.status} ${opened.text.slice(0, 200)}`);
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = LEGACY;
    await bareExchange(url, agent, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
  } else {
    headers["mcp-protocol-version"] = MODERN;
    headers["mcp-method"] = "tools/call";
    headers["mcp-name"] = sse ? "progress" : "echo";
  }
  const expected = sse ? "counted to 1" : "echo";
  const body = sse
    ? JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "progress", arguments: { steps: 1, intervalMs: 0 }, _meta: { ...meta, progressToken: 1 } },
      })
    : JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "echo" }, ...(legacy ? {} : { _meta: meta }) },
      });
  const one = async (): Promise<boolean> => {
    const r = await bareExchange(url, agent, body, headers);
    const events = sse ? r.text.split("\n").filter((l) => l.startsWith("data:")).length : 1;
    return (
      r.status === 200 &&
      events === (sse ? 2 : 1) &&
      echoed(answerOf(r.text, r.headers["content-type"]).result ?? {}) === expected
    );
  };
  if (!(await within(one(), `${name}: first exchange`))) throw new Error(`${name}: wrong answer`);
  const tally: Tally = { calls: 0, wrong: 0 };
  return {
    name,
    negotiated: legacy ? `${LEGACY} (legacy)` : `${MODERN} (modern)`,
    wiring:
      to === "wire"
        ? `createHttpHandler(createReferenceServer()); ${sse ? "progress tool (1 step), progressToken" : "echo"}`
        : "bare node:http server, JSON answers",
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(tally, one),
    close: async () => agent.destroy(),
  };
}

/** mcp-wire's client against the bare server: everything the client does, nothing a server adds. */
async function wireToBare(name: string, legacy: boolean, sse: boolean): Promise<Connection> {
  const t0 = performance.now();
  const url = await bareServer(sse);
  const { client } = await within(
    connectHttp(url, { transport: "streamable-http", ...(legacy ? { revision: LEGACY } : {}) }),
    `${name}: connect`,
  );
  await firstCall(name, (text) => client.callTool("echo", { text }));
  const tally: Tally = { calls: 0, wrong: 0 };
  return {
    name,
    negotiated: `${client.revision} (${client.era})`,
    wiring: `bare node:http server, ${sse ? "one-event SSE" : "JSON"} answers`,
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(tally, async (i) => echoed(await client.callTool("echo", { text: TEXTS[i]! })) === TEXTS[i]),
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// SDK v1

function v1Server(): V1McpServer {
  const server = new V1McpServer({ name: "sdk-v1-bench", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text argument.", inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: "text", text }],
    }),
  );
  return server;
}

/** v1 on node:http with sessions: one transport and McpServer per `initialize`. */
async function v1HttpServer(json: boolean): Promise<string> {
  const sessions = new Map<string, V1HttpServerTransport>();
  return listen((req, res) => {
    void (async () => {
      try {
        const sid = req.headers["mcp-session-id"];
        if (typeof sid === "string") {
          const t = sessions.get(sid);
          if (t) return await t.handleRequest(req, res);
          res
            .writeHead(404, { "content-type": "application/json" })
            .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
          return;
        }
        const transport = new V1HttpServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => void sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await v1Server().connect(transport);
        await transport.handleRequest(req, res);
      } catch (e) {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      }
    })();
  });
}

async function v1(name: string, json: boolean): Promise<Connection> {
  const t0 = performance.now();
  const url = await v1HttpServer(json);
  const transport = new V1HttpClientTransport(new URL(url));
  let version = "(not reported)";
  const set = transport.setProtocolVersion.bind(transport);
  transport.setProtocolVersion = (v: string) => {
    version = v;
    set(v);
  };
  const client = new V1Client({ name: "bench-v1", version: "1.0.0" });
  await within(client.connect(transport), `${name}: connect`);
  await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  const tally: Tally = { calls: 0, wrong: 0 };
  return {
    name,
    negotiated: `${version} (legacy)`,
    wiring: `McpServer + StreamableHTTPServerTransport per session${json ? ", enableJsonResponse" : ""}`,
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(
      tally,
      async (i) => echoed(await client.callTool({ name: "echo", arguments: { text: TEXTS[i]! } })) === TEXTS[i],
    ),
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// SDK v2

const V2_LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

function v2Server(options: { supportedProtocolVersions?: string[] } = {}): V2McpServer {
  const server = new V2McpServer(
    { name: "sdk-v2-bench", version: "1.0.0" },
    { capabilities: { tools: {} }, ...options },
  );
  server.registerTool(
    "echo",
    {
      description: "Returns its text argument.",
      inputSchema: fromJsonSchema<{ text: string }>({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      }),
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

/** Legacy: a sessionful WebStandardStreamableHTTPServerTransport per `initialize`, as a deployed 2025 server looks. */
async function v2LegacyServer(json: boolean): Promise<string> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return listen(
    fetchOnNode(async (request) => {
      const sid = request.headers.get("mcp-session-id");
      if (sid) {
        const t = sessions.get(sid);
        if (t) return t.handleRequest(request);
        return Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
          { status: 404 },
        );
      }
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await v2Server({ supportedProtocolVersions: V2_LEGACY_REVISIONS }).connect(transport);
      return transport.handleRequest(request);
    }),
  );
}

/** 2026-07-28: createMcpHandler, modern only, a fresh server per request. */
async function v2ModernServer(json: boolean): Promise<string> {
  const handler = createMcpHandler(() => v2Server(), {
    legacy: "reject",
    responseMode: json ? "json" : "sse",
    onerror: (e) => console.error(`SDK v2 server: ${e.message}`),
  });
  return listen(fetchOnNode((request) => handler.fetch(request)));
}

async function v2(name: string, modern: boolean, json: boolean): Promise<Connection> {
  const t0 = performance.now();
  const url = modern ? await v2ModernServer(json) : await v2LegacyServer(json);
  const client = new V2Client(
    { name: "bench-v2", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await within(client.connect(new V2HttpClientTransport(new URL(url))), `${name}: connect`);
  await firstCall(name, (text) => client.callTool({ name: "echo", arguments: { text } }));
  const tally: Tally = { calls: 0, wrong: 0 };
  return {
    name,
    negotiated: `${client.getNegotiatedProtocolVersion() ?? "(unknown)"} (${modern ? "modern" : "legacy"})`,
    wiring: modern
      ? `createMcpHandler(legacy: "reject", responseMode: "${json ? "json" : "sse"}")`
      : `WebStandardStreamableHTTPServerTransport per session${json ? ", enableJsonResponse" : ""}`,
    setupMs: performance.now() - t0,
    tally,
    pass: passOf(
      tally,
      async (i) => echoed(await client.callTool({ name: "echo", arguments: { text: TEXTS[i]! } })) === TEXTS[i],
    ),
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------

const OPENERS: readonly [string, (name: string) => Promise<Connection>][] = [
  [BARE_FETCH, (n) => bareFetch(n)],
  [BARE_NODE, (n) => bareNode(n)],
  [WIRE_MODERN_JSON, (n) => wire(n, false, false)],
  [WIRE_LEGACY_JSON, (n) => wire(n, true, false)],
  [WIRE_MODERN_SSE, (n) => wire(n, false, true)],
  [WIRE_LEGACY_SSE, (n) => wire(n, true, true)],
  [V1_JSON, (n) => v1(n, true)],
  [V1_SSE, (n) => v1(n, false)],
  [V2_LEGACY_JSON, (n) => v2(n, false, true)],
  [V2_LEGACY_SSE, (n) => v2(n, false, false)],
  [V2_MODERN_JSON, (n) => v2(n, true, true)],
  [V2_MODERN_SSE, (n) => v2(n, true, false)],
  [CLIENT_MODERN_JSON, (n) => wireToBare(n, false, false)],
  [CLIENT_LEGACY_JSON, (n) => wireToBare(n, true, false)],
  [CLIENT_MODERN_SSE, (n) => wireToBare(n, false, true)],
  [CLIENT_LEGACY_SSE, (n) => wireToBare(n, true, true)],
  [SERVER_MODERN_JSON, (n) => bareClient(n, false, false, "wire")],
  [SERVER_LEGACY_JSON, (n) => bareClient(n, true, false, "wire")],
  [SERVER_MODERN_SSE, (n) => bareClient(n, false, true, "wire")],
  [SERVER_LEGACY_SSE, (n) => bareClient(n, true, true, "wire")],
  [BARE_MCP_MODERN, (n) => bareClient(n, false, false, "bare")],
  [BARE_MCP_LEGACY, (n) => bareClient(n, true, false, "bare")],
];

function formatRoundTrips(m: Measurement, baseline: string): string {
  const rows = m.results.map((r) => {
    const calls = r.median * m.work.items;
    const vs = r.name === baseline ? "1.00× (baseline)" : fmtRatio(ratio(m, r.name, baseline));
    return [
      r.name,
      fmtRate(calls),
      fmtRate(2 * calls),
      (1e6 / calls).toFixed(1),
      `±${((r.spread * 100) / 2).toFixed(1)}%`,
      vs,
    ];
  });
  return table(["contender", "round trips/s", "msg/s", "µs per call", "noise ±½IQR", `vs ${baseline}`], rows, [
    false,
    true,
    true,
    true,
    true,
    false,
  ]);
}

async function closeAll(connections: readonly Connection[]): Promise<string> {
  const problems: string[] = [];
  await Promise.all(
    connections.map(async (c) => {
      try {
        await within(c.close(), `${c.name}: close`, 5000);
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }),
  );
  for (const h of wireHandlers.splice(0)) await h.close().catch((e: unknown) => problems.push(String(e)));
  const n = servers.length;
  await within(closeServers(), "closing the HTTP servers", 5000).catch((e: unknown) => problems.push(String(e)));
  return `closed ${connections.length} clients and ${n} node:http servers${problems.length > 0 ? `; problems: ${problems.join("; ")}` : ""}`;
}

export const httpBenchmark: Benchmark = {
  name: "http",
  title:
    "tools/call round trips over HTTP on loopback, mcp-wire against the SDKs and a bare fetch + node:http exchange",
  run: async (profile) => {
    const connections: Connection[] = [];
    try {
      for (const [name, open] of OPENERS) connections.push(await open(name));
      console.log(`\n## connections (all servers in this process, node:http on ${HOST}, port 0)\n`);
      console.log(
        table(
          ["contender", "negotiated", "server", "connect ms"],
          connections.map((c) => [c.name, c.negotiated, c.wiring, c.setupMs.toFixed(0)]),
          [false, false, false, true],
        ),
      );
      console.log(
        `\nclients: connectHttp(url, { transport: "streamable-http" }) (2026 auto; legacy forced with revision ${LEGACY}), SDK v1 Client + StreamableHTTPClientTransport, SDK v2 Client + StreamableHTTPClientTransport (default legacy, or versionNegotiation pinned to ${MODERN}); bare: fetch / http.request (keep-alive agent) POSTing ${BARE_BODY.length} bytes to a bare node:http server that parses it and answers ${BARE_ANSWER.length} bytes of JSON; one side alone: mcp-wire's client against that bare server, a bare node:http client against mcp-wire's server; like for like: that bare client sending the same MCP request (headers and body) to the bare server, the ceiling of both`,
      );
      console.log(
        `SSE: mcp-wire's contenders call progress {steps: 1, intervalMs: 0} with onProgress (one notification + the result on one SSE stream, both checked); the SDKs' call echo on a server told to answer SSE, one message less per call`,
      );

      const m = await measure(
        "HTTP round trips, awaited one by one",
        { items: CALLS, bytes: 0, itemLabel: "call" },
        connections.map((c): Contender => ({ name: c.name, pass: c.pass })),
        profile,
      );
      console.log(`\n## tools/call over HTTP, awaited one after another (${CALLS} per pass)\n`);
      console.log(
        `${profile.rounds} interleaved rounds of ${profile.roundMs} ms per contender, ${loadLine()}; medians; one round trip = 2 messages:\n`,
      );
      console.log(formatRoundTrips(m, BARE_FETCH));
      const outcomes = checkTargets("http", m, TARGETS);
      console.log("\n" + formatTargets(outcomes));
      const rows = REPORTED.map(([a, b]) => [`${a} / ${b}`, fmtRatio(ratio(m, a, b))]);
      console.log(
        "\n" + table(["ratio, no target (median of per-round ratios [p25–p75])", "measured"], rows, [false, true]),
      );

      console.log(`\nsink, over every pass above (warm-up included); every answer checked:\n`);
      console.log(
        table(
          ["contender", "calls", "wrong answers"],
          connections.map((c) => [c.name, String(c.tally.calls), String(c.tally.wrong)]),
          [false, true, true],
        ),
      );
      const wrong = connections.reduce((n, c) => n + c.tally.wrong, 0);
      if (wrong > 0)
        console.log(
          `WARNING: ${wrong} calls did not answer what they should: those contenders did not really round-trip`,
        );
      return outcomes;
    } finally {
      console.log("\n" + (await closeAll(connections)));
    }
  },
};
