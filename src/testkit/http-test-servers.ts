/**
 * Hand-written MCP servers over HTTP for the client tests, each a few rules of one era and
 * nothing more, recording every request: a modern-only Streamable HTTP server (2026-07-28:
 * `_meta` on every request, 400 + -32022 for a version it does not serve), a legacy one
 * (2025-11-25 style: `initialize`, `Mcp-Session-Id`, 400 with a non-modern body before it),
 * and one on the deprecated HTTP+SSE transport. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { META_PROTOCOL_VERSION, META_SERVER_INFO } from "../rules/revisions.js";
import { openSse, rpcError, result, sendJson, startServer, type Recorded, type TestServer } from "./http.js";
import type { Tool } from "../mcp/meta.js";

export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** `echo` {text} answers its text; `slow` streams progress until the client goes away. */
const ECHO_TOOL: Tool = {
  name: "echo",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
};
const SLOW_TOOL: Tool = {
  name: "slow",
  inputSchema: { type: "object", properties: { steps: { type: "integer" } } },
};

export interface ModernOptions {
  tools?: Tool[];
  /** Versions served. Default: 2026-07-28. */
  supported?: string[];
  /**
   * Answers a request before the usual rules, or returns false to let them run; e.g. a -32022
   * on the first try.
   */
  intercept?: (r: Recorded, res: ServerResponse) => boolean;
}

type Params = { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> } | undefined;

function toolCall(r: Recorded, res: ServerResponse, id: unknown, params: Params, modern: boolean): void {
  const extra = modern ? { resultType: "complete" } : {};
  if (params?.name === "slow") {
    // progress after progress, never a result: the client has to cancel
    const token = params._meta?.progressToken;
    const sse = openSse(res);
    let step = 0;
    const timer = setInterval(() => {
      step++;
      if (token !== undefined)
        sse.event({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: step },
        });
      if (step >= 250) {
        clearInterval(timer);
        res.end();
      }
    }, 20);
    res.on("close", () => clearInterval(timer));
    return;
  }
  const args = (params?.arguments ?? {}) as Record<string, unknown>;
  sendJson(res, 200, result(id, { content: [{ type: "text", text: String(args.text ?? "") }], ...extra }));
}

/** A 2026-07-28-only server: no sessions, every request self-describing. */
export function modernServer(options: ModernOptions = {}): Promise<TestServer> {
  const supported = options.supported ?? ["2026-07-28"];
  return startServer((req, res, r) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const m = r.json;
    if (!m || Array.isArray(m)) return sendJson(res, 400, rpcError(null, -32600, "Invalid Request"));
    if (options.intercept?.(r, res)) return;
    const id = m.id;
    const params = m.params as Params;
    const version = params?._meta?.[META_PROTOCOL_VERSION];
    if (typeof version !== "string" || !supported.includes(version)) {
      const message = `Unsupported protocol version: ${String(version)}`;
      return sendJson(
        res,
        400,
        rpcError(id ?? null, UNSUPPORTED_PROTOCOL_VERSION, message, { supported, requested: version ?? null }),
      );
    }
    if (id === undefined) return void res.writeHead(202).end();
    switch (m.method) {
      case "server/discover":
        return sendJson(
          res,
          200,
          result(id, {
            supportedVersions: supported,
            capabilities: { tools: {} },
            resultType: "complete",
            _meta: { [META_SERVER_INFO]: { name: "modern-test", version: "1.0.0" } },
          }),
        );
      case "tools/list":
        return sendJson(
          res,
          200,
          result(id, { tools: options.tools ?? [ECHO_TOOL, SLOW_TOOL], resultType: "complete" }),
        );
      case "tools/call":
        return toolCall(r, res, id, params, true);
      default:
        return sendJson(res, 404, rpcError(id, -32601, "Method not found"));
    }
  });
}

export interface LegacyOptions {
  tools?: Tool[];
  /** Versions it negotiates, newest first. Default 2025-11-25, 2025-06-18, 2025-03-26. */
  versions?: string[];
  /** The status for a request before `initialize` (what `server/discover` gets). Default 400. */
  beforeInitialize?: number;
}

/** A 2025-era Streamable HTTP server with sessions. */
export function legacyServer(options: LegacyOptions = {}): Promise<TestServer> {
  const versions = options.versions ?? ["2025-11-25", "2025-06-18", "2025-03-26"];
  const sessions = new Set<string>();
  return startServer((req, res, r) => {
    const sid = r.headers["mcp-session-id"];
    if (req.method === "DELETE") return void res.writeHead(sid && sessions.delete(String(sid)) ? 200 : 404).end();
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST, DELETE" }).end();
    const m = r.json;
    if (!m || Array.isArray(m)) return sendJson(res, 400, rpcError(null, -32700, "Parse error"));
    const id = m.id;
    const params = m.params as (Params & { protocolVersion?: unknown }) | undefined;
    if (m.method === "initialize") {
      const requested = params?.protocolVersion;
      const chosen = typeof requested === "string" && versions.includes(requested) ? requested : versions[0]!;
      const session = randomUUID();
      sessions.add(session);
      return sendJson(
        res,
        200,
        result(id, {
          protocolVersion: chosen,
          capabilities: { tools: {} },
          serverInfo: { name: "legacy-test", version: "1.0.0" },
        }),
        {
          "mcp-session-id": session,
        },
      );
    }
    if (typeof sid !== "string" || !sessions.has(sid)) {
      // what the v1 SDK answers before initialize: not a modern error
      return sendJson(
        res,
        options.beforeInitialize ?? 400,
        rpcError(null, -32000, "Bad Request: Server not initialized"),
      );
    }
    if (id === undefined) return void res.writeHead(202).end();
    switch (m.method) {
      case "tools/list":
        return sendJson(res, 200, result(id, { tools: options.tools ?? [ECHO_TOOL, SLOW_TOOL] }));
      case "tools/call":
        return toolCall(r, res, id, params, false);
      default:
        return sendJson(res, 200, rpcError(id, -32601, "Method not found"));
    }
  });
}

/**
 * The deprecated HTTP+SSE transport (2024-11-05): GET /mcp opens the stream, whose first event
 * names the POST endpoint; answers come on the stream. A POST to /mcp itself is a 404.
 */
export function httpSseServer(options: { tools?: Tool[] } = {}): Promise<TestServer> {
  const streams = new Map<string, ServerResponse>();
  return startServer((req, res, r) => {
    const url = new URL(r.path, "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/mcp") {
      const session = randomUUID();
      streams.set(session, res);
      res.on("close", () => streams.delete(session));
      openSse(res).raw(`event: endpoint\ndata: /messages?session=${session}\n\n`);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const stream = streams.get(url.searchParams.get("session") ?? "");
      if (!stream) return void res.writeHead(404).end("unknown session");
      res.writeHead(202).end("Accepted");
      const m = r.json;
      if (!m || m.id === undefined) return;
      const params = m.params as Params;
      let answer: Record<string, unknown>;
      if (m.method === "initialize") {
        answer = result(m.id, {
          protocolVersion: "2024-11-05",
          capabilities: { tools: {} },
          serverInfo: { name: "http-sse-test", version: "1.0.0" },
        });
      } else if (m.method === "tools/list") {
        answer = result(m.id, { tools: options.tools ?? [ECHO_TOOL] });
      } else if (m.method === "tools/call") {
        const args = (params?.arguments ?? {}) as Record<string, unknown>;
        answer = result(m.id, { content: [{ type: "text", text: String(args.text ?? "") }] });
      } else {
        answer = rpcError(m.id, -32601, "Method not found");
      }
      stream.write(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
  });
}
