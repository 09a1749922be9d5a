/**
 * The demo fleet is honest: each endpoint and command does on the wire what its name says,
 * checked here with plain HTTP requests and processes, not with the probe it is there to test.
 * And it starts fast and closes clean: no server, socket or timer left, endless answers ended.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { after, before, describe, test } from "node:test";
import { guardEventLoop, within } from "../testkit/peer.js";
import { PROBE_CLASSES } from "../probe/verdict.js";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../rules/revisions.js";
import { startFleet, type Fleet, type FleetCommand } from "./fleet.js";

guardEventLoop();

let fleet: Fleet;
let startMs = 0;

before(async () => {
  const t0 = performance.now();
  fleet = await startFleet();
  startMs = performance.now() - t0;
});
after(() => fleet?.close());

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const DISCOVER = {
  jsonrpc: "2.0",
  id: 7,
  method: "server/discover",
  params: {
    _meta: {
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
      [META_CLIENT_INFO]: { name: "t", version: "0" },
    },
  },
};
const initialize = (id: number, version = "2025-11-25") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "0" } },
});

/** One plain HTTP request, the whole body read (bounded in time). */
function call(
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ms = 5000,
): Promise<Answer> {
  return within(
    new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: options.method ?? "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body),
      );
    }),
    `${options.method ?? "POST"} ${url}`,
    ms,
  );
}

/** The status, headers and whatever body arrives within `ms`; the request is then abandoned. */
function peek(
  url: string,
  ms: number,
  body: unknown = DISCOVER,
  method = "POST",
): Promise<{ status: number | undefined; headers: IncomingHttpHeaders; body: string; ended: boolean }> {
  return new Promise((resolve) => {
    const out = { status: undefined as number | undefined, headers: {} as IncomingHttpHeaders, body: "", ended: false };
    const req = httpRequest(
      url,
      { method, headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } },
      (res) => {
        out.status = res.statusCode;
        out.headers = res.headers;
        res.setEncoding("utf8");
        res.on("data", (c: string) => (out.body += c));
        res.on("end", () => (out.ended = true));
        res.on("error", () => undefined);
      },
    );
    req.on("error", () => undefined);
    req.end(method === "POST" ? JSON.stringify(body) : undefined);
    setTimeout(() => {
      req.destroy();
      resolve(out);
    }, ms);
  });
}

function json(a: Answer): Record<string, unknown> {
  return JSON.parse(a.body) as Record<string, unknown>;
}

describe("the fleet", () => {
  test("starts fast, on 127.0.0.1 only, with one expectation a behaviour", () => {
    // ~100 ms when quiet: the bound only catches a start that hangs or crawls
    assert.ok(startMs < 10_000, `started in ${Math.round(startMs)} ms`);
    const names = [...fleet.endpoints, ...fleet.stdio].map((e) => e.name);
    assert.equal(new Set(names).size, names.length, "names are unique");
    for (const e of fleet.endpoints) {
      assert.equal(new URL(e.url).hostname, "127.0.0.1", e.name);
      assert.ok(PROBE_CLASSES.includes(e.expect.class), e.name);
      assert.ok(e.description.length > 10, e.name);
    }
    for (const c of fleet.stdio) assert.ok(PROBE_CLASSES.includes(c.expect.class), c.name);
    assert.throws(() => fleet.get("no-such-behaviour"), /no behaviour named/);
  });

  test("every class docs/probe.md lists is shown by some behaviour", () => {
    const shown = new Set([...fleet.endpoints, ...fleet.stdio].map((e) => e.expect.class));
    assert.deepEqual(
      [...PROBE_CLASSES].filter((c) => !shown.has(c)),
      [],
    );
  });

  test("an unknown path is a 404 that lists the behaviours", async () => {
    const a = await call(`${new URL(fleet.url("modern")).origin}/nope`);
    assert.equal(a.status, 404);
    assert.match(a.body, /\/modern/);
  });
});

