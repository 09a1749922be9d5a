/**
 * The Streamable HTTP server handler over real loopback HTTP (127.0.0.1, port 0), in front of a
 * small hand-written server core: every refusal and its status, 2026-07-28 header checks, JSON
 * or SSE answers, cancellation by disconnect, legacy sessions beside modern requests on one
 * endpoint, and hostile clients (huge, slow, malformed) that must not disturb anyone else.
 */
import assert from "node:assert/strict";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect as netConnect } from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { JsonObject, RequestId } from "../../codec/message.js";
import { ResponseError } from "../../peer/errors.js";
import { Peer, type RequestContext } from "../../peer/peer.js";
import type { Transport } from "../../peer/transport.js";
import { guardEventLoop, sleep, until, within } from "../../testkit/peer.js";
import { nodeServerOptions } from "./adapters.js";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions, type HttpServable } from "./server.js";

guardEventLoop();

const MODERN = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

/** A server core in a few lines: tools that answer, stream progress, wait to be cancelled, fail. */
class FakeCore implements HttpServable {
  connections = 0;
  /** Requests whose handler is running, by id. */
  readonly running = new Set<RequestId>();
  /** Requests whose AbortSignal fired. */
  readonly aborted: RequestId[] = [];
  /** Requests whose handler tried to write after its client left, and was refused. */
  readonly refusedAfterAbort: RequestId[] = [];
  readonly notifications: string[] = [];
  errors: unknown[] = [];

  connect(transport: Transport): Peer {
    this.connections++;
    const peer = new Peer(transport, { revision: "2025-11-25", role: "server" });
    peer.handle("initialize", (p) => {
      const version = typeof p?.protocolVersion === "string" ? p.protocolVersion : "2025-11-25";
      peer.revision = version as Peer["revision"];
      return { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } };
    });
    peer.handle("server/discover", () => ({
      resultType: "complete",
      supportedVersions: [MODERN],
      capabilities: {},
      ttlMs: 0,
      cacheScope: "public",
    }));
    peer.handle("tools/call", (params, context) => this.call(params ?? {}, context));
    peer.onNotification("notifications/initialized", () => this.notifications.push("initialized"));
    return peer;
  }

  headerParams(tool: string) {
    return tool === "region"
      ? [
          { name: "Region", path: ["region"] },
          { name: "Count", path: ["opts", "count"] },
        ]
      : undefined;
  }

  private async call(params: JsonObject, context: RequestContext): Promise<JsonObject> {
    const args = (params.arguments ?? {}) as JsonObject;
    switch (params.name) {
      case "echo":
      case "region":
        return { resultType: "complete", content: [{ type: "text", text: String(args.text ?? args.region) }] };
      case "progress": {
        const steps = Number(args.steps ?? 3);
        for (let i = 1; i <= steps; i++) await context.progress(i, steps);
        return { resultType: "complete", content: [{ type: "text", text: `counted to ${steps}` }] };
      }
      case "log":
        await context.notify("notifications/message", { level: "info", data: "before the answer" });
        return { resultType: "complete", content: [] };
      case "wait":
      case "log-then-wait": {
        if (params.name === "log-then-wait")
          await context.notify("notifications/message", { level: "info", data: "started" });
        this.running.add(context.id);
        await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
        this.aborted.push(context.id);
        try {
          await context.notify("notifications/message", { level: "info", data: "too late" });
        } catch {
          this.refusedAfterAbort.push(context.id);
        }
        return { content: [] };
      }
      case "sample": {
        const answer = await context.request<{ content: { text: string } }>("sampling/createMessage", {
          messages: [],
          maxTokens: 1,
        });
        return { content: [{ type: "text", text: `sampled: ${answer.content.text}` }] };
      }
      case "fail":
        throw new ResponseError(Number(args.code), "it fails", args.data);
      case "crash":
        throw new Error("internal detail that must not leak: /home/secret/file.ts:12");
      default:
        throw new ResponseError(-32602, `Unknown tool: ${String(params.name)}`);
    }
  }
}

interface Running {
  url: string;
  origin: string;
  port: number;
  handler: HttpHandler;
  core: FakeCore;
  close(): Promise<void>;
}

async function start(options: HttpHandlerOptions = {}, core = new FakeCore()): Promise<Running> {
  const handler = createHttpHandler(core, { onError: (e) => core.errors.push(e), ...options });
  const server: Server = createServer((req, res) => handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    origin: `http://127.0.0.1:${port}`,
    port,
    handler,
    core,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: JsonObject | undefined;
}

async function send(url: string, body: unknown, headers: Record<string, string> = {}, method = "POST"): Promise<Reply> {
  const res = await within(
    fetch(url, {
      method,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      ...(method === "POST" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    }),
    `${method} ${url}`,
    10_000,
  );
  const text = await within(res.text(), "the response body", 10_000);
  let json: JsonObject | undefined;
  try {
    json =
      text && res.headers.get("content-type")?.startsWith("application/json")
        ? (JSON.parse(text) as JsonObject)
        : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A 2026-07-28 request and the headers that mirror it. */
function modern(id: RequestId, method: string, params: JsonObject = {}, meta: JsonObject = META) {
  const headers: Record<string, string> = { "mcp-protocol-version": MODERN, "mcp-method": method };
  const name = method === "resources/read" ? params.uri : params.name;
  if (typeof name === "string" && ["tools/call", "prompts/get", "resources/read"].includes(method))
    headers["mcp-name"] = name;
  return { body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }, headers };
}

function errorCode(reply: Reply): unknown {
  return (reply.json?.error as JsonObject | undefined)?.code;
}

/** The JSON-RPC messages of an SSE body. */
function sseMessages(text: string): JsonObject[] {
  return text
    .split(/\n\n/)
    .map((block) =>
      block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .join(""),
    )
    .filter((data) => data.length > 0)
    .map((data) => JSON.parse(data) as JsonObject);
}

/** Reads an SSE response event by event. */
class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }
  async next(): Promise<JsonObject> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const messages = sseMessages(`${block}\n\n`);
        if (messages.length > 0) return messages[0]!;
        continue;
      }
      const { value, done } = await within(this.reader.read(), "the next SSE event", 10_000);
      if (done) throw new Error("the SSE stream ended");
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }
  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }
}

