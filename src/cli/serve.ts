/**
 * `mcp-wire serve`: the reference server on standard input and output (`--stdio`, the default)
 * or over Streamable HTTP at `/mcp` (`--http PORT`); `--conformance` adds the fixtures the
 * official conformance suite calls.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createConformanceServer } from "../fleet/conformance-server.js";
import { createReferenceServer } from "../mcp/reference-server.js";
import type { McpServer, ServerOptions } from "../mcp/server.js";
import { nodeServerOptions } from "../transport/http/adapters.js";
import { createHttpHandler } from "../transport/http/server.js";
import { StreamTransport } from "../transport/stream.js";
import { USAGE_ERROR } from "./exit.js";
import { cannotListen } from "./listen-error.js";
import { wholeNumber } from "./numbers.js";
import { writeErr } from "./output.js";
import { untilStopped } from "./signals.js";

export interface ServeOptions {
  stdio?: boolean;
  http?: string;
  host?: string;
  conformance?: boolean;
}

const PATH = "/mcp";
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

function build(conformance: boolean | undefined): McpServer {
  const options: Partial<ServerOptions> = {
    onDefect: ({ defect }) => writeErr(`mcp-wire serve: ${defect.severity} ${defect.code}: ${defect.message}\n`),
  };
  return conformance ? createConformanceServer(options) : createReferenceServer(options);
}

export async function runServe(options: ServeOptions): Promise<number> {
  if (options.stdio && options.http !== undefined) {
    writeErr("mcp-wire serve: --stdio or --http, not both\n");
    return USAGE_ERROR;
  }
  if (options.http === undefined) {
    if (options.host !== undefined) {
      writeErr("mcp-wire serve: --host goes with --http\n");
      return USAGE_ERROR;
    }
    return runServeStdio(options.conformance);
  }
  const port = wholeNumber("--http", options.http, 0, 65535, "a port number", "0: any free one");
  if (typeof port !== "number") {
    writeErr(`mcp-wire serve: ${port.error}\n`);
    return USAGE_ERROR;
  }
  return runServeHttp(port, options.host ?? "127.0.0.1", options.conformance);
}

async function runServeStdio(conformance?: boolean): Promise<number> {
  const peer = build(conformance).connect(new StreamTransport(process.stdin, process.stdout));
  await peer.ended;
  return 0;
}

function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.includes(host) || host === "::1" || host.startsWith("127.");
}

async function runServeHttp(port: number, host: string, conformance?: boolean): Promise<number> {
  const server = build(conformance);
  const handler = createHttpHandler(server, {
    // bound to loopback, the Host header must name loopback too: a rebound DNS name is refused
    ...(isLoopback(host) ? { allowedHosts: LOOPBACK_HOSTS } : {}),
    onError: (e) =>
      writeErr(`mcp-wire serve: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`),
  });
  const http = createServer(
    nodeServerOptions({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 }),
    (req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === PATH) {
        handler.node(req, res);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not Found: the MCP endpoint is ${PATH}\n`);
    },
  );

  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(port, host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    writeErr(`mcp-wire serve: ${cannotListen(host, port, e)}\n`);
    return USAGE_ERROR;
  }
  const address = http.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  writeErr(`mcp-wire serve: listening on http://${shown}:${address.port}${PATH}\n`);
  if (!isLoopback(host)) writeErr("mcp-wire serve: warning: reachable from other machines, with no authentication\n");

  await untilStopped();
  writeErr("mcp-wire serve: stopping\n");
  await handler.close();
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    // SSE streams and idle keep-alive connections would hold close() open
    http.closeAllConnections();
  });
  return 0;
}
