/**
 * The one writer of output files: a file mcp-wire did not write is refused without `force`, a
 * symbolic link is never written through, and a failure leaves the old file as it was.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { sampleReport, RULES } from "../testkit/check-fixtures.js";
import { renderJunit } from "../check/junit.js";
import { renderMarkdown } from "../check/markdown.js";
import { renderSarif } from "../check/sarif.js";
import { renderHtml } from "../report/html.js";
import { seedCensus } from "../testkit/report-fixtures.js";
import {
  OutputRefused,
  checkOutput,
  generatorComment,
  hasGeneratorMark,
  outputProblem,
  writeOutput,
} from "./output-file.js";

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-output-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const MINE = `<!doctype html>\n<html><head><meta charset="utf-8">\n<meta name="generator" content="mcp-wire">\n</head></html>\n`;

describe("writeOutput", () => {
  test("a new file is written, and nothing else is left in its folder", async () => {
    const sub = join(dir, "new");
    mkdirSync(sub);
    await writeOutput(join(sub, "page.html"), "hello\n");
    assert.equal(readFileSync(join(sub, "page.html"), "utf8"), "hello\n");
    assert.deepEqual(readdirSync(sub), ["page.html"]);
  });

  test("content made in chunks is written whole, in order", async () => {
    const path = join(dir, "chunks.html");
    async function* chunks() {
      for (let i = 0; i < 1000; i++) yield `${i}\n`;
    }
    await writeOutput(path, chunks());
    assert.equal(readFileSync(path, "utf8"), Array.from({ length: 1000 }, (_, i) => `${i}\n`).join(""));
  });

  test("a file mcp-wire wrote is replaced; one it did not write is refused and left as it was, unless forced", async () => {
    const path = join(dir, "report.html");
    writeFileSync(path, MINE);
    await writeOutput(path, `${MINE}<!-- again -->`, { option: "--html" });
    assert.match(readFileSync(path, "utf8"), /again/);

    const theirs = join(dir, "notes.html");
    writeFileSync(theirs, "<html><body>my own notes, written by hand</body></html>\n");
    await assert.rejects(writeOutput(theirs, MINE, { option: "--html" }), (e: unknown) => {
      assert.ok(e instanceof OutputRefused);
      assert.equal(e.code, "ERR_MCP_WIRE_OUTPUT_REFUSED");
      assert.equal(
        outputProblem(theirs, e),
        `--html ${theirs} exists and was not written by mcp-wire: name another file, or add --force to replace it`,
      );
      return true;
    });
    assert.equal(readFileSync(theirs, "utf8"), "<html><body>my own notes, written by hand</body></html>\n");
    await writeOutput(theirs, MINE, { force: true });
    assert.equal(readFileSync(theirs, "utf8"), MINE);
  });

  test("a symbolic link is refused, even with force, and what it points at is untouched", async () => {
    const target = join(dir, "precious.txt");
    writeFileSync(target, "precious\n");
    const link = join(dir, "link.html");
    symlinkSync(target, link);
    for (const force of [false, true]) {
      await assert.rejects(
        writeOutput(link, MINE, { force, option: "--html" }),
        /--html .*link\.html is a symbolic link: mcp-wire does not write through one/,
      );
    }
    // a link to a file mcp-wire wrote is still a link
    const ours = join(dir, "ours.html");
    writeFileSync(ours, MINE);
    const toOurs = join(dir, "to-ours.html");
    symlinkSync(ours, toOurs);
    await assert.rejects(writeOutput(toOurs, "changed"), OutputRefused);
    assert.equal(readFileSync(target, "utf8"), "precious\n");
    assert.equal(readFileSync(ours, "utf8"), MINE);
    // a dangling link too: writing through it would create a file wherever it points
    const dangling = join(dir, "dangling.html");
    symlinkSync(join(dir, "nowhere", "x"), dangling);
    await assert.rejects(writeOutput(dangling, MINE, { force: true }), /symbolic link/);
  });

  test("a folder, or a pipe, is refused at once: nothing waits on a reader", async () => {
    await assert.rejects(checkOutput(dir, { option: "--junit" }), /--junit .* is a folder: name a file/);
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(writeOutput(fifo, "x", { force: true }), /is not a regular file/);
  });

  test("a failure part-way leaves the old file whole and no temporary file behind", async () => {
    const sub = join(dir, "fail");
    mkdirSync(sub);
    const path = join(sub, "report.html");
    writeFileSync(path, MINE);
    async function* breaks() {
      yield "<!doctype html>";
      throw new Error("rendering failed");
    }
    await assert.rejects(writeOutput(path, breaks()), /rendering failed/);
    assert.equal(readFileSync(path, "utf8"), MINE);
    assert.deepEqual(readdirSync(sub), ["report.html"]);
  });

  test("a folder that does not exist is the file system's error, said in a line", async () => {
    const path = join(dir, "no", "such", "r.html");
    await assert.rejects(writeOutput(path, "x"), (e: unknown) => {
      assert.equal(outputProblem(path, e), `cannot write ${path}: no such folder`);
      return true;
    });
  });
});

describe("the generator mark", () => {
  test("every form mcp-wire writes is recognised; other files are not", () => {
    assert.ok(hasGeneratorMark(renderHtml(seedCensus().aggregate()).slice(0, 16 * 1024)), "report --html");
    assert.ok(hasGeneratorMark(renderJunit(sampleReport(), RULES).slice(0, 16 * 1024)), "check --junit");
    assert.ok(
      hasGeneratorMark(renderSarif(sampleReport(), RULES, { location: "server.json" }).slice(0, 16 * 1024)),
      "check --sarif",
    );
    assert.ok(hasGeneratorMark(renderMarkdown(sampleReport(), RULES).slice(0, 16 * 1024)), "check --markdown");
    assert.ok(hasGeneratorMark(`<?xml version="1.0" encoding="UTF-8"?>\n${generatorComment()}\n<testsuites/>`));
    assert.ok(hasGeneratorMark(`{"$schema": "x", "version": "2.1.0", "properties": {"generator": "mcp-wire"}}`));
    const before = `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="referrer" content="no-referrer">\n<title>mcp-wire report: Census run 1</title>`;
    assert.ok(hasGeneratorMark(before), "a page an earlier mcp-wire wrote, before the mark");
    assert.ok(!hasGeneratorMark(`<!doctype html>\n<p>mcp-wire report: my notes about it</p>`));
    assert.ok(
      !hasGeneratorMark(`{"name": "mcp-wire", "version": "0.1.0"}`),
      "a package.json naming mcp-wire is not its output",
    );
    assert.ok(!hasGeneratorMark(`<html><head><meta name="generator" content="Hugo"></head></html>`));
    assert.ok(!hasGeneratorMark("# Notes\n\nmcp-wire is nice.\n"));
  });
});
