/**
 * The HTTP servers of the demo fleet, one behaviour a path: each does on the wire exactly what
 * its name says, the way servers met in the wild do it (the classes and details of
 * docs/probe.md), and says what `mcp-wire probe` should make of it.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import * as zlib from "node:zlib";
import type { Peer } from "../peer/peer.js";
import type { HttpTransport, TransportSink } from "../peer/transport.js";
import { createReferenceServer } from "../mcp/reference-server.js";
import { LEGACY_REVISIONS, META_SERVER_INFO } from "../rules/revisions.js";
import { createHttpHandler, type HttpHandler } from "../transport/http/server.js";
import { fails, ok, type Expectation } from "./expect.js";

export interface FleetContext {
  /** `http://127.0.0.1:PORT` of the fleet's main server. */
  readonly origin: string;
  /** The fleet's second server: another origin, for a redirect that must not be followed. */
  readonly otherOrigin: string;
  /** A loopback port nothing listens on. */
  readonly closedPort: number;
  /** The size of the huge body. */
  readonly hugeBytes: number;
  /** The pause between two dripped bytes. */
  readonly dripMs: number;
  /** The bearer token `auth-bearer` accepts. */
  readonly token: string;
  /** Runs `fn` every `ms` until `res` closes or the fleet does. */
  every(ms: number, res: ServerResponse, fn: () => void): void;
}

export interface Route {
  /** A request for `/name` or anything under it; `sub` is the rest of the path ("" for `/name`). */
  handle(req: IncomingMessage, res: ServerResponse, sub: string): void;
  close?(): Promise<void> | void;
}

export interface HttpBehaviour {
  name: string;
  /** What the server does, in the words of someone who met it. */
  description: string;
  expect: Expectation;
  start(ctx: FleetContext): Route;
  /** Where a probe should point, when not at `/name` of the main server. */
  url?(ctx: FleetContext): string;
}

/** A JSON-RPC message as a fleet server reads it. */
interface Incoming {
  id?: unknown;
  method?: unknown;
  params?: { protocolVersion?: unknown; [k: string]: unknown };
}

const MAX_BODY = 1024 * 1024;
const REFERENCE_TOOLS = 3;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(undefined));
    req.on("close", () => resolve(undefined));
  });
}

async function readMessage(req: IncomingMessage): Promise<Incoming | undefined> {
  const body = await readBody(req);
  try {
    const v: unknown = body ? JSON.parse(body) : undefined;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Incoming) : undefined;
  } catch {
    return undefined;
  }
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res
    .writeHead(status, { "content-type": type, "content-length": String(Buffer.byteLength(body)), ...headers })
    .end(body);
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  send(res, status, "application/json", JSON.stringify(value), headers);
}

const rpcResult = (id: unknown, result: unknown) => ({ jsonrpc: "2.0", id, result });
const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } });

/** Serves only what the path itself names: anything under it is a 404, as on any server. */
function exact(handle: (req: IncomingMessage, res: ServerResponse) => void): Route {
  return {
    handle: (req, res, sub) => (sub === "" ? handle(req, res) : send(res, 404, "text/plain", "Not Found\n")),
  };
}

/** Reads the JSON-RPC message, answers a notification with 202, and hands a request on. */
function rpcRoute(answer: (m: Incoming, req: IncomingMessage, res: ServerResponse) => void): Route {
  return exact((req, res) => {
    if (req.method !== "POST") return send(res, 405, "text/plain", "Method Not Allowed\n", { allow: "POST" });
    void readMessage(req).then((m) => {
      if (!m) return json(res, 400, rpcError(null, -32700, "Parse error"));
      if (m.id === undefined) return void res.writeHead(202).end();
      answer(m, req, res);
    });
  });
}

/** A server that answers every request with the same JSON-RPC error, HTTP 200, whatever the method. */
function alwaysError(code: number, message: (m: Incoming) => string): Route {
  return rpcRoute((m, _req, res) => json(res, 200, rpcError(m.id, code, message(m))));
}

