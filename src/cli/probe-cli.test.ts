/**
 * `mcp-wire probe` as a user runs it, against the demo fleet: exit statuses (0 ok, 1 any other
 * class, 2 a usage error), the `--json` object with every field docs/probe.md names, headers from
 * the environment and never printed, a hang ended by `--timeout`, a 1 GB body read no further
 * than the cap (the process's peak RSS), and a start that loads only what probing needs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { startFleet, type Fleet, type FleetCommand } from "../fleet/fleet.js";
import { PROBE_CLASSES } from "../probe/verdict.js";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
/** The fields of the `--json` object (docs/probe.md); `repro` comes with failing verdicts. */
const FIELDS = [
  "target",
  "class",
  "detail",
  "era",
  "revision",
  "transport",
  "http",
  "rpcError",
  "tools",
  "defects",
  "advice",
  "elapsedMs",
  "trace",
];

let fleet: Fleet;
let scratch: string;

before(async () => {
  fleet = await startFleet();
  scratch = mkdtempSync(join(tmpdir(), "mcp-wire-probe-cli-"));
});
after(async () => {
  await fleet?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/**
 * Runs a command asynchronously (the fleet it calls lives in this process, whose event loop must
 * stay free), killed if it outlives `ms`.
 */
function exec(command: string, args: string[], env: Record<string, string> = {}, ms = 30_000): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, wallMs: performance.now() - t0 });
    });
  });
}

const cli = (args: string[], env: Record<string, string> = {}, ms?: number) =>
  exec(process.execPath, [MAIN, "probe", ...args], env, ms);

async function json(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ run: Run; v: Record<string, unknown> }> {
  const run = await cli(["--json", ...args], env);
  assert.equal(
    run.stdout.trim().split("\n").length,
    1,
    `one JSON object on one line: ${run.stdout.slice(0, 500)} ${run.stderr}`,
  );
  return { run, v: JSON.parse(run.stdout) as Record<string, unknown> };
}