function initialize(id: RequestId, version = "2025-11-25") {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
}

/** Opens a legacy session; returns its id. */
async function openSession(url: string, version = "2025-11-25"): Promise<string> {
  const reply = await send(url, initialize(0, version));
  assert.equal(reply.status, 200, reply.text);
  const id = reply.headers.get("mcp-session-id");
  assert.ok(id, "initialize answers with an Mcp-Session-Id");
  const initialized = await send(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": id },
  );
  assert.equal(initialized.status, 202);
  return id;
}

/** A raw HTTP/1.1 exchange over a socket, for requests fetch will not send. Resolves with what came back. */
function raw(port: number, text: string | Buffer): Promise<string> {
  return within(
    new Promise<string>((resolve, reject) => {
      const socket = netConnect(port, "127.0.0.1", () => socket.end(text));
      let got = "";
      socket.on("data", (c) => (got += c.toString("latin1")));
      socket.on("end", () => resolve(got));
      socket.on("error", reject);
    }),
    "the raw exchange",
    10_000,
  );
}

describe("HTTP server: refusals before any message is read", () => {
  let s: Running;
  before(async () => {
    s = await start({ allowedOrigins: ["https://app.example"], maxBodyBytes: 64 * 1024 });
  });
  after(() => s.close());

  test("an Origin that is neither allowed, nor loopback, nor the server itself gets 403 and a JSON-RPC error without id", async () => {
    const { body, headers } = modern(1, "server/discover");
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1.evil.example", "file://"]) {
      const reply = await send(s.url, body, { ...headers, origin });
      assert.equal(reply.status, 403, origin);
      assert.equal(reply.json?.id, undefined);
      assert.equal(errorCode(reply), -32600);
    }
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:1", s.origin, "https://app.example"]) {
      const reply = await send(s.url, body, { ...headers, origin });
      assert.equal(reply.status, 200, origin);
      assert.equal(reply.headers.get("access-control-allow-origin"), origin);
    }
  });

  test("a CORS preflight from an allowed origin gets 204 granting the MCP headers; from another origin 403; without one 405", async () => {
    const preflight = (headers: Record<string, string>) =>
      within(fetch(s.url, { method: "OPTIONS", headers }), "OPTIONS", 10_000);
    const ok = await preflight({
      origin: "https://app.example:443",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, mcp-method, mcp-param-region",
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get("access-control-allow-origin"), "https://app.example");
    assert.equal(ok.headers.get("access-control-allow-headers"), "content-type, mcp-method, mcp-param-region");
    assert.equal(ok.headers.get("access-control-allow-methods"), "GET, POST, DELETE");
    const odd = await preflight({
      origin: "https://app.example",
      "access-control-request-headers": "content-type;x=1",
    });
    assert.doesNotMatch(
      odd.headers.get("access-control-allow-headers") ?? "",
      /x=1/,
      "what is not a list of header names is not echoed",
    );
    assert.equal((await preflight({ origin: "https://evil.example" })).status, 403);
    assert.equal((await preflight({})).status, 405);
  });

  test("GET and DELETE without a session are 405 with Allow: POST; other methods 405 naming the three", async () => {
    for (const method of ["GET", "DELETE"]) {
      const reply = await send(s.url, undefined, {}, method);
      assert.equal(reply.status, 405, method);
      assert.equal(reply.headers.get("allow"), "POST");
    }
    const put = await send(s.url, undefined, {}, "PUT");
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, POST, DELETE");
  });

  test("a body that is not application/json gets 415; an Accept that takes neither JSON nor SSE gets 406", async () => {
    const { body, headers } = modern(1, "server/discover");
    assert.equal((await send(s.url, body, { ...headers, "content-type": "text/plain" })).status, 415);
    assert.equal(
      (await send(s.url, body, { ...headers, "content-type": "application/x-www-form-urlencoded" })).status,
      415,
    );
    assert.equal(
      (await send(s.url, body, { ...headers, "content-type": "application/json; charset=utf-8" })).status,
      200,
    );
    assert.equal((await send(s.url, body, { ...headers, accept: "text/html" })).status, 406);
  });

  test("malformed JSON and an empty body get 400 with -32700; a batch, a bare value or a broken envelope 400 with -32600", async () => {
    for (const text of ["{not json", "", '{"jsonrpc":"2.0","id":1,"method":"ping"']) {
      const reply = await send(s.url, text);
      assert.equal(reply.status, 400, JSON.stringify(text));
      assert.equal(errorCode(reply), -32700);
    }
    const { body } = modern(1, "tools/list");
    const batch = await send(s.url, [body, { ...body, id: 2 }]);
    assert.equal(batch.status, 400);
    assert.equal(errorCode(batch), -32600);
    assert.match(String((batch.json?.error as JsonObject).message), /batch/);
    assert.equal(errorCode(await send(s.url, "42")), -32600);
    const broken = await send(s.url, { jsonrpc: "1.0", id: 7, method: "tools/list" });
    assert.equal(broken.status, 400);
    assert.equal(errorCode(broken), -32600);
    assert.equal(broken.json?.id, 7, "the id, when it can be read, is echoed");
  });

  test("a declared Content-Length over the cap gets 413 before the body is sent", async () => {
    const status = await within(
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          s.url,
          {
            method: "POST",
            headers: { "content-type": "application/json", "content-length": String(100 * 1024 * 1024) },
          },
          (res: IncomingMessage) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on("error", reject);
        req.write("{"); // one byte of a hundred megabytes: the answer cannot have waited for the rest
      }),
      "the 413",
      10_000,
    );
    assert.equal(status, 413);
  });

  test("a chunked body growing past the cap gets 413 without being read to its end", async () => {
    const reply = await within(
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          s.url,
          { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
          (res) => {
            let body = "";
            res.on("data", (c: Buffer) => (body += c.toString("utf8")));
            res.on("end", () => {
              resolve({ status: res.statusCode ?? 0, body });
              req.destroy();
            });
          },
        );
        req.on("error", () => undefined); // the server may close while we still write
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        let written = 0;
        const pump = () => {
          while (written < 1024 * 1024) {
            written += chunk.length;
            if (!req.write(chunk)) {
              req.once("drain", pump);
              return;
            }
          }
        };
        req.on("socket", pump);
        setTimeout(() => reject(new Error("no answer")), 9_000).unref();
      }),
      "the 413",
      10_000,
    );
    assert.equal(reply.status, 413);
    assert.equal((JSON.parse(reply.body) as { error: { code: number } }).error.code, -32600);
  });
});

