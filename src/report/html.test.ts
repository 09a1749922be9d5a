import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { seedCensus, seedHistory } from "../testkit/report-fixtures.js";
import { PAYLOADS, hostileStore } from "../testkit/report-hostile.js";
import { seedFifty } from "../testkit/report-fixtures.js";
import { breakableUrl, collapsed, renderHtml, runLabels } from "./html.js";
import { PAGE_CSS, PAGE_SCRIPT } from "./page-assets.js";

const sha = (s: string) => createHash("sha256").update(s).digest("base64");

describe("report --html, as text", () => {
  test("one page that asks for nothing: a policy allowing only its own style and script, no src or href anywhere", () => {
    const html = renderHtml(seedHistory(seedCensus()).aggregate());
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]?.replace(/&#39;/g, "'");
    assert.ok(csp, "a Content-Security-Policy");
    assert.match(csp!, /default-src 'none'/);
    assert.ok(csp!.includes(`script-src 'sha256-${sha(PAGE_SCRIPT)}'`));
    assert.ok(csp!.includes(`style-src 'sha256-${sha(PAGE_CSS)}'`));
    assert.ok(html.includes(`<script>${PAGE_SCRIPT}</script>`) && html.includes(`<style>${PAGE_CSS}</style>`));
    assert.doesNotMatch(html, /\s(src|srcset|action|poster|data)\s*=/i);
    // links only within the page itself
    assert.doesNotMatch(html, /\shref\s*=\s*"(?!#)/i);
    assert.doesNotMatch(html, /@import|url\(/i);
    assert.doesNotMatch(html, /\sstyle\s*=/i, "no style attributes: the policy would block them");
    assert.equal(html.match(/<script/g)?.length, 1);
  });

  test("the three charts and the tables are there", () => {
    const html = renderHtml(seedHistory(seedCensus()).aggregate());
    for (const id of ["chart-runs", "chart-revisions", "chart-latency"])
      assert.match(html, new RegExp(`<figure id="${id}">.*?<svg class="chart`));
    for (const id of ["classes", "revisions", "errors", "targets"])
      assert.match(html, new RegExp(`<table[^>]* id="${id}"`));
    assert.equal(html.match(/<g class="run">/g)?.length, 83);
  });

  test("every string from the data is escaped", () => {
    const html = renderHtml(hostileStore().aggregate());
    for (const p of PAYLOADS) {
      assert.ok(!html.includes(p), `raw payload in the page: ${p}`);
      assert.ok(
        html.includes(
          p
            .replace(/&/g, "&amp;")
            .replace(/</g, "&lt;")
            .replace(/>/g, "&gt;")
            .replace(/"/g, "&quot;")
            .replace(/'/g, "&#39;"),
        ),
        `escaped payload missing: ${p}`,
      );
    }
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.doesNotMatch(html, /<(img|iframe|svg onload)/i);
  });

  test("run labels stay unique: the day, then the minute, then the second, then the run's number", () => {
    const at = (id: number, startedAt: string) => ({ id, startedAt });
    assert.deepEqual(
      [...runLabels([at(1, "2026-08-20T09:00:00Z"), at(2, "2026-08-21T09:00:00Z")]).values()],
      ["20 Aug", "21 Aug"],
    );
    assert.deepEqual(
      [...runLabels([at(1, "2026-08-20T09:00:00Z"), at(2, "2026-08-20T10:00:00Z")]).values()],
      ["20 Aug 09:00", "20 Aug 10:00"],
    );
    assert.deepEqual(
      [...runLabels([at(1, "2026-08-20T09:00:05Z"), at(2, "2026-08-20T09:00:40Z")]).values()],
      ["20 Aug 09:00:05", "20 Aug 09:00:40"],
    );
    assert.deepEqual(
      [...runLabels([at(7, "2026-08-20T09:00:40Z"), at(8, "2026-08-20T09:00:40.5Z")]).values()],
      ["20 Aug 09:00:40 #7", "20 Aug 09:00:40 #8"],
    );
  });

  test("a URL breaks between its parts, a very long part within itself, and is still escaped", () => {
    assert.equal(
      breakableUrl("https://a.example/mcp?x=1&y=2"),
      "https://<wbr>a.<wbr>example/<wbr>mcp?<wbr>x=<wbr>1&amp;<wbr>y=<wbr>2",
    );
    assert.equal(breakableUrl("/<b>"), "/<wbr>&lt;b&gt;");
    assert.ok(
      breakableUrl(`https://h/${"k".repeat(60)}`)
        .split("<wbr>")
        .every((p) => p.length <= 24),
    );
  });

  test("fifty targets: healthy ones folded into one group, the rest in the table, protocol errors listed where the story points", () => {
    const agg = seedFifty().aggregate();
    const html = renderHtml(agg);
    const healthy = /<details id="healthy"><summary>([^<]+)<\/summary>/.exec(html);
    assert.equal(healthy?.[1], "32 servers answered cleanly and listed their tools every time");
    const rows = (id: string) =>
      (new RegExp(`<table[^>]* id="${id}">.*?<tbody>(.*?)</tbody>`, "s").exec(html)?.[1] ?? "").split("<tr").length - 1;
    assert.equal(rows("healthy-targets") + rows("targets"), agg.targets);
    assert.match(html, /protocol errors[^<]*<a class="see" href="#defects">/);
    assert.match(html, /<h2 id="defects">/);
    assert.match(html, /<table class="cards" id="defect-kinds">.*bare_array.*https:\/\/<wbr>broken16/s);
  });

  test("collapsed advice keeps its first sentence whole: a colon never ends the summary", () => {
    const advice =
      "The server refused the request with JSON-RPC error -32001: send an HTTP 401 with a Bearer challenge instead. Clients read a JSON-RPC error as a broken server, not as a request to sign in.";
    const html = collapsed(advice);
    assert.equal(
      html,
      `<details><summary>The server refused the request with JSON-RPC error -32001: send an HTTP 401 with a Bearer challenge instead.</summary>Clients read a JSON-RPC error as a broken server, not as a request to sign in.</details>`,
    );
    const one =
      "Sign-in is broken at the authorization server: it publishes no metadata at any of the addresses the revision lists";
    assert.equal(collapsed(one), one, "one sentence with a colon stays whole");
  });

  test("the targets section, byte for byte: every column, the healthy group, both left-out notes, hostile text", () => {
    const section = (html: string) => html.slice(html.indexOf("<h2>Targets</h2>")).split("\n")[0]!;
    const at = { generatedAt: new Date(0) };
    const shown = [
      section(renderHtml(seedFifty().aggregate(), at)),
      section(renderHtml(seedFifty().aggregate(), { ...at, maxTargets: 5 })),
      section(renderHtml(hostileStore().aggregate(), at)),
    ].join("\n");
    // a change meant to change the page rewrites this file, and its diff is the review
    const golden = readFileSync(new URL("../../../test/fixtures/report/targets.html", import.meta.url), "utf8");
    assert.equal(`${shown}\n`, golden);
  });
});
