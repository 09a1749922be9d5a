/**
 * Every shape the library keeps alive names a benchmark that exists, and loading the library's
 * entries registers them all (none hides in a module no entry loads).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { KEPT_SHAPES } from "./shapes.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

test("each kept shape names a benchmark bench/run.ts runs", async () => {
  await Promise.all(
    ["../index.js", "../entry/peer.js", "../entry/client.js", "../entry/server.js", "../entry/http.js"].map(
      (m) => import(m),
    ),
  );
  assert.ok(KEPT_SHAPES.length >= 12, `the entries keep their shapes (${KEPT_SHAPES.length} kept)`);
  const run = readFileSync(`${ROOT}bench/run.ts`, "utf8");
  const files = [...run.matchAll(/from "\.\/([\w-]+)\.js"/g)].map((m) =>
    readFileSync(`${ROOT}bench/${m[1]}.ts`, "utf8"),
  );
  const names = new Set(files.flatMap((text) => [...text.matchAll(/^\s+name: "([\w-]+)",$/gm)].map((m) => m[1]!)));
  for (const { shape, benchmark } of KEPT_SHAPES)
    assert.ok(
      names.has(benchmark),
      `${shape} names ${benchmark}, a benchmark of bench/run.ts (${[...names].join(", ")})`,
    );
});
