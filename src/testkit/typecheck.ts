/**
 * Type-checks code as a user of the package would write it: `import … from "mcp-wire"` (and its
 * subpaths) resolved through package.json's `exports` to the built declarations, under `strict`,
 * as an ES module on Node. The sources are held in memory, at paths inside the package, so the
 * package's own name resolves to itself as it does for a user's import of the installed package.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository (and package) root: this file runs as dist/src/typecheck-support.test.js. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Where the in-memory sources pretend to live: a folder that does not exist, inside the package. */
const VIRTUAL = join(ROOT, "typecheck-in-memory");

/** What a user's project would set: nothing beyond `strict`, ESM on Node 20. */
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2023.d.ts"],
  types: ["node"],
  typeRoots: [join(ROOT, "node_modules", "@types")],
  skipLibCheck: true,
};

/**
 * Every diagnostic for `sources` (file name → TypeScript text), one line each as
 * `name:line:column TSnnnn message`. Empty: everything compiles.
 */
export function typeErrors(sources: Readonly<Record<string, string>>): string[] {
  if (!existsSync(join(ROOT, "dist", "src", "index.d.ts")))
    throw new Error("no dist/src/index.d.ts: build first (npx tsc -p tsconfig.json)");
  const files = new Map(Object.entries(sources).map(([name, text]) => [join(VIRTUAL, name), text]));
  const host = ts.createCompilerHost(OPTIONS, true);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, language, onError, create) => {
    const text = files.get(name);
    return text !== undefined
      ? ts.createSourceFile(name, text, language, true)
      : getSourceFile(name, language, onError, create);
  };
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    if (!d.file || d.start === undefined) return `TS${d.code} ${text}`;
    const at = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.slice(VIRTUAL.length + 1)}:${at.line + 1}:${at.character + 1} TS${d.code} ${text}`;
  });
}
