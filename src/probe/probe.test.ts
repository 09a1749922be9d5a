/**
 * The probe against the demo fleet: every class and detail docs/probe.md lists, over HTTP (both
 * transports) and stdio, each verdict checked on its class, detail, era, revision, tools,
 * rpcError, transport and repro line. Every probe of the fleet runs at once in `before`; the
 * tests then read their verdicts. What no loopback server can show honestly (a name that does
 * not resolve, a connection that is never accepted) is checked on the classifier with a
 * synthetic error.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { guardEventLoop, within } from "../testkit/peer.js";
import { HttpError } from "../transport/http/error.js";
import { startFleet, type Expectation, type Fleet, type FleetCommand, type FleetEndpoint } from "../fleet/fleet.js";
import { classifyFailure, classifyHttpError, classifyRpcError } from "./classify.js";
import { probeHttp, probeStdio } from "./probe.js";
import { redactSecrets } from "../secrets/redact.js";
import { PROBE_CLASSES, type ProbeResult } from "./verdict.js";

guardEventLoop();

/**
 * The deadline of probes that can only end with it (the others get the default 10 s and need
 * far less): long enough for a legacy opening to finish first on a loaded machine.
 */
const SHORT = 4000;
/** How far past its deadline a probe may finish before a test says it hangs (it should take 0.5 s at most). */
const SLACK = 3000;

interface Seen {
  result: ProbeResult;
  wallMs: number;
  timeout: number;
}

let fleet: Fleet;
const seen = new Map<string, Seen>();

async function timed(run: (timeout: number) => Promise<ProbeResult>, e: { expect: Expectation }): Promise<Seen> {
  const timeout = e.expect.untilDeadline ? SHORT : 10_000;
  const t0 = performance.now();
  const result = await within(run(timeout), "the probe", timeout + SLACK + 2000);
  return { result, wallMs: performance.now() - t0, timeout };
}

