/**
 * Every TypeScript example in the README compiles, under `strict`, against the package as a user
 * installs it: an example that does not compile teaches a user to write casts, or nothing at all.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, typeErrors } from "./testkit/typecheck.js";

/** The README's ```ts blocks, each with the line it starts on. */
function examples(markdown: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```ts") continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1]!.trim() !== "```") i++;
    out.push({ line: start + 1, code: lines.slice(start, i + 1).join("\n") });
    i++;
  }
  return out;
}

test("every ts example of the README compiles under --strict against the package's exports", () => {
  const blocks = examples(readFileSync(join(ROOT, "README.md"), "utf8"));
  assert.ok(blocks.length >= 5, `the README has its examples (found ${blocks.length})`);
  const sources = Object.fromEntries(blocks.map((b) => [`README.md-line-${b.line}.ts`, b.code]));
  assert.deepEqual(typeErrors(sources), []);
});

test("the check fails on what a user could not compile: a variable used before it is assigned, a cast-free read of an unnarrowed message", () => {
  const errors = typeErrors({
    "unassigned.ts":
      'import { ChildServer } from "mcp-wire/client";\nlet child: ChildServer;\nawait child.shutdown();\n',
    "unnarrowed.ts":
      'import { decode } from "mcp-wire";\nconst d = decode("{}", { revision: "2025-11-25" });\nd.message.method;\n',
  });
  assert.ok(
    errors.some((e) => e.startsWith("unassigned.ts:3:7 TS2454")),
    errors.join("\n"),
  );
  assert.ok(
    errors.some((e) => e.startsWith("unnarrowed.ts:3:")),
    errors.join("\n"),
  );
});
