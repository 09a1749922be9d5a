/**
 * Era and transport detection over HTTP (connectHttp), against hand-written loopback servers:
 * modern-only, -32022 on the first try, legacy Streamable HTTP, HTTP+SSE behind a 404, the
 * failures that must not read as "legacy" (401, 403, 500, a web page, silence), and the
 * per-origin memory of what worked.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { beforeEach, describe, test } from "node:test";
import { guardEventLoop, rejection, within } from "../testkit/peer.js";
import { HttpError } from "../transport/http/error.js";
import {
  closedAfterEach,
  header,
  rpcError,
  sendJson,
  startServer,
  type Handler,
  type TestServer,
} from "../testkit/http.js";
import type { McpClient } from "./client.js";
import {
  connectHttp,
  forgetHttpEras,
  type HttpConnectOptions,
  type HttpConnection,
  type HttpEra,
  type HttpEraMemory,
} from "./connect-http.js";
import {
  UNSUPPORTED_PROTOCOL_VERSION,
  httpSseServer,
  legacyServer,
  modernServer,
} from "../testkit/http-test-servers.js";

guardEventLoop();

const TIMEOUT = 5000;
const { keep, peers: clients } = closedAfterEach();

beforeEach(() => forgetHttpEras());

async function connect(url: string, options: HttpConnectOptions = {}): Promise<HttpConnection> {
  const connection = await within(connectHttp(url, { timeout: TIMEOUT, ...options }), "connectHttp", 3 * TIMEOUT);
  clients.push(connection.client);
  return connection;
}

/** The opening steps; a failed probe shows as `server/discover:failed` whatever its outcome label. */
const steps = (c: McpClient) =>
  c.steps.map((s) => `${s.step}:${s.outcome === "ok" ? "ok" : s.step === "server/discover" ? "failed" : s.outcome}`);
const methods = (s: TestServer) => s.requests.map((r) => `${r.method} ${r.json?.method ?? r.path}`);

