/**
 * Planted secrets never leave the process: every command and output format runs with a URL
 * password, secret query parameters and `--header` credentials (one of which the server echoes
 * back), and every output, written file and database file is searched for them.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { SecretSafeStore } from "../census/secret-safe-store.js";
import { SqliteStore } from "../census/sqlite-store.js";
import { startFleet, type Fleet } from "../fleet/fleet.js";

const MAIN = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const PASSWORD = "pw-planted-71b9e2";
const KEY_A = "key-planted-a1c4d0";
const KEY_B = "key-planted-b2f7e9";
const TOKEN = "tok-planted-c3a8b1";
const BEARER = "bearer-planted-d4e5f6";
const WRONG = "wrong-planted-0e9d8c";
const SECRETS = [PASSWORD, KEY_A, KEY_B, TOKEN, BEARER, WRONG];

let fleet: Fleet;
let recorder: Server;
/** Every request URL the recorder was sent: the one place a secret belongs. */
const seen: string[] = [];
let dir: string;
const outputs: { what: string; text: string }[] = [];

before(async () => {
  fleet = await startFleet({ token: BEARER });
  recorder = createServer((req, res) => {
    seen.push(req.url ?? "");
    req.resume().on("end", () => res.writeHead(404, { "content-type": "text/plain" }).end("no"));
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-planted-"));
});
after(async () => {
  await fleet?.close();
  recorder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, ...env },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      // tap passes the conversation through unchanged: its stdout is the client's, not a report
      outputs.push({ what: args.join(" "), text: args[0] === "tap" ? stderr : stdout + stderr });
      resolve({ status, stdout, stderr });
    });
  });
}

function assertClean(what: string, text: string): void {
  for (const s of SECRETS)
    assert.ok(
      !text.includes(s),
      `${what} holds the planted secret ${s}:\n${text.slice(Math.max(0, text.indexOf(s) - 300), text.indexOf(s) + 100)}`,
    );
}

/** Every file in the scratch folder (databases with their -wal and -shm, reports, logs). */
function assertFilesClean(): void {
  for (const f of readdirSync(dir)) {
    if (f.startsWith("targets")) continue; // the user's own file: where the secrets live
    assertClean(f, readFileSync(join(dir, f)).toString("latin1"));
  }
}

