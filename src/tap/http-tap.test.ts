/**
 * The HTTP tap, in process against small loopback servers (streaming, headers, compression) and
 * as `mcp-wire tap --listen` between the official SDK clients and `mcp-wire serve --http`.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect as netConnect, type AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport as V1HttpServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { signal } from "../testkit/mcp-interop.js";
import { startHttpTap, type HttpTap } from "./http-tap.js";
import { TapReport } from "./report.js";
import { CLI, liveDefects, until, within } from "../testkit/tap.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const j = (v: unknown) => JSON.stringify(v);

/** What the tap wrote on its stderr, for a test to read. */
class Live extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString("utf8");
    done();
  }
}

const closers: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

async function upstream(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<string> {
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => handler(req, res, Buffer.concat(parts)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function inProcessTap(
  upstreamUrl: string,
  maxBodyBytes?: number,
): Promise<{ tap: HttpTap; live: Live; report: TapReport }> {
  const live = new Live();
  const report = new TapReport({ live });
  const tap = await startHttpTap({
    upstream: upstreamUrl,
    port: 0,
    report,
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
  });
  closers.push(() => tap.close());
  return { tap, live, report };
}

/** One raw exchange: the status, headers and the body's bytes exactly as they came. */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; message: string; headers: string[]; body: Buffer }> {
  return within(
    new Promise((resolve, reject) => {
      const req = request(url, { method: init.method ?? "POST", headers: init.headers }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (b: Buffer) => parts.push(b));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            message: res.statusMessage!,
            headers: res.rawHeaders,
            body: Buffer.concat(parts),
          }),
        );
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(init.body);
    }),
    "a raw exchange through the tap",
  );
}

