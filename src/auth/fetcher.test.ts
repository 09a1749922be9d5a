/**
 * The walk's fetcher on what metadata URLs answer in the wild: a JSON document, a web page where
 * a document should be, an empty body, JSON's literals; and its deadline and its end.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { Fetcher } from "./fetcher.js";

const CAP = 65536;

const ANSWERS: Record<string, { type: string; body: string }> = {
  "/doc": { type: "application/json", body: '{"resource":"http://127.0.0.1/mcp"}' },
  "/spaced": { type: "application/json", body: ' \r\n\t["a"]' },
  "/null": { type: "application/json", body: "null" },
  "/page": { type: "text/html", body: "<!doctype html><html><body>Sign in</body></html>" },
  "/missing": { type: "text/plain", body: "Not Found" },
  "/blank": { type: "application/json", body: "" },
  "/bom": { type: "application/json", body: '\ufeff{"a":1}' },
  "/broken": { type: "application/json", body: '{"a":' },
  // JSON documents one byte under, at and over the walk's cap
  "/at-cap": { type: "application/json", body: `{"pad":"${"x".repeat(CAP - 10)}"}` },
  "/over-cap": { type: "application/json", body: `{"pad":"${"x".repeat(CAP - 9)}"}` },
};

/** Small SSE events as fast as the client reads them, until it goes away. */
function endlessEvents(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  let closed = false;
  res.on("close", () => (closed = true));
  const pump = () => {
    while (
      !closed &&
      res.write('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}\n\n')
    );
    if (!closed) res.once("drain", pump);
  };
  pump();
}

describe("the walk's fetcher", () => {
  let server: Server;
  let base = "";
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === "/hang") return;
      if (req.url === "/endless-sse") return endlessEvents(res);
      const a = ANSWERS[req.url ?? ""] ?? { type: "text/plain", body: "Not Found" };
      res.writeHead(a.body === "Not Found" ? 404 : 200, { "content-type": a.type }).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const fetcher = (deadlineMs = 5000) =>
    new Fetcher({ deadline: Date.now() + deadlineMs, maxBytes: CAP, protocolVersion: "2026-07-28" });

  test("JSON bodies are parsed, whatever starts them; anything else is kept as its first bytes", async () => {
    const f = fetcher();
    try {
      assert.deepEqual((await f.get(`${base}/doc`, "doc")).json, { resource: "http://127.0.0.1/mcp" });
      assert.deepEqual((await f.get(`${base}/spaced`, "spaced")).json, ["a"]);
      const nul = await f.get(`${base}/null`, "null");
      assert.equal(nul.json, null);
      assert.equal(nul.notJson, undefined);
      for (const [path, first] of [
        ["/page", "<!doctype html>"],
        ["/missing", "Not Found"],
        ["/bom", '{"a":1}'],
        ["/broken", '{"a":'],
      ] as const) {
        const got = await f.get(`${base}${path}`, path);
        assert.equal(got.json, undefined, path);
        assert.ok(got.notJson?.includes(first), `${path}: ${got.notJson}`);
      }
      const blank = await f.get(`${base}/blank`, "blank");
      assert.equal(blank.json, undefined);
      assert.equal(typeof blank.notJson, "string");
      assert.deepEqual(
        f.steps.map((s) => [s.step, s.status, s.ok]),
        [
          ["doc", 200, true],
          ["spaced", 200, true],
          ["null", 200, true],
          ["/page", 200, true],
          ["/missing", 404, false],
          ["/bom", 200, true],
          ["/broken", 200, true],
          ["blank", 200, true],
        ],
      );
    } finally {
      f.close();
    }
  });

  test("a body past the cap is too_large, neither JSON nor not JSON; one at the cap is read", async () => {
    const f = fetcher();
    try {
      const at = await f.get(`${base}/at-cap`, "at cap");
      assert.equal(Buffer.byteLength(ANSWERS["/at-cap"]!.body), CAP);
      assert.equal(typeof (at.json as { pad?: unknown }).pad, "string");
      assert.equal(at.tooLarge, undefined);
      const over = await f.get(`${base}/over-cap`, "over cap");
      assert.equal(over.status, 200);
      assert.equal(over.tooLarge, true);
      assert.equal(over.json, undefined);
      assert.equal(over.notJson, undefined);
      assert.equal(over.error, `too_large: the body passed the ${CAP}-byte cap`);
      assert.deepEqual(
        f.steps.map((s) => [s.step, s.ok, s.error]),
        [
          ["at cap", true, undefined],
          ["over cap", false, `too_large: the body passed the ${CAP}-byte cap`],
        ],
      );
    } finally {
      f.close();
    }
  });

  test("an SSE answer of endless small events is too_large at the cap, not a timeout", async () => {
    const f = fetcher(60_000);
    try {
      const got = await f.get(`${base}/endless-sse`, "cors refusal", { accept: "application/json, text/event-stream" });
      assert.equal(got.tooLarge, true);
      assert.equal(f.expired, false, "the deadline had not come");
    } finally {
      f.close();
    }
  });

  test("a request past the deadline ends as no answer, and closing ends the rest", async () => {
    const f = fetcher(200);
    const hung = await f.get(`${base}/hang`, "hang");
    assert.equal(hung.error, "no answer within the deadline");
    assert.equal(f.expired, true);
    f.close();
    const late = fetcher();
    const pending = late.get(`${base}/hang`, "hang");
    late.close();
    assert.equal((await pending).error, "no answer within the deadline");
  });

  test("the caller's signal ends the walk's requests, and a closed walk lets go of it", async () => {
    const caller = new AbortController();
    const f = new Fetcher({
      deadline: Date.now() + 5000,
      maxBytes: 65536,
      protocolVersion: "2026-07-28",
      signal: caller.signal,
    });
    const pending = f.get(`${base}/hang`, "hang");
    caller.abort(new Error("stopped"));
    assert.equal((await pending).error, "no answer within the deadline");
    assert.equal(f.expired, true);
    f.close();

    const kept = new AbortController();
    const g = new Fetcher({
      deadline: Date.now() + 5000,
      maxBytes: 65536,
      protocolVersion: "2026-07-28",
      signal: kept.signal,
    });
    assert.equal(getEventListeners(kept.signal, "abort").length, 1);
    await g.get(`${base}/doc`, "doc");
    g.close();
    const listeners = getEventListeners(kept.signal, "abort").length;
    assert.equal(listeners, 0, "a walk that is over leaves no listener on the caller's signal");
  });
});
