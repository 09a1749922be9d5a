/**
 * The user documentation keeps up with the code: every defect code in the one severity table has
 * its line in docs/defects.md, with the table's severity and scope, and the page names no code
 * that does not exist; the sign-in walk's codes likewise in docs/probe.md; every page under
 * docs/ is linked from the README, and the pages' links to each other lead somewhere; every
 * benchmark file has its row in bench/README.md.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, test } from "node:test";
import { DEFECTS, type DefectCode } from "./codec/defects.js";
import { AUTH_DEFECT_CODES } from "./auth/types.js";
import { ROOT } from "./testkit/typecheck.js";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

interface Row {
  code: string;
  /** The cells after the code, trimmed. */
  cells: string[];
  line: number;
}

/** The table rows whose first cell is one code in backticks: `| \`code\` | … |`. */
function codeRows(markdown: string): Row[] {
  const rows: Row[] = [];
  markdown.split("\n").forEach((text, i) => {
    const m = /^\|\s*`([a-z0-9_]+)`\s*\|(.*)\|\s*$/.exec(text);
    if (m) rows.push({ code: m[1]!, cells: m[2]!.split("|").map((c) => c.trim()), line: i + 1 });
  });
  return rows;
}

/** What is wrong with a defects page, against DEFECTS: one sentence each, none when it agrees. */
function defectPageProblems(markdown: string): string[] {
  const problems: string[] = [];
  const rows = codeRows(markdown);
  const seen = new Map<string, number>();
  for (const row of rows) {
    const earlier = seen.get(row.code);
    if (earlier !== undefined)
      problems.push(`line ${row.line}: ${row.code} is listed again (first on line ${earlier})`);
    seen.set(row.code, row.line);
    if (!Object.hasOwn(DEFECTS, row.code)) {
      problems.push(`line ${row.line}: ${row.code} is no defect code`);
      continue;
    }
    const spec: { severity: string; scope: string; when?: Record<string, string> } = DEFECTS[row.code as DefectCode];
    const [severity = "", scope = ""] = row.cells;
    if (severity.split(/[;\s]/)[0] !== spec.severity)
      problems.push(
        `line ${row.line}: ${row.code} is a${spec.severity === "error" ? "n" : ""} ${spec.severity}, not "${severity}"`,
      );
    for (const milder of new Set(Object.values(spec.when ?? {}))) {
      if (!severity.includes(milder))
        problems.push(`line ${row.line}: ${row.code} is a ${milder} in a named case, which "${severity}" does not say`);
    }
    if (scope !== spec.scope) problems.push(`line ${row.line}: ${row.code} has scope ${spec.scope}, not "${scope}"`);
  }
  for (const code of Object.keys(DEFECTS)) if (!seen.has(code)) problems.push(`${code} is missing`);
  return problems;
}

/** What is wrong with the sign-in codes' table of a probe page, against AUTH_DEFECT_CODES. */
function signInProblems(markdown: string): string[] {
  const section = markdown.split(/^### Sign-in defect codes$/m)[1]?.split(/^#{1,3} /m)[0];
  if (section === undefined) return ['no "Sign-in defect codes" section'];
  const listed = codeRows(section).map((r) => r.code);
  const known = new Set<string>(AUTH_DEFECT_CODES);
  return [
    ...listed.filter((c) => !known.has(c)).map((c) => `${c} is no sign-in defect code`),
    ...AUTH_DEFECT_CODES.filter((c) => !listed.includes(c)).map((c) => `${c} is missing`),
    ...listed.filter((c, i) => listed.indexOf(c) !== i).map((c) => `${c} is listed twice`),
  ];
}

/** The anchors GitHub gives a Markdown page's headings (lower case, punctuation dropped, spaces to hyphens). */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let slug = base;
    for (let n = 1; out.has(slug); n++) slug = `${base}-${n}`;
    out.add(slug);
  }
  return out;
}

describe("docs/defects.md", () => {
  const page = read("docs/defects.md");

  test("lists every code of DEFECTS once, with its severity (and milder case) and scope, and no other code", () => {
    assert.deepEqual(defectPageProblems(page), []);
  });

  test("the check names a code left out, a code that does not exist, and a wrong severity or scope", () => {
    const without = page
      .split("\n")
      .filter((l) => !l.startsWith("| `batch_mixed` |"))
      .join("\n");
    assert.deepEqual(defectPageProblems(without), ["batch_mixed is missing"]);
    const invented = `${page}\n| \`id_imaginary\` | error | envelope | Not a code. |\n`;
    assert.deepEqual(defectPageProblems(invented), [
      `line ${invented.split("\n").length - 1}: id_imaginary is no defect code`,
    ]);
    const wrong = page.replace("| `redirect` | warning | transport |", "| `redirect` | error | envelope |");
    const problems = defectPageProblems(wrong);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[0]!, /redirect is a warning, not "error"/);
    assert.match(problems[1]!, /redirect has scope transport, not "envelope"/);
    const noMilder = page.replace("| `id_null` | error; warning on an error response |", "| `id_null` | error |");
    assert.match(defectPageProblems(noMilder).join("\n"), /id_null is a warning in a named case/);
  });
});

describe("docs/probe.md", () => {
  const page = read("docs/probe.md");

  test("lists every sign-in defect code once, and no other", () => {
    assert.deepEqual(signInProblems(page), []);
  });

  test("the check names a sign-in code left out and one that does not exist", () => {
    const changed = page.replace("| `issuer_mismatch` |", "| `issuer_mismatched` |");
    assert.deepEqual(signInProblems(changed), [
      "issuer_mismatched is no sign-in defect code",
      "issuer_mismatch is missing",
    ]);
  });
});

describe("the documentation's links", () => {
  const pages = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));

  test("the README links every page under docs/", () => {
    const readme = read("README.md");
    const unlinked = pages.filter((p) => !readme.includes(`(docs/${p})`));
    assert.deepEqual(unlinked, []);
  });

  test("every relative link of a docs/ page leads to a file that exists, and to a heading in it", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const m of read(`docs/${page}`).matchAll(/\]\(([^)\s]+)\)/g)) {
        const [target = "", anchor] = m[1]!.split("#");
        if (/^[a-z]+:/i.test(target)) continue;
        const file = target === "" ? join("docs", page) : normalize(join("docs", dirname(page), target));
        if (!existsSync(join(ROOT, file))) broken.push(`docs/${page}: ${m[1]} (no such file)`);
        else if (anchor !== undefined && !anchors(read(file)).has(anchor))
          broken.push(`docs/${page}: ${m[1]} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test("the heading check knows GitHub's anchors", () => {
    const found = anchors(
      "# `mcp-wire probe`\n## What changed: `report --changes`\n## Notes\n## Notes\n```sh\n# not a heading\n```\n",
    );
    assert.deepEqual([...found], ["mcp-wire-probe", "what-changed-report---changes", "notes", "notes-1"]);
  });
});

describe("bench/README.md", () => {
  test("has a row for every file in bench/", () => {
    const readme = read("bench/README.md");
    const files = readdirSync(join(ROOT, "bench")).filter((f) => f.endsWith(".ts"));
    assert.ok(files.length > 10, `${files.length} files read`);
    const missing = files.filter((f) => !readme.includes(`| \`${f}\` |`));
    assert.deepEqual(missing, [], "bench files without a row in bench/README.md");
  });
});
