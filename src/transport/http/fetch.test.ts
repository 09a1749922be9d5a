/**
 * A kept-alive connection the server has closed is found out only when the next request on it
 * is reset: that request goes again on another connection, and a reset on a fresh connection is
 * the server's answer, reported as it is. A compressed answer cut off before its first byte fails its read.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { httpRequest, readCapped } from "./fetch.js";

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{}}';

/** A server that answers the first request on each connection and resets it on the next, or at once when `resetFirst`. */
async function startResetter(
  resetFirst: boolean,
): Promise<{ url: string; connections: () => number; requests: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let answered = false;
    let buffered = "";
    socket.on("data", (chunk) => {
      if (answered || resetFirst) {
        requests++;
        socket.resetAndDestroy();
        return;
      }
      buffered += chunk.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      requests++;
      answered = true;
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${ANSWER.length}\r\nconnection: keep-alive\r\n\r\n${ANSWER}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => connections,
    requests: () => requests,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const post = (url: string) =>
  httpRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });

test("a request reset on a reused keep-alive connection goes again on a new one", async () => {
  const s = await startResetter(false);
  try {
    const first = await post(s.url);
    assert.equal(first.status, 200);
    assert.equal((await readCapped(first, 1 << 16)).bytes.toString("utf8"), ANSWER);
    // the agent takes the connection back once the answer's end has been read
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await post(s.url);
    assert.equal(second.status, 200);
    assert.equal((await readCapped(second, 1 << 16)).bytes.toString("utf8"), ANSWER);
    assert.equal(s.requests(), 3, "the reset request and its repeat");
    assert.equal(s.connections(), 2);
  } finally {
    await s.close();
  }
});

test("a reset on a new connection is not repeated", async () => {
  const s = await startResetter(true);
  try {
    await assert.rejects(post(s.url), (e: NodeJS.ErrnoException) => e.code === "ECONNRESET");
    assert.equal(s.requests(), 1);
    assert.equal(s.connections(), 1);
  } finally {
    await s.close();
  }
});

test(
  "a deflate answer whose connection closes before its first byte fails its read, and does not wait",
  { timeout: 10_000 },
  async () => {
    const server = net.createServer((socket) => {
      socket.on("error", () => undefined);
      socket.once("data", () => {
        socket.write(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: deflate\r\ncontent-length: 100\r\n\r\n",
        );
        setImmediate(() => socket.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const response = await post(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`);
      await assert.rejects(readCapped(response, 1 << 16));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  },
);

test("each header line goes once: the defaults, Content-Length and Host, or the caller's own, whatever their case", async () => {
  const { createServer } = await import("node:http");
  const seen: string[][] = [];
  const server = createServer((req, res) => {
    seen.push(req.rawHeaders);
    req.resume().on("end", () => res.writeHead(200, { "content-length": 0 }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  const value = (raw: string[], name: string) =>
    raw.filter((_, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === name);
  try {
    const send = async (headers: Record<string, string>) =>
      (await httpRequest(url, { method: "POST", headers, body: "{}" })).body.cancel();
    await send({ "content-type": "application/json", "mcp-method": "ping" });
    await send({ Accept: "text/plain", "User-Agent": "probe/1", "accept-encoding": "identity" });
    await send({ host: `localhost:${port}`, "content-length": "2" });
    await send({ "content-type": "application/json", "Content-Type": "text/plain" });
    assert.equal(seen.length, 4);
    for (const raw of seen) {
      const list = names(raw);
      assert.equal(new Set(list).size, list.length, `a header repeated: ${raw.join(", ")}`);
      assert.deepEqual(value(raw, "content-length"), ["2"]);
    }
    assert.deepEqual(names(seen[0]!), [
      "content-type",
      "mcp-method",
      "accept",
      "user-agent",
      "accept-encoding",
      "content-length",
      "host",
      "connection",
    ]);
    assert.deepEqual(value(seen[0]!, "host"), [`127.0.0.1:${port}`]);
    assert.deepEqual(
      [value(seen[1]!, "accept"), value(seen[1]!, "user-agent"), value(seen[1]!, "accept-encoding")],
      [["text/plain"], ["probe/1"], ["identity"]],
    );
    assert.deepEqual(value(seen[2]!, "host"), [`localhost:${port}`]);
    assert.deepEqual(value(seen[3]!, "content-type"), ["text/plain"]);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