/** A server that answers every request with the same body, whatever it was. */
function always(
  status: number,
  type: string,
  body: string | ((m: Incoming | undefined) => string),
  headers: Record<string, string> = {},
): Route {
  return exact((req, res) => {
    void readMessage(req).then((m) => send(res, status, type, typeof body === "string" ? body : body(m), headers));
  });
}

interface LegacyScript {
  /** The `initialize` answer, or "hang" to leave it unanswered. */
  initialize(m: Incoming): { result: unknown } | { error: { code: number; message: string } } | "hang";
  /** The `tools/list` answer, or "hang". */
  toolsList?: "hang" | unknown[];
  /** Answer in SSE instead of JSON. */
  sse?: boolean;
  /** Leave a DELETE (the end of a session) unanswered too: a server stuck for good. */
  deleteHangs?: boolean;
}

const ECHO = {
  name: "echo",
  description: "Returns its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
};

/**
 * A hand-written 2025-era Streamable HTTP server, as the v1 TypeScript SDK's behave: a request
 * before `initialize` (such as `server/discover`) gets 400 and a -32000 body, not a modern error;
 * `initialize` opens an `Mcp-Session-Id` session.
 */
function legacyScripted(script: LegacyScript): Route {
  const sessions = new Set<string>();
  const hung = new Set<ServerResponse>();
  const reply = (res: ServerResponse, message: unknown, headers: Record<string, string> = {}) => {
    if (!script.sse) return json(res, 200, message, headers);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
    res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  const hang = (res: ServerResponse) => {
    hung.add(res);
    res.on("close", () => hung.delete(res));
  };
  return {
    handle: (req, res, sub) => {
      if (sub !== "") return send(res, 404, "text/plain", "Not Found\n");
      const sid = req.headers["mcp-session-id"];
      if (req.method === "DELETE") {
        if (script.deleteHangs) return hang(res);
        return void res.writeHead(typeof sid === "string" && sessions.delete(sid) ? 200 : 404).end();
      }
      if (req.method !== "POST") return send(res, 405, "text/plain", "Method Not Allowed\n", { allow: "POST, DELETE" });
      void readMessage(req).then((m) => {
        if (!m) return json(res, 400, rpcError(null, -32700, "Parse error"));
        if (m.method === "initialize") {
          const answer = script.initialize(m);
          if (answer === "hang") return hang(res);
          if ("error" in answer) return reply(res, { jsonrpc: "2.0", id: m.id, error: answer.error });
          const session = randomUUID();
          sessions.add(session);
          return reply(res, rpcResult(m.id, answer.result), { "mcp-session-id": session });
        }
        if (typeof sid !== "string" || !sessions.has(sid))
          return json(res, 400, rpcError(null, -32000, "Bad Request: No valid session ID provided"));
        if (m.id === undefined) return void res.writeHead(202).end();
        if (m.method === "tools/list") {
          if (script.toolsList === "hang") return hang(res);
          return reply(res, rpcResult(m.id, { tools: script.toolsList ?? [ECHO] }));
        }
        if (m.method === "ping") return reply(res, rpcResult(m.id, {}));
        return reply(res, rpcError(m.id, -32601, "Method not found"));
      });
    },
    close: () => {
      for (const res of hung) res.destroy();
    },
  };
}

const legacyInit = (version: string, name: string) => ({
  result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name, version: "1.0.0" } },
});

/** mcp-wire's own McpServer behind its HTTP handler. */
function mcpServerRoute(options: { legacyOnly?: boolean; acceptOnlySse?: boolean }): Route {
  const handler: HttpHandler = createHttpHandler(
    createReferenceServer(
      options.legacyOnly
        ? { revisions: LEGACY_REVISIONS, serverInfo: { name: "fleet-legacy", version: "1.0.0" } }
        : { serverInfo: { name: "fleet-modern", version: "1.0.0" } },
    ),
    { keepAliveMs: 0 },
  );
  return {
    handle: (req, res, sub) => {
      if (sub !== "") return send(res, 404, "text/plain", "Not Found\n");
      // the handler answers in JSON whenever the client takes it: only a client that takes
      // nothing else gets SSE, so the server is told that is all this one takes
      if (options.acceptOnlySse && req.headers.accept) req.headers.accept = "text/event-stream";
      handler.node(req, res);
    },
    close: () => handler.close(),
  };
}

