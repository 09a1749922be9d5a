/**
 * The house rules a reader checks by eye, checked by reading the sources with the TypeScript
 * parser (syntax only, no type checker: a pass over every file takes a second or two): which
 * functions are too long to read at once, which exports nobody imports, which shipped modules
 * nothing shipped reaches.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { ROOT } from "./typecheck.js";

/** Longest function or method, in lines from its signature to its closing brace. */
export const MAX_FUNCTION_LINES = 80;

/** Every `.ts` (or `.mjs`) file under `dir` (relative to the repository root), declarations left out. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(join(ROOT, at), { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** Test code: the tests and their helpers, which ship in no package and are read another way. */
export function isTestCode(path: string): boolean {
  return path.endsWith(".test.ts") || path.startsWith(join("src", "testkit") + "/");
}

const parsed = new Map<string, ts.SourceFile>();

function parse(path: string): ts.SourceFile {
  let sf = parsed.get(path);
  if (!sf) {
    sf = ts.createSourceFile(path, readFileSync(join(ROOT, path), "utf8"), ts.ScriptTarget.ES2022, true);
    parsed.set(path, sf);
  }
  return sf;
}

export interface LongFunction {
  /** `path:line` of its first line. */
  at: string;
  name: string;
  lines: number;
}

/**
 * Every function, method, accessor and constructor longer than `max` lines in `files`, longest
 * first — but for a data table: a function whose body, at its top level, only declares (calls
 * with literal definitions, returns of a literal, constants) and never decides (no `if`, loop,
 * `switch`, `try` or `let`). Such a body is a list read entry by entry (the tools a fixture
 * server defines, one after another); its length is the table's, and splitting it would only
 * scatter the entries.
 */
