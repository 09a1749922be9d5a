/**
 * `check --markdown`: a summary a CI job page shows: the verdict, the revisions, the findings
 * and what to fix, with everything a server sent shown as text, and bounded however many there are.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyBaseline } from "./baseline.js";
import { RULES, SECRET, sampleReport, uncheckedReport } from "../testkit/check-fixtures.js";
import { code, renderMarkdown, text } from "./markdown.js";
import type { Finding } from "./types.js";

describe("renderMarkdown", () => {
  test("the verdict, each revision's outcome, a row per finding, failing ones first, and what to fix", () => {
    const md = renderMarkdown(sampleReport(), RULES);
    assert.match(
      md,
      /^<!-- generator: mcp-wire -->\n\n## mcp-wire check: https&#58;\/\/user&#58;&#60;redacted&#62;&#64;mcp&#46;example&#46;com\/mcp\?api&#95;key&#61;&#60;redacted&#62;\n/,
    );
    assert.match(md, /\n\*\*Failed:\*\* 2 findings fail it \(--fail-on error\)\.\n/);
    assert.match(md, /\n2 errors, 1 warning, 1 info; 41 messages checked, 3 pages listed, in 812 ms\.\n/);
    assert.match(md, /\n\| `2025-03-26` \| refused \|\n/);
    const rows = md.split("\n").filter((l) => /^\| (\*\*error\*\*|error|warning|info)/.test(l));
    assert.equal(rows.length, 4);
    assert.match(
      rows[0]!,
      /^\| \*\*error\*\* \| `tool_input_schema_object` \| `2026-07-28`, `2025-11-25` \| tool&#58;search \| \/result\/tools\/0\/inputSchema\/type \|/,
    );
    assert.equal(rows.at(-1), "| info | `stdio_exit_slow` |  | server |  | still running 5 s after stdin closed |");
    assert.match(md, /- `tool_input_schema_object` — Tool inputSchema is an object schema: Give the tool/);
    assert.match(
      md,
      /Known to break `sdk-v2`, `ai-sdk`\. \(\[spec\]\(https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/server\/tools#tool\)\)/,
    );
    assert.ok(!md.includes(SECRET));
    assert.match(
      renderMarkdown(sampleReport(), RULES, { failOn: "never" }),
      /\n\*\*Passed\*\* \(--fail-on never\)\.\n/,
    );
  });

  test("what a server sent is text: no markup, no image, no broken table row", () => {
    const md = renderMarkdown(sampleReport(), RULES);
    assert.ok(!md.includes("<script>"), "markup is escaped");
    assert.ok(!md.includes("![x]("), "an image cannot be made");
    assert.ok(!/https:\/\/evil/.test(md), "no autolink to the server's address");
    const row = md.split("\n").find((l) => l.includes("alert&#40;1&#41;"))!;
    // a table row has its six cells: no | the server sent is left
    assert.equal(row.split("|").length - 2, 6, row);
    assert.equal(text("a|b\nc"), "a&#124;b c");
    assert.equal(code("a`b"), "``a`b``");
  });

  test("a backslash before a pipe cannot split a cell, and links, images and HTML stay inert in every renderer", () => {
    const report = sampleReport();
    const hostile =
      "x \\| [a](https://evil.example) ![i](https://evil.example/i.png) <img src=x onerror=alert(1)> `\\|` <https://evil.example>";
    const md = renderMarkdown(
      {
        ...report,
        findings: [
          {
            ...report.findings[0]!,
            message: hostile,
            path: "/result/tools/0/a\\|b",
            subject: "tool:[t](https://evil.example)",
          },
        ],
      },
      RULES,
    );
    const row = md.split("\n").find((l) => l.startsWith("| **error**"))!;
    // whatever a renderer does with backslashes, the row has exactly its seven pipes
    assert.equal(row.split("|").length - 2, 6, row);
    for (const bad of ["](", "<img", "<https", "\\|", "`"])
      assert.ok(!row.slice(row.indexOf("tool&#58;")).includes(bad), `${bad} in ${row}`);
  });

  test("a target that could not be checked says why", () => {
    const md = renderMarkdown(uncheckedReport(), RULES);
    assert.match(
      md,
      /\*\*Not checked:\*\* the server asks for sign&#45;in and no credentials were given &#40;&#45;&#45;header&#41; \(`auth_required`, `http_401`\)/,
    );
    assert.doesNotMatch(md, /### Findings/);
  });

  test("accepted and stale baseline entries", () => {
    const report = sampleReport();
    const keys = report.findings.map(({ id, subject, method, subjectPath }) => ({
      id,
      subject,
      method,
      subjectPath,
      revision: null,
      path: null,
    }));
    const md = renderMarkdown(
      applyBaseline(report, [
        ...keys,
        { id: "tool_name_format", revision: "2025-11-25", method: "tools/list", path: "/result/tools/9/name" },
      ]),
      RULES,
      { rewrite: "mcp-wire check https://x.example/mcp --update-baseline b.json" },
    );
    assert.match(md, /\*\*Failed:\*\* 1 stale baseline entry\./);
    assert.match(md, /\(4 accepted by the baseline\)/);
    assert.ok(
      md.includes(
        "### Stale baseline entries\n\nThese entries no longer occur. Rewrite the baseline with `mcp-wire check https://x.example/mcp --update-baseline b.json`, so it only shrinks.\n\n- tool&#95;name&#95;format &#40;2025&#45;11&#45;25&#41; tools/list at /result/tools/9/name\n",
      ),
      md,
    );
    assert.match(md, /\| error, accepted \| `tool_input_schema_object`/);
  });

  test("many findings: the table is capped and says how many it leaves out", () => {
    const base = sampleReport();
    const many: Finding[] = Array.from({ length: 5000 }, (_, i) => ({
      ...base.findings[0]!,
      path: `/result/tools/${i}/inputSchema/type`,
    }));
    const md = renderMarkdown({ ...base, findings: many, counts: { error: 5000, warning: 0, info: 0 } }, RULES);
    assert.equal(md.split("\n").filter((l) => l.startsWith("| **error**")).length, 200);
    assert.match(md, /\n4800 more findings are not shown here: the --json and --sarif outputs have them all\.\n/);
    assert.ok(md.length < 64 * 1024, `${md.length} characters`);
  });
});