// each test its own endpoints and files, and the fleet in this process: the probes run side by side
describe("mcp-wire probe: exit status and output", { concurrency: true }, () => {
  test("a healthy modern server: exit 0, a verdict a person can read", async () => {
    const r = await cli([fleet.url("modern")]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^✓ ok \(modern\) {2}http:\/\/127\.0\.0\.1:\d+\/modern$/m);
    assert.match(r.stdout, /modern era, 2026-07-28 · streamable-http · server fleet-modern 1\.0\.0 · 3 tools · \d+ ms/);
    assert.doesNotMatch(r.stdout, /replay:/);
    assert.equal(r.stderr, "");
  });

  test("a server's own strings reach the terminal as text: its name cannot retitle it or write a CI command", async () => {
    const server = join(scratch, "hostile-name.mjs");
    writeFileSync(
      server,
      `import { createInterface } from "node:readline";
const name = "evil\\u001b]0;pwned\\u0007\\n::error::injected";
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
  if (m.method === "initialize")
    answer({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name, version: "1\\r\\u009b2J" } });
  else if (m.method === "tools/list") answer({ tools: [] });
  else process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } }) + "\\n");
});
`,
    );
    const r = await cli(["-v", "--stdio", "--", process.execPath, server]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /server evil\\u001b\]0;pwned\\u0007\\u000a::error::injected 1\\u000d\\u009b2J/);
    assert.doesNotMatch(r.stdout, /[\u001b\u0007\r\u009b]|\n::error::/);
  });

  test("ok, yet exit 1 for an error defect: the line under the verdict says why", async () => {
    const banner = [fileURLToPath(new URL("../fleet/stdio-server.js", import.meta.url)), "banner"];
    const r = await cli(["--stdio", "--", process.execPath, ...banner]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^✓ ok \(/m);
    assert.match(
      r.stdout,
      /^ {2}exit 1: the server answers, but broke a rule at error on the way \(the defects below\)/m,
    );
    const passed = await cli(["--fail-on", "never", "--stdio", "--", process.execPath, ...banner]);
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    assert.doesNotMatch(passed.stdout, /exit 1/);
  });

  test("--json: every field docs/probe.md names, for an ok verdict", async () => {
    const { run, v } = await json([fleet.url("modern")]);
    assert.equal(run.status, 0);
    for (const f of FIELDS) assert.ok(f in v, `field ${f}`);
    assert.deepEqual(
      [v.class, v.detail, v.era, v.revision, v.transport, v.tools, v.rpcError],
      ["ok", "modern", "modern", "2026-07-28", "streamable-http", 3, null],
    );
    assert.deepEqual(v.http, { status: 200, contentType: "application/json" });
    assert.deepEqual(v.defects, []);
    assert.equal(typeof v.advice, "string");
    assert.equal(typeof v.elapsedMs, "number");
    const trace = v.trace as Record<string, unknown>[];
    assert.deepEqual(
      trace.map((t) => t.step),
      ["server/discover", "tools/list"],
    );
    for (const t of trace)
      assert.deepEqual(
        [typeof t.ms, typeof t.status, typeof t.contentType, typeof t.bodyExcerpt, typeof t.request],
        ["number", "number", "string", "string", "object"],
      );
    assert.equal(v.repro, undefined);
  });

  test("--json: every field docs/probe.md names, and a repro, for a failing verdict", async () => {
    const { run, v } = await json([fleet.url("invalid-api-key")]);
    assert.equal(run.status, 1);
    for (const f of [...FIELDS, "repro"]) assert.ok(f in v, `field ${f}`);
    assert.deepEqual(
      [v.class, v.detail, v.era, v.revision, v.tools],
      ["auth_required", "rpc_error_instead_of_401", null, null, null],
    );
    assert.deepEqual(v.rpcError, { code: -32001, message: "invalid api key", range: "legacy" });
    assert.deepEqual(v.http, { status: 200, contentType: "application/json" });
    assert.match(
      String(v.repro),
      /^curl -sS -i -X POST http:\/\/127\.0\.0\.1:\d+\/invalid-api-key .*--data-raw '\{"jsonrpc":"2\.0","id":\d+,"method":"initialize"/,
    );
  });

  test("exit 1 for every class but ok, with the class and detail in the JSON", async () => {
    // one behaviour a class (the probe's own tests take every detail in-process)
    const names = ["web-page", "empty-body", "no-envelope", "method-not-found", "wrong-id", "http-404", "refused"];
    const runs = await Promise.all(names.map((n) => json([fleet.url(n)])));
    names.forEach((n, i) => {
      const { run, v } = runs[i]!;
      const x = fleet.get(n).expect;
      assert.equal(run.status, 1, n);
      assert.deepEqual([v.class, v.detail], [x.class, x.detail], n);
      assert.deepEqual(v.rpcError, x.rpcError, n);
      assert.ok(PROBE_CLASSES.includes(v.class as never));
      assert.match(String(v.repro), /^curl /, n);
    });
  });

  test("a failing verdict in words: the mark, the evidence, the body, the advice, the replay line", async () => {
    const r = await cli([fleet.url("http-502")]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^✗ http_error \(http_502\) {2}http:/m);
    assert.match(r.stdout, /HTTP 502 text\/html/);
    assert.match(r.stdout, /body: ".*502 Bad Gateway/);
    assert.match(r.stdout, /proxy or gateway/);
    assert.match(r.stdout, /replay: curl -sS -i -X POST /);
  });

  test("-v shows every exchange", async () => {
    const r = await cli(["-v", fleet.url("version-retry")]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /trace:\n\s+server\/discover → HTTP 400 application\/json \(\d+ ms\): /);
    assert.equal((r.stdout.match(/^\s+initialize → HTTP 200/gm) ?? []).length, 3);
    assert.match(r.stdout, /warning version_not_negotiated/);
  });

  test("--revision speaks exactly that revision", async () => {
    const { run, v } = await json(["--revision", "2025-06-18", fleet.url("legacy")]);
    assert.equal(run.status, 0);
    assert.deepEqual([v.class, v.era, v.revision], ["ok", "legacy", "2025-06-18"]);
  });

  test("--stdio: a stalled initialize is replayed as initialize", async () => {
    const hang = fleet.get("stdio-hang") as FleetCommand;
    const r = await cli(["--timeout", "3000", "--stdio", "--", hang.command, ...hang.args]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ timeout \(initialize\)/);
    assert.match(
      r.stdout,
      /replay: printf '%s\\n' '\{"jsonrpc":"2\.0","id":1,"method":"initialize","params":\{"protocolVersion":"2025-11-25"/,
    );
  });

  test("--stdio: a healthy server exits 0; a crashing one exits 1 and shows its stderr", async () => {
    const ok = fleet.get("stdio-modern") as FleetCommand;
    const good = await cli(["--stdio", "--", ok.command, ...ok.args]);
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /✓ ok \(modern\)/);
    const crash = fleet.get("stdio-crash") as FleetCommand;
    const bad = await cli(["--stdio", "--", crash.command, ...crash.args]);
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /✗ unreachable \(exited\)/);
    // what a stdio server wrote on stderr is called so, not a body
    assert.match(bad.stdout, /\n {2}stderr: "Error: WEATHER_API_KEY environment variable is required\\n"/);
    assert.doesNotMatch(bad.stdout, /body:/);
    assert.match(bad.stdout, /replay: printf '%s\\n' '\{"jsonrpc":"2\.0","id":1,"method":"server\/discover"/);
    const missing = fleet.get("stdio-missing") as FleetCommand;
    const { run, v } = await json(["--stdio", "--", missing.command]);
    assert.equal(run.status, 1);
    assert.deepEqual([v.class, v.detail, v.transport, v.http], ["unreachable", "spawn", "stdio", null]);
  });
});

