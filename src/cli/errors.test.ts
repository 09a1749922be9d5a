/**
 * Every bad input a newcomer can type ends at once with exit 2 and one line on stderr that says
 * what is wrong (and, for a mistyped command line, where the options are listed): no usage dump,
 * no stack trace, no errno names. And a program that echoes its input is told apart from a
 * server that answers -32601.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import Database from "better-sqlite3";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-errors-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    // a hang is a failure, not a wait
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ms: Math.round(performance.now() - t0) });
    });
  });
}

/** [what a person typed, what the one line must say] */
const BAD: [string[], RegExp][] = [
  [[], /say what to do: .*probe.*--help/],
  [["nosuch"], /unknown command 'nosuch'.*mcp-wire --help/],
  [["--bogus"], /unknown option '--bogus'/],
  [["probe"], /mcp-wire probe: say which server.*--help/],
  [["probe", "--bogus", "http://127.0.0.1:1/"], /mcp-wire probe: unknown option '--bogus'.*mcp-wire probe --help/],
  [["probe", "--timeout", "0", "http://127.0.0.1:1/"], /--timeout takes milliseconds from 1 to 86,400,000/],
  [["probe", "--timeout", "99999999999", "http://127.0.0.1:1/"], /--timeout takes milliseconds from 1 to/],
  [["probe", "--timeout", "soon", "http://127.0.0.1:1/"], /--timeout takes milliseconds/],
  [["probe", "--max-bytes", "-1", "http://127.0.0.1:1/"], /--max-bytes takes bytes from 1 to/],
  [["probe", "-r", "1999", "http://127.0.0.1:1/"], /Allowed choices are 2024-11-05/],
  [["probe", "notaurl"], /not a URL: "notaurl"/],
  [["probe", "ftp://example.com/"], /only http and https/],
  [["probe", "localhost:4200/mcp"], /"localhost:4200\/mcp" has no scheme: did you mean http:\/\/localhost:4200\/mcp\?/],
  [["probe", "127.0.0.1:4200"], /did you mean http:\/\/127\.0\.0\.1:4200\?/],
  [["probe", "mcp.example.com/mcp"], /did you mean https:\/\/mcp\.example\.com\/mcp\?/],
  [
    ["probe", "http://localhost:99999/mcp"],
    /99999 in "http:\/\/localhost:99999\/mcp" is not a port: a port is a number from 1 to 65535/,
  ],
  [["probe", "localhost:99999/mcp"], /99999 in "localhost:99999\/mcp" is not a port/],
  [["probe", "http://127.0.0.1:0/mcp"], /0 in .* is not a port/],
  [
    ["probe", "--stdio", "http://127.0.0.1:1/mcp"],
    /--stdio starts a command, and "http:\/\/127\.0\.0\.1:1\/mcp" is a URL: mcp-wire probe <url> calls it/,
  ],
  [["probe", "--stdio", "--", "HTTPS://127.0.0.1:1/mcp"], /is a URL/],
  [
    ["probe", "-H", "X-Key: a\u0001b", "http://127.0.0.1:1/"],
    /--header X-Key: the value holds a control character \(U\+0001\)/,
  ],
  [["probe", "-H", "X-Key: a\u007fb", "http://127.0.0.1:1/"], /a control character \(U\+007F\)/],
  [
    ["probe", "-H", "X-Key: snow\u2603man", "http://127.0.0.1:1/"],
    /--header X-Key: the value holds a character HTTP cannot carry \(U\+2603, outside Latin-1\)/,
  ],
  [["census", "-H", "X-Key: \u{1F511}", "targets.txt"], /outside Latin-1/],
  [["probe", "-H", "novalue", "http://127.0.0.1:1/"], /--header takes 'Name: value'/],
  [["probe", "--timeout"], /option '--timeout <ms>' argument missing/],
  [["census"], /needs a targets file/],
  [["census", "missing.txt"], /cannot read missing.txt: no such file/],
  [["census", "folder"], /cannot read folder: it is a folder, not a file/],
  [["census", "--concurrency", "0", "targets.txt"], /--concurrency takes a number of probes from 1 to/],
  [["census", "--timeout", "1.5", "targets.txt"], /--timeout takes milliseconds from 1 to/],
  [["census", "--db"], /option '--db <file\|url>' argument missing/],
  [["report", "--db", "missing.db"], /no census database at missing.db/],
  [["report", "--db", "folder"], /folder is not a file/],
  [["report", "--json", "--csv"], /choose one/],
  [["report", "--since", "yesterday"], /--since takes a date/],
  [["report", "extra"], /too many arguments/],
  [["lint", "missing.ndjson"], /cannot read missing.ndjson: no such file/],
  [["lint", "folder"], /cannot read folder: it is a folder, not a file/],
  [["lint", "-r", "x"], /Allowed choices/],
  [
    ["lint", "census.db"],
    /^mcp-wire lint: census\.db is not a capture of JSON-RPC messages: it is an SQLite database \(lint reads one message a line/,
  ],
  [["lint", process.execPath], /is not a capture of JSON-RPC messages: it is a program \(ELF\)/],
  [["lint", "--json", "notes.md"], /notes\.md is not a capture of JSON-RPC messages: its first 5 lines are not JSON/],
  [["serve", "--http", "70000"], /--http takes a port number from 0 to 65,535/],
  [["serve", "--stdio", "--http", "1"], /--stdio or --http, not both/],
  [["tap"], /say which server to run/],
  [["tap", "--listen", "-1", "--upstream", "http://127.0.0.1:1/"], /--listen takes a port number from 0 to 65,535/],
  [["tap", "--log", "folder", "--", "cat"], /cannot write folder: it is a folder, not a file/],
  [
    ["tap", "--listen", "0", "--upstream", "localhost:3000/mcp"],
    /--upstream takes an http:\/\/ or https:\/\/ URL: "localhost:3000\/mcp" has no scheme: did you mean http:\/\/localhost:3000\/mcp\?$/,
  ],
  [["tap", "--listen", "0", "--upstream", "http://127.0.0.1:70000/mcp"], /70000 in .* is not a port/],
  [["demo", "--bogus"], /unknown option '--bogus'/],
];

test("a table of bad inputs across every command: exit 2, one clear line, nothing else", async () => {
  mkdirSync(join(dir, "folder"), { recursive: true });
  writeFileSync(join(dir, "targets.txt"), "http://127.0.0.1:1/\n");
  writeFileSync(join(dir, "notes.md"), "# Notes\n\nThe server at /mcp answers:\n\n- tools\n- prompts\n- resources\n");
  const db = new Database(join(dir, "census.db"));
  db.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  db.close();
  const slowest: string[] = [];
  const queue = [...BAD];
  await Promise.all(
    [1, 2, 3, 4].map(async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const [args, says] = item;
        const what = `mcp-wire ${args.join(" ")}`;
        const r = await run(args);
        assert.equal(r.status, 2, `${what}: exit ${r.status}\n${r.stderr}`);
        assert.equal(r.stdout, "", `${what} printed on stdout`);
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        assert.equal(lines.length, 1, `${what}: one line, got:\n${r.stderr}`);
        assert.match(lines[0]!, /^mcp-wire( \w+)?: /, what);
        assert.match(lines[0]!, says, what);
        assert.doesNotMatch(lines[0]!, /\bE[A-Z]{3,}\b|Usage:|\n\s+at /, `${what}: ${lines[0]}`);
        slowest.push(`${r.ms} ms  ${what}`);
      }
    }),
  );
  // timings are shown, not asserted (a loaded machine is not a failure)
  console.log(
    `slowest bad inputs:\n${slowest
      .sort((a, b) => parseInt(b) - parseInt(a))
      .slice(0, 3)
      .join("\n")}`,
  );
});

