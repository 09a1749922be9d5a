/**
 * docs/gauntlet.md keeps up with the catalogue: every scenario and every check id has its entry,
 * and the page names no check that does not exist.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../testkit/typecheck.js";
import { SCENARIOS, checksOf } from "./catalogue.js";

const page = readFileSync(join(ROOT, "docs/gauntlet.md"), "utf8");

test("every scenario and check id is documented in docs/gauntlet.md", () => {
  for (const s of SCENARIOS) {
    assert.ok(page.includes(`### \`${s.id}\``), `scenario ${s.id} has no section`);
    for (const c of checksOf(s)) assert.ok(page.includes(`| \`${c.id}\` |`), `check ${c.id} has no row`);
  }
});

test("docs/gauntlet.md names no check that does not exist", () => {
  const known = new Set(SCENARIOS.flatMap((s) => checksOf(s).map((c) => c.id)));
  for (const m of page.matchAll(/^\| `([a-z_.]+)` \| (error|warning|info) \|/gm)) assert.ok(known.has(m[1]!), m[1]);
});
