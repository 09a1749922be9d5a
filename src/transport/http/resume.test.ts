/**
 * Resuming a legacy request's interrupted SSE stream (2025-11-25 transports: "poll" with GET
 * and Last-Event-ID after the server's `retry`), against loopback servers that end the POST's
 * stream early or drop its connection and serve the rest on GET; and the streams that must not
 * be resumed, the limit on fruitless reconnections, refusals and the deadline.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { describe, test } from "node:test";
import type { JsonObject } from "../../codec/message.js";
import { TimeoutError } from "../../peer/errors.js";
import { Peer, type Progress } from "../../peer/peer.js";
import { guardEventLoop, rejection, until, within } from "../../testkit/peer.js";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../../rules/revisions.js";
import { StreamableHttpTransport, type ExchangeRecord, type HttpClientOptions } from "./client.js";
import { HttpError } from "./error.js";
import { closedAfterEach, header, idOf, openSse, type Recorded, type TestServer } from "../../testkit/http.js";

guardEventLoop();

const { serve, peers } = closedAfterEach();

/** A client in a legacy 2025-11-25 session `s-1`, as if `initialize` had settled it. */
function legacyClient(url: string, options: HttpClientOptions = {}) {
  const exchanges: ExchangeRecord[] = [];
  const transport = new StreamableHttpTransport(url, { ...options, onExchange: (e) => exchanges.push(e) });
  transport.sessionId = "s-1";
  transport.negotiated("2025-11-25");
  const peer = new Peer(transport, { revision: "2025-11-25", role: "client", timeout: 10_000 });
  peers.push(peer);
  return { peer, transport, exchanges };
}

const gets = (s: TestServer): Recorded[] => s.requests.filter((r) => r.method === "GET");
const event = (id: string, value: unknown) => `id: ${id}\ndata: ${JSON.stringify(value)}\n\n`;
/** An event with an id and no message (2025-11-25: "prime the client to reconnect"). */
const priming = (id: string, retry = 20) => `id: ${id}\nretry: ${retry}\ndata: \n\n`;

async function httpError(promise: Promise<unknown>): Promise<HttpError> {
  const e = await rejection(promise, 10_000);
  assert.ok(e instanceof HttpError, `an HttpError, got ${e.name}: ${e.message}`);
  return e;
}

