/**
 * StreamableHttpTransport on real loopback HTTP against hand-written servers, well-behaved and
 * not: JSON and SSE answers, keep-alives, progress, streams left open, 202s, web pages, bare
 * arrays, auth failures, proxies' 5xx, a 1 GB body, a server that drips, redirects, a refused
 * connection, and cancellation.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import * as zlib from "node:zlib";
import type { Defect } from "../../codec/defects.js";
import { describe, test } from "node:test";
import type { JsonObject } from "../../codec/message.js";
import { AbortedError, ConnectionErrorCode, ResponseError, TimeoutError } from "../../peer/errors.js";
import { Peer, type Progress } from "../../peer/peer.js";
import { guardEventLoop, rejection, until, within } from "../../testkit/peer.js";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, type Revision } from "../../rules/revisions.js";
import { StreamableHttpTransport, type ExchangeRecord, type HttpClientOptions } from "./client.js";
import { HttpError } from "./error.js";
import {
  closedAfterEach,
  closedPort,
  header,
  idOf,
  openSse,
  result,
  rpcError,
  sendJson,
  type Handler,
  type Recorded,
} from "../../testkit/http.js";

guardEventLoop();

const { serve, peers } = closedAfterEach();

/** A client peer over a fresh transport to `url`; modern (2026-07-28) unless told otherwise. */
function client(url: string, options: HttpClientOptions = {}, revision: Revision = "2026-07-28") {
  const exchanges: ExchangeRecord[] = [];
  const transport = new StreamableHttpTransport(url, { ...options, onExchange: (e) => exchanges.push(e) });
  const peer = new Peer(transport, { revision, role: "client", timeout: 10_000 });
  peers.push(peer);
  return { peer, transport, exchanges };
}

/** Params with the modern `_meta` every 2026-07-28 request carries. */
function modern(params: JsonObject = {}): JsonObject {
  return { ...params, _meta: { [META_PROTOCOL_VERSION]: "2026-07-28", [META_CLIENT_CAPABILITIES]: {} } };
}

async function httpError(promise: Promise<unknown>, ms = 10_000): Promise<HttpError> {
  const e = await rejection(promise, ms);
  assert.ok(e instanceof HttpError, `an HttpError, got ${e.name}: ${e.message}`);
  return e;
}

describe("answers a well-behaved server gives", () => {
  test("a JSON body: the response resolves the request; Accept names both answer types", async () => {
    const s = await serve((_req, res, r) => sendJson(res, 200, result(idOf(r), { tools: [] })));
    const { peer, exchanges } = client(s.url());
    assert.deepEqual(await within(peer.request("tools/list", modern())), { tools: [] });
    const r = s.requests[0]!;
    assert.equal(r.method, "POST");
    assert.equal(header(r, "content-type"), "application/json");
    assert.match(header(r, "accept")!, /application\/json/);
    assert.match(header(r, "accept")!, /text\/event-stream/);
    assert.equal(exchanges[0]?.status, 200);
    assert.equal(exchanges[0]?.contentType, "application/json");
  });

  test("an SSE stream: comments, keep-alives and unknown events ignored, progress delivered before the response", async () => {
    const s = await serve(async (_req, res, r) => {
      const token = ((r.json?.params as JsonObject)._meta as JsonObject).progressToken;
      const sse = openSse(res);
      sse.raw(": opening comment\n\n");
      sse.raw(":\n\n");
      sse.raw("retry: 1000\n\n");
      for (let i = 1; i <= 3; i++) {
        sse.event({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: 3 },
        });
        sse.raw(": keep-alive\r\n\r\n");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      sse.event(
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 99 } },
        "not-a-message",
      );
      sse.raw(`event: message\ndata: ${JSON.stringify(result(idOf(r), { content: [] }))}\n\n`);
      res.end();
    });
    const { peer } = client(s.url());
    const seen: Progress[] = [];
    let progressAtAnswer = -1;
    const answer = await within(
      peer.request("tools/call", modern({ name: "slow" }), { onProgress: (p) => seen.push(p) }).then((v) => {
        progressAtAnswer = seen.length;
        return v;
      }),
    );
    assert.deepEqual(answer, { content: [] });
    assert.deepEqual(
      seen.map((p) => p.progress),
      [1, 2, 3],
    );
    assert.equal(progressAtAnswer, 3, "every progress notification came before the response");
  });

  test("an SSE stream that stays open after the response: the client stops reading and lets go", async () => {
    const s = await serve((_req, res, r) => {
      const sse = openSse(res);
      sse.event(result(idOf(r), { ok: true }));
      // then keep-alives forever, as a proxy-friendly server might
      const timer = setInterval(() => sse.raw(": keep-alive\n\n"), 20);
      res.on("close", () => clearInterval(timer));
    });
    const { peer } = client(s.url());
    assert.deepEqual(await within(peer.request("tools/list", modern())), { ok: true });
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the client hang up");
  });

  test("202 with no body for a notification", async () => {
    const s = await serve((_req, res) => void res.writeHead(202).end());
    const { peer } = client(s.url(), {}, "2025-11-25");
    await within(peer.notify("notifications/initialized"));
    assert.equal(s.calls("notifications/initialized").length, 1);
  });

  test("a 400 with a JSON-RPC error answering the request: the server's error, not a transport failure", async () => {
    const s = await serve((_req, res, r) =>
      sendJson(res, 400, rpcError(idOf(r), -32022, "Unsupported protocol version", { supported: ["2026-07-28"] })),
    );
    const { peer } = client(s.url());
    const e = await rejection(peer.request("server/discover", modern()));
    assert.ok(e instanceof ResponseError, `${e.name}: ${e.message}`);
    assert.equal(e.code, -32022);
    assert.deepEqual(e.data, { supported: ["2026-07-28"] });
  });
});