describe("mcp-wire probe: usage errors exit 2", { concurrency: true }, () => {
  const cases: [string, string[], RegExp][] = [
    ["no target", [], /say which server/],
    ["--stdio without a command", ["--stdio"], /say which server/],
    ["not a URL", ["not a url"], /not a URL/],
    ["not http or https", ["ftp://127.0.0.1/mcp"], /only http and https/],
    ["two URLs", ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b"], /one URL/],
    ["--timeout not a number", ["--timeout", "soon", "http://127.0.0.1:1/mcp"], /--timeout takes milliseconds from 1/],
    ["--timeout zero", ["--timeout", "0", "http://127.0.0.1:1/mcp"], /--timeout takes milliseconds from 1/],
    ["an unknown --revision", ["--revision", "2099-01-01", "http://127.0.0.1:1/mcp"], /2099-01-01/],
    ["--max-bytes not a count", ["--max-bytes", "-5", "http://127.0.0.1:1/mcp"], /--max-bytes/],
    ["a header without a colon", ["--header", "Authorization", "http://127.0.0.1:1/mcp"], /'Name: value'/],
    [
      "a header naming a variable the environment lacks",
      ["--header", "Authorization: Bearer ${MCP_WIRE_TEST_UNSET_VARIABLE}", "http://127.0.0.1:1/mcp"],
      /no MCP_WIRE_TEST_UNSET_VARIABLE/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const r = await cli(args);
      assert.equal(r.status, 2, `${what}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, "");
    });
  }
});

describe("mcp-wire probe: credentials", { concurrency: true }, () => {
  test("--header 'Authorization: Bearer ${TOKEN}' reads TOKEN from the environment, and never prints it", async () => {
    const r = await cli(["-v", "--header", "Authorization: Bearer ${TOKEN}", fleet.url("auth-bearer")], {
      TOKEN: fleet.token,
    });
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /✓ ok \(modern\)/);
    assert.ok(!r.stdout.includes(fleet.token) && !r.stderr.includes(fleet.token));
    const { v } = await json(["--header", "Authorization: Bearer ${TOKEN}", fleet.url("auth-bearer")], {
      TOKEN: fleet.token,
    });
    assert.equal(v.class, "ok");
    assert.ok(!JSON.stringify(v).includes(fleet.token));
  });

  test("a refused credential: not in the output, the trace or the repro line, even where the server echoes it", async () => {
    const secret = "not-the-token-8d1e44";
    const human = await cli(
      ["-v", "--header", "Authorization: Bearer ${TOKEN}", "-H", "X-Api-Key: key-0f9e8d7c", fleet.url("auth-bearer")],
      { TOKEN: secret },
    );
    assert.equal(human.status, 1);
    for (const s of [secret, "key-0f9e8d7c"])
      assert.ok(!human.stdout.includes(s) && !human.stderr.includes(s), `${s} printed`);
    assert.match(human.stdout, /replay: curl .*-H 'Authorization: <redacted>' -H 'X-Api-Key: <redacted>'/);
    assert.match(human.stdout, /Invalid credentials: <redacted>/);
    const { v } = await json(["--header", "Authorization: Bearer ${TOKEN}", fleet.url("auth-bearer")], {
      TOKEN: secret,
    });
    assert.deepEqual([v.class, v.detail], ["auth_required", "http_401"]);
    assert.ok(!JSON.stringify(v).includes(secret));
    assert.match(String(v.repro), /'Authorization: <redacted>'/);
  });
});

describe("mcp-wire probe: deadline and byte cap", () => {
  test("a hang with --timeout 2000 is a timeout at the stalled step, and the process is gone soon after", async () => {
    const { run, v } = await json(["--timeout", "2000", fleet.url("hang")]);
    assert.equal(run.status, 1);
    assert.deepEqual([v.class, v.detail], ["timeout", "server/discover"]);
    assert.ok((v.elapsedMs as number) < 2000 + 3000, `elapsedMs ${String(v.elapsedMs)}`);
    // the process, start-up included, with a generous bound (it should take 0.5 s past the deadline)
    assert.ok(run.wallMs < 2000 + 3000 + 2000, `${Math.round(run.wallMs)} ms`);
  });

  test("a server stuck after initialize (its DELETE unanswered too): timeout at tools/list, and the process does not linger", async () => {
    const { run, v } = await json(["--timeout", "2000", fleet.url("hang-after-initialize")]);
    assert.deepEqual([v.class, v.detail, v.era], ["timeout", "tools/list", "legacy"]);
    assert.ok(run.wallMs < 2000 + 3000 + 2000, `${Math.round(run.wallMs)} ms`);
  });

  test("a 1 GB body: too_large, and the probe's peak RSS stays under 150 MB", async () => {
    const timeV = existsSync("/usr/bin/time") && (await exec("/usr/bin/time", ["-v", "true"])).status === 0;
    let run: Run;
    let peakKb: number;
    if (timeV) {
      run = await exec("/usr/bin/time", ["-v", process.execPath, MAIN, "probe", "--json", fleet.url("huge-body")]);
      peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1]);
    } else {
      // without GNU time, the process reports its own peak as it exits
      const hook = join(scratch, "maxrss.mjs");
      writeFileSync(
        hook,
        'process.on("exit", () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\\n`));\n',
      );
      run = await exec(process.execPath, [
        "--import",
        pathToFileURL(hook).href,
        MAIN,
        "probe",
        "--json",
        fleet.url("huge-body"),
      ]);
      peakKb = Number(/maxRSS (\d+)/.exec(run.stderr)?.[1]);
    }
    const v = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual([v.class, v.detail], ["protocol_violation", "too_large"]);
    assert.ok(Number.isFinite(peakKb) && peakKb > 0, run.stderr);
    assert.ok(peakKb < 150 * 1024, `peak RSS ${Math.round(peakKb / 1024)} MB`);
  });
});

