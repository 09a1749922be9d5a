/**
 * The zoo: a small dual-era MCP server, healthy but for the one fault its name plants, for the
 * tests of `mcp-wire check` (each check meets a server with exactly that fault, and the healthy
 * one must give no finding at all). Plain Node, no imports from mcp-wire: it stands for servers
 * written by other people. Over HTTP, `startZoo()` serves every fault at a path of its own
 * (`/<fault>`); over stdio, `node zoo-server.js <fault>` serves one, and with ZOO_LOG set it
 * appends each method it is asked for to that file (so a test sees what was called).
 */
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Every fault the zoo can plant; `healthy` plants none. */
export const ZOO_FAULTS = [
  "healthy",
  // what any server can get wrong, over either transport
  "schema-invalid",
  "pagination-loop",
  "pagination-stuck",
  "pagination-endless",
  "empty-cursor",
  "unknown-method-code",
  "undefined-code",
  "bad-params-result",
  "ping-error",
  "set-level-error",
  "list-error",
  "ping-silent",
  "resource-32002",
  "input-schema-not-object",
  "input-schema-invalid",
  "tool-name",
  "no-content",
  "structured-invalid",
  // 2026-07-28 only, and server/discover answered "method not found"
  "no-discover",
  // stdio only
  "log-line",
  "slow-exit",
  // HTTP only
  "text-plain",
  "notification-200",
  "session-400",
  "no-header-check",
  "version-200",
  "unknown-200",
  "modern-only",
  "modern-only-get",
  "accept-json-refused",
  "auth-no-challenge",
] as const;
export type ZooFault = (typeof ZOO_FAULTS)[number];

const MODERN = "2026-07-28";
const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const PV = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO = { name: "mcp-wire-zoo", version: "1.0.0" };

interface Rpc {
  jsonrpc?: unknown;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown>; cursor?: unknown };
}

type Answer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