describe("answers that are not answers: HttpError with the evidence", () => {
  test("202 for a request: no_response", async () => {
    const s = await serve((_req, res) => void res.writeHead(202).end());
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "no_response");
    assert.equal(e.status, 202);
    assert.equal(e.step, "tools/list");
    // its frames show whose call it ended; a refused server/discover, which a dual-era client
    // reads and falls back from, carries none
    assert.match(e.stack ?? "", /\n\s+at /);
    const refused = await httpError(peer.request("server/discover", modern()));
    assert.equal(refused.step, "server/discover");
    assert.equal(refused.stack, `HttpError: ${refused.message}`);
  });

  test("a web page with 200: not_jsonrpc, with the content type and the first bytes", async () => {
    const page = "<!doctype html><html><head><title>Sign in</title></head><body>Welcome</body></html>";
    const s = await serve(
      (_req, res) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page),
    );
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "not_jsonrpc");
    assert.equal(e.status, 200);
    assert.equal(e.contentType, "text/html; charset=utf-8");
    assert.equal(e.bodyExcerpt, page);
    assert.equal(e.url, s.url());
  });

  for (const body of ["[]", '{"tools":[]}', '"ok"', "null"]) {
    test(`${body} with 200: JSON, but no JSON-RPC message, so no response`, async () => {
      const s = await serve((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(body));
      const { peer } = client(s.url());
      const e = await httpError(peer.request("tools/list", modern()));
      assert.equal(e.failure, "not_jsonrpc");
      assert.equal(e.bodyExcerpt, body);
      assert.equal(e.contentType, "application/json");
    });
  }

  test("a JSON-RPC response to another id, alone or in an array: no_response", async () => {
    for (const wrap of [(m: unknown) => m, (m: unknown) => [m]]) {
      const s = await serve((_req, res) => sendJson(res, 200, wrap(result(12345, { tools: [] }))));
      const { peer } = client(s.url());
      const e = await httpError(peer.request("tools/list", modern()));
      assert.equal(e.failure, "no_response");
      assert.match(e.bodyExcerpt!, /12345/);
    }
  });

  test("a 400 whose JSON-RPC error has no id: no_response, the error kept as evidence", async () => {
    const s = await serve((_req, res) =>
      sendJson(res, 400, { jsonrpc: "2.0", error: { code: -32020, message: "Header mismatch" } }),
    );
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "no_response");
    assert.equal(e.status, 400);
    assert.deepEqual(e.rpcError, { code: -32020, message: "Header mismatch" });
  });

  test("an empty 200 for a request: no_response", async () => {
    const s = await serve((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end());
    const { peer } = client(s.url());
    assert.equal((await httpError(peer.request("tools/list", modern()))).failure, "no_response");
  });

  test("an SSE stream that ends without the response: no_response", async () => {
    const s = await serve((_req, res) => {
      openSse(res).event({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "bye" } });
      res.end();
    });
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "no_response");
    assert.equal(e.contentType, "text/event-stream");
  });

  test("401 with WWW-Authenticate and a -32001 body: status 401, the JSON-RPC error carried along", async () => {
    const s = await serve((_req, res) =>
      sendJson(res, 401, rpcError(null, -32001, "Unauthorized"), {
        "www-authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
      }),
    );
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "status");
    assert.equal(e.status, 401);
    assert.deepEqual(e.rpcError, { code: -32001, message: "Unauthorized" });
    assert.equal(
      e.message,
      'tools/list: HTTP 401 with JSON-RPC error -32001 "Unauthorized": the server wants sign-in (WWW-Authenticate: Bearer …); pass credentials in the headers option (Authorization: Bearer <token>), or run mcp-wire probe on it to see the sign-in chain',
    );
  });

  test("401 even when the body answers the request: never the server's answer", async () => {
    const s = await serve((_req, res, r) => sendJson(res, 401, rpcError(idOf(r), -32001, "Unauthorized")));
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.status, 401);
    assert.equal(e.rpcError?.code, -32001);
  });

  for (const status of [500, 502]) {
    test(`${status} with an HTML page: status ${status} with the evidence`, async () => {
      const page = `<html><body><h1>${status} Bad Gateway</h1><hr>nginx</body></html>`;
      const s = await serve((_req, res) => void res.writeHead(status, { "content-type": "text/html" }).end(page));
      const { peer } = client(s.url());
      const e = await httpError(peer.request("tools/list", modern()));
      assert.equal(e.failure, "status");
      assert.equal(e.status, status);
      assert.equal(e.contentType, "text/html");
      assert.equal(e.bodyExcerpt, page);
      assert.equal(e.rpcError, undefined);
    });
  }

  test("404 with plain text: status 404", async () => {
    const s = await serve(
      (_req, res) => void res.writeHead(404, { "content-type": "text/plain" }).end("Cannot POST /mcp"),
    );
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "status");
    assert.equal(e.status, 404);
    assert.equal(e.bodyExcerpt, "Cannot POST /mcp");
  });
});

