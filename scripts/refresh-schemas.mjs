#!/usr/bin/env node
// Refreshes the vendored official MCP schemas (schema/<revision>/schema.json), the licence the
// specification repository states for them (schema/LICENSE) and the commit they come from
// (schema/SOURCE), from a checkout of
// github.com/modelcontextprotocol/modelcontextprotocol or a bare git mirror of it; and, given
// --ext-tasks, the tasks extension's schema (schema/ext-tasks/: schema.json, LICENSE, SOURCE)
// from a checkout or mirror of github.com/modelcontextprotocol/ext-tasks, which publishes it.
//
//   node scripts/refresh-schemas.mjs PATH [--ref REF] [--ext-tasks PATH [--ext-tasks-ref REF]]
//
// The files are copied byte for byte: errata are patched when the schemas are loaded
// (src/schema/load.ts), never in the vendored copy, so a refresh is a plain diff against upstream.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The revisions mcp-wire speaks; keep in step with REVISIONS in src/rules/revisions.ts.
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
// Where the tasks extension's repository keeps its published schema.
const EXT_TASKS_SCHEMA = "schema/draft/schema.json";
const MAX_BYTES = 16 * 1024 * 1024;

function usage(message) {
  process.stderr.write(
    `refresh-schemas: ${message}\nusage: node scripts/refresh-schemas.mjs PATH-TO-CHECKOUT-OR-MIRROR [--ref REF] [--ext-tasks PATH [--ext-tasks-ref REF]]\n`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
/** The value after `flag`, undefined when the flag is absent; a flag without a value is a usage error. */
function option(flag) {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith("--")) usage(`${flag} needs a value`);
  return value;
}
const known = new Set(["--ref", "--ext-tasks", "--ext-tasks-ref"]);
for (let i = 1; i < args.length; i += 2) if (!known.has(args[i])) usage(`unknown option ${args[i]}`);
const source = args[0];
if (source === undefined || source.startsWith("-")) usage("name the specification repository's checkout or git mirror");
const extTasks = option("--ext-tasks");
if (option("--ext-tasks-ref") !== undefined && extTasks === undefined) usage("--ext-tasks-ref needs --ext-tasks");

/** A repository to read files from: a work tree (files on disk, at HEAD) or a bare mirror (any ref, through git). */
function repository(path, ref) {
  const root = resolve(path);
  if (!existsSync(root)) usage(`${root} does not exist`);
  const gitDir = existsSync(join(root, ".git")) ? join(root, ".git") : root;
  const isWorkTree = existsSync(join(root, "schema")) && ref === undefined;
  return {
    root,
    read(file) {
      if (isWorkTree) return readFileSync(join(root, file));
      try {
        return execFileSync("git", ["--git-dir", gitDir, "show", `${ref ?? "HEAD"}:${file}`], { maxBuffer: MAX_BYTES });
      } catch {
        usage(`cannot read ${file} at ${ref ?? "HEAD"} from ${root}`);
      }
    },
    /** The commit the files come from, when git can tell. */
    commit() {
      try {
        return execFileSync("git", ["--git-dir", gitDir, "rev-parse", `${ref ?? "HEAD"}^{commit}`], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }).trim();
      } catch {
        return undefined;
      }
    },
  };
}

/** `bytes` parsed as a JSON Schema document, or a usage error naming `what`. */
function schemaDocument(bytes, what) {
  try {
    const parsed = JSON.parse(bytes.toString("utf8"));
    if (typeof parsed.$schema !== "string") throw new Error("no $schema");
    return parsed;
  } catch (error) {
    usage(`${what} is not a JSON Schema document (${error.message})`);
  }
}

const target = join(dirname(fileURLToPath(import.meta.url)), "..", "schema");
const files = new Map();
const spec = repository(source, option("--ref"));
for (const revision of REVISIONS) {
  const bytes = spec.read(`schema/${revision}/schema.json`);
  schemaDocument(bytes, `schema/${revision}/schema.json`);
  files.set(join(target, revision, "schema.json"), bytes);
}
files.set(join(target, "LICENSE"), spec.read("LICENSE"));
const specCommit = spec.commit();
if (specCommit !== undefined)
  files.set(
    join(target, "SOURCE"),
    Buffer.from(`https://github.com/modelcontextprotocol/modelcontextprotocol commit ${specCommit}\n`),
  );
else process.stderr.write("refresh-schemas: not a git repository: schema/SOURCE left as it was\n");

if (extTasks !== undefined) {
  const ext = repository(extTasks, option("--ext-tasks-ref"));
  const bytes = ext.read(EXT_TASKS_SCHEMA);
  const document = schemaDocument(bytes, `${EXT_TASKS_SCHEMA} of ${ext.root}`);
  // the tasks extension, by what it says of itself: another repository's schema must not land here
  if (!JSON.stringify(document.description ?? "").includes("io.modelcontextprotocol/tasks"))
    usage(`${EXT_TASKS_SCHEMA} of ${ext.root} does not describe the tasks extension (io.modelcontextprotocol/tasks)`);
  files.set(join(target, "ext-tasks", "schema.json"), bytes);
  files.set(join(target, "ext-tasks", "LICENSE"), ext.read("LICENSE"));
  const commit = ext.commit();
  if (commit !== undefined)
    files.set(
      join(target, "ext-tasks", "SOURCE"),
      Buffer.from(
        `https://github.com/modelcontextprotocol/ext-tasks commit ${commit} ${EXT_TASKS_SCHEMA} (the tasks extension, io.modelcontextprotocol/tasks; Apache-2.0, see LICENSE here)\n`,
      ),
    );
  else
    process.stderr.write(
      "refresh-schemas: the ext-tasks source is not a git repository: schema/ext-tasks/SOURCE left as it was\n",
    );
} else {
  process.stderr.write(
    "refresh-schemas: schema/ext-tasks left as it was (--ext-tasks PATH refreshes it from the ext-tasks repository)\n",
  );
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
