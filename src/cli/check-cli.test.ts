/**
 * `mcp-wire check` as a user runs it: `--json` exactly as documented, text a person reads, the
 * exit statuses (0, 1, 2, 3) under `--fail-on`, usage errors, and a spawned stdio server ended
 * when the check is stopped by a signal. Also `--fail-on` for `probe` and `lint`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { startZoo, type RunningZoo } from "../testkit/zoo-server.js";
import { mcpWire } from "../testkit/cli-child.js";

const ZOO = fileURLToPath(new URL("../testkit/zoo-server.js", import.meta.url));
const FINDING_FIELDS = [
  "id",
  "severity",
  "revision",
  "revisions",
  "method",
  "path",
  "subject",
  "subjectPath",
  "message",
  "fix",
  "spec",
  "breaks",
];

async function run(args: string[], cwd?: string): Promise<{ status: number | string; stdout: string; stderr: string }> {
  const child = mcpWire(args, {}, cwd ? { cwd } : undefined);
  const status = await child.exit(60_000);
  return { status, stdout: child.stdout(), stderr: child.stderr() };
}

describe("mcp-wire check", () => {
  let zoo: RunningZoo;
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-check-"));
  before(async () => {
    zoo = await startZoo();
  });
  after(async () => {
    await zoo.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("--json: one object with the documented fields; an error finding exits 1, or 0 with --fail-on never", async () => {
    const r = await run(["check", "--json", "-r", "2025-11-25", "-r", "2026-07-28", zoo.url("text-plain")]);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout.trim().split("\n").length, 1);
    const v = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const f of ["target", "revisions", "findings", "counts", "checked", "elapsedMs"]) assert.ok(f in v, f);
    assert.deepEqual(v.revisions, { "2026-07-28": "ok", "2025-11-25": "ok" });
    const findings = v.findings as Record<string, unknown>[];
    for (const f of findings) assert.deepEqual(Object.keys(f), FINDING_FIELDS);
    // one finding for one problem, with the revisions it occurs in
    assert.deepEqual(
      findings.map((f) => [f.id, f.subject, f.revisions]),
      [["http_content_type", "http:POST", ["2026-07-28", "2025-11-25"]]],
    );
    assert.deepEqual(v.counts, { error: 1, warning: 0, info: 0 });
    const never = await run(["check", "--fail-on", "never", "-r", "2025-11-25", zoo.url("text-plain")]);
    assert.equal(never.status, 0);
  });

  test("warnings fail only under --fail-on warning, info never; the text says what to fix", async () => {
    const plain = await run(["check", "-r", "2025-06-18", zoo.url("empty-cursor")]);
    assert.equal(plain.status, 0, plain.stdout);
    assert.match(plain.stdout, /warning pagination_empty_cursor \[2025-06-18/);
    assert.match(plain.stdout, /fix: Leave nextCursor out of the last page/);
    assert.match(plain.stdout, /✓ passes \(--fail-on error\): 0 errors, \d+ warnings?/);
    const strict = await run(["check", "--fail-on", "warning", "-r", "2025-06-18", zoo.url("empty-cursor")]);
    assert.equal(strict.status, 1);
    assert.match(strict.stdout, /✗ fails \(--fail-on warning\)/);
    // what the spec allows (a 406 to a request that accepts only JSON) is info: it fails nothing
    const info = await run(["check", "--fail-on", "warning", "-r", "2025-06-18", zoo.url("accept-json-refused")]);
    assert.equal(info.status, 0, info.stdout);
    assert.match(info.stdout, /info {4}http_accept_json_only_refused \[2025-06-18 ping http:POST\]/);
  });

  test("a target that cannot be checked at all exits 3 whatever --fail-on says", async () => {
    const r = await run(["check", "--fail-on", "never", "http://127.0.0.1:1/mcp"]);
    assert.equal(r.status, 3);
    assert.match(r.stdout, /could not be checked: unreachable \(refused\)/);
  });

  test("stdio: a healthy server passes, with its ladder of revisions", async () => {
    const r = await run(["check", "--stdio", "--", process.execPath, ZOO, "healthy"]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /revisions: 2026-07-28 ok · 2025-11-25 ok · 2025-06-18 ok · 2025-03-26 ok · 2024-11-05 ok/);
  });

  test("--env and --cwd reach the stdio server", async () => {
    const work = mkdtempSync(join(dir, "cwd-"));
    const r = await run([
      "check",
      "--stdio",
      "--cwd",
      work,
      "--env",
      "ZOO_LOG=asked.log",
      "-r",
      "2025-06-18",
      "--",
      process.execPath,
      ZOO,
      "healthy",
    ]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(
      readFileSync(join(work, "asked.log"), "utf8"),
      /^initialize$/m,
      "the relative ZOO_LOG was written in --cwd",
    );
  });

  test("usage errors exit 2 with one line", async () => {
    const cases: [string[], RegExp][] = [
      [["check", "--only", "no_such_check", zoo.url("healthy")], /--only: no check is named "no_such_check"/],
      [["check", "-r", "2020-01-01", zoo.url("healthy")], /-r takes a revision/],
      [["check", "--call", "echo={bad", zoo.url("healthy")], /--call echo: the arguments after = are not JSON/],
      [["check", "--env", "A=1", zoo.url("healthy")], /--env and --cwd are for a stdio server/],
      [["check", "--fail-on", "sometimes", zoo.url("healthy")], /--fail-on/],
      [["check"], /say which server/],
      [["check", "--stdio", "--cwd", join(dir, "nope"), "--", process.execPath, ZOO], /is not a directory/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
  });

  test("--junit, --sarif and --markdown are written, also for a target that could not be checked", async () => {
    const [junit, sarif, markdown] = ["a.xml", "a.sarif", "a.md"].map((f) => join(dir, f));
    // a repository with a package.json: SARIF results are shown there without --sarif-location
    const repo = mkdtempSync(join(dir, "repo-"));
    writeFileSync(join(repo, "package.json"), "{}\n");
    const r = await run(
      [
        "check",
        "--junit",
        junit!,
        "--sarif",
        sarif!,
        "--markdown",
        markdown!,
        "-r",
        "2025-06-18",
        zoo.url("ping-error"),
      ],
      repo,
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(readFileSync(junit!, "utf8"), /<testcase[^>]*ping_failed/);
    const log = JSON.parse(readFileSync(sarif!, "utf8")) as {
      runs: {
        results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[];
      }[];
    };
    assert.deepEqual(
      log.runs[0]!.results.map((x) => [x.ruleId, x.locations[0]!.physicalLocation.artifactLocation.uri]),
      [["ping_failed", "package.json"]],
    );
    assert.match(readFileSync(markdown!, "utf8"), /ping_failed/);
    const down = await run(["check", "--force", "--junit", junit!, "http://127.0.0.1:1/mcp"]);
    assert.equal(down.status, 3);
    assert.match(readFileSync(junit!, "utf8"), /<failure/);
  });

  test("output files: --sarif needs --sarif-location; a file mcp-wire did not write is refused before the check", async () => {
    const mine = join(dir, "notes.xml");
    writeFileSync(mine, "my own notes\n");
    const refused = await run(["check", "--junit", mine, zoo.url("healthy")]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /was not written by mcp-wire/);
    assert.equal(readFileSync(mine, "utf8"), "my own notes\n");
    assert.equal(zoo.asked("healthy").length, 0, "the server was not called");
    const empty = mkdtempSync(join(dir, "empty-"));
    const cases: [string[], RegExp][] = [
      [["--sarif", join(dir, "b.sarif")], /there is no package\.json or README\.md here/],
      [
        ["--sarif", join(dir, "b.sarif"), "--sarif-location", "src/server.ts"],
        /--sarif-location src\/server\.ts: no such file/,
      ],
      [["--sarif-location", "README.md"], /--sarif-location applies to --sarif FILE, which was not given/],
    ];
    for (const [args, message] of cases) {
      const r = await run(["check", ...args, zoo.url("healthy")], empty);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
    }
    assert.equal(zoo.asked("healthy").length, 0, "the server was not called");
  });

  test("--update-baseline: exit 0 with findings; the baseline holds; a fixed finding fails as stale, naming the command that rewrites it", async () => {
    const baseline = join(dir, "updated.json");
    const args = ["-r", "2025-06-18", "-r", "2026-07-28"];
    const taken = await run(["check", "--update-baseline", baseline, ...args, zoo.url("tool-name")]);
    assert.equal(taken.status, 0, taken.stdout + taken.stderr);
    assert.match(taken.stdout, /baseline written to/);
    const written = JSON.parse(readFileSync(baseline, "utf8")) as { findings: { id: string; subject: string }[] };
    assert.deepEqual(
      written.findings.map((f) => [f.id, f.subject]),
      [["tool_name_format", "tool:echo the text"]],
    );
    const held = await run(["check", "--baseline", baseline, ...args, zoo.url("tool-name")]);
    assert.equal(held.status, 0, held.stdout);
    const fixed = await run(["check", "--baseline", baseline, ...args, zoo.url("healthy")]);
    assert.equal(fixed.status, 1, fixed.stdout);
    const rewrite = new RegExp(
      `mcp-wire check -r 2025-06-18 -r 2026-07-28 ${zoo.url("healthy").replace(/[.?]/g, "\\$&")} --update-baseline ${baseline.replace(/[.]/g, "\\.")}`,
    );
    assert.match(fixed.stdout, rewrite);
    // with --json the person reading the log is told on stderr, stdout staying one JSON object
    const fixedJson = await run(["check", "--json", "--baseline", baseline, ...args, zoo.url("healthy")]);
    assert.equal(fixedJson.status, 1);
    assert.equal((JSON.parse(fixedJson.stdout) as { stale: unknown[] }).stale.length, 1);
    assert.match(
      fixedJson.stderr,
      /1 baseline entry no longer occurs .*\n {2}mcp-wire check --json .*--update-baseline/,
    );
    const rewritten = await run(["check", "--update-baseline", baseline, ...args, zoo.url("healthy")]);
    assert.equal(rewritten.status, 0);
    assert.equal((await run(["check", "--baseline", baseline, ...args, zoo.url("healthy")])).status, 0);
    // a file that is not a baseline is never replaced; a target not checked writes nothing
    const notes = join(dir, "notes.md");
    writeFileSync(notes, "# notes\n");
    const refused = await run(["check", "--update-baseline", notes, zoo.url("healthy")]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /exists and is not a baseline/);
    const before = readFileSync(baseline, "utf8");
    const down = await run(["check", "--update-baseline", baseline, "http://127.0.0.1:1/mcp"]);
    assert.equal(down.status, 3);
    assert.equal(readFileSync(baseline, "utf8"), before);
  });

  test("a stdio server that dies says why in every output: its exit status and the end of its stderr", async () => {
    const repo = mkdtempSync(join(dir, "dead-"));
    writeFileSync(join(repo, "README.md"), "# server\n");
    const dead = [
      "--stdio",
      "--",
      process.execPath,
      "-e",
      "console.error('Error: Cannot find module \\'/srv/build/nope.js\\''); process.exit(1)",
    ];
    const files = ["d.xml", "d.sarif", "d.md"].map((f) => join(repo, f));
    const r = await run(
      ["check", "--timeout", "5000", "--junit", files[0]!, "--sarif", files[1]!, "--markdown", files[2]!, ...dead],
      repo,
    );
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stdout,
      /the server exited with status 1; its stderr ends:\n {4}Error: Cannot find module '\/srv\/build\/nope\.js'/,
    );
    for (const file of files) assert.match(readFileSync(file, "utf8"), /Cannot find module/, file);
    assert.match(readFileSync(files[0]!, "utf8"), /exited with status 1/);
    const json = await run(["check", "--json", "--timeout", "5000", ...dead]);
    assert.equal(json.status, 3);
    assert.deepEqual((JSON.parse(json.stdout) as { stdio: unknown }).stdio, {
      exitCode: 1,
      signal: null,
      stderrTail: "Error: Cannot find module '/srv/build/nope.js'",
    });
  });

  test("explain prints a finding's page from the package; an unknown id is a usage error", async () => {
    const page = await run(["explain", "tool_name_format"]);
    assert.equal(page.status, 0, page.stderr);
    assert.match(page.stdout, /^### tool_name_format\n\n\*\*/);
    assert.match(page.stdout, /\*\*Fix:\*\*/);
    assert.doesNotMatch(page.stdout, /\n### (?!tool_name_format)/, "that id's section only");
    const all = await run(["explain"]);
    assert.match(all.stdout, /^schema_invalid +\S/m);
    const unknown = await run(["explain", "no_such_id"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no finding is named "no_such_id"/);
  });

  test("--baseline: accepted findings do not fail; an entry that no longer occurs does", async () => {
    const baseline = join(dir, "baseline.json");
    const first = await run(["check", "--json", "-r", "2025-06-18", zoo.url("ping-error")]);
    assert.equal(first.status, 1);
    writeFileSync(baseline, first.stdout);
    const accepted = await run(["check", "--json", "--baseline", baseline, "-r", "2025-06-18", zoo.url("ping-error")]);
    assert.equal(accepted.status, 0, accepted.stdout);
    assert.equal((JSON.parse(accepted.stdout) as { findings: { accepted?: boolean }[] }).findings[0]!.accepted, true);
    const fixed = await run([
      "check",
      "--fail-on",
      "never",
      "--baseline",
      baseline,
      "-r",
      "2025-06-18",
      zoo.url("healthy"),
    ]);
    assert.equal(fixed.status, 1, "a stale entry fails whatever --fail-on says");
    assert.match(fixed.stdout, /stale\s+ping_failed/);
  });

  test("stopped by a signal, check ends the stdio server it started", async () => {
    const log = join(dir, "zoo.log");
    writeFileSync(log, "");
    const child = mcpWire([
      "check",
      "--stdio",
      "--env",
      `ZOO_LOG=${log}`,
      "-r",
      "2025-06-18",
      "--",
      process.execPath,
      ZOO,
      "slow-exit",
    ]);
    // the server is up and has been asked something: the check is under way
    const started = Date.now();
    let pid: number | undefined;
    while (Date.now() - started < 30_000) {
      const m = /^pid (\d+)$/m.exec(readFileSync(log, "utf8"));
      if (m && readFileSync(log, "utf8").includes("tools/list")) {
        pid = Number(m[1]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(pid, "the server started");
    child.process.kill("SIGTERM");
    const status = await child.exit(10_000);
    assert.equal(status, 143);
    assert.throws(() => process.kill(pid!, 0), /ESRCH/, "the server is gone");
  });
});

describe("--fail-on for probe and lint", () => {
  test("probe: an ok verdict with an error defect (a log line on stdout) exits 1, 0 with --fail-on never", async () => {
    const r = await run(["probe", "--stdio", "--", process.execPath, ZOO, "log-line"]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, /✓ ok/);
    const never = await run(["probe", "--fail-on", "never", "--stdio", "--", process.execPath, ZOO, "log-line"]);
    assert.equal(never.status, 0);
    const healthy = await run(["probe", "--stdio", "--", process.execPath, ZOO, "healthy"]);
    assert.equal(healthy.status, 0, healthy.stdout);
  });

  test("lint: a warning exits 0 by default and 1 with --fail-on warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-wire-lint-"));
    try {
      const file = join(dir, "capture.ndjson");
      writeFileSync(
        file,
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"nope"}}\n',
      );
      assert.equal((await run(["lint", "-r", "2025-06-18", file])).status, 0);
      assert.equal((await run(["lint", "--fail-on", "warning", "-r", "2025-06-18", file])).status, 1);
      assert.equal((await run(["lint", "--fail-on", "never", "-r", "2025-06-18", file])).status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