test("probe, census, report (text, --json, --csv, --html), lint, tap (live and --log) and error lines: no planted secret anywhere", async () => {
  const origin = new URL(fleet.url("modern")).origin;
  const withPassword = fleet.url("modern").replace("http://", `http://bob:${PASSWORD}@`);
  const bearer = `${fleet.url("auth-bearer")}?api_key=${KEY_A}`;
  const echoes = `${fleet.url("invalid-api-key")}?x=1&access_token=${TOKEN}`;
  const targets = join(dir, "targets.txt");
  writeFileSync(
    targets,
    [
      withPassword,
      bearer,
      `${fleet.url("auth-bearer")}?api_key=${KEY_B}`,
      echoes,
      `${origin}/http-404?Secret=${TOKEN}`,
    ].join("\n") + "\n",
  );
  const db = join(dir, "census.db");
  const env = { PLANTED: BEARER, WRONG };

  await run(["probe", "-v", withPassword]);
  await run(["probe", "--json", withPassword]);
  const refused = await run(["probe", "-v", "-H", "Authorization: Bearer ${WRONG}", bearer], env);
  assert.match(
    refused.stdout,
    /Invalid credentials: <redacted>/,
    "the server echoed the credential and the probe hid it",
  );
  await run(["probe", "--json", "-H", "Authorization: Bearer ${WRONG}", echoes], env);
  await run([
    "probe",
    "--stdio",
    "--json",
    "--timeout",
    "2000",
    "--",
    process.execPath,
    "-e",
    "process.exit(3)",
    withPassword,
  ]);
  await run(["probe", `http://bob:${PASSWORD}@`]);
  await run(["probe", "-H", `Bearer ${WRONG}`, bearer]);

  const census = await run(
    ["census", targets, "--db", db, "--timeout", "3000", "-H", "Authorization: Bearer ${PLANTED}"],
    env,
  );
  assert.equal(census.status, 0, census.stderr);
  const json = await run(["report", "--db", db, "--json"]);
  const report = JSON.parse(json.stdout) as { targets: { target: string; latest: { class: string } }[] };
  // two targets that differ only in their key stay two targets, and the right bearer got through
  assert.equal(report.targets.length, 5);
  assert.equal(
    report.targets.filter(
      (t) => t.target.startsWith(`${fleet.url("auth-bearer")}?api_key=<redacted>`) && t.latest.class === "ok",
    ).length,
    2,
    json.stdout,
  );
  await run(["report", "--db", db]);
  await run(["report", "--db", db, "--csv"]);
  await run(["report", "--db", db, "--html", join(dir, "report.html")]);
  await run(["report", "--db", db, "--target", withPassword]);
  await run(["census", join(dir, `missing?token=${TOKEN}`), "--db", join(dir, "other.db")]);

  const capture = join(dir, "capture.ndjson");
  writeFileSync(
    capture,
    `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"url":"${withPassword}?token=${TOKEN}"}}\n`,
  );
  await run(["lint", "--json", capture]);
  await run(["lint", capture]);
  rmSync(capture);

  // tap between a client and a server that repeat a URL with a password and a token, with a
  // defect to report live (a null id), logged, and the log linted
  const server = join(dir, "server.mjs");
  writeFileSync(server, `process.stdin.pipe(process.stdout);\n`);
  const message = `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"url":"${withPassword}?token=${TOKEN}"}}\n`;
  const log = join(dir, "tap.ndjson");
  const tapped = await run(["tap", "--log", log, "--", process.execPath, server], {}, message);
  assert.ok(tapped.stdout.includes(TOKEN), "the pass-through is byte for byte");
  await run(["tap", "--", process.execPath, server], {}, message);
  await run(["lint", log]);
  rmSync(server);

  for (const o of outputs) assertClean(o.what, o.text);
  assertFilesClean();
});

test("census --resume of targets that carry secrets: the targets file gives them back, the database never holds them", async () => {
  const base = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  const list = [
    `${base}/a?api_key=${KEY_A}`,
    `${base}/a?api_key=${KEY_B}`,
    `http://bob:${PASSWORD}@127.0.0.1:${(recorder.address() as AddressInfo).port}/b`,
  ];
  const targets = join(dir, "targets-resume.txt");
  writeFileSync(targets, list.join("\n") + "\n");
  const db = join(dir, "resume.db");
  // a run stopped before any target was done, as a killed census leaves it
  const store = new SecretSafeStore(new SqliteStore(db));
  await store.startRun(
    targets,
    list.map((target) => ({ target, kind: "http" as const, name: null })),
    { timeout: 2000 },
  );
  await store.close();
  assertFilesClean();

  const resumed = await run(["census", "--resume", "--db", db]);
  assert.equal(resumed.status, 0, resumed.stderr);
  // the recorder was called with each real key: the resume read the targets file again
  assert.ok(seen.some((u) => u.includes(KEY_A)) && seen.some((u) => u.includes(KEY_B)), seen.join("\n"));
  const json = JSON.parse((await run(["report", "--db", db, "--json"])).stdout) as { targets: unknown[] };
  assert.equal(json.targets.length, 3);

  // without the file, a resume cannot call what it cannot name: one clear line, exit 2
  const again = join(dir, "again.db");
  const s2 = new SecretSafeStore(new SqliteStore(again));
  await s2.startRun(
    join(dir, "gone.txt"),
    list.map((target) => ({ target, kind: "http" as const, name: null })),
    {},
  );
  await s2.close();
  const refused = await run(["census", "--resume", "--db", again]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /secrets are never stored/);
  for (const o of outputs) assertClean(o.what, o.text);
  assertFilesClean();
});
