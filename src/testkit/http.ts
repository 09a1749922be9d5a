/**
 * Helpers shared by the HTTP tests: small `node:http` servers on 127.0.0.1 (port 0) that record
 * every request, and hand-written MCP servers of each era. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "node:test";

/** One request as the server saw it. */
export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it was JSON. */
  json: Record<string, unknown> | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, recorded: Recorded) => void | Promise<void>;

export interface TestServer {
  readonly port: number;
  readonly origin: string;
  /** The URL of `path` on this server (default /mcp). */
  url(path?: string): string;
  readonly requests: Recorded[];
  /** Requests whose connection went away before the response ended. */
  readonly disconnects: Recorded[];
  /** Requests with the given JSON-RPC method. */
  calls(method: string): Recorded[];
  close(): Promise<void>;
}

/** Largest request body a test server reads; tests never send more. */
const MAX_REQUEST = 1024 * 1024;

/**
 * A server on 127.0.0.1 and a free port. Each request's body is read (up to 1 MiB) and recorded
 * before `handler` runs; a handler that throws answers 500.
 */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const disconnects: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req as AsyncIterable<Buffer>) {
        size += c.length;
        if (size > MAX_REQUEST) {
          res.writeHead(413).end();
          return;
        }
        chunks.push(c);
      }
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const recorded: Recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, json };
      requests.push(recorded);
      res.on("close", () => {
        if (!res.writableFinished) disconnects.push(recorded);
      });
      await handler(req, res, recorded);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(String(e));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    url: (path = "/mcp") => `${origin}${path}`,
    requests,
    disconnects,
    calls: (method) => requests.filter((r) => r.json?.method === method),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (it was free a moment ago, on 127.0.0.1). */
/** Anything a test opens that has an async `close`: peers, clients. */
export interface Closable {
  close(): Promise<unknown>;
}

/**
 * The servers and peers one test file opens, closed after each of its tests whatever happened:
 * the peers first, so none is left waiting on a server already gone. Call once, at the top level
 * of a test file; `serve` starts a recording server, `keep` takes one started elsewhere.
 */
export function closedAfterEach(): {
  serve(handler: Handler): Promise<TestServer>;
  keep<T extends TestServer>(server: T): T;
  peers: Closable[];
} {
  const servers: TestServer[] = [];
  const peers: Closable[] = [];
  afterEach(async () => {
    await Promise.all(peers.splice(0).map((p) => p.close().catch(() => undefined)));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const keep = <T extends TestServer>(server: T): T => {
    servers.push(server);
    return server;
  };
  return { serve: async (handler) => keep(await startServer(handler)), keep, peers };
}

export async function closedPort(): Promise<number> {
  const s = await startServer(() => undefined);
  await s.close();
  return s.port;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
}

/** Starts an SSE response; returns a writer of `message` events and raw lines. */
export function openSse(res: ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  res.flushHeaders();
  return {
    event: (value: unknown, name?: string) =>
      res.write(`${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(value)}\n\n`),
    raw: (text: string) => res.write(text),
  };
}

export function result(id: unknown, value: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result: value };
}

export function rpcError(id: unknown, code: number, message: string, data?: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** The JSON-RPC id of a recorded request. */
export function idOf(r: Recorded): unknown {
  return r.json?.id;
}

/** A header as a single string (node gives arrays for repeated headers). */
export function header(r: Recorded, name: string): string | undefined {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The `Mcp-*`/`MCP-*` headers of a request, names lowercased, sorted. */
export function mcpHeaders(r: Recorded): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(r.headers).sort()) if (name.startsWith("mcp-")) out[name] = header(r, name)!;
  return out;
}
