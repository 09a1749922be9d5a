/**
 * The census benchmark's fleet, run as its own process so serving costs the census no CPU: one
 * node:http server on 127.0.0.1 whose paths `/t/<i>` behave, by `i`, like the servers a census
 * meets: healthy modern and legacy servers (one answering over SSE), a web page, a bare array,
 * an envelope-less result, -32001/-32601/-32602/-32603 on the opening request, a 401, a 404, and
 * 10% that never answer. Prints `listening <port>` when ready; ends on SIGTERM or when stdin
 * closes.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createReferenceServer } from "../src/mcp/reference-server.js";
import { createHttpHandler } from "../src/transport/http/server.js";

/** One slot per 5% of the fleet. */
export const MIX = [
  "hang",
  "hang",
  "modern",
  "modern",
  "modern",
  "modern",
  "legacy",
  "legacy",
  "legacy",
  "legacy",
  "legacy-sse",
  "page",
  "array",
  "no-envelope",
  "rpc-32001",
  "rpc-32601",
  "rpc-32602",
  "rpc-32603",
  "http-401",
  "http-404",
] as const;
export type Behaviour = (typeof MIX)[number];

export const behaviourOf = (i: number): Behaviour => MIX[i % MIX.length]!;

const TOOLS = [{ name: "echo", description: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }];

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => resolve(body));
  });
}

/** A legacy (2025-06-18) server as the SDK v1 writes one: initialize, a session, JSON or SSE answers. */
async function legacy(req: IncomingMessage, res: ServerResponse, sse: boolean): Promise<void> {
  if (req.method === "DELETE") return void res.writeHead(200).end();
  if (req.method === "GET") return void res.writeHead(405, { allow: "POST, DELETE" }).end();
  const message = JSON.parse((await readBody(req)) || "{}") as { id?: unknown; method?: string };
  const answer = (result: unknown, headers: Record<string, string> = {}) => {
    const body = { jsonrpc: "2.0", id: message.id, result };
    if (!sse) return json(res, 200, body, headers);
    res.writeHead(200, { "content-type": "text/event-stream", ...headers }).end(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
  };
  if (message.method === "initialize") return answer({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "bench-legacy", version: "1.0.0" } }, { "mcp-session-id": randomUUID() });
  if (message.id === undefined) return void res.writeHead(202).end();
  if (!req.headers["mcp-session-id"]) return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Server not initialized" } });
  if (message.method === "tools/list") return answer({ tools: TOOLS });
  return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
}

async function rpcError(req: IncomingMessage, res: ServerResponse, code: number, text: string): Promise<void> {
  const message = JSON.parse((await readBody(req)) || "{}") as { id?: unknown };
  if (message.id === undefined) return void res.writeHead(202).end();
  json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code, message: text } });
}

export async function startBenchFleet(port = 0): Promise<{ port: number; close: () => Promise<void> }> {
  const modern = createHttpHandler(createReferenceServer(), { sessionIdleMs: 10_000 });
  const hanging = new Set<ServerResponse>();
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    const i = Number((req.url ?? "").split("/")[2]);
    const behaviour = Number.isInteger(i) ? behaviourOf(i) : "http-404";
    const fail = () => {
      if (!res.headersSent) res.writeHead(500).end();
    };
    switch (behaviour) {
      case "hang":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      case "modern":
        return modern.node(req, res);
      case "legacy":
        return void legacy(req, res, false).catch(fail);
      case "legacy-sse":
        return void legacy(req, res, true).catch(fail);
      case "page":
        return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><html><head><title>Docs</title></head><body><h1>Our MCP server</h1><p>Point your client at /mcp.</p></body></html>");
      case "array":
        return void req.resume().on("end", () => json(res, 200, []));
      case "no-envelope":
        return void req.resume().on("end", () => json(res, 200, { tools: TOOLS }));
      case "rpc-32001":
        return void rpcError(req, res, -32001, "Invalid API key").catch(fail);
      case "rpc-32601":
        return void rpcError(req, res, -32601, "Method not found").catch(fail);
      case "rpc-32602":
        return void rpcError(req, res, -32602, "Invalid params").catch(fail);
      case "rpc-32603":
        return void rpcError(req, res, -32603, "Internal error").catch(fail);
      case "http-401":
        return void req.resume().on("end", () => json(res, 401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="bench"' }));
      case "http-404":
        return void req.resume().on("end", () => res.writeHead(404, { "content-type": "text/plain" }).end("Not Found"));
    }
  });
  server.maxConnections = 100_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", 4096, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const res of hanging) res.destroy();
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  const fleet = await startBenchFleet();
  process.stdout.write(`listening ${fleet.port}\n`);
  const stop = () => void fleet.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.stdin.on("end", stop).resume();
}