/** Streams `total` bytes of `chunk`s, honouring back-pressure; `sent` says how far it got. */
function hugeBody(res: ServerResponse, contentType: string, total: number, prefix: string, filler: number) {
  const state = { sent: 0, closed: false };
  const chunk = Buffer.alloc(64 * 1024, filler);
  res.writeHead(200, { "content-type": contentType });
  res.write(prefix);
  res.on("close", () => (state.closed = true));
  const pump = () => {
    while (!state.closed && state.sent < total) {
      state.sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!state.closed) res.end();
  };
  pump();
  return state;
}

describe("bodies past the cap", () => {
  const GB = 1024 ** 3;

  test("a 1 GB JSON body: too_large after the cap, the rest never read, memory bounded", async () => {
    let state: { sent: number; closed: boolean } | undefined;
    const s = await serve(
      (_req, res) =>
        void (state = hugeBody(res, "application/json", GB, '{"jsonrpc":"2.0","id":1,"result":{"pad":"', 0x61)),
    );
    const { peer } = client(s.url());
    const before = process.memoryUsage().rss;
    const e = await httpError(peer.request("tools/list", modern()), 30_000);
    const grown = process.memoryUsage().rss - before;
    assert.equal(e.failure, "too_large");
    assert.equal(e.status, 200);
    assert.ok(e.bodyExcerpt!.length <= 513, "the evidence is an excerpt");
    await until(() => state!.closed, 5000, "the server seeing the client hang up");
    assert.ok(state!.sent < 64 * 1024 ** 2, `the client stopped reading early (the server wrote ${state!.sent} bytes)`);
    assert.ok(grown < 256 * 1024 ** 2, `memory grew by ${grown} bytes`);
  });

  test("a 1 GB SSE event: too_large at the cap", async () => {
    let state: { sent: number; closed: boolean } | undefined;
    const s = await serve((_req, res) => void (state = hugeBody(res, "text/event-stream", GB, "data: ", 0x61)));
    const { peer } = client(s.url(), { maxBytes: 1024 * 1024 });
    const e = await httpError(peer.request("tools/list", modern()), 30_000);
    assert.equal(e.failure, "too_large");
    await until(() => state!.closed, 5000, "the server seeing the client hang up");
    assert.ok(state!.sent < 64 * 1024 ** 2, `the server wrote ${state!.sent} bytes`);
  });

  test("an SSE answer of endless small events: too_large once the stream passes the body cap, long before the deadline", async () => {
    const cap = 64 * 1024;
    let sent = 0;
    let closed = false;
    const s = await serve((_req, res) => {
      const sse = openSse(res);
      const event = (n: number) =>
        sse.raw(
          `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } })}\n\n`,
        );
      const pump = () => {
        while (!closed && event(++sent));
        if (!closed) res.once("drain", pump);
      };
      res.on("close", () => (closed = true));
      pump();
    });
    const { peer } = client(s.url(), { maxBytes: cap, timeout: 60_000 });
    const e = await httpError(peer.request("tools/list", modern()), 60_000);
    assert.equal(e.failure, "too_large");
    assert.match(e.message, /the SSE answer passed the 65536-byte cap without a response to request/);
    await until(() => closed, 5000, "the server seeing the client hang up");
  });

  for (const [how, big] of [
    ["still coming", `data: ${"x".repeat(8192)}`],
    [
      "whole in one write, more after it",
      `data: ${"x".repeat(8192)}\n\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "after" } })}\n\n`,
    ],
  ]) {
    test(`the session's GET stream: a message is delivered; an event past the cap (${how}) is a too_large defect and the stream is closed`, async () => {
      let closed = false;
      const s = await serve((req, res) => {
        if (req.method !== "GET") return void res.writeHead(202).end();
        res.on("close", () => (closed = true));
        const sse = openSse(res);
        sse.event({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "first" } });
        sse.raw(big!);
      });
      const defects: Defect[] = [];
      const seen: unknown[] = [];
      const transport = new StreamableHttpTransport(s.url(), { maxBytes: 4096 });
      const peer = new Peer(transport, {
        revision: "2025-11-25",
        role: "client",
        timeout: 10_000,
        onDefect: (d) => defects.push(d.defect),
      });
      peers.push(peer);
      peer.onNotification("notifications/message", (params) => void seen.push(params));
      transport.openServerStream();
      await until(() => defects.length > 0 && seen.length > 0, 5000, "the message and the defect");
      assert.deepEqual(seen[0], { level: "info", data: "first" });
      assert.deepEqual(
        defects.map((d) => d.code),
        ["too_large"],
      );
      assert.match(defects[0]!.message, /an event on the GET stream passed the 4096-byte cap: the stream is closed/);
      await until(() => closed, 5000, "the server seeing the stream closed");
    });
  }

  test("an error body past the cap on a 500: too_large, not a parse of half a body", async () => {
    const s = await serve((_req, res) => void hugeBody(res, "text/html", 8 * 1024 * 1024, "<html>", 0x20));
    const { peer } = client(s.url(), { maxBytes: 64 * 1024 });
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "too_large");
  });
});

