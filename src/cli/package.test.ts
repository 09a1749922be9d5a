/**
 * What `npm pack` ships, from a clean checkout: `dist/` is not committed, so only a `prepack`
 * build (tsconfig.pack.json: the shipped modules only) puts the library and the `mcp-wire` command
 * into the tarball. Packed from a fresh clone of
 * the committed tree, as a user's `npm pack` or `npm publish` would, never from this working
 * directory whose `dist/` the test run itself built.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { isTestCode, reachable, sourceFiles } from "../testkit/house.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-pack-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const inGit = existsSync(join(ROOT, ".git"));

describe("npm pack from a fresh clone", { skip: inGit ? false : "not a git checkout: nothing to clone" }, () => {
  test("ships dist (built by prepack): the library, its types and the mcp-wire command, and no test file", async () => {
    const clone = join(dir, "clone");
    await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], { timeout: 60_000 });
    assert.equal(existsSync(join(clone, "dist")), false, "a fresh clone has no dist");
    // the clone's build needs the compiler and types a fresh `npm ci` would bring: borrow ours
    symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json"], {
      cwd: clone,
      timeout: 120_000,
      maxBuffer: 16 << 20,
    });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    const entries = Object.values(
      JSON.parse(readFileSync(join(clone, "package.json"), "utf8")).exports as Record<
        string,
        string | { types: string; import: string }
      >,
    )
      .flatMap((e) => (typeof e === "string" ? [] : [e.types, e.import]))
      .map((p) => p.replace(/^\.\//, ""));
    assert.ok(entries.length >= 12, "every entry's module and types");
    for (const f of [...entries, "dist/src/cli/main.js", "README.md", "LICENSE", "package.json"])
      assert.ok(files.includes(f), `${f} is packed`);
    // the official schemas validate() reads at run time, with the licence they come under
    for (const f of ["schema/2024-11-05/schema.json", "schema/2026-07-28/schema.json", "schema/LICENSE"])
      assert.ok(files.includes(f), `${f} is packed`);
    // their validators, compiled by the prepack build; the compiler that wrote them is not shipped
    for (const f of ["dist/src/schema/compiled/2024-11-05.first.cjs", "dist/src/schema/compiled/ext-tasks.all.cjs"])
      assert.ok(files.includes(f), `${f} is packed`);
    assert.ok(!files.includes("dist/src/schema/compile.js"), "the compiler of the validators is not packed");
    // the page `mcp-wire explain <id>` prints, which every pointer to documentation names
    for (const f of ["docs/check.md", "docs/cli.md"]) assert.ok(files.includes(f), `${f} is packed`);
    assert.deepEqual(
      files.filter((f) => /\.test\.(js|d\.ts)/.test(f)),
      [],
      "no test file is packed",
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith("dist/src/testkit/")),
      [],
      "no test helper is packed",
    );
    // a source map whose sources are not shipped points a debugger at nothing
    assert.deepEqual(
      files.filter((f) => f.endsWith(".map")),
      [],
      "no source map is packed",
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith("src/") || f.startsWith("bench/") || f.startsWith("dist/bench/")),
      [],
      "no source or bench file is packed",
    );
    // a module no entry and not the command loads is a test's or a script's: it stays out
    const shipped = sourceFiles("src").filter((f) => !isTestCode(f));
    const loaded = reachable(["src/index.ts", ...sourceFiles("src/entry"), "src/cli/main.ts"], shipped);
    assert.deepEqual(
      files
        .filter((f) => /^dist\/src\/.*\.js$/.test(f))
        .filter((f) => !loaded.has(f.replace(/^dist\//, "").replace(/\.js$/, ".ts"))),
      [],
      "every packed module is loaded by the package",
    );
  });
});