/** The server side of one HTTP+SSE session (2024-11-05): answers go out as events on the GET stream. */
class SseSessionTransport implements HttpTransport {
  readonly kind = "http";
  private sink: TransportSink | undefined;

  constructor(private readonly res: ServerResponse) {
    res.on("close", () => this.sink?.closed());
  }

  start(sink: TransportSink): void {
    this.sink = sink;
  }

  deliver(text: string): void {
    this.sink?.message(text);
  }

  send(text: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(`event: message\ndata: ${text}\n\n`);
  }

  async close(): Promise<void> {
    this.res.end();
    this.sink?.closed();
  }
}

/** The deprecated HTTP+SSE transport: GET opens the stream, the `endpoint` event names where to POST. */
function httpSseRoute(name: string): Route {
  const server = createReferenceServer({
    revisions: ["2024-11-05"],
    serverInfo: { name: "fleet-http-sse", version: "1.0.0" },
  });
  const sessions = new Map<string, { transport: SseSessionTransport; peer: Peer; res: ServerResponse }>();
  return {
    handle: (req, res, sub) => {
      if (sub === "" && req.method === "GET") {
        const id = randomUUID();
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(`event: endpoint\ndata: /${name}/messages?session=${id}\n\n`);
        const transport = new SseSessionTransport(res);
        sessions.set(id, { transport, peer: server.connect(transport), res });
        res.on("close", () => sessions.delete(id));
        return;
      }
      if (sub === "") return send(res, 405, "text/plain", "Method Not Allowed\n", { allow: "GET" });
      if (sub.startsWith("/messages") && req.method === "POST") {
        const session = sessions.get(new URL(req.url ?? "/", "http://x").searchParams.get("session") ?? "");
        if (!session) return send(res, 404, "text/plain", "Could not find session\n");
        void readBody(req).then((body) => {
          send(res, 202, "text/plain", "Accepted");
          if (body) session.transport.deliver(body);
        });
        return;
      }
      send(res, 404, "text/plain", "Not Found\n");
    },
    close: () => {
      for (const s of sessions.values()) s.res.destroy();
    },
  };
}

const HTML_DOCS = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Acme MCP Server — Documentation</title></head>
<body><h1>Acme MCP Server</h1>
<p>Connect your MCP client to <code>https://mcp.acme.example/mcp</code> with your API key.</p>
<h2>Tools</h2><ul><li><code>search</code> — search the catalogue</li></ul>
</body></html>
`;

const HTML_LOGIN = `<!DOCTYPE html>
<html><head><title>Sign in</title></head>
<body><form method="post" action="/login-page/session"><h1>Sign in to continue</h1>
<label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button></form></body></html>
`;

const HTML_NOT_FOUND = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Page not found · Acme</title></head>
<body><h1>404</h1><p>There isn't a page here. <a href="/">Back to the home page</a>.</p></body></html>
`;

const HTML_GONE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Gone</title></head>
<body><h1>410 Gone</h1><p>The Acme MCP server has been retired.</p></body></html>
`;

const HTML_502 = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>
`;

const MODERN_TOOLS = [{ name: "search", description: "Searches.", inputSchema: { type: "object" } }];