describe("deadlines", () => {
  const DEADLINE = 300;
  /** Generous: the test only proves the client gives up on its own, long before this. */
  const SLACK = 10_000;

  /** The one error a request's deadline gives over HTTP: TimeoutError, here with the exchange's evidence as its cause. */
  async function timedOut(promise: Promise<unknown>, ms: number): Promise<HttpError> {
    const e = await rejection(promise, ms);
    assert.ok(e instanceof TimeoutError, `a TimeoutError, got ${e.name}: ${e.message}`);
    assert.equal(e.code, ConnectionErrorCode.Timeout);
    assert.ok(e.cause instanceof HttpError, "the exchange's deadline ran out: its HttpError is the cause");
    return e.cause;
  }

  function drip(res: ServerResponse, contentType: string, head: string, byte: string) {
    res.writeHead(200, { "content-type": contentType });
    res.write(head);
    const timer = setInterval(() => res.write(byte), 50);
    res.on("close", () => clearInterval(timer));
  }

  test("a JSON body dripped a byte at a time past the deadline: timeout", async () => {
    const s = await serve((_req, res) =>
      drip(res, "application/json", '{"jsonrpc":"2.0","id":1,"result":{"pad":"', "a"),
    );
    const { peer } = client(s.url(), { timeout: DEADLINE });
    const e = await timedOut(peer.request("tools/list", modern()), DEADLINE + SLACK);
    assert.equal(e.failure, "timeout");
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the client hang up");
  });

  test("an SSE stream of keep-alives and nothing else: timeout", async () => {
    const s = await serve((_req, res) => drip(res, "text/event-stream", ": hello\n\n", ": keep-alive\n\n"));
    const { peer } = client(s.url(), { timeout: DEADLINE });
    const e = await timedOut(peer.request("tools/list", modern()), DEADLINE + SLACK);
    assert.equal(e.failure, "timeout");
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the client hang up");
  });

  test("no headers at all: timeout", async () => {
    const s = await serve(() => undefined);
    const { peer } = client(s.url(), { timeout: DEADLINE });
    const e = await timedOut(peer.request("tools/list", modern()), DEADLINE + SLACK);
    assert.equal(e.failure, "timeout");
  });

  test("one deadline, one error: the peer's timer or the exchange's, whichever runs out first, gives a TimeoutError", async () => {
    const s = await serve(() => undefined);
    // the exchange's deadline first: its evidence rides along as the cause
    const first = client(s.url(), { timeout: DEADLINE });
    const byExchange = await rejection(
      first.peer.request("tools/list", modern(), { timeout: SLACK * 6 }),
      DEADLINE + SLACK,
    );
    // the peer's deadline first: the same class and code, no exchange evidence
    const second = client(s.url(), { timeout: SLACK * 6 });
    const byPeer = await rejection(
      second.peer.request("tools/list", modern(), { timeout: DEADLINE }),
      DEADLINE + SLACK,
    );
    for (const e of [byExchange, byPeer]) {
      assert.ok(e instanceof TimeoutError, `${e.name}: ${e.message}`);
      assert.equal(e.code, ConnectionErrorCode.Timeout);
      assert.equal(e.method, "tools/list");
    }
    assert.ok(byExchange.cause instanceof HttpError);
    assert.equal(byPeer.cause, undefined);
  });
});

