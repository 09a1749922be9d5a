/**
 * `mcp-wire gauntlet` end to end, over real processes and loopback: the model client passes
 * every check of the scenarios run here (over HTTP and stdio; every scenario in every revision is
 * interop/gauntlet.test.ts's), one real client we did not write (the official SDK v1
 * `Client`) earns what its code says; the outputs `check` has. Clients that flood, send garbage
 * or never exit, and the full matrix of real clients, are interop/gauntlet.test.ts's.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DRIVERS, MODEL_CLIENT, gauntlet, outcomeOf, outcomes } from "../testkit/gauntlet.js";

test("the model client passes every check of these scenarios over HTTP, the scorecard names it, and --score gives the same from the recordings", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-test-"));
  try {
    const run = await gauntlet([
      "--auth",
      "--scenario",
      "lifecycle,pagination,server_requests,sse_resume,list_changed,auth_challenge",
      "--record",
      dir,
      "--",
      process.execPath,
      MODEL_CLIENT,
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(run.card?.client, { name: "mcp-wire-model-client", version: "1.0.0" });
    assert.match(run.card!.catalogue, /\S/);
    // no fail, warn or not_observed wherever a check applies
    for (const s of run.card!.scenarios) {
      assert.ok(["pass", "not_applicable"].includes(s.outcome), `${s.id}: ${JSON.stringify(s.checks)}`);
      for (const c of s.checks)
        assert.ok(c.outcome === "pass" || c.outcome === "not_applicable", `${c.id}: ${c.message}`);
    }
    assert.equal(outcomeOf(run.card, "pagination.last_page_called"), "pass");
    assert.equal(outcomeOf(run.card, "sse_resume.resumed"), "pass");
    assert.equal(outcomeOf(run.card, "sse_resume.retry_respected"), "pass");
    // 2026-07-28 announces the new tool only on the subscriptions/listen stream the client opened
    assert.equal(run.card!.scenarios.find((s) => s.id === "list_changed")?.revision, "2026-07-28");
    assert.equal(outcomeOf(run.card, "list_changed.new_tool_called"), "pass");
    // a 401 is read for where to sign in: the protected-resource metadata is fetched
    assert.equal(outcomeOf(run.card, "auth_challenge.metadata_fetched"), "pass");
    const scored = await gauntlet(["--score", dir]);
    assert.equal(scored.code, 0, scored.stdout + scored.stderr);
    assert.deepEqual(outcomes(scored.card)["sse_resume@2025-11-25"], outcomes(run.card)["sse_resume@2025-11-25"]);
    assert.equal(outcomeOf(scored.card, "sse_resume.retry_respected"), "pass");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("over stdio the client starts the server from {config}; the model client closes stdin first, and --record keeps the recording", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-test-"));
  try {
    const run = await gauntlet([
      "--stdio",
      "-r",
      "2025-11-25",
      "--scenario",
      "shutdown,tool_errors",
      "--record",
      dir,
      "--",
      process.execPath,
      MODEL_CLIENT,
      "--stdio",
      "{config}",
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const o = outcomes(run.card);
    assert.equal(o["shutdown@2025-11-25"]?.["shutdown.clean"], "pass");
    assert.equal(o["tool_errors@2025-11-25"]?.["tool_errors.after_protocol_error"], "pass");
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ["shutdown.2025-11-25.ndjson", "tool_errors.2025-11-25.ndjson"]);
    const header = JSON.parse(readFileSync(join(dir, files[0]!), "utf8").split("\n")[0]!);
    assert.equal(header.recording, 1);
    assert.equal(header.scenario, "shutdown");
    // the same recordings scored again later give the same verdicts
    const again = await gauntlet(["--score", dir]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(outcomeOf(again.card, "shutdown.clean"), "pass");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the official SDK v1 Client lists one page: pagination fails, a stuck cursor cannot loop it", async () => {
  const run = await gauntlet([
    "--scenario",
    "pagination,pagination_stuck",
    "--",
    process.execPath,
    join(DRIVERS, "sdk-v1.js"),
  ]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.equal(run.card?.client?.name, "sdk-v1-driver");
  assert.equal(outcomeOf(run.card, "pagination.all_pages"), "fail");
  assert.equal(outcomeOf(run.card, "pagination.last_page_called"), "fail");
  assert.equal(outcomeOf(run.card, "pagination.client_messages"), "pass");
  assert.equal(outcomeOf(run.card, "pagination_stuck.stops"), "pass");
});

test("a 2024-11-05 client on HTTP+SSE (the official SDK v1 SSEClientTransport) is recorded as http+sse", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-test-"));
  try {
    const run = await gauntlet([
      "-r",
      "2024-11-05",
      "--scenario",
      "lifecycle",
      "--record",
      dir,
      "--",
      process.execPath,
      join(DRIVERS, "sdk-v1.js"),
      "--sse",
    ]);
    assert.equal(run.card?.client?.name, "sdk-v1-driver", run.stdout + run.stderr);
    const lines = readFileSync(join(dir, "lifecycle.2024-11-05.ndjson"), "utf8").trim().split("\n");
    const header = JSON.parse(lines[0]!);
    assert.equal(header.transport, "http+sse");
    // the stream it connected with is the session's GET, and its messages were POSTed to the endpoint it named
    const records = lines.slice(1).map((l) => JSON.parse(l));
    assert.ok(records.some((r) => r.from === "client" && r.http?.method === "GET" && r.line === undefined));
    assert.ok(records.some((r) => r.from === "client" && r.http?.path === "/mcp/messages" && r.line !== undefined));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a baseline accepts what an earlier run found, JUnit and Markdown are written; usage errors exit 2", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gauntlet-test-"));
  try {
    const first = await gauntlet([
      "--scenario",
      "pagination",
      "--record",
      dir,
      "--",
      process.execPath,
      join(DRIVERS, "sdk-v1.js"),
    ]);
    assert.equal(first.code, 1);
    const baseline = join(dir, "baseline.json");
    writeFileSync(baseline, first.stdout);
    const junit = join(dir, "gauntlet.xml");
    const markdown = join(dir, "gauntlet.md");
    const scored = await gauntlet([
      "--score",
      join(dir, "pagination.ndjson"),
      "--baseline",
      baseline,
      "--junit",
      junit,
      "--markdown",
      markdown,
    ]);
    assert.equal(scored.code, 0, scored.stdout + scored.stderr);
    assert.match(readFileSync(junit, "utf8"), /pagination\.all_pages/);
    assert.match(readFileSync(markdown, "utf8"), /pagination\.all_pages/);
    for (const args of [[], ["--scenario", "no_such", "--", "true"], ["--stdio-server", "lifecycle"]]) {
      const bad = await gauntlet(args, 10_000);
      assert.equal(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`);
      assert.match(bad.stderr, /^mcp-wire gauntlet: /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