/** What a small modern server answers: a DiscoverResult, its one tool, or -32601 (both results cacheable, as 2026-07-28 requires). */
function modernAnswer(m: Incoming, name: string): unknown {
  if (m.method === "server/discover") {
    return rpcResult(m.id, {
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "public",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      _meta: { [META_SERVER_INFO]: { name, version: "1.0.0" } },
    });
  }
  if (m.method === "tools/list")
    return rpcResult(m.id, { resultType: "complete", ttlMs: 0, cacheScope: "public", tools: MODERN_TOOLS });
  return rpcError(m.id, -32601, "Method not found");
}

/**
 * A modern server behind a compressing proxy or framework: every answer in `coding` (as JSON,
 * or as an SSE stream of one event flushed as it goes), whatever the client offered, as some do.
 */
function compressedRoute(coding: "gzip" | "br", name: string, sse: boolean): Route {
  return rpcRoute((m, _req, res) => {
    const text = JSON.stringify(modernAnswer(m, name));
    const type = sse ? "text/event-stream" : "application/json";
    res.writeHead(200, { "content-type": type, "content-encoding": coding, vary: "accept-encoding" });
    const encoder = coding === "br" ? zlib.createBrotliCompress() : zlib.createGzip();
    encoder.pipe(res);
    if (!sse) return void encoder.end(text);
    // a comment first, flushed on its own: the client decodes the stream as it arrives
    encoder.write(": stream open\n\n");
    encoder.flush(() => encoder.end(`event: message\ndata: ${text}\n\n`));
  });
}

/** One gzip member holding 16 MiB of "x": gzip members may follow each other, and decode as one body. */
let bombFill: Buffer | undefined;

/**
 * A compression bomb: a JSON-RPC result of `size` decoded bytes (1 GB by default) sent as about
 * a thousandth of that, gzip members one after another, written only as fast as the client reads.
 */
