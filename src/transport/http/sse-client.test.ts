/**
 * SseClientTransport (the deprecated HTTP+SSE transport) on real loopback HTTP: the endpoint
 * event, answers on the stream, and the ways a server can get it wrong: another origin named
 * as the endpoint, a web page instead of a stream, a stream that ends before naming one.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TimeoutError } from "../../peer/errors.js";
import { Peer } from "../../peer/peer.js";
import { guardEventLoop, rejection, until, within } from "../../testkit/peer.js";
import type { HttpClientOptions } from "./client.js";
import { HttpError } from "./error.js";
import { closedAfterEach, header, openSse, result } from "../../testkit/http.js";
import { SseClientTransport } from "./sse-client.js";

guardEventLoop();

const { serve, peers } = closedAfterEach();

function client(url: string, options: HttpClientOptions = {}) {
  const transport = new SseClientTransport(url, options);
  const peer = new Peer(transport, { revision: "2024-11-05", role: "client", timeout: 5000 });
  peers.push(peer);
  return { peer, transport };
}

/**
 * The HttpError behind a failed request. When the event stream itself fails, the whole
 * connection ends, so pending requests get the peer's ClosedError with the HttpError as cause.
 */
async function evidence(promise: Promise<unknown>, ms?: number): Promise<HttpError> {
  const e = await rejection(promise, ms);
  const found = e instanceof HttpError ? e : e.cause;
  assert.ok(found instanceof HttpError, `an HttpError or one as cause, got ${e.name}: ${e.message}`);
  return found;
}

describe("SseClientTransport", () => {
  test("the endpoint event names where to POST; the answer comes on the stream; credentials go to both", async () => {
    let stream: ReturnType<typeof openSse> | undefined;
    const s = await serve((req, res, r) => {
      if (req.method === "GET") {
        stream = openSse(res);
        stream.raw(": welcome\n\nevent: endpoint\ndata: /messages?session=1\n\n");
        return;
      }
      res.writeHead(202).end("Accepted");
      stream!.event(result(r.json?.id, { tools: [] }), "message");
    });
    const { peer, transport } = client(s.url("/sse"), { headers: { authorization: "Bearer t" } });
    assert.deepEqual(await within(peer.request("tools/list")), { tools: [] });
    assert.equal(transport.endpoint, s.url("/messages?session=1"));
    assert.deepEqual(
      s.requests.map((r) => [r.method, r.path, header(r, "authorization")]),
      [
        ["GET", "/sse", "Bearer t"],
        ["POST", "/messages?session=1", "Bearer t"],
      ],
    );
  });

  test("an endpoint on another origin is refused: nothing is POSTed there", async () => {
    const other = await serve((_req, res) => void res.writeHead(202).end());
    const s = await serve((_req, res) => void openSse(res).raw(`event: endpoint\ndata: ${other.url("/messages")}\n\n`));
    const { peer } = client(s.url("/sse"), { headers: { authorization: "Bearer t" } });
    const e = await evidence(peer.request("tools/list"));
    assert.equal(e.failure, "redirect");
    assert.equal(e.location, other.url("/messages"));
    assert.equal(other.requests.length, 0);
  });

  test("a web page instead of an event stream: not_jsonrpc, with the evidence", async () => {
    const s = await serve(
      (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<html>login</html>"),
    );
    const { peer } = client(s.url("/sse"));
    const e = await evidence(peer.request("tools/list"));
    assert.equal(e.failure, "not_jsonrpc");
    assert.equal(e.contentType, "text/html");
    assert.equal(e.bodyExcerpt, "<html>login</html>");
  });

  test("a 404 on the GET: status 404", async () => {
    const s = await serve((_req, res) => void res.writeHead(404, { "content-type": "text/plain" }).end("Not Found"));
    const { peer } = client(s.url("/sse"));
    const e = await evidence(peer.request("tools/list"));
    assert.equal(e.failure, "status");
    assert.equal(e.status, 404);
  });

  test("a stream that ends before the endpoint event: no_response, and the connection is closed", async () => {
    const s = await serve((_req, res) => {
      openSse(res).raw(": nothing to say\n\n");
      res.end();
    });
    const { peer } = client(s.url("/sse"));
    const e = await evidence(peer.request("tools/list"));
    assert.equal(e.failure, "no_response");
    await within(peer.ended);
    assert.equal(peer.closed, true);
  });

  test("an event past the cap on the stream: too_large, and the connection is closed", async () => {
    const s = await serve((req, res) => {
      if (req.method !== "GET") return void res.writeHead(202).end();
      const stream = openSse(res);
      stream.raw("event: endpoint\ndata: /messages\n\n");
      stream.raw(`data: ${"x".repeat(8192)}`);
    });
    const { peer } = client(s.url("/sse"), { maxBytes: 4096 });
    const e = await evidence(peer.request("tools/list"));
    assert.equal(e.failure, "too_large");
    assert.match(e.message, /an SSE event passed the 4096-byte cap/);
    await within(peer.ended);
  });

  test("a POST the message endpoint never answers ends at the transport's timeout; the stream stays open", async () => {
    const s = await serve((req, res) => {
      if (req.method === "GET") return void openSse(res).raw("event: endpoint\ndata: /messages\n\n");
      // the POST is left hanging
    });
    const { peer, transport } = client(s.url("/sse"), { timeout: 300 });
    const sent = transport.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const e = await evidence(sent, 10_000);
    assert.equal(e.failure, "timeout");
    assert.match(e.message, /aborted due to timeout/);
    assert.equal(peer.closed, false);
  });

  test("a request whose POST is never answered: one TimeoutError, whichever timer fires first, the POST's HttpError its cause", async () => {
    const s = await serve((req, res) => {
      if (req.method === "GET") return void openSse(res).raw("event: endpoint\ndata: /messages\n\n");
      // the POST is left hanging
    });
    const { peer } = client(s.url("/sse"), { timeout: 300 });
    const e = await rejection(peer.request("tools/list"), 10_000);
    assert.ok(e instanceof TimeoutError, `${e.name}: ${e.message}`);
    assert.equal(e.method, "tools/list");
    assert.ok(e.cause instanceof HttpError && e.cause.failure === "timeout");
  });

  test("close ends a send still waiting for the endpoint (ClosedError) and a POST under way (its HttpError says closed)", async () => {
    let announce: (() => void) | undefined;
    const s = await serve((req, res) => {
      if (req.method === "GET") {
        const stream = openSse(res);
        announce = () => stream.raw("event: endpoint\ndata: /messages\n\n");
        return;
      }
      // the POST is left hanging
    });
    const early = client(s.url("/sse"));
    const waiting = early.transport.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await until(() => announce !== undefined, 5000, "the GET stream");
    await early.transport.close();
    const closedEarly = await rejection(waiting);
    assert.equal(closedEarly.name, "ClosedError");

    announce = undefined;
    const late = client(s.url("/sse"));
    const posting = late.transport.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await until(() => announce !== undefined, 5000, "the GET stream");
    announce!();
    await until(() => s.requests.some((r) => r.method === "POST"), 5000, "the POST");
    await late.transport.close();
    const closedLate = await evidence(posting);
    assert.equal(closedLate.failure, "timeout");
    assert.match(closedLate.message, /closed/);
  });

  test("no endpoint event within the deadline: timeout", async () => {
    const s = await serve((_req, res) => void openSse(res).raw(": hold on\n\n"));
    const { peer } = client(s.url("/sse"), { timeout: 300 });
    const e = await evidence(peer.request("tools/list"), 10_000);
    assert.equal(e.failure, "timeout");
  });
});
