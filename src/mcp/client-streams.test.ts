/**
 * The streams a legacy Streamable HTTP session has besides its POSTs, against an official SDK v1
 * server with the SDK's own event store: a call whose stream the server closes (its
 * closeSSEStream) is resumed with GET and Last-Event-ID after the server's `retry:`, a call that
 * reports progress outlives the timeout, and `listen`
 * opens the session's GET stream, the one channel the SDK announces a tool added on.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { ExchangeRecord } from "../transport/http/client.js";
import { HttpError } from "../transport/http/error.js";
import { HttpFixture } from "../testkit/http-fixture.js";
import { within } from "../testkit/mcp-interop.js";
import { rejection } from "../testkit/peer.js";
import type { McpClient } from "./client.js";
import { connectHttp, type HttpConnectOptions } from "./connect-http.js";

const SERVER = fileURLToPath(new URL("../../../test/fixtures/sdk-v1-resumable-http.mjs", import.meta.url));
const RETRY_MS = 300;

describe("McpClient → SDK v1 server with an event store (Streamable HTTP, 2025-11-25)", () => {
  const fixture = new HttpFixture(SERVER, [String(RETRY_MS)]);
  const clients: McpClient[] = [];
  before(() => fixture.start());
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await fixture.stop();
  });

  async function open(options: HttpConnectOptions = {}) {
    const exchanges: { at: number; record: ExchangeRecord }[] = [];
    const { client } = await within(
      connectHttp(fixture.url("/mcp"), {
        fresh: true,
        timeout: 10_000,
        onExchange: (record) => exchanges.push({ at: Date.now(), record }),
        ...options,
      }),
      "connectHttp",
    );
    clients.push(client);
    assert.equal(client.revision, "2025-11-25", fixture.stderr());
    return { client, exchanges };
  }

  test("a call's stream closed by the server is resumed with Last-Event-ID after its retry, and the answer comes", async () => {
    const { client, exchanges } = await open();
    const result = await within(client.callTool("cut"), "tools/call cut");
    assert.deepEqual(result.content, [{ type: "text", text: "after the cut" }]);
    const post = exchanges.find((e) => e.record.httpMethod === "POST" && e.record.method === "tools/call");
    const resumed = exchanges.find((e) => e.record.httpMethod === "GET" && e.record.method === "tools/call");
    assert.ok(post && resumed, JSON.stringify(exchanges.map((e) => e.record)));
    assert.match(resumed.record.requestHeaders?.["last-event-id"] ?? "", /\S/);
    assert.equal(resumed.record.status, 200);
    // records are made when their exchange ends: the GET went out at least `retry` after the POST
    // did (a client that did not wait sends it within milliseconds of the cut)
    const waited = resumed.at - resumed.record.ms - (post.at - post.record.ms);
    assert.ok(waited >= RETRY_MS - 20, `the GET went ${waited} ms after the POST`);
  });

  test("a client that does not resume (resumeAttempts: 0) gets no answer: the stream ended without one", async () => {
    const { client } = await open({ resumeAttempts: 0 });
    const e = await rejection(client.callTool("cut"), 10_000);
    assert.ok(e instanceof HttpError && e.failure === "no_response", `${e.name}: ${e.message}`);
  });

  test("a call that reports progress outlives the timeout: each progress restarts the request's deadline and its stream's", async () => {
    // the call takes 1.5 s, three times the timeout, with progress every 100 ms
    const { client, exchanges } = await open({ timeout: 500 });
    const seen: number[] = [];
    const result = await within(
      client.callTool("slow", {}, { onProgress: (p) => void seen.push(p.progress) }),
      "tools/call slow",
    );
    assert.deepEqual(result.content, [{ type: "text", text: "slow: done" }]);
    assert.ok(seen.length >= 10, `${seen.length} progress notifications`);
    // without progress the same timeout ends it, and the server is told even if the app closes
    // at once (a legacy server learns of it only from notifications/cancelled)
    const e = await rejection(client.callTool("slow", {}, { progress: false }), 10_000);
    assert.equal(e.name, "TimeoutError", e.message);
    await within(client.close(), "close");
    const cancelled = exchanges.find((x) => x.record.method === "notifications/cancelled");
    assert.equal(cancelled?.record.status, 202, JSON.stringify(exchanges.map((x) => x.record.method)));
  });

  test("listen opens the session's GET stream before it resolves: a tool added is announced there", async () => {
    // no roots, sampling or elicitation: nothing else would open the GET stream
    const { client, exchanges } = await open();
    assert.ok(!exchanges.some((e) => e.record.httpMethod === "GET"));
    const subscription = await within(client.listen({ toolsListChanged: true, promptsListChanged: true }), "listen");
    assert.equal(subscription.id, undefined);
    assert.deepEqual(subscription.notifications, { toolsListChanged: true });
    const stream = exchanges.find((e) => e.record.httpMethod === "GET" && e.record.method === "GET stream");
    assert.equal(stream?.record.status, 200);
    const told = new Promise<void>((resolve) => client.on("notifications/tools/list_changed", () => resolve()));
    await within(client.callTool("add_tool"), "tools/call add_tool");
    await within(told, "notifications/tools/list_changed on the GET stream");
    assert.ok((await client.listTools()).some((t) => t.name.startsWith("added_")));
    subscription.close();
    await within(subscription.ended, "the subscription's end");
  });
});
