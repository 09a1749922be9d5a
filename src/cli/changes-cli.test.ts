/**
 * `report --changes` end to end: two real censuses (the CLI, a child process) of a real server
 * built on the official SDK v1 over Streamable HTTP on loopback, whose tools and prompts change
 * between the runs; then `report --changes` and `report --json` read what changed, and
 * `prune` bounds the history.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { mcpWire } from "../testkit/cli-child.js";

/** What the server offers; the test changes it between the runs. */
const offer = { echoDescription: "Echoes the text", search: false, prompt: "greet" };

/** A stateless SDK server: each request gets a server built from the offer as it is now. */
function build(): McpServer {
  const server = new McpServer({ name: "changing", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: offer.echoDescription, inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "add",
    { description: "Adds", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  if (offer.search)
    server.registerTool("search", { description: "Searches", inputSchema: { q: z.string() } }, async () => ({
      content: [],
    }));
  server.registerPrompt(offer.prompt, { description: "A prompt" }, () => ({ messages: [] }));
  return server;
}

let http: Server;
let dir: string;
let db: string;
let targets: string;

before(async () => {
  http = createServer(async (req, res) => {
    const transport = new StreamableHTTPServerTransport({});
    res.on("close", () => void transport.close());
    await build().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-changes-"));
  db = join(dir, "census.db");
  targets = join(dir, "targets.txt");
  writeFileSync(targets, `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});

after(async () => {
  await new Promise((resolve) => http.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function census(): Promise<void> {
  const run = mcpWire(["census", targets, "--db", db, "--timeout", "10000"]);
  assert.equal(await run.exit(), 0, run.stderr());
}

describe("report --changes over two censuses of a real SDK server", () => {
  test("a tool added, one redefined and a prompt renamed are told by name, in text and JSON; prune bounds the history", async () => {
    await census();
    Object.assign(offer, { echoDescription: "Says the text back", search: true, prompt: "hello" });
    await census();

    const text = mcpWire(["report", "--changes", "--db", db]);
    assert.equal(await text.exit(), 0, text.stderr());
    assert.match(text.stdout(), /one target with 2 attempts; one changed\./);
    assert.match(text.stdout(), /tools: \+ search; ~ echo \(description\) · prompts: \+ hello; − greet/);

    const json = mcpWire(["report", "--json", "--db", db]);
    assert.equal(await json.exit(), 0, json.stderr());
    const report = JSON.parse(json.stdout()) as {
      targets: { latest: { serverName: string; defects: unknown[] }; changes: { kind: string; tools?: unknown }[] }[];
    };
    const [t] = report.targets;
    assert.equal(t!.latest.serverName, "changing");
    assert.deepEqual(t!.latest.defects, []);
    assert.deepEqual(
      t!.changes.map((c) => [c.kind, c.tools]),
      [["surface", { added: ["search"], removed: [], redefined: [{ name: "echo", changed: ["description"] }] }]],
    );

    // without a terminal to ask on, prune says what it would delete and deletes nothing
    const asked = mcpWire(["prune", "--before", new Date().toISOString(), "--db", db]);
    assert.equal(await asked.exit(), 2);
    assert.match(asked.stderr(), /^mcp-wire prune: this would delete 2 attempts from before .*; add --yes/);
    const dry = mcpWire(["prune", "--before", "2099-01-01", "--dry-run", "--db", db]);
    assert.equal(await dry.exit(), 0, dry.stderr());
    assert.match(
      dry.stdout(),
      /^Would delete 2 attempts from before 1 January 2099 00:00 UTC in .*Nothing was deleted\.$/m,
    );
    // a date in the future takes every attempt: not without --yes
    const future = mcpWire(["prune", "--before", "2099-01-01", "--db", db]);
    assert.equal(await future.exit(), 2);
    assert.match(future.stderr(), /1 January 2099 00:00 UTC is in the future: that deletes every attempt \(2 attempts/);
    const still = mcpWire(["report", "--json", "--db", db]);
    assert.equal(await still.exit(), 0, still.stderr());
    assert.equal((JSON.parse(still.stdout()) as { targets: unknown[] }).targets.length, 1, "nothing was deleted");
    const prune = mcpWire(["prune", "--before", "2099-01-01", "--yes", "--db", db]);
    assert.equal(await prune.exit(), 0, prune.stderr());
    assert.match(prune.stdout(), /^Deleted 2 attempts from before 1 January 2099 00:00 UTC in /);
    const after = mcpWire(["report", "--changes", "--db", db, "--since", "2000-01-01"]);
    assert.equal(await after.exit(), 0, after.stderr());
    assert.match(after.stdout(), /0 targets with 0 attempts; nothing changed\./);
  });

  test("prune refuses what it cannot read as a date, and a database that is not there", async () => {
    const bad = mcpWire(["prune", "--before", "last tuesday", "--db", db]);
    assert.equal(await bad.exit(), 2);
    assert.match(bad.stderr(), /^mcp-wire prune: --before takes a date/);
    const missing = mcpWire(["prune", "--before", "7d", "--db", join(dir, "none.db")]);
    assert.equal(await missing.exit(), 2);
    assert.match(missing.stderr(), /no census database at/);
  });

  test("--changes with --csv or --html, --serve with another output, --port or --public-url without --serve, and a --public-url that is no http(s) address are usage errors", async () => {
    for (const [args, said] of [
      [["--changes", "--csv"], /--changes prints what changed/],
      [["--changes", "--html", join(dir, "x.html")], /--changes prints what changed/],
      [["--serve", "--json"], /--serve serves the census/],
      [["--port", "8080"], /--port, --host and --public-url are for --serve/],
      [["--public-url", "https://status.example.com/"], /--port, --host and --public-url are for --serve/],
      [["--serve", "--public-url", "status.example.com"], /--public-url takes the address people open/],
      [["--serve", "--public-url", "ftp://status.example.com/"], /--public-url takes an http:\/\/ or https:\/\//],
      [["--serve", "--public-url", "https://me:pw@status.example.com/"], /must not carry a user name or password/],
    ] as const) {
      const run = mcpWire(["report", "--db", db, ...args]);
      assert.equal(await run.exit(), 2, args.join(" "));
      assert.match(run.stderr(), said);
    }
  });
});