const TOOLS = [
  {
    name: "echo",
    description: "Returns its text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  },
];

/** The server's answers, fault included: one instance per connection (stdio) or per route (HTTP). */
export class Zoo {
  /** Every method asked for, in order. */
  readonly asked: string[] = [];

  constructor(readonly fault: ZooFault) {}

  private revisions(): string[] {
    return this.fault === "modern-only" || this.fault === "modern-only-get" || this.fault === "no-discover"
      ? [MODERN]
      : [MODERN, ...LEGACY];
  }

  private capabilities(): Record<string, unknown> {
    return { tools: {}, resources: {}, prompts: {}, ...(this.modernOnly ? {} : { logging: {} }) };
  }

  get modernOnly(): boolean {
    return this.revisions().length === 1;
  }

  /** The version a request speaks: its `_meta` protocol version (modern), else the session's. */
  modernVersion(m: Rpc): string | undefined {
    const v = m.params?._meta?.[PV];
    return typeof v === "string" ? v : undefined;
  }

  /** The answer to one request (undefined for a notification). */
  answer(m: Rpc, session: { revision?: string }): Answer | "silence" | undefined {
    if (typeof m.method !== "string") return undefined;
    this.asked.push(m.method);
    if (process.env.ZOO_LOG) appendFileSync(process.env.ZOO_LOG, `${m.method}\n`);
    if (m.id === undefined) return undefined;
    const version = this.modernVersion(m);
    const modern = version !== undefined;
    if (modern && !this.revisions().includes(version)) {
      return {
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: [MODERN], requested: version },
        },
      };
    }
    const complete = (result: Record<string, unknown>) => ({
      result: modern ? { resultType: "complete", ...result } : result,
    });
    const listed = (result: Record<string, unknown>) =>
      complete(modern ? { ...result, ttlMs: 0, cacheScope: "public" } : result);
    const p = m.params ?? {};
    switch (m.method) {
      case "initialize": {
        if (modern || this.modernOnly) break;
        const asked = String(p.protocolVersion);
        session.revision = LEGACY.includes(asked) ? asked : LEGACY[0]!;
        return {
          result: { protocolVersion: session.revision, capabilities: this.capabilities(), serverInfo: SERVER_INFO },
        };
      }
      case "server/discover":
        if (!modern || this.fault === "no-discover") break;
        return listed({
          supportedVersions: this.revisions(),
          capabilities: this.capabilities(),
          _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
        });
      case "ping":
        if (modern) break;
        if (this.fault === "ping-error") return { error: { code: -32601, message: "Method not found" } };
        if (this.fault === "ping-silent") return "silence";
        return { result: {} };
      case "logging/setLevel":
        if (modern) break;
        if (this.fault === "set-level-error") return { error: { code: -32601, message: "Method not found" } };
        return { result: {} };
      case "tools/list":
        return this.tools(p.cursor, listed);
      case "tools/call":
        return this.call(p, complete);
      case "resources/list": {
        const bad = this.badCursor(p.cursor);
        return bad ?? listed({ resources: [{ uri: "zoo://readme", name: "readme", mimeType: "text/plain" }] });
      }
      case "resources/templates/list": {
        const bad = this.badCursor(p.cursor);
        return bad ?? listed({ resourceTemplates: [{ uriTemplate: "zoo://animals/{name}", name: "animal" }] });
      }
      case "resources/read":
        // -32002 was "resource not found" until 2026-07-28 retired it for -32602
        if (p.uri !== "zoo://readme")
          return { error: { code: this.fault === "resource-32002" ? -32002 : -32602, message: "Unknown resource" } };
        return listed({ contents: [{ uri: "zoo://readme", mimeType: "text/plain", text: "The zoo." }] });
      case "prompts/list": {
        if (this.fault === "list-error") return { error: { code: -32603, message: "Internal error" } };
        const bad = this.badCursor(p.cursor);
        if (bad) return bad;
        return listed({
          prompts:
            this.fault === "schema-invalid"
              ? [{ description: "A prompt without a name." }]
              : [{ name: "greet", description: "Says hello." }],
        });
      }
      case "prompts/get":
        return complete({ messages: [{ role: "user", content: { type: "text", text: "Hello." } }] });
    }
    const code = this.fault === "unknown-method-code" ? -32603 : this.fault === "undefined-code" ? -32050 : -32601;
    return { error: { code, message: `Method not found: ${m.method}` } };
  }

  /** -32602 for a cursor that is not one of ours (unless the fault is to take anything). */
  private badCursor(cursor: unknown): Answer | undefined {
    if (cursor === undefined || this.fault === "bad-params-result") return undefined;
    if (typeof cursor !== "string" || !/^(p\d+|)$/.test(cursor))
      return { error: { code: -32602, message: "Invalid cursor" } };
    return undefined;
  }

  private tools(cursor: unknown, listed: (r: Record<string, unknown>) => Answer): Answer {
    const bad = this.badCursor(cursor);
    if (bad) return bad;
    const page = typeof cursor === "string" && cursor.startsWith("p") ? Number(cursor.slice(1)) : 0;
    const tools = TOOLS.map((t) => ({ ...t })) as Record<string, unknown>[];
    if (this.fault === "input-schema-not-object") tools[0] = { ...tools[0], inputSchema: { type: "string" } };
    if (this.fault === "input-schema-invalid")
      tools[0] = { ...tools[0], inputSchema: { type: "object", properties: { text: { type: "text" } } } };
    if (this.fault === "tool-name") tools[0] = { ...tools[0], name: "echo the text" };
    switch (this.fault) {
      case "pagination-loop":
        return listed({ tools: [tools[page % 2]], nextCursor: "p1" });
      case "pagination-stuck":
        return listed({ tools: [tools[0]], nextCursor: `p${page + 1}` });
      case "pagination-endless":
        return listed({ tools: [{ ...tools[0], name: `echo${page}` }], nextCursor: `p${page + 1}` });
      case "empty-cursor":
        // the first page says "" where it means the end; asked with "" (a client that follows it), the same page again without one
        return cursor === "" ? listed({ tools: [] }) : listed({ tools, nextCursor: "" });
    }
    // two pages of one tool each: pagination followed to its end
    return page === 0 ? listed({ tools: [tools[0]], nextCursor: "p1" }) : listed({ tools: [tools[1]] });
  }

  private call(p: Record<string, unknown>, complete: (r: Record<string, unknown>) => Answer): Answer {
    const args = (p.arguments ?? {}) as Record<string, unknown>;
    if (p.name === "echo") {
      if (this.fault === "no-content") return complete({ structuredContent: { text: String(args.text) } });
      return complete({ content: [{ type: "text", text: String(args.text) }] });
    }
    if (p.name === "add") {
      const sum = Number(args.a) + Number(args.b);
      return complete({
        content: [{ type: "text", text: String(sum) }],
        structuredContent: this.fault === "structured-invalid" ? { total: sum } : { sum },
      });
    }
    return { error: { code: -32602, message: `Unknown tool: ${String(p.name)}` } };
  }
}

function envelope(id: string | number | undefined, answer: Answer): Record<string, unknown> {
  return { jsonrpc: "2.0", id: id ?? null, ...answer };
}

/** Serves one fault over stdio until its input ends (or, for `slow-exit`, never). */
export function serveStdio(fault: ZooFault): void {
  const zoo = new Zoo(fault);
  const session: { revision?: string } = {};
  if (process.env.ZOO_LOG) appendFileSync(process.env.ZOO_LOG, `pid ${process.pid}\n`);
  if (fault === "log-line") process.stdout.write("zoo server listening on stdio\n");
  let buffer = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i).trim();
      buffer = buffer.slice(i + 1);
      if (line === "") continue;
      let m: Rpc;
      try {
        m = JSON.parse(line) as Rpc;
      } catch {
        continue;
      }
      const a = zoo.answer(m, session);
      if (a && a !== "silence") process.stdout.write(JSON.stringify(envelope(m.id, a)) + "\n");
    }
  });
  process.stdin.on("end", () => {
    // a server that ignores its input's end stays until a signal ends it
    if (fault === "slow-exit") setInterval(() => undefined, 1 << 30);
    else process.exit(0);
  });
}