/** Runs `each` over `items`, at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
    }),
  );
}

before(async () => {
  fleet = await startFleet();
  const http = Promise.all(
    fleet.endpoints.map(async (e) => seen.set(e.name, await timed((timeout) => probeHttp(e.url, { timeout }), e))),
  );
  // spawning a process holds up this one's event loop a little: a few at a time, the ones that
  // wait for their deadline first
  const commands = [...fleet.stdio].sort(
    (a, b) => Number(b.expect.untilDeadline ?? false) - Number(a.expect.untilDeadline ?? false),
  );
  await pool(
    commands,
    4,
    async (c) => void seen.set(c.name, await timed((timeout) => probeStdio(c.command, c.args, { timeout }), c)),
  );
  await http;
});

after(() => fleet?.close());

function check(e: FleetEndpoint | FleetCommand): void {
  const { result: r, wallMs, timeout } = seen.get(e.name)!;
  const x = e.expect;
  const why = `${e.name}: got ${r.class}/${r.detail}; trace ${JSON.stringify(r.trace).slice(0, 1500)}`;
  assert.equal(r.class, x.class, why);
  assert.equal(r.detail, x.detail, why);
  assert.equal(r.era, x.era, why);
  assert.equal(r.revision, x.revision, why);
  assert.equal(r.tools, x.tools, why);
  assert.deepEqual(r.rpcError, x.rpcError, why);
  assert.equal(r.transport, x.transport, why);
  if (x.status !== undefined) assert.equal(r.http?.status, x.status, why);
  if (r.transport === "stdio") assert.equal(r.http, null);
  const codes = r.defects.map((d) => d.code);
  for (const code of x.defects ?? [])
    assert.ok(codes.includes(code), `${e.name}: defect ${code} missing from ${JSON.stringify(codes)}`);
  assert.ok(r.advice.length > 20, `${e.name}: advice`);
  assert.ok(r.trace.length > 0, `${e.name}: a trace`);
  for (const step of r.trace)
    assert.ok(
      typeof step.step === "string" && typeof step.ms === "number",
      `${e.name}: trace step ${JSON.stringify(step)}`,
    );
  assert.ok(r.elapsedMs >= 0 && r.elapsedMs <= timeout + SLACK, `${e.name}: elapsedMs ${r.elapsedMs}`);
  assert.ok(
    wallMs < timeout + SLACK,
    `${e.name}: the probe took ${Math.round(wallMs)} ms with a ${timeout} ms deadline`,
  );
  if (x.class === "ok") {
    assert.equal(r.repro, undefined, `${e.name}: an ok verdict has nothing to replay`);
    // the answer that made it ok is in the trace, even one that came on an SSE stream
    assert.ok(
      r.trace.some((t) => t.step === "tools/list"),
      `${e.name}: tools/list in ${JSON.stringify(r.trace.map((t) => t.step))}`,
    );
    assert.ok(r.server !== null, `${e.name}: the server named itself`);
  } else if (x.transport === "stdio") {
    // the step that failed is replayed: the one that stalled, by name
    const method = /^printf '%s\\n' '\{"jsonrpc":"2\.0","id":1,"method":"(server\/discover|initialize)"/.exec(
      r.repro ?? "",
    )?.[1];
    assert.ok(method, `${e.name}: repro ${r.repro}`);
    if (x.class === "timeout")
      assert.equal(method, x.detail, `${e.name}: a stalled ${x.detail} is replayed as ${x.detail}: ${r.repro}`);
    assert.ok(
      r.repro!.endsWith(` | ${[(e as FleetCommand).command, ...(e as FleetCommand).args].join(" ")}`),
      `${e.name}: repro pipes into the command: ${r.repro}`,
    );
  } else {
    assert.match(r.repro ?? "", /^curl -sS -i -X POST /, `${e.name}: repro`);
  }
}

describe("probe over HTTP, against the fleet", () => {
  test("the fleet has an endpoint for every behaviour docs/probe.md describes", () => {
    const names = new Set(fleet.endpoints.map((e) => e.name));
    for (const n of [
      "modern",
      "legacy",
      "legacy-sse",
      "http-sse",
      "web-page",
      "login-page",
      "bare-array-empty",
      "bare-array",
      "no-envelope",
      "invalid-api-key",
      "method-not-found",
      "unsupported-version",
      "internal-error",
      "version-retry",
      "http-401",
      "http-403",
      "http-404",
      "http-500",
      "http-502",
      "empty-body",
      "plain-text",
      "hang",
      "hang-after-initialize",
      "wrong-id",
      "null-id",
      "result-and-error",
      "wrong-jsonrpc",
      "redirect-other-origin",
      "drip",
      "endless-sse",
      "huge-body",
    ]) {
      assert.ok(names.has(n), n);
    }
  });

  // one test per behaviour, so a failure names it; the verdicts were all taken in before()
  for (const name of [
    "modern",
    "legacy",
    "legacy-sse",
    "http-sse",
    "modern-no-result-type",
    "version-retry",
    "web-page",
    "login-page",
    "bare-array-empty",
    "bare-array",
    "no-envelope",
    "invalid-api-key",
    "method-not-found",
    "unsupported-version",
    "internal-error",
    "legacy-code",
    "application-error",
    "http-401",
    "auth-bearer",
    "http-403",
    "http-404",
    "http-404-html",
    "http-410-html",
    "docs-page-405",
    "http-500",
    "http-502",
    "empty-body",
    "plain-text",
    "hang",
    "hang-after-initialize",
    "hang-on-initialize",
    "wrong-id",
    "null-id",
    "result-and-error",
    "wrong-jsonrpc",
    "redirect-other-origin",
    "drip",
    "endless-sse",
    "huge-body",
    "gzip",
    "brotli-sse",
    "gzip-bomb",
    "slash-redirect",
    "reset",
    "refused",
    "tls",
  ]) {
    test(name, () => check(fleet.get(name)));
  }

  test("every endpoint of the fleet is checked above", () => {
    const checked = new Set(seen.keys());
    for (const e of fleet.endpoints) assert.ok(checked.has(e.name), e.name);
  });

  test("a stdio server writing anything but JSON-RPC on stdout is told to log to stderr; a clean one is not", () => {
    for (const name of ["stdio-banner", "stdio-not-json"])
      assert.match(seen.get(name)!.result.advice, /Log to stderr/, name);
    for (const name of ["stdio-legacy", "stdio-modern"])
      assert.doesNotMatch(seen.get(name)!.result.advice, /stderr/, name);
  });

  test("a 404 or 410 with a site's HTML page says nothing is there; a 405 with the page is a web page", () => {
    assert.match(seen.get("http-404-html")!.result.advice, /^HTTP 404: nothing is served at this path/);
    assert.match(seen.get("http-410-html")!.result.advice, /^HTTP 410: the endpoint is gone/);
    assert.match(seen.get("docs-page-405")!.result.advice, /serves HTML: it is probably a documentation/);
  });

  test("a defect the server repeats in every answer (one per revision tried) is listed once", () => {
    for (const [name, code] of [
      ["invalid-api-key", "error_code_legacy"],
      ["legacy-code", "error_code_legacy"],
      ["null-id", "id_null"],
      ["wrong-id", "unknown_response_id"],
    ] as const) {
      const codes = seen.get(name)!.result.defects.map((d) => `${d.code} ${d.path}`);
      assert.ok(codes.includes(`${code} /id`) || codes.includes(`${code} /error/code`), `${name}: ${codes.join(", ")}`);
      assert.deepEqual(codes, [...new Set(codes)], `${name}: each defect once`);
    }
  });

  test("a modern server: the trace shows server/discover then tools/list, with the request sent and the body seen", () => {
    const r = seen.get("modern")!.result;
    assert.deepEqual(
      r.trace.map((t) => t.step),
      ["server/discover", "tools/list"],
    );
    assert.deepEqual((r.trace[0]!.request as { method?: string }).method, "server/discover");
    assert.equal(r.trace[0]!.status, 200);
    assert.match(r.trace[1]!.bodyExcerpt ?? "", /"tools":\[/);
    assert.deepEqual(r.defects, []);
    assert.equal(r.server?.name, "fleet-modern");
  });

  test("compressed answers are decoded as fetch decodes them, JSON and SSE alike, and cost no defect", () => {
    for (const name of ["gzip", "brotli-sse"]) {
      const r = seen.get(name)!.result;
      assert.deepEqual(r.defects, [], name);
      if (name === "gzip")
        assert.match(r.trace.find((t) => t.step === "tools/list")?.bodyExcerpt ?? "", /"tools":\[/, name);
      assert.equal((r.trace[0]!.request as { method?: string }).method, "server/discover");
    }
  });

  test("a compression bomb ends at the cap, which counts decoded bytes", () => {
    const r = seen.get("gzip-bomb")!.result;
    assert.match(r.trace[0]!.error ?? "", /cap/);
  });

  test("a trailing-slash redirect is followed and warned about, once, with the advice naming it", () => {
    const r = seen.get("slash-redirect")!.result;
    const warnings = r.defects.filter((d) => d.code === "redirect");
    assert.equal(warnings.length, 1, JSON.stringify(r.defects));
    assert.equal(warnings[0]!.severity, "warning");
    assert.match(warnings[0]!.message, /trailing slash/);
    assert.match(r.advice, /not cleanly: redirect/);
    assert.ok(
      r.trace.every((t) => t.step.startsWith("GET") || t.status === 200),
      JSON.stringify(r.trace),
    );
  });

  test("a legacy server over HTTP+SSE: POST refused, then the GET stream and the endpoint it names", () => {
    const r = seen.get("http-sse")!.result;
    const steps = r.trace.map((t) => t.step);
    assert.ok(
      steps.some((s) => s.startsWith("GET ")),
      JSON.stringify(steps),
    );
    assert.ok(steps.includes("initialize") && steps.includes("tools/list"), JSON.stringify(steps));
  });

  test("an ok verdict carries warnings: a modern result without resultType", () => {
    const r = seen.get("modern-no-result-type")!.result;
    const d = r.defects.find((x) => x.code === "result_type_missing")!;
    assert.equal(d.severity, "warning");
    assert.match(r.advice, /result_type_missing/);
  });

  test("a server that errors on initialize naming the version but works with an older revision: retried, and the broken negotiation recorded", () => {
    const r = seen.get("version-retry")!.result;
    const offered = r.trace
      .filter((t) => t.step === "initialize")
      .map((t) => (t.request as { params: { protocolVersion: string } }).params.protocolVersion);
    assert.deepEqual(offered, ["2025-11-25", "2025-06-18", "2025-03-26"]);
    const d = r.defects.find((x) => x.code === "version_not_negotiated")!;
    assert.match(d.message, /2025-03-26 worked/);
  });

  test("a server that rejects every version: retried with each older revision, then rpc_error", () => {
    const r = seen.get("unsupported-version")!.result;
    assert.equal(r.trace.filter((t) => t.step === "initialize").length, 4);
    assert.ok(!r.defects.some((d) => d.code === "version_not_negotiated"));
  });

  test("-32001 'invalid api key' is auth_required, and rpcError still carries the code and message", () => {
    const r = seen.get("invalid-api-key")!.result;
    assert.match(r.advice, /HTTP 401/);
    assert.match(r.repro!, /"method":"initialize"/);
  });

  test("a failing verdict's trace keeps the evidence: status, content type, the body's first bytes", () => {
    const web = seen.get("web-page")!.result;
    const last = web.trace[web.trace.length - 1]!;
    assert.equal(last.status, 200);
    assert.match(last.contentType ?? "", /text\/html/);
    assert.match(last.bodyExcerpt ?? "", /^<!DOCTYPE html>/);
    const proxy = seen.get("http-502")!.result;
    assert.match(proxy.advice, /proxy or gateway/);
    assert.match(proxy.trace[proxy.trace.length - 1]!.bodyExcerpt ?? "", /502 Bad Gateway/);
  });

  test("a same-origin redirect is followed (a login page); one to another origin is not", () => {
    const login = seen.get("login-page")!.result;
    assert.ok(
      login.trace.every((t) => !t.error || /not a JSON-RPC message/.test(t.error)),
      JSON.stringify(login.trace),
    );
    assert.ok(
      login.trace.some((t) => t.bodyExcerpt?.includes("Sign in to continue")),
      "the login form was read",
    );
    const redirect = seen.get("redirect-other-origin")!.result;
    assert.match(redirect.trace[0]!.error ?? "", /another origin/);
  });

  test("hangs end at the deadline with the stalled step, within a generous bound", () => {
    for (const name of ["hang", "hang-after-initialize", "hang-on-initialize", "drip", "endless-sse"]) {
      const s = seen.get(name)!;
      assert.equal(s.result.class, "timeout", name);
      assert.ok(s.wallMs < SHORT + SLACK, `${name}: ${Math.round(s.wallMs)} ms`);
    }
  });

  test("the 1 GB body: the probe stops at its cap", () => {
    const r = seen.get("huge-body")!.result;
    assert.ok((r.trace[0]!.bodyExcerpt ?? "").length <= 260, "the excerpt is capped");
  });
});

describe("probe over stdio, against the fleet", () => {
  for (const name of [
    "stdio-modern",
    "stdio-legacy",
    "stdio-banner",
    "stdio-exit-on-request",
    "stdio-version-retry",
    "stdio-invalid-key",
    "stdio-crash",
    "stdio-hang",
    "stdio-not-json",
    "stdio-bare-array",
    "stdio-missing",
  ]) {
    test(name, () => check(fleet.get(name)));
  }

  test("every command of the fleet is checked above", () => {
    for (const c of fleet.stdio) assert.ok(seen.has(c.name), c.name);
  });

  test("a banner line before the JSON: ok, with the parse error kept as a defect and named in the advice", () => {
    const r = seen.get("stdio-banner")!.result;
    assert.match(r.defects.find((d) => d.code === "parse_error")!.message, /Weather MC/);
    assert.match(r.advice, /parse_error/);
  });

  test("a server that exits on the first request (rmcp-like): restarted for initialize, and the trace says so", () => {
    const r = seen.get("stdio-exit-on-request")!.result;
    const steps = r.trace.map((t) => t.step);
    assert.ok(steps.includes("reconnect"), JSON.stringify(steps));
    assert.match(
      r.trace.find((t) => t.step.startsWith("process 1 exited"))?.bodyExcerpt ?? "",
      /expected initialize request/,
    );
  });

  test("a server that refuses newer versions: a fresh process for each older revision, until one works", () => {
    const r = seen.get("stdio-version-retry")!.result;
    const initialize = r.trace.filter((t) => t.step === "initialize");
    assert.deepEqual(
      initialize.map((t) => t.error ?? "ok"),
      ["error: Unsupported protocol version: 2025-11-25", "error: Unsupported protocol version: 2025-06-18", "ok"],
    );
    assert.match(r.defects.find((d) => d.code === "version_not_negotiated")!.message, /2025-03-26 worked/);
  });

  test("a server that crashes at start: its stderr and exit status are the evidence", () => {
    const r = seen.get("stdio-crash")!.result;
    const exit = r.trace.find((t) => t.step.startsWith("process 1 exited (code 1)"));
    assert.match(exit?.bodyExcerpt ?? "", /WEATHER_API_KEY environment variable is required/);
  });

  test("a command that does not exist: spawn, with the reason", () => {
    const r = seen.get("stdio-missing")!.result;
    assert.ok(
      r.trace.some((t) => /ENOENT/.test(t.step)),
      JSON.stringify(r.trace),
    );
    assert.deepEqual([r.class, r.detail], ["unreachable", "spawn"]);
    assert.match(
      r.advice,
      /^\S+ could not be started: ENOENT \(no such file, or not on PATH\)\. Check that the command is installed/,
    );
    // the requests failed for that reason, not because "the other side closed the connection"
    assert.ok(
      r.trace.every((t) => !/other side closed/.test(t.error ?? "")),
      JSON.stringify(r.trace),
    );
  });
});

describe("probe: secrets, caps, and never throwing", () => {
  test("header values never appear in the verdict, even when the server echoes them", async () => {
    const secret = "wrong-secret-5e1f0c2b";
    const r = await within(
      probeHttp(fleet.url("auth-bearer"), {
        headers: { Authorization: `Bearer ${secret}`, "X-Api-Key": "k-123456789" },
      }),
      "the promise",
      15_000,
    );
    assert.equal(r.class, "auth_required");
    const text = JSON.stringify(r);
    assert.ok(!text.includes(secret), "the token is not in the verdict");
    assert.ok(!text.includes("k-123456789"), "the other header is not in the verdict");
    assert.match(r.repro!, /-H 'Authorization: <redacted>'/);
    assert.match(r.repro!, /-H 'X-Api-Key: <redacted>'/);
    // the server's echo is still there, with the credential hidden
    assert.match(r.trace[0]!.bodyExcerpt ?? "", /Invalid credentials: <redacted>"/);
  });

  test("the right token opens the server, and it is not in the verdict either", async () => {
    const r = await within(
      probeHttp(fleet.url("auth-bearer"), { headers: { Authorization: `Bearer ${fleet.token}` } }),
      "the promise",
      15_000,
    );
    assert.equal(r.class, "ok");
    assert.equal(r.detail, "modern");
    assert.ok(!JSON.stringify(r).includes(fleet.token));
  });

  test("redactSecrets: whole values and the words in them, not the scheme, not short values", () => {
    const out = redactSecrets(
      { a: "Bearer abcdefgh and abcdefgh", b: ["x-1234567"], c: 5, d: "use --header 'Authorization: Bearer …'" },
      { Authorization: "Bearer abcdefgh", X: "x-1234567", Short: "ab" },
    );
    assert.deepEqual(out, {
      a: "<redacted> and <redacted>",
      b: ["<redacted>"],
      c: 5,
      d: "use --header 'Authorization: Bearer …'",
    });
  });

  test("--max-bytes: a body past the cap is too_large, whatever the cap", async () => {
    const r = await within(probeHttp(fleet.url("web-page"), { maxBytes: 64 }), "the promise", 15_000);
    assert.equal(r.class, "protocol_violation");
    assert.equal(r.detail, "too_large");
  });

  test("--max-bytes: an SSE answer of endless small events is too_large at the cap, not a timeout", async () => {
    let closed = false;
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const pump = () => {
        while (
          !closed &&
          res.write(
            `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "tick" } })}\n\n`,
          )
        );
        if (!closed) res.once("drain", pump);
      };
      res.on("close", () => (closed = true));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const r = await within(
        probeHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
          maxBytes: 64 * 1024,
          timeout: 60_000,
        }),
        "the promise",
        60_000,
      );
      assert.deepEqual([r.class, r.detail], ["protocol_violation", "too_large"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("the cap holds on the retries with older revisions too", async () => {
    // this server's refusals take about 100 bytes, the initialize result it finally gives 150:
    // with a cap of 120 the retry that would work is refused, and the first refusal stands
    const r = await within(probeHttp(fleet.url("version-retry"), { maxBytes: 120 }), "the promise", 15_000);
    assert.deepEqual([r.class, r.detail], ["rpc_error", "unsupported_version"]);
    assert.ok(
      r.trace.some((t) => /passed the 120-byte cap/.test(t.error ?? "")),
      JSON.stringify(r.trace),
    );
  });

  test("a revision asked for is spoken exactly: no detection", async () => {
    const r = await within(probeHttp(fleet.url("legacy"), { revision: "2025-06-18" }), "the promise", 15_000);
    assert.equal(r.class, "ok");
    assert.equal(r.revision, "2025-06-18");
    assert.deepEqual(r.trace.map((t) => t.step).slice(0, 1), ["initialize"]);
  });

  test("never throws, whatever it is given", async () => {
    const results = await within(
      Promise.all([
        probeHttp("not a url"),
        probeHttp("http://127.0.0.1:0/"),
        probeHttp(fleet.url("modern"), { timeout: 1 }),
        probeStdio("", []),
        probeStdio(
          process.execPath,
          ["-e", "process.stdout.write('\\u0000\\uffff{[\\n'); setTimeout(() => process.exit(0), 50)"],
          { timeout: 3000 },
        ),
      ]),
      "the promise",
      20_000,
    );
    for (const r of results) assert.ok(PROBE_CLASSES.includes(r.class), JSON.stringify(r));
    assert.equal(results[2]!.class, "timeout");
  });
});

describe("classify: what no loopback server can show honestly", () => {
  const httpError = (networkCode: string) =>
    new HttpError(
      { failure: "network", step: "server/discover", url: "http://mcp.example/", networkCode },
      "no HTTP answer",
    );

  test("a name that does not resolve is unreachable/dns", () => {
    for (const code of ["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME"])
      assert.deepEqual(classifyHttpError(httpError(code)), { class: "unreachable", detail: "dns" }, code);
  });

  test("a connection never accepted in time is timeout/connect", () => {
    for (const code of ["UND_ERR_CONNECT_TIMEOUT", "ETIMEDOUT"])
      assert.deepEqual(classifyHttpError(httpError(code)), { class: "timeout", detail: "connect" }, code);
  });

  test("certificate failures are unreachable/tls", () => {
    for (const code of [
      "CERT_HAS_EXPIRED",
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    ]) {
      assert.deepEqual(classifyHttpError(httpError(code)), { class: "unreachable", detail: "tls" }, code);
    }
  });

  test("JSON-RPC errors by code and message; auth words outrank the code", () => {
    const cases: [number, string, string, string][] = [
      [-32601, "Method not found", "rpc_error", "method_not_found"],
      [-32602, "Unsupported MCP protocol version", "rpc_error", "unsupported_version"],
      [-32022, "Unsupported protocol version", "rpc_error", "unsupported_version"],
      [-32602, "Invalid params: name", "rpc_error", "invalid_params"],
      [-32603, "Internal error", "rpc_error", "internal_error"],
      [-32000, "Server error", "rpc_error", "legacy_code"],
      [42, "nope", "rpc_error", "other"],
      [-32001, "invalid api key", "auth_required", "rpc_error_instead_of_401"],
      [-32001, "Authentication failed", "auth_required", "rpc_error_instead_of_401"],
      [-32603, "Unauthorized", "auth_required", "rpc_error_instead_of_401"],
    ];
    for (const [code, message, cls, detail] of cases) {
      const c = classifyRpcError(code, message);
      assert.deepEqual(
        [c.class, c.detail, c.rpcError?.code, c.rpcError?.message],
        [cls, detail, code, message],
        `${code} ${message}`,
      );
    }
  });

  test("an empty 202 to a request is not an empty body: the server took the request for a notification", () => {
    const e = new HttpError(
      { failure: "no_response", step: "initialize", url: "http://x/", status: 202, contentType: "", bodyExcerpt: "" },
      "HTTP 202 with no body",
    );
    assert.deepEqual(classifyFailure(e, [], false), {
      class: "protocol_violation",
      detail: "no_response_http_202",
      http: { status: 202, contentType: "" },
    });
  });
});

/** A self-signed certificate for 127.0.0.1, made by openssl when it is installed. */
function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-tls-"));
  try {
    const r = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        join(dir, "k.pem"),
        "-out",
        join(dir, "c.pem"),
        "-subj",
        "/CN=127.0.0.1",
        "-days",
        "1",
      ],
      { timeout: 10_000, stdio: "ignore" },
    );
    if (r.status !== 0) return undefined;
    return { key: readFileSync(join(dir, "k.pem")), cert: readFileSync(join(dir, "c.pem")) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("probe: a self-signed certificate on 127.0.0.1", () => {
  const pair = selfSigned();
  let server: HttpsServer | undefined;
  after(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  test(
    "unreachable/tls, with the certificate error as evidence",
    { skip: pair ? false : "openssl is not installed" },
    async () => {
      server = createHttpsServer(pair!, (_req, res) =>
        res.writeHead(200, { "content-type": "application/json" }).end("{}"),
      );
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const r = await within(probeHttp(url, { timeout: 5000 }), "the promise", 10_000);
      assert.deepEqual([r.class, r.detail], ["unreachable", "tls"]);
      assert.match(r.trace[0]?.error ?? "", /SELF_SIGNED|self-signed|TLS/i);
      server.closeAllConnections();
    },
  );
});

describe("probe: the repro line replays the failure", () => {
  const curl = spawnSync("curl", ["--version"], { stdio: "ignore" }).status === 0;

  test(
    "the curl line of a wrong jsonrpc version gets the same answer",
    { skip: curl ? false : "curl is not installed" },
    async () => {
      const repro = seen.get("wrong-jsonrpc")!.result.repro!;
      const out = await new Promise<string>((resolve, reject) =>
        execFile("sh", ["-c", repro], { timeout: 10_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
      );
      assert.match(out, /^HTTP\/1\.1 200/);
      assert.match(out, /"jsonrpc":"1\.0"/);
    },
  );

  test("the printf line of a bare-array server gets the same answer", async () => {
    const repro = seen.get("stdio-bare-array")!.result.repro!;
    const out = await new Promise<string>((resolve, reject) =>
      execFile("sh", ["-c", repro], { timeout: 10_000 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
    );
    assert.equal(out.trim(), JSON.stringify([{ name: "search", description: "Searches." }]));
  });
});