describe("HTTP tap: the pass-through", () => {
  test("an SSE answer is passed on event by event: the client reads the first before the server has written the second", async () => {
    const gate = signal();
    const sent: string[] = [];
    const url = await upstream((_req, res, body) => {
      const { id } = JSON.parse(body.toString()) as { id: number };
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const first = `event: message\ndata: ${j({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1, total: 2 } })}\n\n`;
      res.write(first);
      sent.push(first);
      void gate.promise.then(() => {
        const second = `id: 2\ndata: ${j({ jsonrpc: "2.0", id, result: { content: [], resultType: "complete" } })}\n\n`;
        sent.push(second);
        res.end(second);
      });
    });
    const { tap, live, report } = await inProcessTap(url);
    const response = await within(
      fetch(tap.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "slow",
        },
        body: j({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "slow", arguments: {}, _meta: { ...META, progressToken: "p" } },
        }),
      }),
      "the response headers",
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("\n\n")) {
      const { value, done } = await within(reader.read(), "the first event");
      assert.ok(!done, "the stream ended before the first event");
      received += decoder.decode(value, { stream: true });
    }
    assert.equal(sent.length, 1, "the second event is not written until the gate opens");
    assert.equal(received, sent[0]);
    gate.fire();
    for (;;) {
      const { value, done } = await within(reader.read(), "the rest of the stream");
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    assert.equal(received, sent.join(""), "the stream arrives as written");
    await until(() => report.summary("").includes("2 server→client"), "the tap judging both events");
    assert.deepEqual(liveDefects(live.text), []);
    // how each conversation was judged is known for certain once the tap has closed
    await tap.close();
    assert.match(
      report.summary(tap.revisions()),
      /1 message client→server, 2 server→client; revision 2026-07-28 \(from the _meta\)/,
    );
  });

  test("method, path, query, headers and body go up; status, reason, headers and body come back; hop-by-hop headers do not", async () => {
    let seen: { method: string; url: string; headers: Record<string, unknown>; body: string } | undefined;
    const url = await upstream((req, res, body) => {
      seen = { method: req.method!, url: req.url!, headers: req.headers, body: body.toString() };
      res.writeHead(418, "I'm a teapot", [
        "X-Custom",
        "kept",
        "Set-Cookie",
        "a=1",
        "Set-Cookie",
        "b=2",
        "Content-Type",
        "text/plain",
        "Connection",
        "close, x-secret",
        "X-Secret",
        "dropped",
      ]);
      res.end("short and stout");
    });
    const { tap } = await inProcessTap(url);
    const r = await raw(`${tap.url}/sub?x=1&y=%20`, {
      method: "PUT",
      headers: { "x-client": "yes", connection: "x-hop", "x-hop": "dropped", "content-type": "text/plain" },
      body: "body bytes",
    });
    assert.deepEqual(seen?.method, "PUT");
    assert.equal(seen?.url, "/mcp/sub?x=1&y=%20");
    assert.equal(seen?.headers["x-client"], "yes");
    assert.equal(seen?.headers["x-hop"], undefined, "a header the client's Connection names stays on the client's hop");
    assert.equal(seen?.headers.host, new URL(url).host);
    assert.equal(seen?.body, "body bytes");
    assert.equal(r.status, 418);
    assert.equal(r.message, "I'm a teapot");
    const headers = pairs(r.headers);
    assert.deepEqual(
      headers.filter(([k]) => k === "set-cookie").map(([, v]) => v),
      ["a=1", "b=2"],
    );
    assert.deepEqual(
      headers.find(([k]) => k === "x-custom"),
      ["x-custom", "kept"],
    );
    assert.equal(
      headers.find(([k]) => k === "x-secret"),
      undefined,
    );
    assert.equal(r.body.toString(), "short and stout");
  });

  test("a Host that is not loopback is refused before anything reaches the upstream (DNS rebinding)", async () => {
    let reached = false;
    const url = await upstream((_req, res) => {
      reached = true;
      res.end();
    });
    const { tap, live } = await inProcessTap(url);
    const r = await raw(tap.url, {
      headers: { host: "rebound.example:80", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(r.status, 403);
    assert.equal(reached, false);
    assert.match(live.text, /Host "rebound.example:80" is not loopback/);
    const ok = await raw(tap.url, { method: "GET", headers: { host: `localhost:${new URL(tap.url).port}` } });
    assert.equal(ok.status, 200);
    assert.equal(reached, true);
  });

  test("Host and request-line hygiene: [::1].evil and two Host lines are refused; an absolute-form target is taken as its path and its host checked", async () => {
    const seen: string[] = [];
    const url = await upstream((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.host}`);
      res.writeHead(202).end();
    });
    const { tap, live } = await inProcessTap(url);
    const port = Number(new URL(tap.url).port);
    const send = (text: string) =>
      within(
        new Promise<string>((resolve, reject) => {
          // written, not ended: a client that half-closes before its answer has gone away
          const socket = netConnect(port, "127.0.0.1", () => socket.write(text));
          let got = "";
          socket.on("data", (c: Buffer) => (got += c.toString("latin1")));
          socket.on("end", () => resolve(got));
          socket.on("error", reject);
        }),
        "a raw request to the tap",
      );
    const post = (target: string, hosts: string[]) =>
      send(
        `POST ${target} HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join("")}Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
    assert.match(await post("/mcp", ["[::1].evil"]), /^HTTP\/1\.1 400 /);
    assert.match(await post("/mcp", [`[::1].evil:${port}`]), /^HTTP\/1\.1 400 /);
    assert.match(await post("/mcp", [`127.0.0.1:${port}`, "evil.example"]), /^HTTP\/1\.1 400 /);
    assert.match(await post("http://evil.example/steal", [`127.0.0.1:${port}`]), /^HTTP\/1\.1 403 /);
    assert.match(await post("*", [`127.0.0.1:${port}`]), /^HTTP\/1\.1 400 /);
    assert.deepEqual(seen, [], "nothing reached the upstream");
    // the absolute form naming the tap itself is the tap's own path, sent upstream in origin form
    assert.match(await post(`http://127.0.0.1:${port}/mcp?x=1`, ["elsewhere.example"]), /^HTTP\/1\.1 202 /);
    assert.match(await post("/mcp", [`[::1]:${port}`]), /^HTTP\/1\.1 202 /);
    assert.deepEqual(seen, [`POST /mcp?x=1 ${new URL(url).host}`, `POST /mcp ${new URL(url).host}`]);
    assert.match(live.text, /refused, more than one Host header/);
  });

  test("an HTTP error body answering a GET (a server without a GET stream) is the transport's refusal: no defect, nothing judged", async () => {
    const url = await upstream((_req, res) => {
      res
        .writeHead(405, { "content-type": "application/json", allow: "POST" })
        .end(j({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null }));
    });
    const { tap, live, report } = await inProcessTap(url);
    const r = await raw(tap.url, { method: "GET", headers: { accept: "text/event-stream" } });
    assert.equal(r.status, 405);
    assert.match(r.body.toString(), /Method not allowed/);
    assert.deepEqual(liveDefects(live.text), []);
    assert.match(report.summary(tap.revisions()), /0 messages client→server, 0 server→client/);
  });

  test("userinfo in the upstream URL is sent as Authorization: Basic, as fetch and curl send it, and never printed", async () => {
    const auths: (string | undefined)[] = [];
    const url = await upstream((req, res) => {
      auths.push(req.headers.authorization);
      res.writeHead(202).end();
    });
    const withUser = url.replace("http://", "http://us%C3%A9r:s3cr%40t-pw@");
    const served = ready(["tap", "--listen", "0", "--upstream", withUser], /listening on (http:\/\/\S+) →/);
    const tapUrl = await served.url;
    await raw(tapUrl, { headers: { "content-type": "application/json" }, body: "{}" });
    await raw(tapUrl, {
      headers: { "content-type": "application/json", authorization: "Bearer the-clients-own" },
      body: "{}",
    });
    assert.deepEqual(auths, [`Basic ${Buffer.from("usér:s3cr@t-pw").toString("base64")}`, "Bearer the-clients-own"]);
    assert.doesNotMatch(served.stderr(), /s3cr/);
    assert.match(served.stderr(), /→ http:\/\/us%C3%A9r:<redacted>@127\.0\.0\.1/);
  });

  test("a compressed answer passes on compressed, byte for byte, and is judged decompressed", async () => {
    const compressed = gzipSync(Buffer.from(j({ jsonrpc: "2.0", id: null, result: { resultType: "complete" } })));
    const url = await upstream((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(compressed);
    });
    const { tap, live } = await inProcessTap(url);
    const r = await raw(tap.url, {
      headers: {
        "content-type": "application/json",
        "accept-encoding": "gzip",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "ping",
      },
      body: j({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: META } }),
    });
    assert.ok(r.body.equals(compressed));
    await until(() => /server→client/.test(live.text), "the tap judging the answer");
    assert.deepEqual(
      liveDefects(live.text).map((d) => `${d.from} ${d.code}`),
      ["server id_null", "server unknown_response_id"],
    );
    assert.match(live.text, /server→client message 1 \(POST \/mcp → 200\)/);
  });

  test("an upstream that is down gets the client a 502 and a note, not a hang", async () => {
    // nothing listens on port 1 of loopback (binding it takes root)
    const { tap, live } = await inProcessTap("http://127.0.0.1:1/mcp");
    const r = await raw(tap.url, { body: "{}" });
    assert.equal(r.status, 502);
    assert.match(live.text, /the upstream failed/);
  });
});

