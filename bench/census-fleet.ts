/**
 * The census benchmarks' fleet, run as its own process so serving costs the census no CPU: one
 * node:http server on 127.0.0.1 whose paths `/t/<i>` behave, by `i`, like the servers a census
 * meets: healthy modern and legacy servers (one answering over SSE), a web page, a bare array,
 * an envelope-less result, -32001/-32601/-32602/-32603 on the opening request, a 401, a 404, and
 * 10% that never answer. With `--delay-min`/`--delay-max` every answer waits as over a network:
 * the same seeded delay for every answer of one target, so each target is a server that far away.
 *
 * Prints `listening <port>` when ready; answers a `stats` line on stdin with one `stats {json}`
 * line (its CPU time, requests, connections and bytes, so a benchmark can check that two clients
 * did the same exchanges and that the fleet was not the bottleneck); ends on SIGTERM or when
 * stdin closes.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
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

/** How long every answer waits: a range, the same seeded draw for all answers of one target. */
export interface DelaySpec {
  minMs: number;
  maxMs: number;
  seed: number;
}

/**
 * The delay of the answers to `path`, for the target whose index the path carries (`/t/<i>`,
 * and the sign-in walk's `/.well-known/…/t/<i>`); a path naming no target (the walk's
 * `/.well-known/…` at the root) draws from its own text, as one more server would.
 */
export function delayOf(path: string, spec: DelaySpec): number {
  if (spec.maxMs <= 0) return 0;
  const m = /\/t\/(\d+)/.exec(path);
  let h = (spec.seed ^ 0x9e3779b9) >>> 0;
  if (m) h = Math.imul(h ^ Number(m[1]), 0x85ebca6b) >>> 0;
  else for (let k = 0; k < path.length; k++) h = Math.imul(h ^ path.charCodeAt(k), 0x01000193) >>> 0;
  // a few rounds of mixing, so neighbouring indices draw unrelated delays
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return spec.minMs + ((h >>> 0) % (spec.maxMs - spec.minMs + 1));
}

export interface FleetStats {
  /** The fleet process's CPU time (user + system) so far. */
  cpuMs: number;
  requests: number;
  connections: number;
  /** Bytes read from and written to clients, headers included. */
  bytesIn: number;
  bytesOut: number;
}

const TOOLS = [
  { name: "echo", description: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
];

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
    res
      .writeHead(200, { "content-type": "text/event-stream", ...headers })
      .end(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
  };
  if (message.method === "initialize")
    return answer(
      {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "bench-legacy", version: "1.0.0" },
      },
      { "mcp-session-id": randomUUID() },
    );
  if (message.id === undefined) return void res.writeHead(202).end();
  if (!req.headers["mcp-session-id"])
    return json(res, 400, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "Bad Request: Server not initialized" },
    });
  if (message.method === "tools/list") return answer({ tools: TOOLS });
  return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
}

async function rpcError(req: IncomingMessage, res: ServerResponse, code: number, text: string): Promise<void> {
  const message = JSON.parse((await readBody(req)) || "{}") as { id?: unknown };
  if (message.id === undefined) return void res.writeHead(202).end();
  json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code, message: text } });
}

export interface BenchFleet {
  port: number;
  stats(): FleetStats;
  close(): Promise<void>;
}

const NO_DELAY: DelaySpec = { minMs: 0, maxMs: 0, seed: 0 };

export async function startBenchFleet(port = 0, delay: DelaySpec = NO_DELAY): Promise<BenchFleet> {
  const modern = createHttpHandler(createReferenceServer(), { sessionIdleMs: 10_000 });
  const hanging = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const counts = { requests: 0, connections: 0, bytesIn: 0, bytesOut: 0 };
  const serve = (req: IncomingMessage, res: ServerResponse) => {
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
        return void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(
            "<!doctype html><html><head><title>Docs</title></head><body><h1>Our MCP server</h1><p>Point your client at /mcp.</p></body></html>",
          );
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
        return void req
          .resume()
          .on("end", () => json(res, 401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="bench"' }));
      case "http-404":
        return void req.resume().on("end", () => res.writeHead(404, { "content-type": "text/plain" }).end("Not Found"));
    }
  };
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    counts.requests++;
    const ms = delayOf(req.url ?? "", delay);
    if (ms === 0) return serve(req, res);
    // the request waits unread, as it would on the way over a network
    const timer = setTimeout(() => serve(req, res), ms);
    res.once("close", () => clearTimeout(timer));
  });
  server.on("connection", (socket: Socket) => {
    counts.connections++;
    sockets.add(socket);
    socket.once("close", () => {
      counts.bytesIn += socket.bytesRead;
      counts.bytesOut += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  server.maxConnections = 100_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", 4096, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stats: () => {
      const cpu = process.cpuUsage();
      let bytesIn = counts.bytesIn;
      let bytesOut = counts.bytesOut;
      for (const s of sockets) {
        bytesIn += s.bytesRead;
        bytesOut += s.bytesWritten;
      }
      return {
        cpuMs: (cpu.user + cpu.system) / 1000,
        requests: counts.requests,
        connections: counts.connections,
        bytesIn,
        bytesOut,
      };
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  const { values } = parseArgs({
    options: {
      "delay-min": { type: "string", default: "0" },
      "delay-max": { type: "string", default: "0" },
      seed: { type: "string", default: "1" },
    },
  });
  const fleet = await startBenchFleet(0, {
    minMs: Number(values["delay-min"]),
    maxMs: Number(values["delay-max"]),
    seed: Number(values.seed),
  });
  process.stdout.write(`listening ${fleet.port}\n`);
  const stop = () => void fleet.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  createInterface({ input: process.stdin })
    .on("line", (line) => {
      if (line.trim() === "stats") process.stdout.write(`stats ${JSON.stringify(fleet.stats())}\n`);
    })
    .on("close", stop);
}
