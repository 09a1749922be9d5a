/**
 * The HTTP front's reading of a request target: a plain path is taken as it stands, anything
 * else as `new URL` reads it, so routing is the same either way; a target no URL reader takes
 * is no path of the gauntlet's, never a thrown error. Requests that come before the front is
 * built are answered once it is, in the order they came.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bodyBudget, EarlyRequests, readBody, requestTarget } from "./http-request.js";

function viaUrl(target: string): { path: string; query: [string, string][] } | undefined {
  try {
    const url = new URL(target, "http://gauntlet.invalid");
    return { path: url.pathname, query: [...url.searchParams] };
  } catch {
    return undefined;
  }
}

function agrees(target: string): void {
  const got = requestTarget(target);
  const want = viaUrl(target);
  if (want === undefined) assert.equal(got.path, "", target);
  else assert.deepEqual({ path: got.path, query: [...got.query] }, want, target);
}

test("requestTarget reads targets as new URL does", () => {
  for (const t of [
    "/mcp",
    "/mcp?sessionId=abc",
    "/mcp/messages?sessionId=a%20b&x=1",
    "/lifecycle/mcp",
    "/.well-known/oauth-protected-resource/mcp",
    "//mcp",
    "/a/../mcp",
    "/./mcp",
    "/%6Dcp",
    "/mcp#frag",
    "/mcp\\x",
    "/mcp?",
    "/",
    "//[",
  ])
    agrees(t);
  fc.assert(
    fc.property(
      fc.string({
        unit: fc.constantFrom("/", "a", "m", "c", "p", ".", "%", "2", "?", "=", "&", "#", "\\", "-", "_", " "),
      }),
      (tail) => agrees(`/${tail}`),
    ),
    { numRuns: 2000 },
  );
});

test("requestTarget gives an empty query when there is none", () => {
  assert.equal(requestTarget("/mcp").query.get("sessionId"), null);
  assert.equal(requestTarget(undefined).path, "/");
});

test("requests taken before the front is ready are handed to it in order, later ones at once", () => {
  const early = new EarlyRequests();
  const seen: string[] = [];
  const fake = (name: string) => [{ url: name } as IncomingMessage, {} as ServerResponse] as const;
  early.take(...fake("/a"));
  early.take(...fake("/b"));
  assert.equal(seen.length, 0);
  early.ready((req) => seen.push(req.url!));
  assert.deepEqual(seen, ["/a", "/b"]);
  early.take(...fake("/c"));
  assert.deepEqual(seen, ["/a", "/b", "/c"]);
});

test("a request that reaches the port before the front is built gets its answer once it is", async () => {
  const early = new EarlyRequests();
  const server = createServer((req, res) => early.take(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const answer = fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      body: "{}",
      signal: AbortSignal.timeout(10_000),
    });
    // the request is in: the server took it and holds it
    await new Promise((resolve) => setTimeout(resolve, 200));
    early.ready((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.url} ${body}`));
    });
    const got = await answer;
    assert.equal(got.status, 200);
    assert.equal(await got.text(), "/mcp {}");
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("a body is read whole as text; one declared past the cap is refused 413 without being read", async () => {
  const budget = bodyBudget();
  const server = createServer((req, res) => {
    void readBody(req, budget).then((body) => {
      if (typeof body === "string") res.writeHead(200).end(`${Buffer.byteLength(body)}:${body.slice(0, 12)}`);
      else res.writeHead(body.status, { connection: "close" }).end(body.reason);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const signal = AbortSignal.timeout(10_000);
    const sound = await fetch(url, { method: "POST", body: `{"a":"${"é".repeat(100_000)}"}`, signal });
    assert.equal(await sound.text(), `200008:{"a":"éééééé`);
    // the headers promise 9 MiB, and the server answers before any of it is sent
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { "content-length": String(9 * 1024 * 1024) }, signal });
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("error", reject);
      req.flushHeaders();
    });
    assert.equal(status, 413);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