describe("HTTP tap: an SSE event over the analysis cap", () => {
  test("passes through byte for byte, is judged too_large with its size, and the events after it and the next exchange are judged as usual", async () => {
    const cap = 64 * 1024;
    const result = (id: number, text: string) =>
      j({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], resultType: "complete" } });
    const progress = `event: message\ndata: ${j({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1 } })}\n\n`;
    const written: Buffer[] = [];
    let bigEvent = 0;
    const url = await upstream((_req, res, body) => {
      const { id } = JSON.parse(body.toString()) as { id: number };
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (text: string) => {
        const b = Buffer.from(text);
        written.push(b);
        res.write(b);
      };
      if (id === 1) {
        // a result four times the cap, written in pieces as a server streams a large tool result
        const big = `data: ${result(1, "é".repeat(2 * cap))}\n`;
        bigEvent = Buffer.byteLength(big);
        for (let i = 0; i < big.length; i += 10_000) send(big.slice(i, i + 10_000));
        send("\n");
        send(progress);
        res.end();
      } else {
        send(progress);
        res.end(`data: ${result(id, "small")}\n\n`);
      }
    });
    const { tap, live, report } = await inProcessTap(url, cap);
    const call = (id: number) =>
      raw(tap.url, {
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "big",
        },
        body: j({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "big", arguments: {}, _meta: { ...META, progressToken: "p" } },
        }),
      });
    const first = await call(1);
    assert.equal(first.status, 200);
    assert.ok(first.body.equals(Buffer.concat(written)), "the stream arrives exactly as written");
    const second = await call(2);
    assert.equal(second.status, 200);
    assert.match(second.body.toString(), /"text":"small"/);
    await until(() => report.summary("").includes("4 server→client"), "the tap judging every event of both answers");
    const found = liveDefects(live.text).map((d) => `${d.from} ${d.where} ${d.code}`);
    assert.deepEqual(found, ["server message 1 (POST /mcp → 200 SSE) too_large"]);
    assert.match(live.text, new RegExp(`a line of ${bigEvent} bytes, over the ${cap}-byte limit`));
  });
});

