#!/usr/bin/env node
/**
 * `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance,
 * pinned in package.json) against `mcp-wire serve --http <port> --conformance` on 127.0.0.1,
 * once per revision, scored against the scenarios that revision requires; then the extension
 * scenarios (the tasks extension's, which no revision requires), each run alone; then mcp-wire's
 * client (scripts/conformance-client.mjs) against the suite's mock servers, scenario by scenario.
 *
 * Prints, per revision, the required scenarios that passed and the ones that failed (with the
 * first failing check), the same for the client scenarios, then a last line
 * `conformance: N passed, M failed` counting checks in required scenarios, as the suite's own
 * summaries do, over both. Exit status 0 when nothing failed.
 *
 * Environment: CONFORMANCE_OUT keeps the suite's results there (default: a temporary directory,
 * removed afterwards); CONFORMANCE_REVISIONS="2026-07-28" runs only the listed revisions;
 * CONFORMANCE_EXTENSIONS=0 skips the extension scenarios.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const SUITE = (() => {
  try {
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
      "dist/index.js",
    );
  } catch {
    console.log("conformance: @modelcontextprotocol/conformance is not installed (npm install, with devDependencies)");
    console.log("conformance: 0 passed, 1 failed");
    process.exit(1);
  }
})();
const REVISIONS = (process.env.CONFORMANCE_REVISIONS ?? "2025-11-25 2026-07-28").split(/[\s,]+/).filter(Boolean);
/**
 * The extension scenarios `mcp-wire serve --conformance` is scored on: every one `conformance
 * list --server` marks `[extension]` for the extensions it serves (the tasks extension; not the
 * skills extension, whose scenarios pass vacuously for a server without skills).
 */
const SERVED_EXTENSIONS = /^tasks-/;
/** Per revision; the suite's own per-scenario timeout is 30 s and server scenarios run one at a time. */
const SUITE_DEADLINE_MS = 15 * 60_000;

// ───────────────────────────────────────────── CLIENT SCENARIOS ─────────────────────────────────────────────
// The command that runs mcp-wire as an MCP client. `conformance client --command CMD` splits CMD
// on spaces, appends the URL of a mock server it starts for each scenario as the last argument,
// runs it through a shell, and sets MCP_CONFORMANCE_SCENARIO (the scenario name),
// MCP_CONFORMANCE_PROTOCOL_VERSION (the revision) and, for scenarios that need data, a JSON
// MCP_CONFORMANCE_CONTEXT. The client must exit by itself (killed after 30 s).
// Run one scenario at a time (--scenario, --spec-version): --requirements would also run the
// authorization scenarios, which this client does not attempt. MCP_WIRE_CONFORMANCE_CLIENT
// replaces the command.
const CLIENT_COMMAND =
  process.env.MCP_WIRE_CONFORMANCE_CLIENT ??
  [process.execPath, path.join(ROOT, "scripts/conformance-client.mjs")].map(shellWord).join(" ");
const CLIENT_SCENARIOS = {
  "2025-11-25": ["initialize", "tools_call", "sse-retry"],
  "2026-07-28": [
    "tools_call",
    "request-metadata",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "sep-2322-client-request-state",
  ],
};
// ──────────────────────────────────────────────────────────────────────────────────────────────────────────