function gzipBomb(res: ServerResponse, id: unknown, size: number): void {
  bombFill ??= zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024, "x"), { level: 9 });
  const head = zlib.gzipSync(
    `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":{"resultType":"complete","tools":[{"name":"bomb","inputSchema":{"type":"object"},"description":"`,
  );
  res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
  res.write(head);
  let members = Math.max(1, Math.floor(size / (16 * 1024 * 1024)));
  const pump = () => {
    while (members > 0 && !res.destroyed) {
      members--;
      if (!res.write(bombFill!)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end(zlib.gzipSync(`"}]}}`));
  };
  pump();
}

export const HTTP_BEHAVIOURS: readonly HttpBehaviour[] = [
  {
    name: "modern",
    description: "mcp-wire's reference McpServer over Streamable HTTP: both eras, 2026-07-28 first",
    expect: ok("modern", "2026-07-28", REFERENCE_TOOLS, { status: 200 }),
    start: () => mcpServerRoute({}),
  },
  {
    name: "legacy",
    description:
      "a legacy-only McpServer: server/discover is a method it does not have (-32601, HTTP 404), initialize opens a session",
    expect: ok("legacy", "2025-11-25", REFERENCE_TOOLS),
    start: () => mcpServerRoute({ legacyOnly: true }),
  },
  {
    name: "legacy-sse",
    description: "a legacy-only McpServer that answers every request as an SSE stream",
    expect: ok("legacy", "2025-11-25", REFERENCE_TOOLS),
    start: () => mcpServerRoute({ legacyOnly: true, acceptOnlySse: true }),
  },
  {
    name: "http-sse",
    description:
      "the deprecated HTTP+SSE transport (2024-11-05): POST here is 405, GET opens the stream whose endpoint event names where to POST",
    expect: ok("legacy", "2024-11-05", REFERENCE_TOOLS, { transport: "http+sse" }),
    start: () => httpSseRoute("http-sse"),
  },
  {
    name: "modern-no-result-type",
    description:
      "a 2026-07-28 server whose results leave out resultType (read as complete: a warning), and so break the schema a sender must follow",
    expect: ok("modern", "2026-07-28", 1, { defects: ["result_type_missing", "schema_invalid"] }),
    start: () =>
      rpcRoute((m, _req, res) => {
        if (m.method === "server/discover") {
          return json(
            res,
            200,
            rpcResult(m.id, {
              supportedVersions: ["2026-07-28"],
              capabilities: { tools: {} },
              _meta: { [META_SERVER_INFO]: { name: "fleet-no-result-type", version: "1.0.0" } },
            }),
          );
        }
        if (m.method === "tools/list") return json(res, 200, rpcResult(m.id, { tools: MODERN_TOOLS }));
        json(res, 404, rpcError(m.id, -32601, "Method not found"));
      }),
  },
  {
    name: "version-retry",
    description:
      "a legacy server that supports only 2025-03-26 and answers initialize offering anything newer with -32602 naming the version, instead of offering its own",
    expect: ok("legacy", "2025-03-26", 1, { defects: ["version_not_negotiated"] }),
    start: () =>
      legacyScripted({
        initialize: (m) => {
          const v = m.params?.protocolVersion;
          return v === "2025-03-26"
            ? legacyInit("2025-03-26", "fleet-old-sdk")
            : { error: { code: -32602, message: `Unsupported protocol version: ${String(v)}` } };
        },
      }),
  },
  {
    name: "web-page",
    description: "a documentation page (HTML, 200) where the endpoint was expected",
    expect: fails("web_page", "text/html", { status: 200 }),
    start: () => always(200, "text/html; charset=utf-8", HTML_DOCS),
  },
  {
    name: "login-page",
    description: "redirects (302, same origin) to a login form, HTML 200",
    expect: fails("web_page", "text/html", { status: 200 }),
    start: () => ({
      handle: (req, res, sub) => {
        if (sub === "/login")
          return void readBody(req).then(() => send(res, 200, "text/html; charset=utf-8", HTML_LOGIN));
        void readBody(req).then(() => {
          res.writeHead(302, { location: "/login-page/login?next=%2Fmcp", "content-length": "0" }).end();
        });
      },
    }),
  },
  {
    name: "bare-array-empty",
    description: "answers every request with a bare JSON array: []",
    expect: fails("not_jsonrpc", "bare_array", { status: 200 }),
    start: () => always(200, "application/json", "[]"),
  },
  {
    name: "bare-array",
    description: 'answers with a bare array of tools: [{"name":…}]',
    expect: fails("not_jsonrpc", "bare_array", { status: 200 }),
    start: () => always(200, "application/json", JSON.stringify([{ name: "search", description: "Searches." }])),
  },
  {
    name: "no-envelope",
    description: 'answers with a bare result and no JSON-RPC envelope: {"tools":[…]}',
    expect: fails("not_jsonrpc", "no_envelope", { status: 200 }),
    start: () => always(200, "application/json", JSON.stringify({ tools: MODERN_TOOLS })),
  },
  {
    name: "invalid-api-key",
    description: 'refuses every request with -32001 "invalid api key" (HTTP 200), not a 401',
    expect: fails("auth_required", "rpc_error_instead_of_401", {
      rpcError: { code: -32001, message: "invalid api key", range: "legacy" },
      status: 200,
    }),
    start: () => alwaysError(-32001, () => "invalid api key"),
  },
  {
    name: "method-not-found",
    description: 'has no initialize: -32601 "Unknown method: …" for everything',
    expect: fails("rpc_error", "method_not_found", {
      rpcError: { code: -32601, message: "Unknown method: initialize", range: "standard" },
    }),
    start: () => alwaysError(-32601, (m) => `Unknown method: ${String(m.method)}`),
  },
  {
    name: "unsupported-version",
    description: 'rejects initialize with -32602 "Unsupported MCP protocol version", whatever version is offered',
    expect: fails("rpc_error", "unsupported_version", {
      rpcError: { code: -32602, message: "Unsupported MCP protocol version", range: "standard" },
    }),
    start: () =>
      rpcRoute((m, _req, res) =>
        json(
          res,
          200,
          m.method === "initialize"
            ? rpcError(m.id, -32602, "Unsupported MCP protocol version")
            : rpcError(m.id, -32601, "Method not found"),
        ),
      ),
  },
  {
    name: "internal-error",
    description: "fails initialize with -32603 Internal error",
    expect: fails("rpc_error", "internal_error", {
      rpcError: { code: -32603, message: "Internal error", range: "standard" },
    }),
    start: () =>
      rpcRoute((m, _req, res) =>
        json(
          res,
          200,
          m.method === "initialize"
            ? rpcError(m.id, -32603, "Internal error")
            : rpcError(m.id, -32601, "Method not found"),
        ),
      ),
  },
  {
    name: "legacy-code",
    description: "fails every request with -32000, from the implementation-defined legacy range",
    expect: fails("rpc_error", "legacy_code", {
      rpcError: { code: -32000, message: "Server error: upstream unavailable", range: "legacy" },
    }),
    start: () => alwaysError(-32000, () => "Server error: upstream unavailable"),
  },
  {
    name: "application-error",
    description: "fails every request with an application-defined code (outside -32768…-32000)",
    expect: fails("rpc_error", "other", {
      rpcError: { code: 503, message: "Service in maintenance until 06:00 UTC", range: "application" },
    }),
    start: () => alwaysError(503, () => "Service in maintenance until 06:00 UTC"),
  },
  {
    name: "http-401",
    description: "401 with a WWW-Authenticate Bearer challenge",
    expect: fails("auth_required", "http_401", { status: 401 }),
    start: (ctx) =>
      always(
        401,
        "application/json",
        JSON.stringify({ error: "invalid_token", error_description: "Missing bearer token" }),
        {
          "www-authenticate": `Bearer realm="fleet", resource_metadata="${ctx.origin}/.well-known/oauth-protected-resource"`,
        },
      ),
  },
  {
    name: "auth-bearer",
    description:
      "serves the reference server only with `Authorization: Bearer <token>`; otherwise 401, echoing the credential it was given",
    expect: fails("auth_required", "http_401", { status: 401 }),
    start: (ctx) => {
      const inner = mcpServerRoute({});
      return {
        handle: (req, res, sub) => {
          const given = req.headers.authorization;
          if (given === `Bearer ${ctx.token}`) return inner.handle(req, res, sub);
          const why = given === undefined ? "Missing bearer token" : `Invalid credentials: ${given}`;
          void readBody(req).then(() =>
            json(
              res,
              401,
              { error: "invalid_token", error_description: why },
              { "www-authenticate": 'Bearer realm="fleet", error="invalid_token"' },
            ),
          );
        },
        close: () => inner.close?.(),
      };
    },
  },
  {
    name: "http-403",
    description: "403 Forbidden",
    expect: fails("auth_required", "http_403", { status: 403 }),
    start: () => always(403, "text/plain", "Forbidden\n"),
  },
  {
    name: "http-404",
    description: "404 with a plain-text body",
    expect: fails("http_error", "http_404", { status: 404 }),
    start: () => always(404, "text/plain", "404 page not found\n"),
  },
  {
    name: "http-404-html",
    description: 'a site\'s HTML "page not found" (404): nothing is served at that path',
    expect: fails("http_error", "http_404", { status: 404 }),
    start: () => always(404, "text/html; charset=utf-8", HTML_NOT_FOUND),
  },
  {
    name: "http-410-html",
    description: 'a site\'s HTML "gone" page (410): the endpoint was taken down',
    expect: fails("http_error", "http_410", { status: 410 }),
    start: () => always(410, "text/html; charset=utf-8", HTML_GONE),
  },
  {
    name: "docs-page-405",
    description: "a static documentation site: a POST gets 405 with the page itself",
    expect: fails("web_page", "text/html", { status: 405 }),
    start: () => always(405, "text/html; charset=utf-8", HTML_DOCS),
  },
  {
    name: "http-500",
    description: "500 with a plain-text body",
    expect: fails("http_error", "http_500", { status: 500 }),
    start: () => always(500, "text/plain", "Internal Server Error\n"),
  },
  {
    name: "http-502",
    description: "an nginx 502 Bad Gateway page: the server behind the proxy is down",
    expect: fails("http_error", "http_502", { status: 502 }),
    start: () => always(502, "text/html", HTML_502),
  },
  {
    name: "empty-body",
    description: "200 with an empty body",
    expect: fails("not_json", "empty_body", { status: 200 }),
    start: () => always(200, "application/json", ""),
  },
  {
    name: "plain-text",
    description: "200 with plain text",
    expect: fails("not_json", "text", { status: 200 }),
    start: () => always(200, "text/plain", "OK\n"),
  },
  {
    name: "hang",
    description: "accepts the request and never answers",
    expect: fails("timeout", "server/discover"),
    start: () => {
      const hung = new Set<ServerResponse>();
      return {
        handle: (_req, res) => {
          hung.add(res);
          res.on("close", () => hung.delete(res));
        },
        close: () => {
          for (const res of hung) res.destroy();
        },
      };
    },
  },
  {
    name: "hang-after-initialize",
    description:
      "a legacy server that opens the session, then never answers tools/list (nor the DELETE that would end the session)",
    expect: fails("timeout", "tools/list", { era: "legacy", revision: "2025-11-25" }),
    start: () =>
      legacyScripted({
        initialize: () => legacyInit("2025-11-25", "fleet-stuck"),
        toolsList: "hang",
        deleteHangs: true,
      }),
  },
  {
    name: "hang-on-initialize",
    description: "a legacy server that never answers initialize",
    expect: fails("timeout", "initialize"),
    start: () => legacyScripted({ initialize: () => "hang" }),
  },
  {
    name: "wrong-id",
    description: "answers with a result for an id that was never sent",
    expect: fails("protocol_violation", "unknown_response_id", { status: 200 }),
    start: () =>
      rpcRoute((m, _req, res) =>
        json(res, 200, rpcResult(typeof m.id === "number" ? m.id + 1000 : "not-your-id", { tools: [] })),
      ),
  },
  {
    name: "null-id",
    description: "answers with a result whose id is null",
    expect: fails("protocol_violation", "id_null", { status: 200 }),
    start: () =>
      always(
        200,
        "application/json",
        JSON.stringify(rpcResult(null, { protocolVersion: "2025-03-26", capabilities: {} })),
      ),
  },
  {
    name: "result-and-error",
    description: "answers with both a result and an error",
    expect: fails("protocol_violation", "result_and_error", { status: 200 }),
    start: () =>
      rpcRoute((m, _req, res) =>
        json(res, 200, { jsonrpc: "2.0", id: m.id, result: {}, error: { code: -32603, message: "Internal error" } }),
      ),
  },
  {
    name: "wrong-jsonrpc",
    description: 'answers with "jsonrpc": "1.0"',
    expect: fails("not_jsonrpc", "wrong_jsonrpc_version", { status: 200 }),
    start: () => rpcRoute((m, _req, res) => json(res, 200, { jsonrpc: "1.0", id: m.id, result: { tools: [] } })),
  },
  {
    name: "redirect-other-origin",
    description: "307 to the same path on another origin (a second loopback port), which serves the reference server",
    expect: fails("http_error", "redirect_307", { status: 307 }),
    start: (ctx) =>
      exact((req, res) => {
        void readBody(req).then(() =>
          res.writeHead(307, { location: `${ctx.otherOrigin}/modern`, "content-length": "0" }).end(),
        );
      }),
  },
  {
    name: "gzip",
    description: "a modern server behind a compressing proxy: every JSON answer gzip-encoded",
    expect: ok("modern", "2026-07-28", 1, { status: 200 }),
    start: () => compressedRoute("gzip", "fleet-gzip", false),
  },
  {
    name: "brotli-sse",
    description: "a modern server that answers as an SSE stream, brotli-encoded (br) and flushed event by event",
    expect: ok("modern", "2026-07-28", 1, { status: 200 }),
    start: () => compressedRoute("br", "fleet-brotli-sse", true),
  },
  {
    name: "gzip-bomb",
    description: "a compression bomb: a JSON result of 1 GB (by default) sent gzip-encoded as about 1 MB",
    expect: fails("protocol_violation", "too_large", { status: 200 }),
    start: (ctx) => rpcRoute((m, _req, res) => gzipBomb(res, m.id, ctx.hugeBytes)),
  },
  {
    name: "slash-redirect",
    description:
      "the endpoint lives at /slash-redirect/: a POST without the trailing slash gets 308 to it, as many frameworks do",
    expect: ok("modern", "2026-07-28", REFERENCE_TOOLS, { status: 200, defects: ["redirect"] }),
    start: () => {
      const inner = mcpServerRoute({});
      return {
        handle: (req, res, sub) => {
          if (sub === "")
            return void readBody(req).then(() =>
              res.writeHead(308, { location: "/slash-redirect/", "content-length": "0" }).end(),
            );
          inner.handle(req, res, sub === "/" ? "" : sub);
        },
        close: () => inner.close?.(),
      };
    },
  },
  {
    name: "drip",
    description: "answers 200 and then sends its JSON one byte at a time, one a second",
    expect: fails("timeout", "server/discover"),
    start: (ctx) =>
      rpcRoute((m, _req, res) => {
        const body = JSON.stringify(
          rpcResult(m.id, { supportedVersions: ["2026-07-28"], capabilities: {}, resultType: "complete" }),
        );
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
        res.flushHeaders();
        let i = 0;
        ctx.every(ctx.dripMs, res, () => {
          if (i < body.length) res.write(body[i++]!);
          else res.end();
        });
      }),
  },
  {
    name: "endless-sse",
    description: "opens an SSE stream and sends keep-alive comments forever, never the response",
    expect: fails("timeout", "server/discover"),
    start: (ctx) =>
      rpcRoute((_m, _req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(": stream open\n\n");
        ctx.every(100, res, () => res.write(": keep-alive\n\n"));
      }),
  },
  {
    name: "huge-body",
    description: "answers with a JSON result of 1 GB (by default), generated as it is sent",
    expect: fails("protocol_violation", "too_large", { status: 200 }),
    start: (ctx) => rpcRoute((m, _req, res) => hugeAnswer(res, m.id, ctx.hugeBytes)),
  },
  {
    name: "reset",
    description: "accepts the connection and resets it when a request arrives",
    expect: fails("unreachable", "reset"),
    start: () => ({ handle: (req) => req.socket.resetAndDestroy() }),
  },
  {
    name: "refused",
    description: "a loopback port nothing listens on",
    expect: fails("unreachable", "refused"),
    start: () => ({ handle: () => undefined }),
    url: (ctx) => `http://127.0.0.1:${ctx.closedPort}/mcp`,
  },
  {
    name: "tls",
    description: "an https:// URL whose port speaks plain HTTP: the TLS handshake fails",
    expect: fails("unreachable", "tls"),
    start: () => ({ handle: (_req, res) => send(res, 400, "text/plain", "This port speaks plain HTTP\n") }),
    url: (ctx) => `${ctx.origin.replace("http://", "https://")}/tls`,
  },
];

/** A valid JSON-RPC result of exactly `size` bytes, written only as fast as the client reads. */
function hugeAnswer(res: ServerResponse, id: unknown, size: number): void {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":{"resultType":"complete","tools":[{"name":"huge","inputSchema":{"type":"object"},"description":"`;
  const tail = `"}]}}`;
  const fill = Math.max(0, size - head.length - tail.length);
  const block = Buffer.alloc(64 * 1024, "x");
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(head.length + fill + tail.length),
  });
  res.write(head);
  let left = fill;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, block.length);
      left -= n;
      if (!res.write(n === block.length ? block : block.subarray(0, n))) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end(tail);
  };
  pump();
}