/** The official SDK v1 server, stateless over Streamable HTTP on loopback, with a `big` tool whose result is `bytes` long and a `small` one. */
async function sdkServerWithBigResult(bytes: number): Promise<string> {
  return upstream((req, res, body) => {
    const server = new V1McpServer({ name: "big-results", version: "1.0.0" });
    server.registerTool("big", { description: "A large result" }, () => ({
      content: [{ type: "text", text: "x".repeat(bytes) }],
    }));
    server.registerTool("small", { description: "A small result" }, () => ({
      content: [{ type: "text", text: "small" }],
    }));
    const transport = new V1HttpServerTransport({});
    res.on("close", () => void transport.close());
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, body.length > 0 ? JSON.parse(body.toString()) : undefined));
  });
}

describe("HTTP tap: a large tool result from the SDK server through `mcp-wire tap --listen`", () => {
  test("the SDK client gets the whole 5 MiB result and goes on calling; the tap reports too_large for it alone and exits 0", async () => {
    const size = 5 * 1024 * 1024;
    const upstreamUrl = await sdkServerWithBigResult(size);
    const tapped = ready(["tap", "--listen", "0", "--upstream", upstreamUrl], /listening on (http:\/\/\S+) →/);
    const client = new V1Client({ name: "tap-big", version: "1.0.0" });
    await within(client.connect(new V1HttpTransport(new URL(await tapped.url)), { timeout: 10_000 }), "v1 connect");
    const big = (await within(
      client.callTool({ name: "big", arguments: {} }, undefined, { timeout: 10_000 }),
      "the big call",
    )) as { content: { text: string }[] };
    assert.equal(big.content[0]!.text.length, size);
    const small = (await within(
      client.callTool({ name: "small", arguments: {} }, undefined, { timeout: 10_000 }),
      "a call after it",
    )) as { content: { text: string }[] };
    assert.equal(small.content[0]!.text, "small");
    await client.close();
    tapped.child.kill("SIGTERM");
    const code = await within(
      new Promise<number | null>((resolve) => tapped.child.once("exit", (c) => resolve(c))),
      "the tap stopping",
    );
    assert.equal(code, 0, tapped.stderr());
    assert.deepEqual(
      liveDefects(tapped.stderr()).map((d) => `${d.from} ${d.code}`),
      ["server too_large"],
      tapped.stderr(),
    );
  });
});