export function longFunctions(files: readonly string[], max = MAX_FUNCTION_LINES): LongFunction[] {
  const out: LongFunction[] = [];
  for (const path of files) {
    const sf = parse(path);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const lines = sf.getLineAndCharacterOfPosition(node.end).line - first + 1;
        if (lines > max && !isDataTable(node.body as ts.Node))
          out.push({ at: `${path}:${first + 1}`, name: nameOf(node, sf), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

/** Whether a function body only declares, never decides (see `longFunctions`). */
export function isDataTable(body: ts.Node): boolean {
  if (!ts.isBlock(body)) return ts.isObjectLiteralExpression(body) || ts.isArrayLiteralExpression(body);
  return body.statements.every((s) => {
    if (ts.isExpressionStatement(s)) return ts.isCallExpression(s.expression);
    if (ts.isReturnStatement(s))
      return !s.expression || ts.isObjectLiteralExpression(s.expression) || ts.isArrayLiteralExpression(s.expression);
    if (ts.isVariableStatement(s)) return (s.declarationList.flags & ts.NodeFlags.Const) !== 0;
    return ts.isFunctionDeclaration(s);
  });
}

function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(sf);
  // an arrow or function expression: the variable or property it is given to
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(sf);
  return "(anonymous)";
}

/** What one file takes from another: the names, or `*` for all of them. */
type Uses = Map<string, Set<string>>;

/**
 * The source file a relative specifier (`./x.js`) names, or undefined for a package. A script
 * importing the build (`../dist/src/x.js`) takes from its source, `src/x.ts`.
 */
function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const path = relative(ROOT, resolve(ROOT, dirname(from), specifier.replace(/\.js$/, ".ts")));
  return path.startsWith("dist/") ? path.slice("dist/".length) : path;
}

function use(uses: Uses, file: string | undefined, name: string): void {
  if (file === undefined) return;
  let names = uses.get(file);
  if (!names) uses.set(file, (names = new Set()));
  names.add(name);
}

/**
 * What each file of `files` takes from the others: static imports, re-exports, and dynamic
 * imports (the names destructured from `await import(…)`, else all of them).
 */
function importsOf(files: readonly string[]): Map<string, Uses> {
  const all = new Map<string, Uses>();
  for (const path of files) {
    const uses: Uses = new Map();
    all.set(path, uses);
    const sf = parse(path);
    const visit = (node: ts.Node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const file = target(path, (node.moduleSpecifier as ts.StringLiteral).text);
        staticUses(node, file, uses);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = node.arguments;
        const file = arg && ts.isStringLiteral(arg) ? target(path, arg.text) : undefined;
        for (const name of destructured(node)) use(uses, file, name);
      } else if (isModuleUrl(node)) {
        // a module run by path (a child process's script): all of it is in use
        use(uses, target(path, (node.arguments![0] as ts.StringLiteral).text), "*");
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return all;
}

function staticUses(node: ts.ImportDeclaration | ts.ExportDeclaration, file: string | undefined, uses: Uses): void {
  if (ts.isExportDeclaration(node)) {
    const clause = node.exportClause;
    if (!clause || ts.isNamespaceExport(clause)) return use(uses, file, "*");
    for (const e of clause.elements) use(uses, file, (e.propertyName ?? e.name).text);
    return;
  }
  const clause = node.importClause;
  if (!clause) return use(uses, file, "*"); // for its effects
  if (clause.name) use(uses, file, "default");
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) use(uses, file, "*");
  else for (const e of bindings?.elements ?? []) use(uses, file, (e.propertyName ?? e.name).text);
}

/** `new URL("./x.js", import.meta.url)`: a module named by its path. */
function isModuleUrl(node: ts.Node): node is ts.NewExpression {
  if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== "URL") return false;
  const [spec, base] = node.arguments ?? [];
  return (
    spec !== undefined &&
    ts.isStringLiteral(spec) &&
    /\.[mc]?js$/.test(spec.text) &&
    base !== undefined &&
    base.getText() === "import.meta.url"
  );
}

/** The names taken from a dynamic import: those destructured from it, else all (`*`). */
function destructured(call: ts.CallExpression): string[] {
  let node: ts.Node = call;
  if (ts.isAwaitExpression(node.parent)) node = node.parent;
  const decl = node.parent;
  if (ts.isVariableDeclaration(decl) && ts.isObjectBindingPattern(decl.name))
    return decl.name.elements.map((e) => (e.propertyName ?? e.name).getText());
  return ["*"];
}

/** An export of a file: its name, line, and whether it is a value (else only a type). */
export interface Export {
  name: string;
  line: number;
  value: boolean;
}

/** The names `path` exports itself (`export function f`, `export { a, b }`, `export { c } from`). */
export function exportsOf(path: string): Export[] {
  const sf = parse(path);
  const out: Export[] = [];
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  for (const s of sf.statements) {
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause))
      for (const e of s.exportClause.elements)
        out.push({ name: e.name.text, line: line(e), value: !s.isTypeOnly && !e.isTypeOnly });
    const exported = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        out.push({ name: d.name.getText(sf), line: line(d), value: true });
    else if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s))
      out.push({ name: s.name.text, line: line(s), value: false });
    else if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isEnumDeclaration(s)) && s.name)
      out.push({ name: s.name.text, line: line(s), value: true });
  }
  return out;
}

/**
 * The exports no other file imports, in `files` (every file that may import, tests included)
 * but for `entries` (whose exports are the package's surface): `path:line name` each.
 */
export function unimportedExports(
  files: readonly string[],
  entries: ReadonlySet<string>,
  which: (e: Export) => boolean = () => true,
): string[] {
  const imports = importsOf(files);
  const taken = new Map<string, Set<string>>();
  for (const [from, uses] of imports)
    for (const [file, names] of uses) {
      if (file === from) continue;
      let set = taken.get(file);
      if (!set) taken.set(file, (set = new Set()));
      for (const n of names) set.add(n);
    }
  const dead: string[] = [];
  for (const path of files) {
    if (entries.has(path)) continue;
    const names = taken.get(path);
    if (names?.has("*")) continue;
    for (const e of exportsOf(path)) if (which(e) && !names?.has(e.name)) dead.push(`${path}:${e.line} ${e.name}`);
  }
  return dead;
}

/** The files `roots` reach through their imports (static and dynamic), among `files`. */
export function reachable(roots: readonly string[], files: readonly string[]): Set<string> {
  const imports = importsOf(files);
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of imports.get(file)?.keys() ?? []) queue.push(next);
  }
  return seen;
}

/**
 * Every identifier and every string `files` use: what a page may name as a member (`listTools`),
 * an option (`timeout`) or a value the library gives (`repeated_cursor`).
 */
export function wordsOf(files: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const path of files) {
    const visit = (node: ts.Node) => {
      if (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
        words.add(node.text);
      ts.forEachChild(node, visit);
    };
    visit(parse(path));
  }
  return words;
}
