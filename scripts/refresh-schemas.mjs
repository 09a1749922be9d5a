#!/usr/bin/env node
// Refreshes the vendored official MCP schemas (schema/<revision>/schema.json), the licence the
// specification repository states for them (schema/LICENSE) and the commit they come from
// (schema/SOURCE), from a checkout of
// github.com/modelcontextprotocol/modelcontextprotocol or a bare git mirror of it.
//
//   node scripts/refresh-schemas.mjs PATH [--ref HEAD]
//
// The files are copied byte for byte: errata are patched when the schemas are loaded
// (src/schema/load.ts), never in the vendored copy, so a refresh is a plain diff against upstream.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The revisions mcp-wire speaks; keep in step with REVISIONS in src/rules/revisions.ts.
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
const MAX_BYTES = 16 * 1024 * 1024;

function usage(message) {
  process.stderr.write(
    `refresh-schemas: ${message}\nusage: node scripts/refresh-schemas.mjs PATH-TO-CHECKOUT-OR-MIRROR [--ref REF]\n`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const source = args[0];
if (source === undefined || source.startsWith("-")) usage("name the specification repository's checkout or git mirror");
const refAt = args.indexOf("--ref");
const ref = refAt === -1 ? "HEAD" : args[refAt + 1];
if (ref === undefined) usage("--ref needs a value");
const root = resolve(source);
if (!existsSync(root)) usage(`${root} does not exist`);

// A work tree has the files on disk; a bare mirror (or a worktree's .git) is read through git.
const isWorkTree = existsSync(join(root, "schema")) && refAt === -1;
function read(path) {
  if (isWorkTree) return readFileSync(join(root, path));
  try {
    return execFileSync(
      "git",
      ["--git-dir", existsSync(join(root, ".git")) ? join(root, ".git") : root, "show", `${ref}:${path}`],
      {
        maxBuffer: MAX_BYTES,
      },
    );
  } catch {
    usage(`cannot read ${path} at ${ref} from ${root}`);
  }
}

const target = join(dirname(fileURLToPath(import.meta.url)), "..", "schema");
const files = new Map();
for (const revision of REVISIONS) {
  const bytes = read(`schema/${revision}/schema.json`);
  try {
    const parsed = JSON.parse(bytes.toString("utf8"));
    if (typeof parsed.$schema !== "string") throw new Error("no $schema");
  } catch (error) {
    usage(`schema/${revision}/schema.json is not a JSON Schema document (${error.message})`);
  }
  files.set(join(target, revision, "schema.json"), bytes);
}
files.set(join(target, "LICENSE"), read("LICENSE"));
// the commit the files were taken from, when git can tell (a bare mirror, or a checkout)
try {
  const gitDir = existsSync(join(root, ".git")) ? join(root, ".git") : root;
  const commit = execFileSync("git", ["--git-dir", gitDir, "rev-parse", `${ref}^{commit}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
  files.set(
    join(target, "SOURCE"),
    Buffer.from(`https://github.com/modelcontextprotocol/modelcontextprotocol commit ${commit}\n`),
  );
} catch {
  process.stderr.write("refresh-schemas: not a git repository: schema/SOURCE left as it was\n");
}

let changed = 0;
for (const [path, bytes] of files) {
  const before = existsSync(path) ? readFileSync(path) : null;
  if (before !== null && before.equals(bytes)) continue;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  changed++;
  process.stdout.write(`updated ${path}\n`);
}
process.stdout.write(`${changed} file(s) changed, ${files.size - changed} unchanged\n`);