describe("connectHttp: which era", () => {
  test("a modern-only server: modern at 2026-07-28 after one server/discover, no initialize", async () => {
    const s = keep(await modernServer());
    const { client, transport } = await connect(s.url());
    assert.equal(transport, "streamable-http");
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.deepEqual(steps(client), ["server/discover:ok"]);
    assert.equal(client.serverInfo?.name, "modern-test");
    assert.deepEqual(client.supportedVersions, ["2026-07-28"]);
    const result = await within(client.callTool("echo", { text: "hi" }), "the promise", TIMEOUT);
    assert.equal(result.content[0]?.text, "hi");
    assert.deepEqual(methods(s), ["POST server/discover", "POST tools/call"]);
  });

  test("-32022 listing only 2026-07-28 on the first try: it stays modern, never initialize", async () => {
    let first = true;
    const s = keep(
      await modernServer({
        intercept: (r, res) => {
          if (!first) return false;
          first = false;
          // as if the client had asked for a version this server does not serve
          sendJson(
            res,
            400,
            rpcError(r.json?.id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version: 2099-01-01", {
              supported: ["2026-07-28"],
              requested: "2099-01-01",
            }),
          );
          return true;
        },
      }),
    );
    const { client } = await connect(s.url());
    assert.equal(client.era, "modern");
    assert.equal(client.revision, "2026-07-28");
    assert.deepEqual(client.supportedVersions, ["2026-07-28"]);
    assert.equal(s.calls("initialize").length, 0);
    const tools = await within(client.listTools(), "the promise", TIMEOUT);
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo", "slow"],
    );
  });

  test("400 + -32022 without the request's id (a server that checks the header before the body): still modern", async () => {
    let first = true;
    const s = keep(
      await modernServer({
        intercept: (_r, res) => {
          if (!first) return false;
          first = false;
          sendJson(res, 400, {
            jsonrpc: "2.0",
            error: {
              code: UNSUPPORTED_PROTOCOL_VERSION,
              message: "Unsupported protocol version",
              data: { supported: ["2026-07-28"] },
            },
          });
          return true;
        },
      }),
    );
    const { client } = await connect(s.url());
    assert.equal(client.era, "modern");
    assert.equal(s.calls("initialize").length, 0, "a recognized modern error is no reason to fall back");
  });

  for (const revision of [undefined, "2026-07-28"] as const) {
    test(`-32022 naming the very version refused${revision ? " (forced)" : ""}: server/discover once more, and its answer is what counts`, async () => {
      let refusals = 1;
      const s = keep(
        await modernServer({
          intercept: (r, res) => {
            if (refusals-- <= 0) return false;
            sendJson(
              res,
              400,
              rpcError(r.json?.id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
                supported: ["2026-07-28"],
                requested: "2026-07-28",
              }),
            );
            return true;
          },
        }),
      );
      const { client } = await connect(s.url(), revision ? { revision } : {});
      assert.equal(client.era, "modern");
      assert.equal(client.revision, "2026-07-28");
      assert.equal(client.serverInfo?.name, "modern-test", "known only from the retry's answer");
      assert.equal(s.calls("server/discover").length, 2);
      assert.equal(s.calls("initialize").length, 0);
    });
  }

  test("-32022 twice for a version the server lists: a NegotiationError, not a third try", async () => {
    const s = keep(
      await modernServer({
        intercept: (r, res) => {
          sendJson(
            res,
            400,
            rpcError(r.json?.id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", {
              supported: ["2026-07-28"],
            }),
          );
          return true;
        },
      }),
    );
    const e = await rejection(connectHttp(s.url(), { timeout: TIMEOUT }), 3 * TIMEOUT);
    assert.equal(e.name, "NegotiationError");
    assert.equal(s.calls("server/discover").length, 2);
  });

  test("-32022 listing a legacy version alongside: the modern one is chosen", async () => {
    const s = keep(await modernServer({ supported: ["2026-07-28", "2025-11-25"] }));
    const { client } = await connect(s.url());
    assert.equal(client.era, "modern");
    assert.equal(s.calls("initialize").length, 0);
  });

  test("-32022 listing only legacy versions: initialize at the newest of them", async () => {
    const s = keep(await legacyServer({ versions: ["2025-06-18"] }));
    // a legacy server of a kind that answers the probe with the modern error naming what it speaks
    const front = keep(
      await startServer(async (req, res, r) => {
        if (r.json?.method === "server/discover")
          return sendJson(
            res,
            400,
            rpcError(r.json.id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported", { supported: ["2025-06-18"] }),
          );
        await proxy(s, req.method ?? "POST", r.body, r.headers, res);
      }),
    );
    const { client } = await connect(front.url());
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-06-18");
    assert.equal((s.calls("initialize")[0]!.json!.params as { protocolVersion: string }).protocolVersion, "2025-06-18");
  });

  for (const status of [400, 404, 405]) {
    test(`a legacy server answering server/discover with ${status} and a non-modern body: initialize`, async () => {
      const s = keep(await legacyServer({ beforeInitialize: status }));
      const { client, transport } = await connect(s.url());
      assert.equal(transport, "streamable-http");
      assert.equal(client.era, "legacy");
      assert.equal(client.revision, "2025-11-25");
      assert.deepEqual(steps(client), ["server/discover:failed", "initialize:ok", "notifications/initialized:ok"]);
      assert.deepEqual(methods(s), ["POST server/discover", "POST initialize", "POST notifications/initialized"]);
      assert.ok(header(s.calls("notifications/initialized")[0]!, "mcp-session-id"));
    });
  }

  test("closing: a legacy session is ended with DELETE (session id and version); a modern connection sends nothing", async () => {
    const legacy = keep(await legacyServer());
    const l = await connect(legacy.url());
    await l.client.close();
    const del = legacy.requests.filter((r) => r.method === "DELETE");
    assert.equal(del.length, 1);
    assert.equal(
      header(del[0]!, "mcp-session-id"),
      header(legacy.calls("notifications/initialized")[0]!, "mcp-session-id"),
    );
    assert.equal(header(del[0]!, "mcp-protocol-version"), "2025-11-25");

    const modern = keep(await modernServer());
    const m = await connect(modern.url());
    await m.client.close();
    assert.deepEqual(methods(modern), ["POST server/discover"]);
  });

  test("a 400 with an empty body on server/discover: initialize", async () => {
    const s = keep(await legacyServer());
    const front = keep(
      await startServer(async (req, res, r) => {
        if (r.json?.method === "server/discover") return void res.writeHead(400).end();
        await proxy(s, req.method ?? "POST", r.body, r.headers, res);
      }),
    );
    const { client } = await connect(front.url());
    assert.equal(client.era, "legacy");
  });
});