describe("redirects and origins", () => {
  const SECRET = "Bearer s3cr3t";

  test("307 /mcp → /mcp/ on the same origin is followed, method, body and credentials kept", async () => {
    const s = await serve((_req, res, r) => {
      if (r.path === "/mcp") return void res.writeHead(307, { location: "/mcp/" }).end();
      sendJson(res, 200, result(idOf(r), { tools: [] }));
    });
    const { peer, exchanges } = client(s.url(), { headers: { authorization: SECRET } });
    assert.deepEqual(await within(peer.request("tools/list", modern())), { tools: [] });
    assert.deepEqual(
      s.requests.map((r) => [r.method, r.path, header(r, "authorization")]),
      [
        ["POST", "/mcp", SECRET],
        ["POST", "/mcp/", SECRET],
      ],
    );
    assert.equal(s.requests[1]!.body, s.requests[0]!.body);
    assert.equal(exchanges[0]?.url, s.url("/mcp/"));
  });

  for (const status of [301, 302, 307, 308]) {
    test(`${status} to another origin (another 127.0.0.1 port): not followed, credentials never sent there`, async () => {
      const other = await serve((_req, res, r) => sendJson(res, 200, result(idOf(r), { stolen: true })));
      const s = await serve((_req, res) => void res.writeHead(status, { location: other.url("/mcp") }).end());
      const { peer } = client(s.url(), { headers: { authorization: SECRET } });
      const e = await httpError(peer.request("tools/list", modern()));
      assert.equal(e.failure, "redirect");
      assert.equal(e.status, status);
      assert.equal(e.location, other.url("/mcp"));
      assert.equal(other.requests.length, 0, "the other origin never heard from the client");
      assert.equal(header(s.requests[0]!, "authorization"), SECRET);
    });
  }

  test("a same-origin redirect that leads to another origin: stopped at the second hop", async () => {
    const other = await serve((_req, res, r) => sendJson(res, 200, result(idOf(r), {})));
    const s = await serve((_req, res, r) => {
      if (r.path === "/mcp") return void res.writeHead(308, { location: "/hop" }).end();
      res.writeHead(307, { location: other.url("/mcp") }).end();
    });
    const { peer } = client(s.url(), { headers: { authorization: SECRET } });
    assert.equal((await httpError(peer.request("tools/list", modern()))).failure, "redirect");
    assert.equal(other.requests.length, 0);
  });

  test("a redirect loop on the same origin ends", async () => {
    const s = await serve((_req, res, r) => void res.writeHead(307, { location: r.path === "/a" ? "/b" : "/a" }).end());
    const { peer } = client(s.url("/a"));
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "redirect");
    assert.ok(s.requests.length <= 10, `${s.requests.length} requests`);
  });

  test("connection refused: network, ECONNREFUSED", async () => {
    const port = await closedPort();
    const { peer } = client(`http://127.0.0.1:${port}/mcp`);
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "network");
    assert.equal(e.networkCode, "ECONNREFUSED");
    assert.equal(e.status, undefined);
  });
});