describe("mcp-wire probe: loads only what probing needs", () => {
  test("no census, report, lint, tap or SQLite module, no SDK, no fleet", async () => {
    const log = join(scratch, "modules.log");
    const hooks = join(scratch, "hooks.mjs");
    const register = join(scratch, "register.mjs");
    writeFileSync(
      hooks,
      `import { appendFileSync } from "node:fs";\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(${JSON.stringify(log)}, r.url + "\\n");\n  return r;\n}\n`,
    );
    writeFileSync(
      register,
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const run = await exec(process.execPath, [
      "--import",
      pathToFileURL(register).href,
      MAIN,
      "probe",
      "--json",
      fleet.url("modern"),
    ]);
    assert.equal(run.status, 0, run.stderr);
    const loaded = readFileSync(log, "utf8").trim().split("\n");
    assert.ok(
      loaded.some((u) => u.endsWith("/probe/probe.js")),
      "the log is complete",
    );
    // matched below dist/src, so a checkout whose own path names one of these (a worktree "tap") still passes
    const unwanted = loaded.filter((u) =>
      /\/dist\/src\/(census|report|lint|tap|fleet)\/|sqlite|@modelcontextprotocol|\/mcp\/server\.js|\/transport\/http-server\.js/.test(
        u,
      ),
    );
    assert.deepEqual(unwanted, []);
  });
});