describe("the fleet's HTTP endpoints do what they say", () => {
  test("modern: server/discover answered, 2026-07-28 first", async () => {
    const a = await call(fleet.url("modern"), {
      body: DISCOVER,
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    });
    assert.equal(a.status, 200);
    const r = json(a).result as { supportedVersions: string[]; resultType: string };
    assert.equal(r.supportedVersions[0], "2026-07-28");
    assert.equal(r.resultType, "complete");
  });

  test("legacy: server/discover is a method it does not have (-32601, HTTP 404); initialize opens a session", async () => {
    const d = await call(fleet.url("legacy"), {
      body: DISCOVER,
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    });
    assert.equal(d.status, 404);
    assert.equal((json(d).error as { code: number }).code, -32601);
    const i = await call(fleet.url("legacy"), { body: initialize(1) });
    assert.equal(i.status, 200);
    assert.ok(i.headers["mcp-session-id"]);
    assert.equal((json(i).result as { protocolVersion: string }).protocolVersion, "2025-11-25");
  });

  test("legacy-sse: initialize answered as an SSE stream", async () => {
    const i = await call(fleet.url("legacy-sse"), { body: initialize(1) });
    assert.match(String(i.headers["content-type"]), /text\/event-stream/);
    assert.match(i.body, /^event: message\ndata: \{"jsonrpc":"2\.0","id":1,"result":/m);
  });

  test("http-sse: POST is 405; GET opens a stream whose first event names the endpoint; answers come on the stream", async () => {
    assert.equal((await call(fleet.url("http-sse"), { body: initialize(1) })).status, 405);
    const url = fleet.url("http-sse");
    const events: string[] = [];
    const req = httpRequest(url, { method: "GET", headers: { accept: "text/event-stream" } });
    const endpoint = await within(
      new Promise<string>((resolve) => {
        req.on("response", (res) => {
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            events.push(c);
            const m = /event: endpoint\ndata: (.+)\n/.exec(events.join(""));
            if (m) resolve(m[1]!);
          });
        });
        req.end();
      }),
    );
    assert.match(endpoint, /^\/http-sse\/messages\?session=/);
    const posted = await call(new URL(endpoint, url).href, { body: initialize(3, "2024-11-05") });
    assert.equal(posted.status, 202);
    await within(
      (async () => {
        while (!events.join("").includes('"id":3')) await new Promise((r) => setTimeout(r, 10));
      })(),
    );
    assert.match(
      events.join(""),
      /event: message\ndata: \{"jsonrpc":"2\.0","id":3,"result":\{"protocolVersion":"2024-11-05"/,
    );
    req.destroy();
  });

  test("modern-no-result-type: a modern result without resultType", async () => {
    const r = json(await call(fleet.url("modern-no-result-type"), { body: DISCOVER })).result as Record<
      string,
      unknown
    >;
    assert.deepEqual(r.supportedVersions, ["2026-07-28"]);
    assert.equal(r.resultType, undefined);
  });

  test("version-retry: an error naming the version offered, unless it is 2025-03-26", async () => {
    const refused = json(await call(fleet.url("version-retry"), { body: initialize(1, "2025-11-25") }));
    assert.deepEqual(refused.error, { code: -32602, message: "Unsupported protocol version: 2025-11-25" });
    const accepted = json(await call(fleet.url("version-retry"), { body: initialize(2, "2025-03-26") }));
    assert.equal((accepted.result as { protocolVersion: string }).protocolVersion, "2025-03-26");
  });

  test("web pages: documentation (200 HTML) and a login form behind a same-origin 302", async () => {
    const docs = await call(fleet.url("web-page"), { body: DISCOVER });
    assert.equal(docs.status, 200);
    assert.match(String(docs.headers["content-type"]), /^text\/html/);
    assert.match(docs.body, /^<!DOCTYPE html>/);
    const login = await call(fleet.url("login-page"), { body: DISCOVER });
    assert.equal(login.status, 302);
    const target = new URL(String(login.headers.location), fleet.url("login-page"));
    assert.equal(target.origin, new URL(fleet.url("login-page")).origin);
    const form = await call(target.href, { body: DISCOVER });
    assert.match(form.body, /<form[^>]*>[\s\S]*type="password"/);
  });

  test("bare arrays and a bare result, with no JSON-RPC envelope", async () => {
    assert.equal((await call(fleet.url("bare-array-empty"), { body: DISCOVER })).body, "[]");
    assert.deepEqual(JSON.parse((await call(fleet.url("bare-array"), { body: DISCOVER })).body), [
      { name: "search", description: "Searches." },
    ]);
    const bare = json(await call(fleet.url("no-envelope"), { body: DISCOVER }));
    assert.ok(Array.isArray(bare.tools));
    assert.equal(bare.jsonrpc, undefined);
  });

  test("JSON-RPC errors with HTTP 200: -32001, -32601, -32602 and -32603 on initialize, -32000, an application code", async () => {
    const error = async (name: string, body: unknown = initialize(5)) => {
      const a = await call(fleet.url(name), { body });
      assert.equal(a.status, 200, name);
      const m = json(a);
      assert.equal(m.id, 5, name);
      return m.error as { code: number; message: string };
    };
    assert.deepEqual(await error("invalid-api-key"), { code: -32001, message: "invalid api key" });
    assert.deepEqual(await error("method-not-found"), { code: -32601, message: "Unknown method: initialize" });
    assert.deepEqual(await error("unsupported-version"), { code: -32602, message: "Unsupported MCP protocol version" });
    assert.deepEqual(await error("unsupported-version", initialize(5, "2024-11-05")), {
      code: -32602,
      message: "Unsupported MCP protocol version",
    });
    assert.deepEqual(await error("internal-error"), { code: -32603, message: "Internal error" });
    assert.deepEqual(await error("legacy-code"), { code: -32000, message: "Server error: upstream unavailable" });
    assert.equal((await error("application-error")).code, 503);
  });

  test("HTTP refusals: 401 with a challenge, 403, 404 text, 500, a proxy's 502 page", async () => {
    const a401 = await call(fleet.url("http-401"), { body: DISCOVER });
    assert.equal(a401.status, 401);
    assert.match(String(a401.headers["www-authenticate"]), /^Bearer realm="fleet"/);
    assert.equal((await call(fleet.url("http-403"), { body: DISCOVER })).status, 403);
    const a404 = await call(fleet.url("http-404"), { body: DISCOVER });
    assert.deepEqual([a404.status, a404.headers["content-type"]], [404, "text/plain"]);
    assert.equal((await call(fleet.url("http-500"), { body: DISCOVER })).status, 500);
    const a502 = await call(fleet.url("http-502"), { body: DISCOVER });
    assert.equal(a502.status, 502);
    assert.match(a502.body, /<title>502 Bad Gateway<\/title>[\s\S]*nginx/);
  });

  test("auth-bearer: 401 echoing a wrong credential; the right token opens the reference server", async () => {
    const wrong = await call(fleet.url("auth-bearer"), {
      body: DISCOVER,
      headers: { authorization: "Bearer nope-123456" },
    });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /Invalid credentials: Bearer nope-123456/);
    const right = await call(fleet.url("auth-bearer"), {
      body: DISCOVER,
      headers: {
        authorization: `Bearer ${fleet.token}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
      },
    });
    assert.equal(right.status, 200);
  });

  test("an empty 200 body and a plain-text one", async () => {
    const empty = await call(fleet.url("empty-body"), { body: DISCOVER });
    assert.deepEqual([empty.status, empty.body], [200, ""]);
    const text = await call(fleet.url("plain-text"), { body: DISCOVER });
    assert.deepEqual([text.status, text.headers["content-type"], text.body], [200, "text/plain", "OK\n"]);
  });

  test("broken answers: a wrong id, a null id, result and error together, jsonrpc 1.0", async () => {
    assert.notEqual(json(await call(fleet.url("wrong-id"), { body: DISCOVER })).id, 7);
    assert.equal(json(await call(fleet.url("null-id"), { body: DISCOVER })).id, null);
    const both = json(await call(fleet.url("result-and-error"), { body: DISCOVER }));
    assert.ok(both.result !== undefined && both.error !== undefined);
    assert.equal(json(await call(fleet.url("wrong-jsonrpc"), { body: DISCOVER })).jsonrpc, "1.0");
  });

  test("redirect-other-origin: a 307 to another loopback port, where the reference server answers", async () => {
    const a = await call(fleet.url("redirect-other-origin"), { body: DISCOVER });
    assert.equal(a.status, 307);
    const target = new URL(String(a.headers.location));
    assert.equal(target.hostname, "127.0.0.1");
    assert.notEqual(target.origin, new URL(fleet.url("redirect-other-origin")).origin);
    const there = await call(target.href, {
      body: DISCOVER,
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
    });
    assert.equal(there.status, 200);
  });

  test("hangs: no answer at all; a legacy session whose tools/list is never answered", async () => {
    const silent = await peek(fleet.url("hang"), 300);
    assert.equal(silent.status, undefined);
    const i = await call(fleet.url("hang-after-initialize"), { body: initialize(1) });
    const session = String(i.headers["mcp-session-id"]);
    assert.equal(i.status, 200);
    const req = httpRequest(fleet.url("hang-after-initialize"), {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-session-id": session },
    });
    let answered = false;
    req.on("response", () => (answered = true));
    req.on("error", () => undefined);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(answered, false);
    req.destroy();
    assert.equal((await peek(fleet.url("hang-on-initialize"), 300, initialize(1))).status, undefined);
  });

  test("drip: the status at once, then one byte a second", async () => {
    const p = await peek(fleet.url("drip"), 1500);
    assert.equal(p.status, 200);
    assert.ok(p.body.length <= 3, `${p.body.length} bytes in 1.5 s`);
    assert.ok(Number(p.headers["content-length"]) > 50);
  });

  test("endless-sse: keep-alive comments, never a message", async () => {
    const p = await peek(fleet.url("endless-sse"), 400);
    assert.match(String(p.headers["content-type"]), /text\/event-stream/);
    assert.match(p.body, /^: stream open\n\n(: keep-alive\n\n)+$/);
    assert.equal(p.ended, false);
  });

  test("huge-body: announces 1 GiB, and sends it only as fast as it is read", async () => {
    const p = await peek(fleet.url("huge-body"), 200);
    assert.equal(p.headers["content-length"], String(1024 * 1024 * 1024));
    assert.match(p.body, /^\{"jsonrpc":"2\.0","id":7,"result":\{"resultType":"complete","tools":\[\{"name":"huge"/);
    assert.ok(p.body.length < 1024 * 1024 * 1024);
  });

  test("reset, refused and tls fail before any HTTP answer", async () => {
    const code = (url: string) =>
      call(url, { body: DISCOVER }).then(
        () => "answered",
        (e: NodeJS.ErrnoException) => e.code ?? e.message,
      );
    assert.equal(await code(fleet.url("reset")), "ECONNRESET");
    assert.equal(await code(fleet.url("refused")), "ECONNREFUSED");
    const tls = fleet.url("tls");
    assert.match(tls, /^https:\/\/127\.0\.0\.1:/);
    const failure = await fetch(tls, { method: "POST", body: "{}" }).then(
      () => "answered",
      (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
    );
    assert.match(failure, /SSL|TLS|EPROTO/i);
  });
});

/** Runs a fleet command with `input` on its stdin; its output, stderr and exit status. */
function run(
  c: FleetCommand,
  input: string,
  ms = 5000,
): Promise<{ stdout: string; stderr: string; code: number | null; error?: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(c.command, c.args, { stdio: ["pipe", "pipe", "pipe"] });
    const out = { stdout: "", stderr: "", code: null as number | null, timedOut: false } as {
      stdout: string;
      stderr: string;
      code: number | null;
      error?: string;
      timedOut: boolean;
    };
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out.stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (out.stderr += s));
    child.stdin.on("error", () => undefined);
    const timer = setTimeout(() => {
      out.timedOut = true;
      child.kill("SIGKILL");
    }, ms);
    child.on("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      out.error = e.code ?? e.message;
      resolve(out);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      out.code = code;
      resolve(out);
    });
    child.stdin.end(input);
  });
}

const line = (m: unknown) => JSON.stringify(m) + "\n";
const cmd = (name: string) => fleet.get(name) as FleetCommand;

describe("the fleet's stdio commands do what they say", () => {
  test("stdio-modern: mcp-wire serve --stdio answers server/discover", async () => {
    const r = await run(cmd("stdio-modern"), line(DISCOVER));
    assert.match(r.stdout, /"supportedVersions":\["2026-07-28"/);
  });

  test("stdio-legacy and stdio-banner: -32601 to server/discover, initialize answered; the banner first", async () => {
    const legacy = await run(cmd("stdio-legacy"), line(DISCOVER) + line(initialize(2)));
    const [a, b] = legacy.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal((a!.error as { code: number }).code, -32601);
    assert.equal((b!.result as { protocolVersion: string }).protocolVersion, "2025-06-18");
    const banner = await run(cmd("stdio-banner"), line(initialize(1)));
    assert.equal(banner.stdout.split("\n")[0], "Weather MCP Server v1.2 running on stdio");
  });

  test("stdio-exit-on-request: exits 1 on anything before initialize", async () => {
    const r = await run(cmd("stdio-exit-on-request"), line(DISCOVER) + line(initialize(2)));
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /expected initialize request/);
  });

  test("stdio-version-retry: -32602 naming any version but 2025-03-26", async () => {
    const r = await run(cmd("stdio-version-retry"), line(initialize(1)) + line(initialize(2, "2025-03-26")));
    const [refused, accepted] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(refused!.error, { code: -32602, message: "Unsupported protocol version: 2025-11-25" });
    assert.equal((accepted!.result as { protocolVersion: string }).protocolVersion, "2025-03-26");
  });

  test("stdio-invalid-key: -32001 to everything", async () => {
    const r = await run(cmd("stdio-invalid-key"), line(initialize(4)));
    assert.deepEqual(JSON.parse(r.stdout), {
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32001, message: "Unauthorized: invalid API key" },
    });
  });

  test("stdio-crash: a message on stderr and status 1, before reading anything", async () => {
    const r = await run(cmd("stdio-crash"), "");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /WEATHER_API_KEY/);
  });

  test("stdio-hang: not a byte, and still there when its input ends", async () => {
    const r = await run(cmd("stdio-hang"), line(DISCOVER), 500);
    assert.equal(r.timedOut, true);
    assert.equal(r.stdout, "");
  });

  test("stdio-not-json and stdio-bare-array: text, and a bare array", async () => {
    assert.match((await run(cmd("stdio-not-json"), line(DISCOVER))).stdout, /^Unknown command/);
    assert.equal(
      (await run(cmd("stdio-bare-array"), line(DISCOVER))).stdout.trim(),
      '[{"name":"search","description":"Searches."}]',
    );
  });

  test("stdio-missing: ENOENT", async () => {
    assert.equal((await run(cmd("stdio-missing"), "")).error, "ENOENT");
  });
});

describe("closing the fleet", () => {
  test("ends endless answers, and leaves no server, socket or timer behind", async () => {
    const before = process.getActiveResourcesInfo();
    const count = (list: string[], kind: string) => list.filter((k) => k === kind).length;
    const other = await startFleet();
    // answers that would go on for ever (or for 1 GB) are under way when it closes
    const streams = ["endless-sse", "drip", "huge-body", "hang"].map(
      (name) =>
        new Promise<string>((resolve) => {
          const req = httpRequest(
            other.url(name),
            { method: "POST", headers: { "content-type": "application/json" } },
            (res) => {
              res.on("data", () => undefined);
              res.on("end", () => resolve("end"));
              res.on("error", () => resolve("error"));
              res.on("close", () => resolve("close"));
            },
          );
          req.on("error", () => resolve("error"));
          req.end(JSON.stringify(DISCOVER));
        }),
    );
    await new Promise((r) => setTimeout(r, 150));
    await within(other.close(), "close", 5000);
    const ended = await within(Promise.all(streams), "the answers under way", 5000);
    assert.equal(ended.length, 4);
    await within(other.close(), "a second close", 1000);
    // a socket closed by the other side is let go of within a few turns of the event loop
    const kinds = ["TCPServerWrap", "Timeout", "TCPSocketWrap"];
    const clean = () => kinds.every((kind) => count(process.getActiveResourcesInfo(), kind) <= count(before, kind));
    for (let i = 0; i < 50 && !clean(); i++) await new Promise((r) => setTimeout(r, 10));
    const left = process.getActiveResourcesInfo();
    for (const kind of kinds)
      assert.ok(
        count(left, kind) <= count(before, kind),
        `${kind}: ${count(before, kind)} before, ${count(left, kind)} after`,
      );
  });
});