describe("compressed answers, as fetch reads them", () => {
  const encoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: (b) => zlib.gzipSync(b),
    "x-gzip": (b) => zlib.gzipSync(b),
    deflate: (b) => zlib.deflateSync(b),
    "deflate (raw, as some servers send it)": (b) => zlib.deflateRawSync(b),
    br: (b) => zlib.brotliCompressSync(b),
  };
  for (const [name, encode] of Object.entries(encoders)) {
    test(`${name}: Accept-Encoding offers it, and the JSON body is decoded`, async () => {
      const s = await serve((_req, res, r) => {
        const body = encode(Buffer.from(JSON.stringify(result(idOf(r), { tools: [{ name: "t" }] }))));
        res
          .writeHead(200, {
            "content-type": "application/json",
            "content-encoding": name.split(" ")[0]!,
            "content-length": String(body.length),
          })
          .end(body);
      });
      const { peer } = client(s.url());
      assert.deepEqual(await within(peer.request("tools/list", modern())), { tools: [{ name: "t" }] });
      assert.equal(header(s.requests[0]!, "accept-encoding"), "gzip, deflate, br");
    });
  }

  test("a gzip SSE stream: each event decoded as it arrives, progress before the response", async () => {
    const s = await serve((_req, res, r) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      const gz = zlib.createGzip();
      gz.pipe(res);
      gz.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: idOf(r), progress: 1 } })}\n\n`,
      );
      gz.flush(() =>
        setTimeout(() => gz.end(`event: message\ndata: ${JSON.stringify(result(idOf(r), { done: true }))}\n\n`), 20),
      );
    });
    const { peer } = client(s.url());
    const progress: Progress[] = [];
    assert.deepEqual(await within(peer.request("tools/call", modern(), { onProgress: (p) => progress.push(p) })), {
      done: true,
    });
    assert.deepEqual(progress, [{ progress: 1 }]);
  });

  test("a gzip bomb: too_large once the decoded bytes pass the cap, with the compressed bytes far fewer", async () => {
    const fill = zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024, "x"));
    let sent = 0;
    const s = await serve((_req, res, r) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.write(zlib.gzipSync(`{"jsonrpc":"2.0","id":${JSON.stringify(idOf(r))},"result":{"x":"`));
      let left = 256; // 1 GiB decoded
      const pump = () => {
        while (left-- > 0 && !res.destroyed) {
          sent += fill.length;
          if (!res.write(fill)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end(zlib.gzipSync(`"}}`));
      };
      pump();
    });
    const { peer } = client(s.url(), { maxBytes: 1024 * 1024 });
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "too_large");
    assert.ok(sent < 64 * 1024 * 1024, `the server got to send ${sent} bytes`);
  });

  test("a body that is not the gzip it claims: not_jsonrpc, no hang, no crash", async () => {
    const s = await serve(
      (_req, res) =>
        void res
          .writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
          .end('{"jsonrpc":"2.0"}'),
    );
    const { peer } = client(s.url());
    const e = await httpError(peer.request("tools/list", modern()));
    assert.equal(e.failure, "not_jsonrpc");
    assert.match(e.message, /gzip body cannot be decoded/);
  });

  test("an identity answer with a content coding not offered is left as it came", async () => {
    const s = await serve(
      (_req, res, r) =>
        void res
          .writeHead(200, { "content-type": "application/json", "content-encoding": "identity" })
          .end(JSON.stringify(result(idOf(r), { ok: 1 }))),
    );
    const { peer } = client(s.url());
    assert.deepEqual(await within(peer.request("tools/list", modern())), { ok: 1 });
  });
});