export interface RunningZoo {
  /** The endpoint of `fault`. */
  url(fault: ZooFault): string;
  /** The methods the route of `fault` was asked for, in order. */
  asked(fault: ZooFault): readonly string[];
  close(): Promise<void>;
}

/** Every fault's HTTP endpoint on one loopback server. */
export async function startZoo(host = "127.0.0.1"): Promise<RunningZoo> {
  const zoos = new Map<string, Zoo>();
  const sessions = new Map<string, { fault: string; revision?: string }>();
  let next = 0;
  const server: Server = createServer((req, res) => {
    const fault = (req.url ?? "/").slice(1).split(/[/?]/)[0] as ZooFault;
    if (!ZOO_FAULTS.includes(fault))
      return void res.writeHead(404, { "content-type": "text/plain" }).end("no such zoo route\n");
    let zoo = zoos.get(fault);
    if (!zoo) zoos.set(fault, (zoo = new Zoo(fault)));
    serveHttp(zoo, req, res, sessions, () => `zoo-${++next}-${Math.random().toString(36).slice(2)}`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (fault) => `http://${host}:${port}/${fault}`,
    asked: (fault) => zoos.get(fault)?.asked ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function serveHttp(
  zoo: Zoo,
  req: IncomingMessage,
  res: ServerResponse,
  sessions: Map<string, { fault: string; revision?: string }>,
  newId: () => string,
): void {
  const fault = zoo.fault;
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    res
      .writeHead(status, { "content-type": fault === "text-plain" ? "text/plain" : "application/json", ...headers })
      .end(body === undefined ? undefined : JSON.stringify(body));
  if (fault === "auth-no-challenge")
    return void res
      .writeHead(401, { "content-type": "application/json" })
      .end(JSON.stringify({ error: "unauthorized" }));
  if (req.method === "GET" || req.method === "DELETE") {
    if (fault === "modern-only-get")
      return void res.writeHead(200, { "content-type": "text/html" }).end("<html><body>zoo</body></html>");
    if (req.method === "DELETE" && !zoo.modernOnly) {
      const id = req.headers["mcp-session-id"];
      if (typeof id === "string") sessions.delete(id);
      return void res.writeHead(200).end();
    }
    return void res.writeHead(405, { allow: "POST" }).end();
  }
  if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
  const accept = String(req.headers.accept ?? "");
  if (fault === "accept-json-refused" && !accept.includes("text/event-stream"))
    return void json(406, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Not Acceptable: the client must accept text/event-stream" },
    });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (size <= 1024 * 1024) chunks.push(c);
  });
  req.on("end", () => {
    let m: Rpc;
    try {
      m = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Rpc;
    } catch {
      return json(400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    const version = zoo.modernVersion(m);
    if (version !== undefined) {
      // 2026-07-28: no sessions; the headers mirror the body
      const hv = req.headers["mcp-protocol-version"];
      const hm = req.headers["mcp-method"];
      if (fault !== "no-header-check" && (hv !== version || hm !== m.method)) {
        return json(400, {
          jsonrpc: "2.0",
          id: m.id ?? null,
          error: {
            code: -32020,
            message: `Header mismatch: ${hv !== version ? "MCP-Protocol-Version" : "Mcp-Method"}`,
          },
        });
      }
      const a = zoo.answer(m, {});
      if (a === "silence") return;
      if (!a) return void res.writeHead(202).end();
      const code = "error" in a ? a.error.code : 0;
      const status =
        code === -32022 || code === -32020
          ? fault === "version-200"
            ? 200
            : 400
          : code === -32601
            ? fault === "unknown-200"
              ? 200
              : 404
            : 200;
      return json(status, envelope(m.id, a));
    }
    if (zoo.modernOnly)
      return json(400, {
        jsonrpc: "2.0",
        id: m.id ?? null,
        error: { code: -32600, message: "This server speaks 2026-07-28 only" },
      });
    // legacy Streamable HTTP: a session from initialize on
    if (m.method === "initialize") {
      const session: { fault: string; revision?: string } = { fault };
      const a = zoo.answer(m, session);
      const id = newId();
      sessions.set(id, session);
      return json(200, envelope(m.id, a as Answer), { "mcp-session-id": id });
    }
    const sid = req.headers["mcp-session-id"];
    const session = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!session)
      return json(fault === "session-400" ? 400 : typeof sid === "string" ? 404 : 400, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: typeof sid === "string" ? "Session not found" : "Mcp-Session-Id required" },
      });
    const a = zoo.answer(m, session);
    if (a === "silence") return;
    if (!a) {
      if (fault === "notification-200") return json(200, { jsonrpc: "2.0", result: {} });
      return void res.writeHead(202).end();
    }
    return json(200, envelope(m.id, a));
  });
}

// run as a stdio server: node zoo-server.js <fault>
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const fault = (process.argv[2] ?? "healthy") as ZooFault;
  if (!ZOO_FAULTS.includes(fault)) {
    process.stderr.write(`zoo-server: no fault ${JSON.stringify(fault)}; one of ${ZOO_FAULTS.join(", ")}\n`);
    process.exit(2);
  }
  serveStdio(fault);
}
