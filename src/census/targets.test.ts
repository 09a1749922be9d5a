import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { MAX_URL_LENGTH, parseTargets, readTargets, splitJsonValues, TargetsError } from "./targets.js";

const OFFICIAL = "io.modelcontextprotocol.registry/official";

function entry(name: string, version: string, isLatest: boolean | undefined, remotes: unknown[]): unknown {
  return {
    server: { name, version, remotes },
    _meta: isLatest === undefined ? {} : { [OFFICIAL]: { isLatest, status: "active" } },
  };
}
const page = (servers: unknown[], nextCursor?: string) => ({
  servers,
  metadata: { count: servers.length, ...(nextCursor ? { nextCursor } : {}) },
});

describe("targets: a text file of URLs", () => {
  test("one URL a line, # comments and blank lines skipped, duplicates probed once, nothing marked untrusted", () => {
    const list = parseTargets(
      "# my servers\n\nhttps://a.example/mcp\n  https://b.example/mcp   # staging\nhttps://a.example/mcp\nhttps://c.example/mcp#frag\r\n",
      "t.txt",
    );
    assert.equal(list.format, "text");
    assert.deepEqual(list.targets, [
      { target: "https://a.example/mcp", kind: "http", name: null },
      { target: "https://b.example/mcp", kind: "http", name: null },
      { target: "https://c.example/mcp#frag", kind: "http", name: null },
    ]);
    assert.equal(list.duplicates, 1);
  });

  test("a text file in which not one line is an http(s) URL is refused, naming its first line", () => {
    assert.throws(
      () => parseTargets("# names\nalpha\nbeta\nftp://files.example/x\n", "names.txt"),
      (e: Error) => {
        assert.ok(e instanceof TargetsError);
        assert.equal(e.message, 'names.txt: not one line is an http(s) URL (line 2: "alpha")');
        return true;
      },
    );
    // one URL among them is enough: the others are the user's typos, recorded as bad_url
    assert.equal(parseTargets("alpha\nhttps://a.example/mcp\n", "t.txt").targets.length, 2);
  });

  test("a word that is not an http(s) URL is kept as bad_url, to be recorded, not called", () => {
    const list = parseTargets("ftp://files.example/x\nnot-a-url\nhttp://127.0.0.1:8080/mcp\n", "t.txt");
    assert.deepEqual(list.targets, [
      { target: "ftp://files.example/x", kind: "http", name: null, invalid: "bad_url" },
      { target: "not-a-url", kind: "http", name: null, invalid: "bad_url" },
      // the user wrote it: called as given, loopback or not
      { target: "http://127.0.0.1:8080/mcp", kind: "http", name: null },
    ]);
  });

  test("what a pasted URL comes wrapped in is taken off: quotes, <…>, trailing commas; skipped lines are counted by why", () => {
    const list = parseTargets(
      [
        "# pasted from everywhere",
        '"https://a.example/mcp",',
        "'https://b.example/mcp'",
        "<https://c.example/mcp>",
        "  `https://d.example/mcp`  # from a README",
        '"<https://e.example/mcp>",,',
        "",
        "https://f.example/mcp;",
        "   ",
        "https://g.example/mcp",
        "# the end",
        "",
      ].join("\n"),
      "t.txt",
    );
    assert.deepEqual(
      list.targets.map((t) => [t.target, t.invalid ?? "ok"]),
      ["a", "b", "c", "d", "e", "f", "g"].map((h) => [`https://${h}.example/mcp`, "ok"]),
    );
    assert.deepEqual(list.skippedLines, { comment: 2, blank: 2 });
    assert.equal(list.duplicates, 0);
    // a quote or bracket inside a URL is kept; one that does not close is no wrapper
    const kept = parseTargets('https://h.example/a"b\n"https://i.example/mcp\n', "t.txt");
    assert.deepEqual(
      kept.targets.map((t) => [t.target, t.invalid ?? "ok"]),
      [
        ["https://h.example/a%22b", "ok"],
        ['"https://i.example/mcp', "bad_url"],
      ],
    );
    assert.deepEqual(kept.skippedLines, { comment: 0, blank: 0 });
  });

  test("a JSON array of URLs is a list of URLs, called as given", () => {
    const list = parseTargets('[\n  "https://a.example/mcp",\n  "https://b.example/mcp"\n]\n', "t.json");
    assert.equal(list.format, "text");
    assert.deepEqual(list.targets, [
      { target: "https://a.example/mcp", kind: "http", name: null },
      { target: "https://b.example/mcp", kind: "http", name: null },
    ]);
    // an array that holds anything but strings is read as registry pages, and says what is wrong
    assert.throws(
      () => parseTargets('["https://a.example/mcp", 7]', "t.json"),
      /^TargetsError: t\.json: \$\[0\]: expected a registry page/,
    );
  });

  test("a line with two words is an error naming the line", () => {
    assert.throws(
      () => parseTargets("https://a.example/mcp\n\nhttps://b.example/mcp https://c.example/mcp\n", "t.txt"),
      (e: Error) => {
        assert.ok(e instanceof TargetsError);
        assert.match(e.message, /^t\.txt: line 3: one URL a line/);
        return true;
      },
    );
  });

  test("a binary file is refused", () => {
    assert.throws(() => parseTargets("https://a.example/mcp\n\0\0\0", "t.bin"), /t\.bin: not a text file/);
  });
});