/** A word the shell reads back as it is; the suite's split on spaces and rejoin keep it intact. */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** `mcp-wire serve --http PORT --conformance`, resolved with its URL once it listens. */
function startServer(port) {
  const child = spawn(process.execPath, [CLI, "serve", "--http", String(port), "--conformance"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 15 s:\n${stderr}`)), 15_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const found = /listening on (\S+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr };
}

function stopServer(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * The suite imports `globSync` from fs, which Node 20 lacks; only its `tier-check` command uses
 * it. On Node < 22 an ESM resolve hook hands the suite an fs with a stub in its place.
 */
function nodeFlags(dir) {
  if (Number(process.versions.node.split(".")[0]) >= 22) return [];
  const shim = path.join(dir, "node20-shim");
  mkdirSync(shim, { recursive: true });
  writeFileSync(
    path.join(shim, "fs-globsync.mjs"),
    `export * from "node:fs";
import fs from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync is unavailable on Node " + process.version + " (only conformance tier-check needs it)");
}
`,
  );
  writeFileSync(
    path.join(shim, "hooks.mjs"),
    `const SHIM = new URL("./fs-globsync.mjs", import.meta.url).href;
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    path.join(shim, "register.mjs"),
    `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
  );
  return ["--import", path.join(shim, "register.mjs")];
}

/** Runs the suite's CLI; resolves with its exit code and output (never rejects). */
function suite(flags, args, logFile) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...flags, SUITE, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), SUITE_DEADLINE_MS);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (logFile) writeFileSync(logFile, output);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** Scenario names under a heading of `conformance list` ("Server scenarios …"), before "Run and reported". */
function listed(output, heading) {
  const names = [];
  let on = false;
  for (const line of output.split("\n")) {
    if (/^\S/.test(line) || /^Run and reported/.test(line)) on = line.startsWith(heading);
    const m = /^\s+- (\S+)\s*$/.exec(line);
    if (on && m) names.push(m[1]);
  }
  return names;
}

/** Every scenario's checks from a results directory: { name: [check, …] }. */
function results(dir, prefix) {
  const byScenario = {};
  if (!existsSync(dir)) return byScenario;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name, "checks.json");
    if (!entry.isDirectory() || !existsSync(file)) continue;
    const name = entry.name.replace(/-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/, "").replace(prefix, "");
    try {
      byScenario[name] = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      byScenario[name] = [{ id: name, status: "FAILURE", errorMessage: "checks.json unreadable" }];
    }
  }
  return byScenario;
}

function tally(checks) {
  const count = (s) => checks.filter((c) => c.status === s).length;
  return { pass: count("SUCCESS"), fail: count("FAILURE"), warn: count("WARNING") };
}

async function runRevision(flags, url, revision, out) {
  const dir = path.join(out, `server-${revision}`);
  const list = await suite(flags, ["list", "--server", "--requirements", revision]);
  const required = listed(list.output, "Server scenarios");
  const run = await suite(
    flags,
    ["server", "--url", url, "--requirements", revision, "-o", dir],
    path.join(out, `server-${revision}.log`),
  );
  const found = results(dir, /^server-/);
  const lines = [];
  let pass = 0;
  let fail = 0;
  const failing = [];
  for (const name of required) {
    const checks = found[name];
    if (!checks) {
      failing.push(name);
      fail += 1;
      lines.push(`  FAIL ${name}: no results`);
      continue;
    }
    const t = tally(checks);
    pass += t.pass;
    fail += t.fail;
    if (t.fail > 0 || t.pass === 0) {
      failing.push(name);
      const first = checks.find((c) => c.status === "FAILURE");
      lines.push(
        `  FAIL ${name}: ${t.pass} passed, ${t.fail} failed${
          first
            ? ` (${first.id}: ${String(first.errorMessage ?? "")
                .split("\n")[0]
                .slice(0, 200)})`
            : ""
        }`,
      );
    }
  }
  const extra = Object.keys(found).filter((n) => !required.includes(n));
  // the suite's own verdict counts too: an exit no failed or warned check explains (a crash, a
  // scenario that never ran) is one more failure
  const explained = Object.values(found).some((checks) =>
    checks.some((c) => c.status === "FAILURE" || c.status === "WARNING"),
  );
  if (run.code !== 0 && !explained) {
    fail += 1;
    lines.push(`  FAIL the suite exited ${run.code} with no failed check to explain it`);
  }
  const extraFailing = extra.filter((n) => tally(found[n]).fail > 0);
  console.log(
    `${revision}: ${required.length - failing.length}/${required.length} required server scenarios passed; checks: ${pass} passed, ${fail} failed (suite exit ${run.code})`,
  );
  for (const line of lines) console.log(line);
  if (extra.length > 0) {
    console.log(
      `  not scored at ${revision}: ${extra.length} run, ${extra.length - extraFailing.length} without failures${extraFailing.length ? `; failing: ${extraFailing.join(", ")}` : ""}`,
    );
  }
  if (required.length === 0) {
    console.log(`  the suite listed no required scenarios; its output:\n${list.output}`);
    fail += 1;
  }
  return { pass, fail };
}

/** The extension scenarios, each run alone; a scenario whose every check the suite skips is reported, not failed. */
async function runExtensions(flags, url, out) {
  const list = await suite(flags, ["list", "--server"]);
  const scenarios = [...list.output.matchAll(/^\s+- (\S+) \[extension\]\s*$/gm)]
    .map((m) => m[1])
    .filter((name) => SERVED_EXTENSIONS.test(name));
  const dir = path.join(out, "server-extensions");
  let pass = 0;
  let fail = 0;
  const lines = [];
  let passed = 0;
  for (const scenario of scenarios) {
    const run = await suite(
      flags,
      ["server", "--url", url, "--scenario", scenario, "-o", dir],
      path.join(out, `extension-${scenario}.log`),
    );
    const checks = results(dir, /^server-/)[scenario] ?? [
      { id: scenario, status: "FAILURE", errorMessage: "no results" },
    ];
    const t = tally(checks);
    const skipped = checks.length > 0 && checks.every((c) => c.status === "SKIPPED");
    if (!skipped && run.code !== 0 && t.fail === 0)
      checks.push({ id: "suite-exit", status: "FAILURE", errorMessage: `the suite exited ${run.code}` });
    const u = tally(checks);
    pass += u.pass;
    fail += u.fail;
    if (skipped) {
      passed += 1;
      lines.push(
        `  SKIP ${scenario}: the suite skips every check (${String(checks[0].errorMessage ?? "").slice(0, 120)})`,
      );
    } else if (u.fail > 0 || u.pass === 0) {
      if (u.pass === 0 && u.fail === 0) fail += 1;
      const first = checks.find((c) => c.status === "FAILURE");
      lines.push(
        `  FAIL ${scenario}: ${u.pass} passed, ${u.fail} failed${
          first
            ? ` (${first.id}: ${String(first.errorMessage ?? "")
                .split("\n")[0]
                .slice(0, 200)})`
            : ""
        }`,
      );
    } else passed += 1;
  }
  console.log(
    `extensions: ${passed}/${scenarios.length} extension scenarios passed or skipped by the suite; checks: ${pass} passed, ${fail} failed`,
  );
  for (const line of lines) console.log(line);
  if (scenarios.length === 0) {
    console.log(`  the suite listed no extension scenarios; its output:\n${list.output}`);
    fail += 1;
  }
  return { pass, fail };
}

async function runClients(flags, revision, out) {
  const scenarios = CLIENT_SCENARIOS[revision] ?? [];
  const dir = path.join(out, `client-${revision}`);
  let pass = 0;
  let fail = 0;
  const lines = [];
  for (const scenario of scenarios) {
    const run = await suite(
      flags,
      ["client", "--command", CLIENT_COMMAND, "--scenario", scenario, "--spec-version", revision, "-o", dir],
      path.join(out, `client-${revision}-${scenario.replace(/\W/g, "_")}.log`),
    );
    const checks = results(dir, /^$/)[scenario] ?? [{ id: scenario, status: "FAILURE", errorMessage: "no results" }];
    // the suite also fails a scenario whose client timed out or exited with an error (unless the
    // scenario allows it), and no check says so: it counts here as one failed check
    const ended = /CLIENT TIMED OUT|CLIENT EXITED WITH ERROR \(code -?\d+\)/.exec(run.output)?.[0];
    if (ended) checks.push({ id: "client-process", status: "FAILURE", errorMessage: ended.toLowerCase() });
    else if (run.code !== 0 && !checks.some((c) => c.status === "FAILURE" || c.status === "WARNING"))
      checks.push({ id: "suite-exit", status: "FAILURE", errorMessage: `the suite exited ${run.code}` });
    const t = tally(checks);
    pass += t.pass;
    fail += t.fail;
    const first = checks.find((c) => c.status === "FAILURE") ?? checks.find((c) => c.status === "WARNING");
    const detail = first
      ? ` (${first.id}: ${String(first.errorMessage ?? first.description ?? "")
          .split("\n")[0]
          .slice(0, 200)})`
      : "";
    if (t.fail > 0 || t.pass === 0)
      lines.push({ failed: true, text: `  FAIL ${scenario}: ${t.pass} passed, ${t.fail} failed${detail}` });
    // the suite fails a scenario on a warning too; counted here, as on the server side, as neither
    else if (t.warn > 0)
      lines.push({ failed: false, text: `  WARN ${scenario}: ${t.pass} passed, ${t.warn} warning(s)${detail}` });
  }
  const failing = lines.filter((l) => l.failed).length;
  console.log(
    `${revision}: ${scenarios.length - failing}/${scenarios.length} client scenarios passed; checks: ${pass} passed, ${fail} failed`,
  );
  for (const line of lines) console.log(line.text);
  return { pass, fail };
}

const keep = process.env.CONFORMANCE_OUT;
const out = keep ? path.resolve(keep) : mkdtempSync(path.join(tmpdir(), "mcp-wire-conformance-"));
mkdirSync(out, { recursive: true });
const flags = nodeFlags(out);
const server = startServer(await freePort());
let total = { pass: 0, fail: 0 };
try {
  const url = await server.url;
  console.log(
    `conformance suite against ${url} (mcp-wire serve --conformance), results in ${keep ? out : "a temporary directory"}`,
  );
  for (const revision of REVISIONS) {
    const r = await runRevision(flags, url, revision, out);
    const c = await runClients(flags, revision, out);
    total = { pass: total.pass + r.pass + c.pass, fail: total.fail + r.fail + c.fail };
  }
  if (process.env.CONFORMANCE_EXTENSIONS !== "0") {
    const e = await runExtensions(flags, url, out);
    total = { pass: total.pass + e.pass, fail: total.fail + e.fail };
  }
} catch (e) {
  console.log(`conformance: could not run: ${e instanceof Error ? e.message : String(e)}`);
  total.fail += 1;
} finally {
  await stopServer(server.child);
  if (!keep) rmSync(out, { recursive: true, force: true });
}
console.log(`conformance: ${total.pass} passed, ${total.fail} failed`);
process.exitCode = total.fail > 0 ? 1 : 0;