test("help and version asked for are not errors", async () => {
  for (const args of [["--help"], ["probe", "--help"], ["help", "census"], ["-V"]]) {
    const r = await run(args);
    assert.equal(r.status, 0, args.join(" "));
    assert.notEqual(r.stdout, "");
  }
});

test("an echo (cat) is told apart from a server answering -32601", async () => {
  const echo = await run(["probe", "--json", "--timeout", "5000", "--stdio", "--", "cat"]);
  const e = JSON.parse(echo.stdout) as { class: string; detail: string; rpcError: unknown; advice: string };
  assert.deepEqual([e.class, e.detail, e.rpcError], ["protocol_violation", "echo", null]);
  assert.match(e.advice, /repeats what it is sent/);
  // a real (if useless) server: answers every request with -32601
  const server = join(dir, "no-methods.mjs");
  writeFileSync(
    server,
    `import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }) + "\\n");
});\n`,
  );
  const refusing = await run(["probe", "--json", "--timeout", "5000", "--stdio", "--", process.execPath, server]);
  const r = JSON.parse(refusing.stdout) as { class: string; detail: string; rpcError: { code: number } };
  assert.deepEqual([r.class, r.detail, r.rpcError.code], ["rpc_error", "method_not_found", -32601]);
});

test("serve --http and tap --listen on a port another program holds: exit 2, one line naming the port, no stack", async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const port = (holder.address() as AddressInfo).port;
  try {
    for (const args of [
      ["serve", "--http", String(port)],
      ["tap", "--listen", String(port), "--upstream", "http://127.0.0.1:1/mcp"],
    ]) {
      const r = await run(args);
      const what = `mcp-wire ${args.join(" ")}`;
      assert.equal(r.status, 2, `${what}: exit ${r.status}\n${r.stderr}`);
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      assert.equal(lines.length, 1, `${what}: one line, got:\n${r.stderr}`);
      assert.match(
        lines[0]!,
        new RegExp(
          `^mcp-wire ${args[0]}: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use by another program`,
        ),
        what,
      );
      assert.doesNotMatch(lines[0]!, /\bE[A-Z]{3,}\b|\n\s+at /, what);
    }
  } finally {
    holder.close();
  }
});

