/**
 * Judging never holds up forwarding: a server whose answers take long to judge, behind the same
 * `tap --listen` as another client's pings (the tap in a process of its own with a small schema
 * budget, so that each hostile answer, ~0.2 s to judge, is past it), and over stdio in front of
 * the answer after it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { TAP_LISTEN_CHILD } from "../testkit/tap-listen-child.js";
import { liveDefects, TapProcess, within } from "../testkit/tap.js";

const BLOCKS = 300_000;

/** A `tools/call` result of ~900 KB of content blocks that match no branch of the content union. */
function hostileAnswer(id: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[${"{},".repeat(BLOCKS)}{}]}}`;
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/** Answers `tools/call` with the hostile result and everything else with `{}`. */
async function hostileServer(): Promise<string> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => {
      const m = JSON.parse(Buffer.concat(parts).toString("utf8")) as { id: unknown; method: string };
      const body =
        m.method === "tools/call" ? hostileAnswer(m.id) : JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** One JSON-RPC request POSTed, its answer read to the end; resolves with the milliseconds it took. */
function post(url: string, message: unknown): Promise<number> {
  const start = performance.now();
  return within(
    new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        },
        (res) => {
          res.resume();
          res.once("end", () => resolve(performance.now() - start));
        },
      );
      req.once("error", reject);
      req.end(JSON.stringify(message));
    }),
    "an answer through the tap",
    20_000,
  );
}

describe("tap: judging off the forwarding path", () => {
  test("pings of one client stay fast while another conversation carries slow-to-judge answers; each is schema_not_judged; the tap process exits by itself", async () => {
    const upstream = await hostileServer();
    const child = spawn(process.execPath, [TAP_LISTEN_CHILD, upstream, "2025-11-25", "25"], { stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      const url = await within(
        new Promise<string>((resolve) =>
          child.stdout.on("data", () => stdout.includes("\n") && resolve(stdout.split("\n")[0]!)),
        ),
        "the tap listening",
        20_000,
      );
      let hostileDone = false;
      const hostile = (async () => {
        for (let id = 1; id <= 4; id++)
          await post(url, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "blocks", arguments: {} } });
        hostileDone = true;
      })();
      const pings: number[] = [];
      for (let id = 1; !hostileDone || pings.length < 20; id++)
        pings.push(await post(url, { jsonrpc: "2.0", id, method: "ping" }));
      await hostile;
      // generous: judging on the forwarding path held each ping for as long as a hostile answer took to judge
      assert.ok(
        Math.max(...pings) < 5000,
        `the slowest of ${pings.length} pings took ${Math.max(...pings).toFixed(0)} ms`,
      );

      child.stdin.end();
      const code = await within(exited, "the tap process exiting by itself once closed", 30_000);
      assert.equal(code, 0, stderr);
      // every hostile answer is not judged (a ping's schema may be too, on a machine busy enough
      // to stall its thread past so small a budget); nothing is an error
      const found = liveDefects(stderr);
      assert.deepEqual(
        found.filter((d) => d.severity !== "info" || d.code !== "schema_not_judged"),
        [],
        stderr,
      );
      assert.ok(found.filter((d) => d.from === "server").length >= 4, stderr);
      assert.match(
        stderr,
        /schema_not_judged: the message is not held to the schema: judging it ran past the 25 ms budget/,
      );
      assert.match(
        stderr,
        new RegExp(`tap: ${pings.length + 4} messages client→server, ${pings.length + 4} server→client`),
      );
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("tap over stdio: judging off the forwarding path", () => {
  test("a server's slow-to-judge answer does not hold up the answer after it; a member name's control sequences reach stderr escaped", async () => {
    // answers tools/call with ~900 KB of content blocks that match no content type, anything else
    // with {}, and hostile/name with a member whose name would retitle a terminal and write CI commands
    const server = [
      'const rl = require("node:readline").createInterface({ input: process.stdin });',
      'rl.on("line", (l) => { const m = JSON.parse(l); let out;',
      '  if (m.method === "tools/call") out = `{"jsonrpc":"2.0","id":${m.id},"result":{"content":[${"{},".repeat(300000)}{}]}}`;',
      '  else if (m.method === "hostile/name") out = JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {}, ["x\\u001b]0;owned\\u0007\\r\\n::error::x"]: 1 });',
      '  else out = JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} });',
      '  process.stdout.write(out + "\\n"); });',
    ].join("\n");
    const tap = new TapProcess(["--revision", "2025-11-25", "--", process.execPath, "-e", server]);
    const start = performance.now();
    await tap.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blocks","arguments":{}}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    );
    await tap.untilLines(2, "both answers through the tap");
    // generous: a quadratic judge on the forwarding path held the answer after it for 40 s and more
    assert.ok(performance.now() - start < 10_000, `${(performance.now() - start).toFixed(0)} ms`);
    assert.equal(tap.lines()[1], '{"jsonrpc":"2.0","id":2,"result":{}}');
    await tap.write('{"jsonrpc":"2.0","id":3,"method":"hostile/name"}\n');
    await tap.untilLines(3);
    const { code } = await tap.end();
    assert.equal(code, 0, tap.stderr);
    assert.doesNotMatch(tap.stderr, /\u001b|\u0007|\r|^::error::/m);
    assert.match(
      tap.stderr,
      /server→client line 3: warning unexpected_member at \/x\\u001b\]0;owned\\u0007\\u000d\\u000a::error::x/,
    );
    // the slow answer is judged or, past the budget, said not to be: never silently passed
    assert.match(tap.stderr, /server→client line 1: (error schema_invalid|info schema_not_judged)/);
  });
});