describe("connectHttp: failures that are not legacy evidence reject, with no fallback", () => {
  const cases: [string, Handler][] = [
    [
      "401 with WWW-Authenticate",
      (_q, res) => sendJson(res, 401, rpcError(null, -32001, "Unauthorized"), { "www-authenticate": "Bearer" }),
    ],
    ["403", (_q, res) => void res.writeHead(403, { "content-type": "text/plain" }).end("Forbidden")],
    [
      "500",
      (_q, res) => void res.writeHead(500, { "content-type": "text/html" }).end("<h1>Internal Server Error</h1>"),
    ],
    [
      "502 from a proxy",
      (_q, res) => void res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad Gateway</h1>"),
    ],
    [
      "a web page with 200",
      (_q, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<html>Welcome</html>"),
    ],
  ];
  for (const [name, handler] of cases) {
    test(`${name} on server/discover`, async () => {
      const s = keep(await startServer(handler));
      const e = await rejection(connectHttp(s.url(), { timeout: TIMEOUT }), 3 * TIMEOUT);
      assert.ok(e instanceof HttpError, `an HttpError, got ${e.name}: ${e.message}`);
      assert.equal(e.step, "server/discover");
      // a 401's resource metadata is read for where to sign in (sign-in.test.ts): no fallback
      const tried = methods(s).filter((m) => !m.startsWith("GET /.well-known/oauth-protected-resource"));
      assert.deepEqual(tried, ["POST server/discover"], "no initialize, no HTTP+SSE GET");
    });
  }

  test("401 carries the status and the JSON-RPC error", async () => {
    const s = keep(await startServer(cases[0]![1]));
    const e = (await rejection(connectHttp(s.url(), { timeout: TIMEOUT }))) as HttpError;
    assert.equal(e.status, 401);
    assert.equal(e.rpcError?.code, -32001);
  });

  test("silence on server/discover: an outage, not a legacy server", async () => {
    const s = keep(await startServer(() => undefined));
    const e = await rejection(connectHttp(s.url(), { timeout: 300, probeTimeout: 300 }), 3 * TIMEOUT);
    assert.ok(e instanceof HttpError || e.name === "TimeoutError", `${e.name}: ${e.message}`);
    assert.deepEqual(methods(s), ["POST server/discover"]);
  });

  test("a legacy server whose initialize fails with 401: rejects, no HTTP+SSE attempt", async () => {
    const s = keep(
      await startServer((_q, res, r) => {
        if (r.json?.method === "server/discover")
          return sendJson(res, 400, rpcError(null, -32000, "Bad Request: Server not initialized"));
        sendJson(res, 401, rpcError(null, -32001, "Unauthorized"));
      }),
    );
    const e = (await rejection(connectHttp(s.url(), { timeout: TIMEOUT }))) as HttpError;
    assert.equal(e.step, "initialize");
    assert.equal(e.status, 401);
    assert.deepEqual(
      methods(s).filter((m) => !m.startsWith("GET /.well-known/oauth-protected-resource")),
      ["POST server/discover", "POST initialize"],
    );
  });
});

describe("connectHttp: the deprecated HTTP+SSE transport", () => {
  test("a server that 404s every POST but serves HTTP+SSE: http+sse, legacy", async () => {
    const s = keep(await httpSseServer());
    const { client, transport } = await connect(s.url());
    assert.equal(transport, "http+sse");
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2024-11-05");
    assert.equal(client.serverInfo?.name, "http-sse-test");
    const result = await within(client.callTool("echo", { text: "over SSE" }), "the promise", TIMEOUT);
    assert.equal(result.content[0]?.text, "over SSE");
    assert.deepEqual(methods(s).slice(0, 4), [
      "POST server/discover",
      "POST initialize",
      "GET /mcp",
      "POST initialize",
    ]);
  });

  test("a 404 on POST with nothing behind it either: the Streamable HTTP refusal is the error", async () => {
    const s = keep(
      await startServer((_q, res) => void res.writeHead(404, { "content-type": "text/plain" }).end("Not Found")),
    );
    const e = (await rejection(connectHttp(s.url(), { timeout: TIMEOUT }))) as HttpError;
    assert.ok(e instanceof HttpError);
    assert.equal(e.step, "initialize");
    assert.equal(e.status, 404);
    assert.deepEqual(methods(s), ["POST server/discover", "POST initialize", "GET /mcp"]);
  });
});

describe("connectHttp: what worked is remembered per origin", () => {
  test("legacy: the second connect goes straight to initialize; forgetHttpEras() brings detection back", async () => {
    const s = keep(await legacyServer());
    const first = await connect(s.url());
    assert.deepEqual(steps(first.client), ["server/discover:failed", "initialize:ok", "notifications/initialized:ok"]);
    const second = await connect(s.url());
    assert.deepEqual(steps(second.client), ["initialize:ok", "notifications/initialized:ok"]);
    assert.equal(second.client.revision, first.client.revision);
    forgetHttpEras();
    const third = await connect(s.url());
    assert.deepEqual(steps(third.client), ["server/discover:failed", "initialize:ok", "notifications/initialized:ok"]);
    assert.equal(s.calls("server/discover").length, 2);
  });

  test("a memory passed as `eras` is the one read and written: the process's own is left alone", async () => {
    const s = keep(await legacyServer());
    const eras: HttpEraMemory & Map<string, HttpEra> = new Map();
    await connect(s.url(), { eras });
    assert.deepEqual([...eras.keys()], [new URL(s.url()).origin]);
    assert.equal(eras.get(new URL(s.url()).origin)?.transport, "streamable-http");
    // the shared memory learned nothing: a plain connect detects again
    const plain = await connect(s.url());
    assert.equal(plain.client.steps[0]?.step, "server/discover");
    // and the passed one is used: straight to initialize
    const again = await connect(s.url(), { eras });
    assert.deepEqual(steps(again.client), ["initialize:ok", "notifications/initialized:ok"]);
  });

  test("http+sse: the second connect opens the event stream at once, no POST to probe", async () => {
    const s = keep(await httpSseServer());
    await connect(s.url());
    const before = s.requests.length;
    const second = await connect(s.url());
    assert.equal(second.transport, "http+sse");
    assert.deepEqual(methods(s).slice(before), ["GET /mcp", "POST initialize", "POST notifications/initialized"]);
  });

  test("modern: remembered at 2026-07-28, still one server/discover and no initialize", async () => {
    const s = keep(await modernServer());
    await connect(s.url());
    const second = await connect(s.url());
    assert.equal(second.client.era, "modern");
    assert.deepEqual(methods(s), ["POST server/discover", "POST server/discover"]);
  });

  test("fresh: true ignores the memory, and adds nothing to it", async () => {
    const s = keep(await legacyServer());
    await connect(s.url());
    const again = await connect(s.url(), { fresh: true });
    assert.equal(again.client.steps[0]?.step, "server/discover");
    // what a fresh connect found is not remembered for the next connect
    const t = keep(await legacyServer());
    await connect(t.url(), { fresh: true });
    const next = await connect(t.url());
    assert.deepEqual(steps(next.client), ["server/discover:failed", "initialize:ok", "notifications/initialized:ok"]);
    // while the origin a plain connect detected still is
    assert.deepEqual(steps((await connect(s.url())).client), ["initialize:ok", "notifications/initialized:ok"]);
  });

  test("the memory is per origin: another port on the same host is detected anew", async () => {
    const a = keep(await legacyServer());
    const b = keep(await modernServer());
    await connect(a.url());
    const other = await connect(b.url());
    assert.equal(other.client.era, "modern");
  });

  test("a server that changed era since: the remembered way fails, detection runs again", async () => {
    let useLegacy = false;
    const legacy = keep(await legacyServer());
    const modern = keep(await modernServer());
    const front = keep(
      await startServer((req, res, r) =>
        proxy(useLegacy ? legacy : modern, req.method ?? "POST", r.body, r.headers, res),
      ),
    );
    const first = await connect(front.url());
    assert.equal(first.client.era, "modern");
    useLegacy = true;
    const second = await connect(front.url());
    assert.equal(second.client.era, "legacy");
    assert.equal(second.client.revision, "2025-11-25");
  });
});

/** Forwards a recorded request to another test server and relays its answer, as a gateway would. */
async function proxy(
  to: TestServer,
  method: string,
  body: string,
  headers: Record<string, unknown>,
  res: ServerResponse,
): Promise<void> {
  const forward: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (typeof v === "string" && k !== "host" && k !== "content-length" && k !== "connection") forward[k] = v;
  const answer = await fetch(to.url(), { method, headers: forward, ...(method === "POST" ? { body } : {}) });
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (k !== "content-length" && k !== "transfer-encoding" && k !== "connection" && k !== "keep-alive") out[k] = v;
  });
  res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
}