describe("HTTP server: 2026-07-28 requests", () => {
  let s: Running;
  before(async () => {
    s = await start();
  });
  after(() => s.close());

  test("a request missing a required _meta field gets 400 with -32602, before its headers are compared", async () => {
    for (const meta of [
      {},
      { "io.modelcontextprotocol/clientCapabilities": {} },
      { "io.modelcontextprotocol/protocolVersion": MODERN },
    ]) {
      const { body, headers } = modern(3, "server/discover", {}, meta);
      const reply = await send(s.url, body, headers);
      assert.equal(reply.status, 400, JSON.stringify(meta));
      assert.equal(errorCode(reply), -32602);
      assert.equal(reply.json?.id, 3);
    }
    // no _meta at all, but a modern version header: a modern client that forgot, not a legacy one
    const reply = await send(
      s.url,
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
    );
    assert.equal(reply.status, 400);
    assert.equal(errorCode(reply), -32602);
  });

  test("MCP-Protocol-Version, Mcp-Method and Mcp-Name must be present and match the body: otherwise 400 with -32020", async () => {
    const call = modern(5, "tools/call", { name: "echo", arguments: { text: "hi" } });
    const cases: [string, Record<string, string | undefined>][] = [
      ["no version header", { "mcp-protocol-version": undefined }],
      ["another version", { "mcp-protocol-version": "2025-11-25" }],
      ["no Mcp-Method", { "mcp-method": undefined }],
      ["another method", { "mcp-method": "tools/list" }],
      ["a method differing in case", { "mcp-method": "TOOLS/CALL" }],
      ["no Mcp-Name", { "mcp-name": undefined }],
      ["another name", { "mcp-name": "echo2" }],
      ["broken Base64", { "mcp-name": "=?base64?ZWNob?=" }],
      ["Base64 of another name", { "mcp-name": `=?base64?${Buffer.from("ech0").toString("base64")}?=` }],
    ];
    for (const [what, change] of cases) {
      const headers: Record<string, string> = { ...call.headers };
      for (const [k, v] of Object.entries(change)) {
        if (v === undefined) delete headers[k];
        else headers[k] = v;
      }
      const reply = await send(s.url, call.body, headers);
      assert.equal(reply.status, 400, what);
      assert.equal(errorCode(reply), -32020, what);
      assert.equal(reply.json?.id, 5, what);
    }
    const { "mcp-method": _method, ...others } = call.headers;
    const encoded = await send(s.url, call.body, {
      ...others,
      "mcp-name": `=?base64?${Buffer.from("echo").toString("base64")}?=`,
      "MCP-METHOD": "tools/call",
    });
    assert.equal(encoded.status, 200, "a Base64-sentinel name is decoded; header names are case-insensitive");
    const padded = await send(s.url, call.body, { ...call.headers, "mcp-name": "  echo  " });
    assert.equal(padded.status, 200, "whitespace around a header value is not part of it");
  });

  test("a non-ASCII name travels Base64-encoded, and a raw Latin-1 byte in Mcp-Name is refused with -32020", async () => {
    const name = "écho ☃";
    const call = modern(6, "tools/call", { name, arguments: {} });
    const ok = await send(s.url, call.body, {
      ...call.headers,
      "mcp-name": `=?base64?${Buffer.from(name).toString("base64")}?=`,
    });
    assert.equal(ok.status, 200);
    assert.equal(errorCode(ok), -32602, "the tool is unknown: an error answer, with status 200");
    const body = JSON.stringify(modern(7, "tools/call", { name: "é", arguments: {} }).body);
    const answer = await raw(
      s.port,
      Buffer.concat([
        Buffer.from(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: ${MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: `,
        ),
        Buffer.from([0xe9]),
        Buffer.from(`\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`),
      ]),
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /-32020/);
  });

  test("Mcp-Param headers follow the tool's x-mcp-header parameters: present with a value, matching it, absent without one", async () => {
    const call = (args: JsonObject, params: Record<string, string>) => {
      const m = modern(8, "tools/call", { name: "region", arguments: args });
      return send(s.url, m.body, { ...m.headers, ...params });
    };
    assert.equal((await call({ region: "us-west1" }, { "mcp-param-region": "us-west1" })).status, 200);
    assert.equal(
      (
        await call(
          { region: "us-west1", opts: { count: 42 } },
          { "mcp-param-region": "us-west1", "Mcp-Param-Count": "42.0" },
        )
      ).status,
      200,
      "integers compare as numbers",
    );
    assert.equal(
      (await call({ region: "Hello, 世界" }, { "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=" })).status,
      200,
    );
    assert.equal(
      (await call({ region: "=?base64?SGVsbG8=?=" }, { "mcp-param-region": "=?base64?PT9iYXNlNjQ/U0dWc2JHOD0/PQ==?=" }))
        .status,
      200,
      "a value that looks encoded is itself encoded",
    );
    assert.equal(
      (await call({ region: "SGVsbG8=" }, { "mcp-param-region": "SGVsbG8=" })).status,
      200,
      "no sentinel: a literal",
    );
    assert.equal((await call({ region: null }, {})).status, 200, "null: no header expected");
    for (const [what, args, params] of [
      ["missing", { region: "us-west1" }, {}],
      ["different", { region: "us-west1" }, { "mcp-param-region": "eu-west1" }],
      ["bad padding", { region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }],
      ["bad alphabet", { region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }],
      ["numeric mismatch", { region: "r", opts: { count: 42 } }, { "mcp-param-region": "r", "mcp-param-count": "43" }],
      ["sent without a value", {}, { "mcp-param-region": "us-west1" }],
    ] as const) {
      const reply = await call(args as JsonObject, params as Record<string, string>);
      assert.equal(reply.status, 400, what);
      assert.equal(errorCode(reply), -32020, what);
    }
  });

  test("error statuses: -32601 is 404, -32021 and -32022 are 400, any other error answer is 200", async () => {
    const unknown = modern(9, "no/such/method");
    const reply = await send(s.url, unknown.body, unknown.headers);
    assert.equal(reply.status, 404);
    assert.equal(errorCode(reply), -32601);
    for (const [code, status] of [
      [-32021, 400],
      [-32022, 400],
      [-32602, 200],
      [12345, 200],
    ] as const) {
      const m = modern(10, "tools/call", {
        name: "fail",
        arguments: { code, data: { supported: [MODERN], requested: "v9" } },
      });
      const r = await send(s.url, m.body, m.headers);
      assert.equal(r.status, status, String(code));
      assert.equal(errorCode(r), code);
    }
  });

  test("the answer alone comes as application/json; notifications before it turn the response into SSE, unbuffered", async () => {
    const echo = modern(11, "tools/call", { name: "echo", arguments: { text: "plain" } });
    const plain = await send(s.url, echo.body, echo.headers);
    assert.equal(plain.headers.get("content-type"), "application/json");
    assert.equal((plain.json?.result as JsonObject).resultType, "complete");

    const progress = modern(
      12,
      "tools/call",
      { name: "progress", arguments: { steps: 3 } },
      { ...META, progressToken: "tok" },
    );
    const streamed = await send(s.url, progress.body, progress.headers);
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.get("content-type"), "text/event-stream");
    assert.equal(streamed.headers.get("x-accel-buffering"), "no");
    const messages = sseMessages(streamed.text);
    assert.deepEqual(
      messages.map((m) =>
        m.method ? `${String(m.method)} ${String((m.params as JsonObject).progress)}` : `answer ${String(m.id)}`,
      ),
      ["notifications/progress 1", "notifications/progress 2", "notifications/progress 3", "answer 12"],
    );
  });

  test("a client that takes only JSON gets the answer as JSON (what cannot reach it is dropped); one that takes only SSE gets SSE", async () => {
    const progress = modern(
      13,
      "tools/call",
      { name: "progress", arguments: { steps: 2 } },
      { ...META, progressToken: "tok" },
    );
    const json = await send(s.url, progress.body, { ...progress.headers, accept: "application/json" });
    assert.equal(json.headers.get("content-type"), "application/json");
    assert.equal(json.json?.id, 13);
    const echo = modern(14, "tools/call", { name: "echo", arguments: { text: "x" } });
    const sse = await send(s.url, echo.body, { ...echo.headers, accept: "text/event-stream" });
    assert.equal(sse.headers.get("content-type"), "text/event-stream");
    assert.equal(sseMessages(sse.text)[0]?.id, 14);
  });

  test("a notification gets 202 with no body; a response sent to the modern endpoint gets 400", async () => {
    const note = await send(
      s.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: META } },
      { "mcp-protocol-version": MODERN },
    );
    assert.equal(note.status, 202);
    assert.equal(note.text, "");
    const response = await send(
      s.url,
      { jsonrpc: "2.0", id: 1, result: { _meta: META } },
      { "mcp-protocol-version": MODERN },
    );
    assert.equal(response.status, 400);
  });

  test("each request is served on a connection of its own: the core sees one connect per POST", async () => {
    const before = s.core.connections;
    const calls = [1, 2, 3].map((n) => {
      const m = modern(100 + n, "tools/call", { name: "echo", arguments: { text: String(n) } });
      return send(s.url, m.body, m.headers);
    });
    const replies = await Promise.all(calls);
    assert.deepEqual(
      replies.map((r) => r.json?.id),
      [101, 102, 103],
    );
    assert.equal(s.core.connections - before, 3);
  });

  test("a client that disconnects mid-request cancels it: the handler's signal fires and nothing more is written", async () => {
    const m = modern("w1", "tools/call", { name: "wait", arguments: {} });
    const controller = new AbortController();
    const pending = fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...m.headers },
      body: JSON.stringify(m.body),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await until(() => s.core.running.has("w1"), 10_000, "the handler running");
    controller.abort();
    await within(pending, "the aborted fetch", 10_000);
    await until(() => s.core.aborted.includes("w1"), 10_000, "the handler's AbortSignal");
    await until(() => s.core.refusedAfterAbort.includes("w1"), 10_000, "the late write refused");
  });

  test("a handler that throws gets 'Internal error' on the wire and no trace of the exception", async () => {
    const m = modern(15, "tools/call", { name: "crash", arguments: {} });
    const reply = await send(s.url, m.body, m.headers);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json?.error, { code: -32603, message: "Internal error" });
    assert.doesNotMatch(reply.text, /secret|\.ts:|at /);
  });
});

describe("HTTP server: legacy sessions on the same endpoint", () => {
  let s: Running;
  before(async () => {
    s = await start({ keepAliveMs: 0 });
  });
  after(() => s.close());

  test("initialize opens a session with a visible-ASCII id; without it a later request is 400, with an unknown one 404", async () => {
    const id = await openSession(s.url);
    assert.match(id, /^[\x21-\x7e]+$/);
    assert.ok(s.core.notifications.includes("initialized"));
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "in session" } },
    };
    const ok = await send(s.url, call, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
    assert.equal(ok.status, 200);
    assert.equal(((ok.json?.result as JsonObject).content as JsonObject[])[0]?.text, "in session");
    assert.equal((await send(s.url, call)).status, 400);
    assert.equal((await send(s.url, call, { "mcp-session-id": "no-such-session" })).status, 404);
  });

  test("after negotiation the version header must name the session's revision; a second initialize is refused", async () => {
    const id = await openSession(s.url, "2025-06-18");
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } };
    assert.equal((await send(s.url, call, { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" })).status, 200);
    assert.equal(
      (await send(s.url, call, { "mcp-session-id": id })).status,
      200,
      "no header: the session's own revision",
    );
    assert.equal((await send(s.url, call, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" })).status, 400);
    const again = await send(
      s.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { "mcp-session-id": id },
    );
    assert.equal(again.status, 400);
  });

  test("progress goes on the request's own SSE stream, before its answer", async () => {
    const id = await openSession(s.url);
    const reply = await send(
      s.url,
      {
        jsonrpc: "2.0",
        id: "p",
        method: "tools/call",
        params: { name: "progress", arguments: { steps: 2 }, _meta: { progressToken: 9 } },
      },
      { "mcp-session-id": id },
    );
    assert.equal(reply.headers.get("content-type"), "text/event-stream");
    assert.deepEqual(
      sseMessages(reply.text).map((m) => m.method ?? `answer ${String(m.id)}`),
      ["notifications/progress", "notifications/progress", "answer p"],
    );
  });

  test("a request to the client goes on the tool call's stream; the client's answer is a POST of its own (202)", async () => {
    const id = await openSession(s.url);
    const res = await within(
      fetch(s.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": id,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "s1",
          method: "tools/call",
          params: { name: "sample", arguments: {} },
        }),
      }),
      "the sampling call",
      10_000,
    );
    const events = new SseReader(res);
    const question = await events.next();
    assert.equal(question.method, "sampling/createMessage");
    const answered = await send(
      s.url,
      {
        jsonrpc: "2.0",
        id: question.id,
        result: { role: "assistant", content: { type: "text", text: "42" }, model: "m" },
      },
      { "mcp-session-id": id },
    );
    assert.equal(answered.status, 202);
    const final = await events.next();
    assert.equal(final.id, "s1");
    assert.equal(((final.result as JsonObject).content as JsonObject[])[0]?.text, "sampled: 42");
  });

  test("notifications/cancelled cancels a session's request, and its exchange ends with no answer; a disconnect alone does not cancel", async () => {
    const id = await openSession(s.url);
    const call = (rid: string) =>
      send(
        s.url,
        { jsonrpc: "2.0", id: rid, method: "tools/call", params: { name: "wait", arguments: {} } },
        { "mcp-session-id": id },
      );
    const pending = call("c1");
    await until(() => s.core.running.has("c1"), 10_000, "the handler running");
    const cancel = await send(
      s.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c1", reason: "changed my mind" } },
      { "mcp-session-id": id },
    );
    assert.equal(cancel.status, 202);
    const ended = await pending;
    assert.equal(ended.status, 202);
    assert.equal(ended.text, "");
    await until(() => s.core.aborted.includes("c1"), 10_000, "the handler's AbortSignal");

    // 2025-11-25: "Disconnection SHOULD NOT be interpreted as the client cancelling its request"
    const controller = new AbortController();
    const dropped = fetch(s.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "c2", method: "tools/call", params: { name: "wait", arguments: {} } }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await until(() => s.core.running.has("c2"), 10_000, "the second handler running");
    controller.abort();
    await dropped;
    const probe = await send(
      s.url,
      { jsonrpc: "2.0", id: "c3", method: "tools/call", params: { name: "echo", arguments: { text: "later" } } },
      { "mcp-session-id": id },
    );
    assert.equal(probe.status, 200);
    assert.ok(!s.core.aborted.includes("c2"), "the disconnected request still runs");
    await send(
      s.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c2" } },
      { "mcp-session-id": id },
    );
    await until(() => s.core.aborted.includes("c2"), 10_000, "the explicit cancellation");
  });

  test("a request to the client with no stream to carry it (a JSON-only client, no GET stream) fails at once instead of waiting", async () => {
    const id = await openSession(s.url);
    const reply = await send(
      s.url,
      { jsonrpc: "2.0", id: "s2", method: "tools/call", params: { name: "sample", arguments: {} } },
      { "mcp-session-id": id, accept: "application/json" },
    );
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json?.error, { code: -32603, message: "Internal error" });
  });

  test("GET opens the session's SSE stream (one at a time); DELETE ends the session, which then answers 404", async () => {
    const id = await openSession(s.url);
    const controller = new AbortController();
    const stream = await within(
      fetch(s.url, { headers: { accept: "text/event-stream", "mcp-session-id": id }, signal: controller.signal }),
      "GET",
      10_000,
    );
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    const second = await send(s.url, undefined, { "mcp-session-id": id, accept: "text/event-stream" }, "GET");
    assert.equal(second.status, 409);
    const ended = stream.body!.getReader().read();
    const deleted = await send(s.url, undefined, { "mcp-session-id": id }, "DELETE");
    assert.equal(deleted.status, 204);
    assert.equal((await within(ended, "the GET stream ending", 10_000)).done, true);
    assert.equal(
      (await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id })).status,
      404,
    );
    assert.equal((await send(s.url, undefined, { "mcp-session-id": id }, "DELETE")).status, 404);
    controller.abort();
  });

  test("in a 2025-06-18 session a body that is not JSON gets -32700 with id null, as JSON-RPC has it; from 2025-11-25 with no id", async () => {
    const older = await openSession(s.url, "2025-06-18");
    const reply = await send(s.url, "{broken", { "mcp-session-id": older });
    assert.equal(reply.status, 400);
    assert.equal(errorCode(reply), -32700);
    assert.ok("id" in reply.json! && reply.json.id === null);
    const newer = await openSession(s.url);
    const later = await send(s.url, "{broken", { "mcp-session-id": newer });
    assert.equal(errorCode(later), -32700);
    assert.ok(!("id" in later.json!));
  });

  test("a 2025-03-26 session takes a batch and answers it in one array", async () => {
    const id = await openSession(s.url, "2025-03-26");
    const reply = await send(
      s.url,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "x", progress: 1 } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "b" } } },
      ],
      { "mcp-session-id": id },
    );
    assert.equal(reply.status, 200);
    const answers = JSON.parse(reply.text) as JsonObject[];
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2]);
    const newer = await openSession(s.url);
    const refused = await send(s.url, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }], { "mcp-session-id": newer });
    assert.equal(refused.status, 400, "2025-11-25 has no batches");
  });

  test("a 2025-03-26 session answers [1,2,3] with three -32600s (id null), as JSON-RPC 2.0 §6 shows; a broken member beside a request gets its own", async () => {
    const id = await openSession(s.url, "2025-03-26");
    for (const [body, n] of [
      [[1, 2, 3], 3],
      [[1], 1],
      [[null], 1],
    ] as const) {
      const reply = await send(s.url, body, { "mcp-session-id": id });
      assert.equal(reply.status, 400);
      const answers = JSON.parse(reply.text) as JsonObject[];
      assert.equal(answers.length, n, reply.text);
      for (const a of answers) {
        assert.equal(a.id, null);
        assert.equal((a.error as JsonObject).code, -32600);
      }
    }
    const mixed = await send(
      s.url,
      [1, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } }],
      { "mcp-session-id": id },
    );
    assert.equal(mixed.status, 200);
    const answers = JSON.parse(mixed.text) as JsonObject[];
    const seen = answers.map((a) => JSON.stringify([a.id, (a.error as JsonObject | undefined)?.code ?? "result"]));
    assert.deepEqual(seen.sort(), ['[7,"result"]', "[null,-32600]"]);
    // elsewhere a JSON array stays one refusal
    const newer = await openSession(s.url);
    const refused = await send(s.url, [1, 2, 3], { "mcp-session-id": newer });
    assert.equal(refused.status, 400);
    assert.equal(errorCode(refused), -32600);
  });

  test("modern requests and legacy sessions share the endpoint without meeting", async () => {
    const id = await openSession(s.url);
    const m = modern(20, "tools/call", { name: "echo", arguments: { text: "modern" } });
    const [legacy, modernReply] = await Promise.all([
      send(
        s.url,
        { jsonrpc: "2.0", id: 20, method: "tools/call", params: { name: "echo", arguments: { text: "legacy" } } },
        { "mcp-session-id": id },
      ),
      send(s.url, m.body, { ...m.headers, "mcp-session-id": id }),
    ]);
    assert.equal(((legacy.json?.result as JsonObject).content as JsonObject[])[0]?.text, "legacy");
    assert.equal(((modernReply.json?.result as JsonObject).content as JsonObject[])[0]?.text, "modern");
    assert.equal(modernReply.headers.get("mcp-session-id"), null, "a modern answer carries no session id");
  });
});

describe("HTTP server: session expiry and the cap", () => {
  test("an idle session expires; a busy one (an open GET stream) does not", async () => {
    const s = await start({ sessionIdleMs: 100, keepAliveMs: 0 });
    try {
      const idle = await openSession(s.url);
      const busy = await openSession(s.url);
      const controller = new AbortController();
      const stream = await within(
        fetch(s.url, { headers: { accept: "text/event-stream", "mcp-session-id": busy }, signal: controller.signal }),
        "GET",
        10_000,
      );
      assert.equal(stream.status, 200);
      await until(() => s.handler.sessions === 1, 10_000, "the idle session expiring");
      assert.equal(
        (await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": idle })).status,
        404,
      );
      assert.equal(
        (await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": busy })).status,
        202,
      );
      controller.abort();
    } finally {
      await s.close();
    }
  });

  test("at the cap a new session replaces only one that never got past initialize; sessions in use are kept and the newcomer gets 503", async () => {
    const s = await start({ maxSessions: 2, maxSessionsPerClient: 2, keepAliveMs: 0 });
    try {
      const inUse = await openSession(s.url);
      const handshake = await send(s.url, initialize(0));
      const abandoned = handshake.headers.get("mcp-session-id")!;
      const third = await send(s.url, initialize(0));
      assert.equal(third.status, 200, "the abandoned handshake makes room");
      assert.equal(s.handler.sessions, 2);
      assert.equal(
        (await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": abandoned }))
          .status,
        404,
      );
      assert.equal(
        (
          await send(
            s.url,
            { jsonrpc: "2.0", method: "notifications/initialized" },
            { "mcp-session-id": third.headers.get("mcp-session-id")! },
          )
        ).status,
        202,
      );
      const refused = await send(s.url, initialize(7));
      assert.equal(refused.status, 503);
      assert.ok(Number(refused.headers.get("retry-after")) > 0);
      assert.equal(refused.json?.id, 7);
      assert.equal(
        (await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": inUse }))
          .status,
        202,
      );
    } finally {
      await s.close();
    }
  });

  test("a flood of sessions from one client ends no session in use: the victim's session survives, the flood gets 503", async () => {
    const s = await start({ maxSessions: 40, keepAliveMs: 0 });
    try {
      const victim = await openSession(s.url);
      const statuses = new Map<number, number>();
      for (let round = 0; round < 6; round++) {
        // each round opens sessions and uses them, as a determined client would
        const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => send(s.url, initialize(i))));
        for (const r of replies) {
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const id = r.headers.get("mcp-session-id");
          if (id) await send(s.url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id });
          else assert.ok(Number(r.headers.get("retry-after")) > 0, "a refused session says when to retry");
        }
      }
      assert.ok(
        (statuses.get(503) ?? 0) > 0,
        `the flood is refused once the client's share is used: ${JSON.stringify([...statuses])}`,
      );
      assert.deepEqual([...statuses.keys()].sort(), [200, 503]);
      assert.ok(s.handler.sessions <= 40);
      const call = await send(
        s.url,
        { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "echo", arguments: { text: "still mine" } } },
        { "mcp-session-id": victim },
      );
      assert.equal(call.status, 200, call.text);
    } finally {
      await s.close();
    }
  });
});

describe("HTTP server: hostile clients do not disturb the others", () => {
  let s: Running;
  before(async () => {
    s = await start({ bodyTimeoutMs: 300, allowedHosts: ["127.0.0.1", "localhost"] });
  });
  after(() => s.close());

  async function served(): Promise<void> {
    const m = modern(1, "tools/call", { name: "echo", arguments: { text: "still here" } });
    const reply = await send(s.url, m.body, m.headers);
    assert.equal(reply.status, 200);
  }

  test("a client dripping its body gets 408 while another is served", async () => {
    const socket = netConnect(s.port, "127.0.0.1");
    let got = "";
    socket.on("data", (c) => (got += c.toString("latin1")));
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    const drip = setInterval(() => socket.write(" "), 50);
    try {
      await served();
      await within(closed, "the dripping client's connection closing", 10_000);
      assert.match(got, /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
    await served();
  });

  test("a body past the cap gets 413 while other clients are served at the same time", async () => {
    const upload = within(
      new Promise<number>((resolve) => {
        const req = httpRequest(
          s.url,
          { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
          (res) => {
            res.resume();
            res.on("end", () => {
              resolve(res.statusCode ?? 0);
              req.destroy();
            });
          },
        );
        req.on("error", () => undefined); // the server may close while we still write
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let written = 0;
        const pump = () => {
          while (written < 6 * 1024 * 1024) {
            written += chunk.length;
            if (!req.write(chunk)) {
              req.once("drain", pump);
              return;
            }
          }
        };
        req.on("socket", pump);
      }),
      "the oversized upload",
      10_000,
    );
    await Promise.all([served(), served(), served()]);
    assert.equal(await upload, 413);
    await served();
  });

  test("bodies that find the byte budget full wait unread, then get 503 with Retry-After; a small request is served meanwhile", async () => {
    const b = await start({ maxBodyBytes: 1024 * 1024, maxBufferedBytes: 2 * 1024 * 1024, bodyTimeoutMs: 5_000 });
    const stalled = netConnect(b.port, "127.0.0.1");
    stalled.on("error", () => undefined);
    try {
      // holds 1 MiB of the budget: declared, half sent, then nothing
      await new Promise<void>((resolve) => stalled.once("connect", resolve));
      stalled.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n[`,
      );
      stalled.write(Buffer.alloc(512 * 1024, 0x20));
      await sleep(100);
      const large = JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/initialized",
        params: { pad: "x".repeat(900 * 1024) },
      });
      const [waiting, small] = await Promise.all([
        send(b.url, large),
        send(
          b.url,
          modern(1, "tools/call", { name: "echo", arguments: { text: "small" } }).body,
          modern(1, "tools/call", { name: "echo" }).headers,
        ),
      ]);
      assert.equal(small.status, 200, small.text);
      assert.equal(waiting.status, 503, waiting.text);
      assert.ok(Number(waiting.headers.get("retry-after")) > 0);
      stalled.destroy();
      // the stalled body's share comes back when its client goes: the same large body now fits
      const again = await send(b.url, large, { "mcp-protocol-version": MODERN });
      assert.notEqual(again.status, 503, again.text);
    } finally {
      stalled.destroy();
      await b.close();
    }
  });

  test("a client dripping its headers (slowloris) is disconnected soon after the header deadline, not at node's 30 s check", async () => {
    const server = createServer(nodeServerOptions({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 }), (req, res) =>
      s.handler.node(req, res),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = netConnect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let n = 0;
    const drip = setInterval(() => socket.write(`X-Drip-${n++}: 1\r\n`), 100);
    try {
      // a generous bound, far below the 30 s node would otherwise allow
      await within(closed, "the dripping socket being closed", 8_000);
    } finally {
      clearInterval(drip);
      socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await served();
  });

  test("malformed HTTP (a line break inside a header) is refused by the parser, and the server goes on", async () => {
    const answer = await raw(
      s.port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Name: a\rX-Injected: 1\r\nContent-Length: 2\r\n\r\n{}`,
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    await served();
  });

  test("values from the request never reach the response's headers, even a Base64 name that decodes to a header line", async () => {
    const name = "x\r\nSet-Cookie: stolen=1";
    const call = modern(2, "tools/call", { name, arguments: {} });
    const reply = await send(s.url, call.body, {
      ...call.headers,
      "mcp-name": `=?base64?${Buffer.from(name).toString("base64")}?=`,
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get("set-cookie"), null);
  });

  test("a Host that is not allowed gets 403 (DNS rebinding without an Origin header)", async () => {
    const answer = await raw(
      s.port,
      `POST /mcp HTTP/1.1\r\nHost: rebound.evil.example:${s.port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    assert.match(answer, /^HTTP\/1\.1 403 /);
    await served();
  });

  test("Host hygiene (RFC 9112 §3.2): [::1].evil is no loopback name (403 or 400, never served); two Host lines are 400", async () => {
    for (const host of ["[::1].evil", `[::1].evil:${s.port}`, "[::1]evil", "127.0.0.1/x"]) {
      const answer = await raw(
        s.port,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      assert.match(answer, /^HTTP\/1\.1 (400|403) /, host);
    }
    const twice = await raw(
      s.port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    assert.match(twice, /^HTTP\/1\.1 400 /);
    await served();
  });

  test("a core that throws while connecting gets 500 'Internal error', reported to onError and not to the client", async () => {
    const broken: HttpServable = {
      connect: () => {
        throw new Error("secret: database password is hunter2");
      },
    };
    const errors: unknown[] = [];
    const handler = createHttpHandler(broken, { onError: (e) => errors.push(e) });
    try {
      const m = modern(3, "tools/list");
      const res = await handler.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", ...m.headers },
          body: JSON.stringify(m.body),
        }),
      );
      assert.equal(res.status, 500);
      const text = await res.text();
      assert.doesNotMatch(text, /hunter2|secret/);
      assert.equal(errors.length, 1);
    } finally {
      await handler.close();
    }
  });
});

describe("HTTP server: the Fetch API adapter", () => {
  const core = new FakeCore();
  const handler = createHttpHandler(core, { maxBodyBytes: 1024 });
  after(() => handler.close());

  function request(
    body: string | ReadableStream<Uint8Array>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Request {
    return new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
      ...(signal ? { signal } : {}),
      duplex: "half",
    } as RequestInit);
  }

  test("JSON, SSE with progress, 202 and 413 come back as Responses", async () => {
    const echo = modern(1, "tools/call", { name: "echo", arguments: { text: "fetch" } });
    const json = await within(handler.fetch(request(JSON.stringify(echo.body), echo.headers)), "echo", 10_000);
    assert.equal(json.status, 200);
    assert.equal(((await json.json()) as { id: number }).id, 1);

    const progress = modern(
      2,
      "tools/call",
      { name: "progress", arguments: { steps: 2 } },
      { ...META, progressToken: 1 },
    );
    const sse = await within(
      handler.fetch(request(JSON.stringify(progress.body), progress.headers)),
      "progress",
      10_000,
    );
    assert.equal(sse.headers.get("content-type"), "text/event-stream");
    assert.equal(sseMessages(await sse.text()).length, 3);

    const note = await within(
      handler.fetch(
        request(JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { _meta: META } }), {
          "mcp-protocol-version": MODERN,
        }),
      ),
      "notification",
      10_000,
    );
    assert.equal(note.status, 202);
    assert.equal(note.body, null);

    const big = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    const tooLarge = await within(handler.fetch(request(big, echo.headers)), "an endless body", 10_000);
    assert.equal(tooLarge.status, 413);
  });

  test("the request's signal aborting before any answer cancels the request, and the Response settles", async () => {
    const m = modern("f-wait", "tools/call", { name: "wait", arguments: {} });
    const controller = new AbortController();
    const pending = handler.fetch(request(JSON.stringify(m.body), m.headers, controller.signal));
    await until(() => core.running.has("f-wait"), 10_000, "the handler running");
    controller.abort();
    await until(
      () => core.refusedAfterAbort.includes("f-wait"),
      10_000,
      "the handler cancelled, its late write refused",
    );
    assert.equal((await within(pending, "the Response", 10_000)).status, 499);
  });

  test("cancelling an SSE Response's body cancels the request", async () => {
    const m = modern("f-log", "tools/call", { name: "log-then-wait", arguments: {} });
    const res = await within(handler.fetch(request(JSON.stringify(m.body), m.headers)), "the SSE Response", 10_000);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const events = new SseReader(res);
    assert.equal((await events.next()).method, "notifications/message");
    await events.cancel();
    await until(
      () => core.refusedAfterAbort.includes("f-log"),
      10_000,
      "the handler cancelled, its late write refused",
    );
  });
});
