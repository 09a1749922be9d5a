/**
 * Lines over the stdio cap: the request such a line answers fails at once with a typed error
 * (its id is read from the line's first bytes), and a client reads the large answers file and
 * image tools give (over 4 MiB) by default.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { MessageTooLargeError } from "../peer/errors.js";
import { Peer } from "../peer/peer.js";
import { Defects, guardEventLoop, rejection, within } from "../peer/support.test.js";
import { ChildServer } from "./child.js";
import { peekEnvelope } from "./stream.js";

guardEventLoop();

const ECHO = fileURLToPath(new URL("../../../test/fixtures/child-echo.mjs", import.meta.url));
const servers: ChildServer[] = [];
after(() => Promise.all(servers.map((s) => s.shutdown(1000))));

function echoServer(maxLineBytes?: number) {
  const server = new ChildServer(process.execPath, [ECHO], maxLineBytes === undefined ? {} : { maxLineBytes });
  servers.push(server);
  const defects = new Defects();
  // a deadline far past the test's own: only an answer (or a failure) at once passes
  const peer = new Peer(server.transport, { revision: "2025-11-25", role: "client", timeout: 600_000, onDefect: defects.listener });
  return { peer, defects };
}

describe("stdio lines over the cap", () => {
  test("an answer over the cap fails its request at once with MessageTooLargeError; the next request still works", async () => {
    const { peer, defects } = echoServer(1024 * 1024);
    const e = await rejection(peer.request("big", { bytes: 5 * 1024 * 1024 }), 20_000);
    assert.ok(e instanceof MessageTooLargeError, `${e.name}: ${e.message}`);
    assert.equal(e.method, "big");
    assert.equal(e.limit, 1024 * 1024);
    assert.ok(e.size > 5 * 1024 * 1024);
    assert.deepEqual(defects.codes(), ["too_large"]);
    assert.deepEqual(await within(peer.request("echo", { small: 1 }), 10_000), { small: 1 });
  });

  test("a client reads a 5 MiB answer by default, as file and image tools send", async () => {
    const { peer, defects } = echoServer();
    const answer = await within(peer.request<{ text: string }>("big", { bytes: 5 * 1024 * 1024 }), 20_000);
    assert.equal(answer.text.length, 5 * 1024 * 1024);
    assert.deepEqual(defects.codes(), []);
  });
});

describe("peekEnvelope: the id in a line's first bytes", () => {
  test("an integer or string id before or after jsonrpc", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx')), { id: 12 });
    assert.deepEqual(peekEnvelope(Buffer.from('{ "id" : "a\\"b", "jsonrpc": "2.0", "result": {"x": "')), { id: 'a"b' });
  });

  test("an id inside the result, or inside a string, is not the message's", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","result":{"id":9,"text":"xx')), {});
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","result":{"text":"\\"id\\":3, ')), {});
  });

  test("a request says so: it names a method", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"')), { id: 4, method: true });
  });

  test("a cut-off id, a fractional id or garbage: no id", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":12')), {});
    assert.deepEqual(peekEnvelope(Buffer.from('{"id":1.5,"result":{')), {});
    assert.deepEqual(peekEnvelope(Buffer.from("xxxxxxxxxxxx")), {});
  });
});
