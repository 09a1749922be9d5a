/**
 * A server that answers JSON-RPC as `text/plain`: the official SDK clients refuse it ("Unexpected
 * content type"), so `probe` names it (`content_type_invalid`, an error) and, by `--fail-on
 * error`, exits 1 for an `ok` verdict; `application/json` with parameters stays silent.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { probeHttp } from "../../probe/probe.js";
import { mcpWire } from "../../testkit/cli-child.js";
import { answerContentTypeDefect, mediaType } from "./content-type.js";

/** A legacy server whose every answer carries `type`. */
async function serverAnswering(type: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const m = JSON.parse(body) as { id?: number; method: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      const result =
        m.method === "initialize"
          ? {
              protocolVersion: "2025-06-18",
              capabilities: { tools: {} },
              serverInfo: { name: "typed", version: "1.0.0" },
            }
          : m.method === "tools/list"
            ? { tools: [] }
            : undefined;
      const answer = result
        ? { jsonrpc: "2.0", id: m.id, result }
        : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
      res.writeHead(result ? 200 : 400, { "content-type": type }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe("an answer's Content-Type", () => {
  let plain: { url: string; server: Server };
  let json: { url: string; server: Server };
  before(async () => {
    [plain, json] = await Promise.all([
      serverAnswering("text/plain"),
      serverAnswering("application/json; charset=utf-8"),
    ]);
  });
  after(() => {
    for (const s of [plain, json]) s?.server.close();
  });

  test("the media type is read without parameters or case; only application/json and text/event-stream pass", () => {
    assert.equal(mediaType("Application/JSON; charset=utf-8"), "application/json");
    assert.equal(answerContentTypeDefect("application/json; charset=utf-8"), undefined);
    assert.equal(answerContentTypeDefect("text/event-stream"), undefined);
    assert.equal(answerContentTypeDefect("text/plain")?.code, "content_type_invalid");
    assert.match(answerContentTypeDefect("")!.message, /Content-Type \(none\)/);
  });

  test("probe: ok, with content_type_invalid (an error); application/json with a charset: ok and silent", async () => {
    const bad = await probeHttp(plain.url, { timeout: 5000 });
    assert.equal(bad.class, "ok");
    assert.deepEqual(
      bad.defects.filter((d) => d.code === "content_type_invalid").map((d) => d.severity),
      ["error"],
      "named once, whichever answers carried it",
    );
    const good = await probeHttp(json.url, { timeout: 5000 });
    assert.equal(good.class, "ok");
    assert.deepEqual(
      good.defects.map((d) => d.code),
      [],
    );
  });

  test("mcp-wire probe exits 1 for it under --fail-on error (the default), 0 under never", async () => {
    const strict = mcpWire(["probe", plain.url]);
    assert.equal(await strict.exit(), 1, strict.stdout());
    assert.match(strict.stdout(), /content_type_invalid/);
    const never = mcpWire(["probe", "--fail-on", "never", plain.url]);
    assert.equal(await never.exit(), 0, never.stdout());
    const good = mcpWire(["probe", json.url]);
    assert.equal(await good.exit(), 0, good.stdout());
  });
});
