/** docs/check.md is the catalogue's page: every id with its rule, revisions, spec link and fix, and nothing else. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { checkDocs } from "./docs.js";
import { CHECK_RULES } from "./rules.js";

const PAGE = new URL("../../../docs/check.md", import.meta.url);

test("docs/check.md is what the rule catalogue makes (node scripts/check-docs.mjs writes it)", () => {
  assert.equal(
    readFileSync(PAGE, "utf8"),
    checkDocs(),
    "docs/check.md is out of date: run npm run build && node scripts/check-docs.mjs",
  );
});

test("every rule has a section of its own to link to, with its spec link and fix", () => {
  const page = readFileSync(PAGE, "utf8");
  const ids = new Set<string>();
  for (const rule of CHECK_RULES) {
    assert.ok(/^[a-z0-9_]+$/.test(rule.id), `${rule.id} is snake_case`);
    assert.ok(!ids.has(rule.id), `${rule.id} is listed once`);
    ids.add(rule.id);
    assert.ok(page.includes(`\n### ${rule.id}\n`), `a section for ${rule.id}`);
    assert.ok(page.includes(`<${rule.spec}>`) && page.includes(rule.fix), `${rule.id}: spec and fix`);
    assert.ok(rule.spec.startsWith("https://"), `${rule.id}: the spec link is a URL`);
  }
});