describe("redirected POSTs are warned about", () => {
  test("308 /mcp → /mcp/: followed, and one redirect warning that names the trailing slash", async () => {
    const s = await serve((_req, res, r) => {
      if (r.path === "/mcp") return void res.writeHead(308, { location: "/mcp/" }).end();
      sendJson(res, 200, result(idOf(r), { resultType: "complete", tools: [] }));
    });
    const defects: Defect[] = [];
    const transport = new StreamableHttpTransport(s.url());
    const peer = new Peer(transport, {
      revision: "2026-07-28",
      role: "client",
      timeout: 10_000,
      onDefect: (d) => defects.push(d.defect),
    });
    peers.push(peer);
    assert.deepEqual(await within(peer.request("tools/list", modern())), { resultType: "complete", tools: [] });
    assert.deepEqual(
      defects.map((d) => [d.code, d.severity]),
      [["redirect", "warning"]],
    );
    assert.match(defects[0]!.message, /only adds a trailing slash/);
  });

  test("no redirect, no warning", async () => {
    const s = await serve((_req, res, r) => sendJson(res, 200, result(idOf(r), { resultType: "complete", tools: [] })));
    const defects: Defect[] = [];
    const peer = new Peer(new StreamableHttpTransport(s.url()), {
      revision: "2026-07-28",
      role: "client",
      timeout: 10_000,
      onDefect: (d) => defects.push(d.defect),
    });
    peers.push(peer);
    await within(peer.request("tools/list", modern()));
    assert.deepEqual(defects, []);
  });
});

describe("cancellation", () => {
  /** Streams progress until the client goes away. */
  const endless: Handler = (_req, res, r: Recorded) => {
    const token = ((r.json?.params as JsonObject | undefined)?._meta as JsonObject | undefined)?.progressToken;
    const sse = openSse(res);
    let n = 0;
    const timer = setInterval(
      () =>
        sse.event({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token ?? 0, progress: ++n },
        }),
      20,
    );
    res.on("close", () => clearInterval(timer));
  };

  test("modern: aborting the request's signal ends its HTTP exchange, and the server sees the disconnect", async () => {
    const s = await serve((req, res, r) =>
      r.json?.method === "tools/call" ? endless(req, res, r) : void res.writeHead(202).end(),
    );
    const { peer } = client(s.url());
    const controller = new AbortController();
    let progressed!: () => void;
    const first = new Promise<void>((resolve) => (progressed = resolve));
    const call = peer.request("tools/call", modern({ name: "slow" }), {
      signal: controller.signal,
      onProgress: () => progressed(),
    });
    await within(first, "the first progress notification", 5000);
    controller.abort();
    const e = await rejection(call);
    assert.ok(e instanceof AbortedError, `AbortedError, got ${e.name}`);
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the disconnect");
    assert.equal(
      s.calls("notifications/cancelled").length,
      0,
      "closing the stream is the cancellation: no notification",
    );
  });

  test("legacy (2025-11-25): the exchange ends too, and notifications/cancelled follows, as that revision asks", async () => {
    const s = await serve((req, res, r) =>
      r.json?.method === "tools/call" ? endless(req, res, r) : void res.writeHead(202).end(),
    );
    const { peer, transport } = client(s.url(), {}, "2025-11-25");
    transport.negotiated("2025-11-25");
    const controller = new AbortController();
    let progressed!: () => void;
    const first = new Promise<void>((resolve) => (progressed = resolve));
    const call = peer.request(
      "tools/call",
      { name: "slow" },
      { signal: controller.signal, onProgress: () => progressed() },
    );
    await within(first, "the first progress notification", 5000);
    controller.abort();
    assert.ok((await rejection(call)) instanceof AbortedError);
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the disconnect");
    await until(() => s.calls("notifications/cancelled").length === 1, 5000, "notifications/cancelled");
    const cancelled = s.calls("notifications/cancelled")[0]!;
    assert.equal((cancelled.json?.params as JsonObject).requestId, idOf(s.calls("tools/call")[0]!));
    assert.equal(header(cancelled, "mcp-protocol-version"), "2025-11-25");
  });

  test("closing the transport ends every exchange under way", async () => {
    const s = await serve(endless);
    const { peer } = client(s.url());
    const call = peer.request("tools/call", modern({ name: "slow" }), { onProgress: () => undefined });
    await until(() => s.requests.length === 1, 5000, "the request reaching the server");
    await peer.close();
    await rejection(call);
    await until(() => s.disconnects.length === 1, 5000, "the server seeing the disconnect");
  });
});