describe("targets: an MCP Registry export", () => {
  test("latest versions only, one target per distinct URL, registry names kept, all untrusted", () => {
    const text = JSON.stringify(
      page([
        entry("io.example/old", "1.0.0", false, [{ type: "streamable-http", url: "https://old.example/mcp" }]),
        entry("io.example/new", "2.0.0", true, [{ type: "streamable-http", url: "https://new.example/mcp" }]),
        entry("io.example/mirror", "1.0.0", true, [{ type: "streamable-http", url: "https://NEW.example/mcp" }]),
        {
          server: {
            name: "io.example/package-only",
            version: "1.0.0",
            packages: [{ registryType: "npm", identifier: "x" }],
          },
          _meta: { [OFFICIAL]: { isLatest: true } },
        },
        entry("io.example/no-meta", "0.1.0", undefined, [
          { type: "streamable-http", url: "https://nometa.example/mcp" },
        ]),
      ]),
    );
    const list = parseTargets(text, "registry.json");
    assert.equal(list.format, "registry");
    assert.deepEqual(list.targets, [
      { target: "https://new.example/mcp", kind: "http", name: "io.example/new", untrusted: true },
      { target: "https://nometa.example/mcp", kind: "http", name: "io.example/no-meta", untrusted: true },
    ]);
    assert.equal(list.notLatest, 1);
    assert.equal(list.duplicates, 1);
  });

  test("entries without remotes (packages run locally) are counted, not called", () => {
    const list = parseTargets(
      JSON.stringify(
        page([
          entry("pkg", "1", true, []),
          {
            server: { name: "pkg2", version: "1", packages: [{ registryType: "npm", identifier: "x" }] },
            _meta: { [OFFICIAL]: { isLatest: true } },
          },
          entry("old", "1", false, []),
          entry("remote", "1", true, [{ type: "streamable-http", url: "https://r.example/mcp" }]),
        ]),
      ),
    );
    assert.deepEqual(
      list.targets.map((t) => t.target),
      ["https://r.example/mcp"],
    );
    assert.equal(list.noRemotes, 2);
    assert.equal(list.notLatest, 1);
    assert.deepEqual(list.skippedLines, { comment: 0, blank: 0 });
  });

  test("sse remotes are probed as HTTP+SSE; a URL listed as both transports is left to the probe", () => {
    const list = parseTargets(
      JSON.stringify(
        page([
          entry("a", "1", true, [
            { type: "sse", url: "https://a.example/sse" },
            { type: "streamable-http", url: "https://a.example/mcp" },
          ]),
          entry("b", "1", true, [
            { type: "sse", url: "https://b.example/both" },
            { type: "streamable-http", url: "https://b.example/both" },
          ]),
        ]),
      ),
    );
    assert.deepEqual(
      list.targets.map((t) => [t.target, t.kind]),
      [
        ["https://a.example/sse", "sse"],
        ["https://a.example/mcp", "http"],
        ["https://b.example/both", "http"],
      ],
    );
  });

  test("{variable} URLs are filled from their defaults, or recorded as template when one has none", () => {
    const list = parseTargets(
      JSON.stringify(
        page([
          entry("t", "1", true, [
            {
              type: "streamable-http",
              url: "https://{tenant}.example/mcp/{region}",
              variables: { tenant: { description: "yours", default: "demo" }, region: { default: "eu" } },
            },
            {
              type: "streamable-http",
              url: "https://{tenant}.example/other",
              variables: { tenant: { description: "yours", isRequired: true } },
            },
            { type: "sse", url: "https://x.example/{undeclared}" },
          ]),
        ]),
      ),
    );
    assert.deepEqual(list.targets, [
      { target: "https://demo.example/mcp/eu", kind: "http", name: "t", untrusted: true },
      { target: "https://{tenant}.example/other", kind: "http", name: "t", invalid: "template", untrusted: true },
      { target: "https://x.example/{undeclared}", kind: "sse", name: "t", invalid: "template", untrusted: true },
    ]);
  });

  test("a URL that does not parse is recorded as bad_url", () => {
    const list = parseTargets(
      JSON.stringify(
        page([
          entry("bad", "1", true, [
            { type: "streamable-http", url: "https//no-colon" },
            { type: "streamable-http", url: "javascript:alert(1)" },
          ]),
        ]),
      ),
    );
    assert.deepEqual(
      list.targets.map((t) => [t.target, t.invalid]),
      [
        ["https//no-colon", "bad_url"],
        ["javascript:alert(1)", "bad_url"],
      ],
    );
  });

  test("a URL past 8 KiB, as listed or once its {variable}s are filled, is bad_url, kept short; the entries around it are read as usual", () => {
    const many = "https://x.example/" + "{a}".repeat(600_000);
    const long = "https://y.example/" + "{a}".repeat(2_000);
    const list = parseTargets(
      JSON.stringify(
        page([
          entry("before", "1", true, [
            { type: "streamable-http", url: "https://before.example/{p}", variables: { p: { default: "mcp" } } },
          ]),
          entry("many", "1", true, [
            { type: "streamable-http", url: many, variables: { a: { default: "x".repeat(1000) } } },
          ]),
          // short as listed (6 KB), 2 MB once filled
          entry("long", "1", true, [
            { type: "streamable-http", url: long, variables: { a: { default: "y".repeat(1000) } } },
          ]),
          // long and without a default: its length is the problem first
          entry("undeclared", "1", true, [{ type: "sse", url: "https://z.example/" + "{b}".repeat(600_000) }]),
          entry("after", "1", true, [
            { type: "streamable-http", url: `https://after.example/${"p".repeat(MAX_URL_LENGTH - 40)}` },
          ]),
        ]),
      ),
    );
    assert.deepEqual(
      list.targets.map((t) => [t.name, t.invalid ?? "ok", t.target.length <= MAX_URL_LENGTH]),
      [
        ["before", "ok", true],
        ["many", "bad_url", true],
        ["long", "bad_url", true],
        ["undeclared", "bad_url", true],
        ["after", "ok", true],
      ],
    );
    assert.equal(list.targets[0]!.target, "https://before.example/mcp");
    assert.match(list.targets[1]!.target, /^https:\/\/x\.example\/\{a\}\{a\}.*… \(1800018 characters\)$/);
    assert.match(list.targets[2]!.target, /^https:\/\/y\.example\/\{a\}/);
    // a line of a text file too
    const text = parseTargets(`https://a.example/mcp\nhttps://b.example/${"b".repeat(MAX_URL_LENGTH)}\n`, "t.txt");
    assert.deepEqual(
      text.targets.map((t) => [t.invalid ?? "ok", t.target.length <= MAX_URL_LENGTH]),
      [
        ["ok", true],
        ["bad_url", true],
      ],
    );
  });

  test("many pages concatenated, each on its own lines, are read in one pass (each value's line counted on from the last)", () => {
    // quadratic in the pages, this would count lines some 10^10 times
    const n = 200_000;
    const one = (k: number) =>
      JSON.stringify(
        page(
          k % 1000 === 0
            ? [entry(`s${k}`, "1", true, [{ type: "streamable-http", url: `https://s${k}.example/mcp` }])]
            : [],
        ),
      );
    const text = Array.from({ length: n }, (_, k) => one(k)).join("\n") + "\n";
    const values = splitJsonValues(text, "pages.json");
    assert.equal(values.length, n);
    assert.equal(values[n - 1]!.line, n);
    assert.equal(values[1234]!.line, 1235);
    assert.equal(parseTargets(text, "pages.json").targets.length, n / 1000);
    // a syntax error in the last one still names its line
    assert.throws(
      () => parseTargets(`${text}{"servers": [,]}\n`, "pages.json"),
      new RegExp(`^TargetsError: pages\\.json: line ${n + 1}, column \\d+: not JSON`),
    );
  });

  test("pages concatenated one after another, or as an array of pages, are read alike", () => {
    const p1 = page([entry("a", "1", true, [{ type: "streamable-http", url: "https://a.example/mcp" }])], "cursor-1");
    const p2 = page([
      entry("b", "1", true, [{ type: "sse", url: "https://b.example/sse" }]),
      entry("a", "1", true, [{ type: "streamable-http", url: "https://a.example/mcp" }]),
    ]);
    const expected = ["https://a.example/mcp", "https://b.example/sse"];
    for (const text of [
      `${JSON.stringify(p1, null, 2)}\n${JSON.stringify(p2, null, 2)}\n`,
      `${JSON.stringify(p1)}${JSON.stringify(p2)}`,
      JSON.stringify([p1, p2]),
    ]) {
      const list = parseTargets(text, "pages.json");
      assert.deepEqual(
        list.targets.map((t) => t.target),
        expected,
      );
      assert.equal(list.duplicates, 1);
    }
  });

  test("a malformed export names the JSON path of the problem", () => {
    const cases: [unknown, RegExp][] = [
      [{ servers: {} }, /^r\.json: \$\.servers: expected an array of servers, found an object$/],
      [
        page([entry("a", "1", true, [{ type: "sse", url: 42 }])]),
        /^r\.json: \$\.servers\[0\]\.server\.remotes\[0\]\.url: expected a string, found a number \(42\)$/,
      ],
      [page([{ server: "x" }]), /^r\.json: \$\.servers\[0\]\.server: expected an object, found a string "x"$/],
      [
        page([{ server: { name: "a", remotes: "https://a.example" } }]),
        /\$\.servers\[0\]\.server\.remotes: expected an array/,
      ],
      [[page([]), 7], /^r\.json: \$\[1\]: expected a registry page/],
      [
        page([entry("a", "1", true, [{ type: "streamable-http", url: "https://{x}.example", variables: [] }])]),
        /\$\.servers\[0\]\.server\.remotes\[0\]\.variables: expected an object, found an array/,
      ],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseTargets(JSON.stringify(value), "r.json"),
        (e: Error) => e instanceof TargetsError && message.test(e.message),
        `for ${JSON.stringify(value)}`,
      );
    }
    // in concatenated pages, which value it is, and where it starts
    const two = `${JSON.stringify(page([]))}\n${JSON.stringify({ servers: null })}\n`;
    assert.throws(
      () => parseTargets(two, "r.json"),
      /^TargetsError: r\.json: value 2 \(line 2\): \$\.servers: expected an array of servers, found null$/,
    );
  });

  test("a JSON syntax error names the line and column", () => {
    const text = `{"servers": [\n  {"server": {"name": "a",}}\n]}`;
    assert.throws(() => parseTargets(text, "r.json"), /^TargetsError: r\.json: line 2, column 27: not JSON/);
    assert.throws(
      () => parseTargets(`{"servers": [\n`, "r.json"),
      /^TargetsError: r\.json: line 1, column 1: this JSON value never ends/,
    );
  });

  test("readTargets reads a file, and says so when there is none", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-targets-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "r.json");
    writeFileSync(
      file,
      "\uFEFF" + JSON.stringify(page([entry("a", "1", true, [{ type: "sse", url: "https://a.example/sse" }])])),
    );
    assert.deepEqual((await readTargets(file)).targets, [
      { target: "https://a.example/sse", kind: "sse", name: "a", untrusted: true },
    ]);
    await assert.rejects(readTargets(path.join(dir, "missing.txt")), /missing\.txt: no such file/);
    // a file past the cap is refused, whole, with one line
    const big = path.join(dir, "big.txt");
    writeFileSync(big, "https://a.example/mcp\n".repeat(100));
    assert.equal((await readTargets(big, {}, 2200)).targets.length, 1);
    await assert.rejects(
      readTargets(big, {}, 2199),
      (e: Error) =>
        e instanceof TargetsError && e.message === `${big}: more than the 2199 bytes a targets file may hold`,
    );
  });
});