describe("resuming an interrupted SSE stream (legacy)", () => {
  test("the POST's stream ends after its events: GET with Last-Event-ID, the session and version headers, and the response there", async () => {
    let pending: unknown;
    const s = await serve((req, res, r) => {
      if (req.method === "POST") {
        pending = idOf(r);
        const token = ((r.json?.params as JsonObject)._meta as JsonObject).progressToken;
        const sse = openSse(res);
        sse.raw(priming("post-1"));
        sse.raw(
          event("post-2", {
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: 1 },
          }),
        );
        res.end();
        return;
      }
      const sse = openSse(res);
      sse.raw(priming("get-1"));
      sse.raw(event("get-2", { jsonrpc: "2.0", id: pending, result: { content: [] } }));
      // left open: the response ends the client's interest
    });
    const { peer, exchanges } = legacyClient(s.url());
    const progress: Progress[] = [];
    const result = await within(
      peer.request("tools/call", { name: "slow" }, { onProgress: (p) => progress.push(p) }),
      "the promise",
      10_000,
    );
    assert.deepEqual(result, { content: [] });
    assert.deepEqual(progress, [{ progress: 1 }]);
    const [get] = gets(s);
    assert.equal(gets(s).length, 1);
    assert.equal(header(get!, "last-event-id"), "post-2", "the id of the last event, message or not");
    assert.equal(header(get!, "mcp-session-id"), "s-1");
    assert.equal(header(get!, "mcp-protocol-version"), "2025-11-25");
    assert.match(header(get!, "accept")!, /text\/event-stream/);
    // the response resolves the request before the exchanges have wound up and reported
    await until(() => exchanges.length === 2, 5000, "both exchanges reported");
    assert.deepEqual(
      exchanges.map((e) => `${e.httpMethod} ${e.status}`),
      ["GET 200", "POST 200"],
      "the GET is its own exchange, inside the POST's",
    );
  });

  test("the connection drops mid-stream: resumed from the last id the same way", async () => {
    let pending: unknown;
    const s = await serve((req, res, r) => {
      if (req.method === "POST") {
        pending = idOf(r);
        const sse = openSse(res);
        sse.raw(priming("a-1"));
        // half an event, then the socket goes: a network failure, not an orderly end
        sse.raw('data: {"jsonrpc":');
        setTimeout(() => res.destroy(), 20);
        return;
      }
      openSse(res).raw(event("a-2", { jsonrpc: "2.0", id: pending, result: { ok: true } }));
    });
    const { peer } = legacyClient(s.url());
    assert.deepEqual(await within(peer.request("tools/call", { name: "x" }), "the promise", 10_000), { ok: true });
    assert.equal(header(gets(s)[0]!, "last-event-id"), "a-1");
  });

  test("a server that polls: each reconnection that brings a message starts the count of fruitless ones again", async () => {
    let pending: unknown;
    let n = 0;
    const s = await serve((req, res, r) => {
      const sse = openSse(res);
      if (req.method === "POST") {
        pending = idOf(r);
        sse.raw(priming("p-0"));
        res.end();
        return;
      }
      n++;
      if (n < 3) {
        sse.raw(
          event(`p-${n}`, {
            jsonrpc: "2.0",
            method: "notifications/message",
            params: { level: "info", data: `poll ${n}` },
          }),
        );
        res.end();
        return;
      }
      sse.raw(event("p-3", { jsonrpc: "2.0", id: pending, result: { done: true } }));
    });
    const { peer } = legacyClient(s.url(), { resumeAttempts: 1 });
    assert.deepEqual(await within(peer.request("tools/call", { name: "x" }), "the promise", 10_000), { done: true });
    assert.deepEqual(
      gets(s).map((g) => header(g, "last-event-id")),
      ["p-0", "p-1", "p-2"],
    );
  });

  test("reconnections that bring nothing: no_response after resumeAttempts of them in a row", async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      openSse(res).raw(priming(`e-${n++}`));
      res.end();
    });
    const { peer } = legacyClient(s.url(), { resumeAttempts: 2 });
    const e = await httpError(peer.request("tools/call", { name: "x" }));
    assert.equal(e.failure, "no_response");
    assert.match(e.message, /2 time\(s\) in a row/);
    assert.equal(gets(s).length, 2);
    assert.deepEqual(
      gets(s).map((g) => header(g, "last-event-id")),
      ["e-0", "e-1"],
    );
  });

  test("resumeAttempts 0: never resumed", async () => {
    const s = await serve((_req, res) => {
      openSse(res).raw(priming("e-0"));
      res.end();
    });
    const { peer } = legacyClient(s.url(), { resumeAttempts: 0 });
    assert.equal((await httpError(peer.request("tools/call", { name: "x" }))).failure, "no_response");
    assert.equal(gets(s).length, 0);
  });

  test("events without ids: nothing to resume from, no_response at once", async () => {
    const s = await serve((_req, res) => {
      openSse(res).raw(
        `retry: 20\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })}\n\n`,
      );
      res.end();
    });
    const { peer } = legacyClient(s.url());
    assert.equal((await httpError(peer.request("tools/call", { name: "x" }))).failure, "no_response");
    assert.equal(gets(s).length, 0);
  });

  test("a 2026-07-28 request: its streams are not resumable, whatever ids they carry", async () => {
    const s = await serve((_req, res) => {
      openSse(res).raw(priming("m-1"));
      res.end();
    });
    const transport = new StreamableHttpTransport(s.url());
    const peer = new Peer(transport, { revision: "2026-07-28", role: "client", timeout: 10_000 });
    peers.push(peer);
    const params = { name: "x", _meta: { [META_PROTOCOL_VERSION]: "2026-07-28", [META_CLIENT_CAPABILITIES]: {} } };
    assert.equal((await httpError(peer.request("tools/call", params))).failure, "no_response");
    assert.equal(gets(s).length, 0);
  });

  test("the GET refused (405): an HttpError that says it was the resumption, and no further try", async () => {
    const s = await serve((req, res: ServerResponse) => {
      if (req.method === "GET") return void res.writeHead(405, { allow: "POST" }).end();
      openSse(res).raw(priming("r-1"));
      res.end();
    });
    const { peer, exchanges } = legacyClient(s.url());
    const e = await httpError(peer.request("tools/call", { name: "x" }));
    assert.equal(e.status, 405);
    assert.match(e.message, /Last-Event-ID "r-1"/);
    assert.equal(gets(s).length, 1);
    await until(() => exchanges.some((x) => x.httpMethod === "GET"), 5000, "the GET reported");
    assert.equal(exchanges.find((x) => x.httpMethod === "GET")?.status, 405);
  });

  test("the exchange's deadline ends the wait for the server's retry: a timeout, no GET", async () => {
    const s = await serve((_req, res) => {
      openSse(res).raw(priming("t-1", 600_000));
      res.end();
    });
    const { peer } = legacyClient(s.url(), { timeout: 200 });
    const e = await rejection(peer.request("tools/call", { name: "x" }));
    assert.ok(e instanceof TimeoutError && e.cause instanceof HttpError, `${e.name}: ${e.message}`);
    assert.equal(e.cause.failure, "timeout");
    assert.equal(gets(s).length, 0);
  });
});
