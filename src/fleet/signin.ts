/**
 * A loopback server that serves every sign-in case at once: each case's MCP endpoint, resource
 * metadata and authorization server documents at their own paths (`/c/<name>/…` and the
 * well-known URLs built from them), a registration endpoint that registers whoever POSTs (the
 * SDK does; the walk must not), and every request recorded with its method, so a test can tell
 * that the walk sent nothing but GET and OPTIONS to metadata and registration URLs.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./listen.js";
import { SIGNIN_CASES, paths, type Answer, type CorsMode, type SigninCase, type SigninLayout } from "./signin-cases.js";

export interface SigninRequest {
  method: string;
  path: string;
  /** The case the path belongs to. */
  name: string | undefined;
  /** What the path is: the endpoint, a registration endpoint, or another document. */
  kind: "endpoint" | "register" | "document" | "unknown";
}

export interface SigninServer {
  origin: string;
  cases: SigninCase[];
  url(name: string): string;
  /** Every request so far. */
  readonly requests: SigninRequest[];
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;
const ALLOW_HEADERS =
  "authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id, mcp-method, mcp-name";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(""));
  });
}

function corsHeaders(mode: CorsMode, kind: "endpoint" | "document"): Record<string, string> {
  if (kind === "document") return mode === "metadata" ? {} : { "access-control-allow-origin": "*" };
  if (mode === "hidden") return { "access-control-allow-origin": "*" };
  return { "access-control-allow-origin": "*", "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id" };
}

function send(res: ServerResponse, answer: Answer, extra: Record<string, string>): void {
  const text =
    answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
  const type = typeof answer.body === "string" ? "text/plain" : "application/json";
  res.writeHead(answer.status, { "content-type": type, ...extra, ...answer.headers }).end(text);
}

/** Starts the server with `cases` (all of them by default). */
export async function startSigninServer(cases: SigninCase[] = SIGNIN_CASES, preferredPort = 0): Promise<SigninServer> {
  const site = new SigninSite();
  const server = createServer((req, res) => site.handle(req, res));
  const port = await listenLoopback(server, preferredPort);
  const origin = `http://127.0.0.1:${port}`;
  for (const c of cases) site.add(c, origin);
  return {
    origin,
    cases,
    url: (name) => `${origin}${paths(`/c/${name}`).endpoint}`,
    requests: site.requests,
    close: () => closeServer(server),
  };
}

/** Where each case lives (its endpoint, its registration endpoint, its documents), and every request recorded. */
class SigninSite {
  readonly requests: SigninRequest[] = [];
  private readonly documents = new Map<string, { layout: SigninLayout; name: string }>();
  private readonly endpoints = new Map<string, { layout: SigninLayout; name: string }>();
  private readonly registers = new Map<string, string>();

  add(c: SigninCase, origin: string): void {
    const base = `/c/${c.name}`;
    const layout = c.layout(origin, base);
    const p = paths(base);
    this.endpoints.set(p.endpoint, { layout, name: c.name });
    this.registers.set(p.register, c.name);
    for (const docPath of Object.keys(layout.docs)) this.documents.set(docPath, { layout, name: c.name });
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? "/").split("?")[0]!;
    const method = req.method ?? "GET";
    const endpoint = this.endpoints.get(path);
    const doc = this.documents.get(path);
    const register = this.registers.get(path);
    this.requests.push({
      method,
      path,
      name: endpoint?.name ?? doc?.name ?? register,
      kind: endpoint ? "endpoint" : register ? "register" : doc ? "document" : "unknown",
    });
    void readBody(req).then((body) => {
      if (endpoint) return answerEndpoint(res, endpoint.layout, method, body);
      if (register) return this.register(res, method, body);
      if (doc) return answerDocument(res, doc.layout, path, method);
      send(res, { status: 404, body: "Not Found" }, {});
    });
  }

  /** Registers whoever POSTs client metadata, as a dynamic client registration endpoint does. */
  private register(res: ServerResponse, method: string, body: string): void {
    if (method !== "POST")
      return send(
        res,
        { status: 405, body: { error: "invalid_request", error_description: "POST a client registration" } },
        {},
      );
    let metadata: Record<string, unknown>;
    try {
      metadata = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return send(res, { status: 400, body: { error: "invalid_client_metadata" } }, {});
    }
    const client = { client_id: `client-${this.requests.length}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
    send(res, { status: 201, body: { ...metadata, ...client } }, {});
  }
}

/** The MCP endpoint of a case: its refusal, and a CORS preflight answered as the case's layout says. */
function answerEndpoint(res: ServerResponse, layout: SigninLayout, method: string, body: string): void {
  if (method !== "OPTIONS") return send(res, echoId(layout.endpoint, body), corsHeaders(layout.cors, "endpoint"));
  if (layout.cors === "preflight") return send(res, { status: 405, body: "Method Not Allowed" }, {});
  res
    .writeHead(204, {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": "600",
    })
    .end();
}

/** A metadata document of a case, to GET (and to preflight). */
function answerDocument(res: ServerResponse, layout: SigninLayout, path: string, method: string): void {
  if (method === "OPTIONS") return send(res, { status: 204 }, corsHeaders(layout.cors, "document"));
  if (method !== "GET") return send(res, { status: 405, body: "Method Not Allowed" }, {});
  send(res, layout.docs[path]!, corsHeaders(layout.cors, "document"));
}

/** A JSON-RPC refusal answers the id it was sent, as a real server's would. */
function echoId(answer: Answer, body: string): Answer {
  const b = answer.body as { jsonrpc?: unknown; id?: unknown } | undefined;
  if (!b || typeof b !== "object" || b.jsonrpc !== "2.0" || b.id === null) return answer;
  try {
    const sent = JSON.parse(body) as { id?: unknown };
    if (sent && typeof sent === "object" && "id" in sent) return { ...answer, body: { ...b, id: sent.id } };
  } catch {
    // not JSON: the id stays as written
  }
  return answer;
}
