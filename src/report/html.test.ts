import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { seedCensus, seedHistory } from "./fixtures.test.js";
import { PAYLOADS, hostileStore } from "./hostile.test.js";
import { renderHtml } from "./html.js";
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
    assert.doesNotMatch(html, /\s(src|href|srcset|action|poster|data)\s*=/i);
    assert.doesNotMatch(html, /@import|url\(/i);
    assert.doesNotMatch(html, /\sstyle\s*=/i, "no style attributes: the policy would block them");
    assert.equal(html.match(/<script/g)?.length, 1);
  });

  test("the three charts and the tables are there", () => {
    const html = renderHtml(seedHistory(seedCensus()).aggregate());
    for (const id of ["chart-runs", "chart-revisions", "chart-latency"]) assert.match(html, new RegExp(`<figure id="${id}">.*?<svg class="chart`));
    for (const id of ["classes", "revisions", "errors", "targets"]) assert.match(html, new RegExp(`<table[^>]* id="${id}"`));
    assert.equal(html.match(/<g class="run">/g)?.length, 83);
  });

  test("every string from the data is escaped", () => {
    const html = renderHtml(hostileStore().aggregate());
    for (const p of PAYLOADS) {
      assert.ok(!html.includes(p), `raw payload in the page: ${p}`);
      assert.ok(html.includes(p.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")), `escaped payload missing: ${p}`);
    }
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.doesNotMatch(html, /<(img|iframe|svg onload)/i);
  });
});
