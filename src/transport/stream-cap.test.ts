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
import { Defects, guardEventLoop, rejection, within } from "../testkit/peer.js";
import { ChildServer } from "./child.js";
import { peekEnvelope, peekEnvelopeEnd } from "./stream.js";

guardEventLoop();

const ECHO = fileURLToPath(new URL("../../../test/fixtures/child-echo.mjs", import.meta.url));
const SDK_SERVER = fileURLToPath(new URL("../../../test/fixtures/v2-sdk-server.mjs", import.meta.url));
const servers: ChildServer[] = [];
after(() => Promise.all(servers.map((s) => s.shutdown(1000))));

function echoServer(maxLineBytes?: number) {
  const server = new ChildServer(process.execPath, [ECHO], maxLineBytes === undefined ? {} : { maxLineBytes });
  servers.push(server);
  const defects = new Defects();
  // a deadline far past the test's own: only an answer (or a failure) at once passes
  const peer = new Peer(server.transport, {
    revision: "2025-11-25",
    role: "client",
    timeout: 600_000,
    onDefect: defects.listener,
  });
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
    assert.deepEqual(await within(peer.request("echo", { small: 1 }), "the promise", 10_000), { small: 1 });
  });

  test("a client reads a 5 MiB answer by default, as file and image tools send", async () => {
    const { peer, defects } = echoServer();
    const answer = await within(
      peer.request<{ text: string }>("big", { bytes: 5 * 1024 * 1024 }),
      "the promise",
      20_000,
    );
    assert.equal(answer.text.length, 5 * 1024 * 1024);
    assert.deepEqual(defects.codes(), []);
  });
});

describe("peekEnvelope: the id in a line's first bytes", () => {
  test("an integer or string id before or after jsonrpc", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xxxx')), {
      id: 12,
    });
    assert.deepEqual(peekEnvelope(Buffer.from('{ "id" : "a\\"b", "jsonrpc": "2.0", "result": {"x": "')), { id: 'a"b' });
  });

  test("an id inside the result, or inside a string, is not the message's", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","result":{"id":9,"text":"xx')), {});
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","result":{"text":"\\"id\\":3, ')), {});
  });

  test("a request says so: it names a method", () => {
    assert.deepEqual(
      peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"')),
      { id: 4, method: true },
    );
  });

  test("a cut-off id, a fractional id or garbage: no id", () => {
    assert.deepEqual(peekEnvelope(Buffer.from('{"jsonrpc":"2.0","id":12')), {});
    assert.deepEqual(peekEnvelope(Buffer.from('{"id":1.5,"result":{')), {});
    assert.deepEqual(peekEnvelope(Buffer.from("xxxxxxxxxxxx")), {});
  });
});

describe("peekEnvelopeEnd: the id in a line's last bytes", () => {
  test("an integer or string id last, as the official SDKs write it, after jsonrpc or before it", () => {
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('xxxx"}]},"jsonrpc":"2.0","id":12}')), { id: 12 });
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('xx"}]} , "id" : "a\\"b" , "jsonrpc" : "2.0" }\n')), { id: 'a"b' });
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('{"jsonrpc":"2.0","result":{"x":1},"id":-3}')), { id: -3 });
  });

  test("an id inside the result, or inside a string, is not the message's", () => {
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('xx","jsonrpc":"2.0","result":{"id":9}}')), {});
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('xx","jsonrpc":"2.0","note":"\\",\\"id\\":3"}')), {});
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('[{"jsonrpc":"2.0","id":1,"result":{}}]')), {});
  });

  test("a request says so: it names a method", () => {
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('xx"}},"jsonrpc":"2.0","method":"sampling/createMessage","id":4}')), {
      id: 4,
      method: true,
    });
  });

  test("a cut-off start, a fractional id or garbage: no id", () => {
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('"id":12}')), {});
    assert.deepEqual(peekEnvelopeEnd(Buffer.from('"x","id":1.5}')), {});
    assert.deepEqual(peekEnvelopeEnd(Buffer.from("xxxxxxxxxxxx")), {});
  });
});

describe("an official SDK server's answer over the cap", () => {
  // the v2 SDK writes {"result":…,"jsonrpc":"2.0","id":N}: the id comes after the 2 MiB, past the cap
  test("fails its request at once with MessageTooLargeError though its id comes last; the next request still works", async () => {
    const server = new ChildServer(process.execPath, [SDK_SERVER, "legacy"], { maxLineBytes: 1024 * 1024 });
    servers.push(server);
    const defects = new Defects();
    const peer = new Peer(server.transport, {
      revision: "2025-11-25",
      role: "client",
      timeout: 600_000,
      onDefect: defects.listener,
    });
    await within(
      peer.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "stream-cap.test", version: "1" },
      }),
      "the promise",
      20_000,
    );
    await peer.notify("notifications/initialized");
    const text = "x".repeat(2 * 1024 * 1024);
    const e = await rejection(peer.request("tools/call", { name: "echo", arguments: { text } }), 20_000);
    assert.ok(e instanceof MessageTooLargeError, `${e.name}: ${e.message}`);
    assert.equal(e.method, "tools/call");
    assert.ok(e.size > text.length);
    assert.deepEqual(defects.codes(), ["too_large"]);
    const small = await within(
      peer.request<{ content: { text: string }[] }>("tools/call", { name: "echo", arguments: { text: "small" } }),
      "the promise",
      20_000,
    );
    assert.equal(small.content[0]!.text, "small");
  });
});