test("https:// against a server that speaks plain HTTP: the advice names the likely cause and the http:// URL", async () => {
  const server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const r = await run(["probe", "--json", "--timeout", "5000", `https://127.0.0.1:${port}/mcp`]);
    assert.equal(r.status, 1, r.stderr);
    const v = JSON.parse(r.stdout) as { class: string; detail: string; advice: string };
    assert.deepEqual([v.class, v.detail], ["unreachable", "tls"]);
    assert.match(v.advice, /answered the TLS handshake in plain HTTP/);
    assert.ok(v.advice.includes(`http://127.0.0.1:${port}/mcp`), v.advice);
  } finally {
    server.close();
  }
});

test("a header value in Latin-1 with a tab is sent as given, not refused", async () => {
  let got: string | undefined;
  const server = createServer((req, res) => {
    if (req.method === "POST") got ??= req.headers["x-key"] as string | undefined;
    res.writeHead(401).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const r = await run([
      "probe",
      "--json",
      "--timeout",
      "5000",
      "-H",
      "X-Key: caf\u00e9\tkey",
      `http://127.0.0.1:${port}/mcp`,
    ]);
    assert.equal(r.status, 1, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { class: string }).class, "auth_required");
    // the value arrives (how its byte above 0x7F is encoded is the HTTP client's business)
    assert.match(got ?? "", /^caf.+\tkey$/);
  } finally {
    server.close();
  }
});

test("lint of an empty file says so and exits 0; of blank lines alone, says that", async () => {
  writeFileSync(join(dir, "empty.ndjson"), "");
  const empty = await run(["lint", "empty.ndjson"]);
  assert.equal(empty.status, 0, empty.stderr);
  assert.equal(empty.stdout, "empty.ndjson is empty: no message to lint\n");
  writeFileSync(join(dir, "blank.ndjson"), "\n\n\n");
  const blank = await run(["lint", "blank.ndjson"]);
  assert.equal(blank.status, 0, blank.stderr);
  assert.equal(blank.stdout, "blank.ndjson holds no message to lint, only 3 blank lines\n");
});