describe("HTTP tap: 2026-07-28 headers against the body", () => {
  async function sendWith(tapUrl: string, headers: Record<string, string>, body: unknown): Promise<void> {
    const r = await raw(tapUrl, {
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: j(body),
    });
    assert.equal(r.status, 200);
  }

  test("each mismatch, missing header and broken Base64 value is a defect of that request; a correct sentinel is not", async () => {
    const url = await upstream((req, res, body) => {
      const m = JSON.parse(body.toString()) as { id: number; method: string };
      // a sound answer to each method, so the headers are all there is to find
      const result =
        m.method === "resources/read"
          ? { contents: [], resultType: "complete", ttlMs: 0, cacheScope: "private" }
          : { content: [], resultType: "complete" };
      res.writeHead(200, { "content-type": "application/json" }).end(j({ jsonrpc: "2.0", id: m.id, result }));
    });
    const { tap, live } = await inProcessTap(url);
    const call = (id: number, name: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: {}, _meta: META },
    });
    await sendWith(
      tap.url,
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": `=?base64?${Buffer.from("이름").toString("base64")}?=`,
      },
      call(1, "이름"),
    );
    await sendWith(
      tap.url,
      { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list", "mcp-name": "other" },
      call(2, "echo"),
    );
    await sendWith(
      tap.url,
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "=?base64?!!!?=" },
      call(3, "echo"),
    );
    await sendWith(tap.url, {}, call(4, "echo"));
    await sendWith(
      tap.url,
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "resources/read", "mcp-name": "file:///b" },
      { jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "file:///a", _meta: META } },
    );
    await until(() => liveDefects(live.text).length >= 8, "the tap judging every request");
    const found = liveDefects(live.text).map((d) => `${d.from} ${d.where} ${d.code}`);
    assert.deepEqual(found, [
      "client message 2 (POST /mcp) header_mismatch",
      "client message 2 (POST /mcp) header_mismatch",
      "client message 2 (POST /mcp) header_mismatch",
      "client message 3 (POST /mcp) header_malformed",
      "client message 4 (POST /mcp) header_missing",
      "client message 4 (POST /mcp) header_missing",
      "client message 4 (POST /mcp) header_missing",
      "client message 5 (POST /mcp) header_mismatch",
    ]);
    assert.match(
      live.text,
      /at \/params\/_meta\/io.modelcontextprotocol~1protocolVersion: MCP-Protocol-Version header "2025-11-25"/,
    );
    assert.match(
      live.text,
      /at \/params\/uri: Mcp-Name header "file:\/\/\/b" does not match params.uri "file:\/\/\/a"/,
    );
  });

  test("in a legacy session, MCP-Protocol-Version must name the version initialize settled on", async () => {
    const url = await upstream((req, res, body) => {
      const m = JSON.parse(body.toString()) as { id?: number; method: string };
      if (m.id === undefined) return res.writeHead(202).end();
      const result =
        m.method === "initialize"
          ? { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } }
          : {};
      res
        .writeHead(200, {
          "content-type": "application/json",
          ...(m.method === "initialize" ? { "mcp-session-id": "s1" } : {}),
        })
        .end(j({ jsonrpc: "2.0", id: m.id, result }));
    });
    const { tap, live, report } = await inProcessTap(url);
    await sendWith(
      tap.url,
      {},
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
    );
    await until(() => report.summary("").includes("1 server→client"), "the initialize answer judged");
    const r = await raw(tap.url, {
      headers: { "content-type": "application/json", "mcp-session-id": "s1", "mcp-protocol-version": "2025-06-18" },
      body: j({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    assert.equal(r.status, 202);
    await sendWith(
      tap.url,
      { "mcp-session-id": "s1", "mcp-protocol-version": "2025-11-25" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    );
    await until(() => report.summary("").includes("2 server→client"), "the ping answer judged");
    assert.deepEqual(
      liveDefects(live.text).map((d) => `${d.where} ${d.code}`),
      ["message 3 (POST /mcp) header_mismatch"],
    );
    assert.match(live.text, /"2025-11-25" is not "2025-06-18", the version initialize settled on/);
    await tap.close();
    assert.match(tap.revisions(), /^revision 2025-06-18 \(from the initialize result\)$/);
  });
});

/** A child process that prints a URL on stderr once it is ready. */
function ready(
  args: readonly string[],
  pattern: RegExp,
): { child: ChildProcess; url: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8");
  const url = within(
    new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (d: string) => {
        err += d;
        const m = pattern.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}):\n${err}`)));
    }),
    `${args[0]} printing its URL`,
  );
  closers.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return { child, url, stderr: () => err };
}

describe("HTTP tap: the SDK clients through `mcp-wire tap --listen` to `mcp-wire serve --http`", () => {
  test("v1 (legacy session) and v2 pinned to 2026-07-28 list tools, call echo and see progress; the tap finds no defect", async () => {
    const served = ready(["serve", "--http", "0"], /listening on (http:\/\/\S+)/);
    const upstreamUrl = await served.url;
    const tapped = ready(["tap", "--listen", "0", "--upstream", upstreamUrl], /listening on (http:\/\/\S+) →/);
    const url = await tapped.url;
    assert.equal(new URL(url).pathname, "/mcp");

    const v1 = new V1Client({ name: "tap-v1", version: "1.0.0" });
    const v1Transport = new V1HttpTransport(new URL(url));
    await within(v1.connect(v1Transport, { timeout: 10_000 }), "v1 connect");
    const v2 = new V2Client(
      { name: "tap-v2", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" }, probe: { timeoutMs: 10_000 } } },
    );
    await within(v2.connect(new V2HttpTransport(new URL(url)), { timeout: 10_000 }), "v2 connect");

    type Call = (
      name: string,
      args: Record<string, unknown>,
      onprogress?: (p: { progress: number }) => void,
    ) => Promise<{ content: { text?: string }[] }>;
    const clients: [string, { listTools: () => Promise<{ tools: { name: string }[] }>; call: Call }][] = [
      [
        "v1",
        {
          listTools: () => v1.listTools(undefined, { timeout: 10_000 }),
          call: (name, args, onprogress) =>
            v1.callTool({ name, arguments: args }, undefined, {
              timeout: 10_000,
              ...(onprogress ? { onprogress } : {}),
            }) as ReturnType<Call>,
        },
      ],
      [
        "v2",
        {
          listTools: () => v2.listTools(undefined, { timeout: 10_000 }),
          call: (name, args, onprogress) =>
            v2.callTool(
              { name, arguments: args },
              { timeout: 10_000, ...(onprogress ? { onprogress } : {}) },
            ) as ReturnType<Call>,
        },
      ],
    ];
    for (const [name, client] of clients) {
      const { tools } = await within(client.listTools(), `${name} tools/list`);
      assert.ok(
        tools.some((t) => t.name === "echo"),
        name,
      );
      const echo = await within(client.call("echo", { text: `héllo via tap, ${name}` }), `${name} echo`);
      assert.equal(echo.content[0]?.text, `héllo via tap, ${name}`);
      const seen: number[] = [];
      const done = await within(
        client.call("progress", { steps: 3, intervalMs: 5 }, (p) => seen.push(p.progress)),
        `${name} progress`,
      );
      assert.equal(done.content[0]?.text, "counted to 3");
      assert.deepEqual(seen, [1, 2, 3], `${name}: each progress event passed on`);
    }
    await v1Transport.terminateSession().catch(() => undefined);
    await v1.close();
    await v2.close();

    tapped.child.kill("SIGTERM");
    const code = await within(
      new Promise<number | null>((resolve) => tapped.child.once("exit", (c) => resolve(c))),
      "the tap stopping",
    );
    assert.equal(code, 0, tapped.stderr());
    assert.deepEqual(liveDefects(tapped.stderr()), [], tapped.stderr());
    assert.match(tapped.stderr(), /^tap: no defects$/m);
    assert.match(tapped.stderr(), /conversations judged by revision .*2026-07-28 \(from the _meta\)/);
    served.child.kill("SIGTERM");
  });
});

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return out;
}

describe("tap and an answer's Content-Type", () => {
  const answer = (type: string) =>
    upstream((_req, res, body) => {
      const m = JSON.parse(body.toString("utf8")) as { id?: number };
      res.writeHead(200, { "content-type": type }).end(
        j({
          jsonrpc: "2.0",
          id: m.id,
          result: { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" },
        }),
      );
    });
  const list = j({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
  };

  test("JSON-RPC sent as text/plain is judged, and its Content-Type is content_type_invalid", async () => {
    const { tap, live, report } = await inProcessTap(await answer("text/plain"));
    const r = await raw(tap.url, { headers, body: list });
    assert.equal(r.status, 200, "passed through unchanged");
    await until(() => report.summary("").includes("1 server→client"), "the tap judging the answer");
    assert.deepEqual(
      liveDefects(live.text).map((d) => `${d.from} ${d.code} ${d.severity}`),
      ["server content_type_invalid error"],
    );
  });

  test("application/json with a charset is no defect", async () => {
    const { tap, live, report } = await inProcessTap(await answer("Application/JSON; charset=utf-8"));
    await raw(tap.url, { headers, body: list });
    await until(() => report.summary("").includes("1 server→client"), "the tap judging the answer");
    assert.deepEqual(liveDefects(live.text), []);
  });
});
