/**
 * docs/check.md, made from the rule catalogue (src/check/rules.ts), so the page a server author
 * lands on from a SARIF result or a JUnit failure always lists exactly the ids `check` reports.
 * `node scripts/check-docs.mjs` writes it; docs.test.ts fails when the file and the catalogue
 * disagree.
 */
import { RUN_RULES } from "./sarif.js";
import { MESSAGE_CHECK_RULES, OWN_RULES, SIGNIN_CHECK_RULES } from "./rules.js";
import { SURFACE_RULES } from "./surface-rules.js";
import type { CheckRule } from "./types.js";

const INTRO = `# mcp-wire check

<!-- Generated from src/check/rules.ts by scripts/check-docs.mjs: edit those, not this file. -->

\`probe\` answers "does it speak MCP at all"; \`check\` answers "does it follow every rule a client
relies on", for the people who can fix a server: its authors, in their CI.

\`\`\`
mcp-wire check https://example.com/mcp
mcp-wire check --stdio -- node build/server.js
\`\`\`

## What check does

For every revision the server speaks (all five unless \`-r\` names some), in a session of its own:

- opens the server as \`probe\` does (\`server/discover\` on 2026-07-28, the \`initialize\` handshake
  before it); the ladder of revisions accepted is reported (\`ok\`, \`unsupported\`: the server
  named another version; \`refused\`: the server refused the opening request; \`failed\`: the
  opening broke; \`skipped\`: not tried);
- lists tools, resources, resource templates and prompts (those the server declares), following
  every \`nextCursor\` up to 1,000 pages; \`ping\` (before 2026-07-28, which removed it);
  \`logging/setLevel\` when the server declares logging (before 2026-07-28); an unknown method; a
  list request whose cursor is not a string;
- validates every message the server sent against that revision's official \`schema.json\`;
- checks what the schemas cannot say: HTTP statuses and content types, sessions, the 2026-07-28
  headers, error codes, tool definitions, stdout hygiene and exit of a stdio server, the sign-in
  chain of a server that asks for credentials.

It is **read-only**: it never calls a tool, reads a resource or gets a prompt unless told to
(\`--call NAME[=JSON]\`, \`--read URI\`, \`--get NAME[=JSON]\`, each repeatable). A called tool's
result is checked too (\`content\` present, \`structuredContent\` valid against its \`outputSchema\`).

| option | |
|---|---|
| \`--stdio -- <command> [args…]\` | start the server as a child process (always ended, on every way out) |
| \`-H, --header 'Name: value'\` | sent with every HTTP request; \`\${VAR}\` reads the environment; never printed |
| \`--timeout MS\` | the deadline of each step (opening a revision, each request); default 10000 |
| \`-r REVISION\` | check only this revision (repeatable) |
| \`--env NAME=VALUE\`, \`--cwd DIR\` | the stdio server's environment and working directory |
| \`--only ID,…\`, \`--skip ID,…\` | run only, or leave out, these checks (the ids below) |
| \`--fail-on error\\|warning\\|never\` | the least severity that fails the run (default \`error\`) |
| \`--json\` | print one JSON object (below) |
| \`--junit FILE\` | JUnit XML: one test case per check id and revision that ran |
| \`--sarif FILE\` | SARIF 2.1.0 for code scanning: one result per finding, rules with their whole help text |
| \`--sarif-location PATH\` | the repository file every SARIF result is shown at (code scanning rejects results without one); it must exist; default: \`package.json\`, else \`README.md\` in the working directory (neither: a usage error); only with \`--sarif\` |
| \`--markdown FILE\` | a summary for a CI job page |
| \`--baseline FILE\` | accept the findings of an earlier check (\`--update-baseline\` or \`--json\`) for now |
| \`--update-baseline FILE\` | write this run's findings as the baseline and exit 0 (3, writing nothing, when the target cannot be checked) |
| \`--progress\`, \`--no-progress\` | while a step waits (past a second), one line on stderr says what for (\`mcp-wire check: waiting for tools/list (2025-11-25) (3 s)\`): on a terminal rewritten in place and erased when done, by default; elsewhere (a CI log) only with \`--progress\`, as a plain line when a wait passes 2 s and each 10 s after; \`--no-progress\` never. Never on stdout |
| \`--surface FILE\` | the surface gate (below): record the server's surface in FILE, or compare with it when FILE exists |
| \`--update-surface\` | with \`--surface\`: rewrite FILE with what the server lists now (no surface finding this run) |
| \`--force\` | replace an existing output file mcp-wire did not write |

The output files are written even when the target could not be checked (one failed case saying
why). JUnit keeps one test case per check id and revision that ran (a finding of several revisions
fails each of their cases); SARIF holds one result per finding, its fingerprint made of \`id\`,
\`subject\`, \`method\` and \`subjectPath\` (so an alert is tracked, not reopened, when a list
changes order), a stale baseline entry as a note rather than an alert, and every bracket a server
sent escaped so no viewer renders it as a link; Markdown shows a server's text as text in every
renderer (character references, not backslashes). Every pointer to this page is
\`mcp-wire explain <id>\`, which prints the id's section from the copy shipped in the package. An existing file that mcp-wire did not write is refused unless \`--force\`; a symbolic link
is never written through.

**Baseline.** To adopt \`check\` on a server that has findings today, take a baseline once and
keep it in the repository:

\`\`\`
mcp-wire check --stdio --update-baseline mcp-baseline.json -- node build/server.js   # exit 0
mcp-wire check --stdio --baseline mcp-baseline.json -- node build/server.js          # the CI step
\`\`\`

\`--update-baseline FILE\` writes the findings (the \`--json\` object) and exits 0 whatever they
are; it replaces FILE only when FILE is a baseline already (or \`--force\`), and a target that
could not be checked writes nothing (exit 3). The \`--json\` output of any earlier check works as
a baseline too, but \`check --json > FILE\` exits 1 when there are findings, which fails a CI step
or a \`set -e\` script: take baselines with \`--update-baseline\`.

A baseline entry matches a finding by \`id\`, \`subject\`, \`method\` and \`subjectPath\`: a tool
added, removed or reordered elsewhere in a list leaves it matching. An entry written before
findings had subjects (\`id\`, \`revision\`, \`method\`, \`path\`) still matches the finding whose
\`revisions\` hold its revision and whose path in that revision is its path. Only those keys are
read, so an edited subset works too. Accepted findings are reported (marked \`accepted\`) but do
not fail the run. An entry that no longer occurs (the finding was fixed) is stale and fails the
run whatever \`--fail-on\` says, so a baseline only shrinks; the output names the command that
rewrites it (this check with \`--update-baseline\`; with \`--json\` on stderr, stdout staying one
JSON object). An entry whose check did not run this time
(another \`-r\`, \`--skip\`) is neither accepted nor stale.

**The surface gate.** A pull request that renames a tool, adds a required parameter or quietly
rewrites a description breaks (or turns against) the clients already using the server, and no
test of the server's own sees it. \`--surface FILE\` records the server's surface — the full
definition of every tool, resource, resource template and prompt, as the newest revision the
server speaks lists them, each item's members sorted — the first time (FILE does not exist), and
compares against it on every later run. It sends no request of its own: the lists are the ones
the check walks anyway. Commit FILE beside the code:

\`\`\`
mcp-wire check --stdio --surface mcp-surface.json -- node build/server.js                     # records
mcp-wire check --stdio --surface mcp-surface.json -- node build/server.js                     # the CI step
mcp-wire check --stdio --surface mcp-surface.json --update-surface -- node build/server.js    # a change you mean
\`\`\`

Each difference is a finding whose id starts with \`surface_\` (listed below), with \`subject\` the
item (\`tool:<name>\`…), \`subjectPath\` the pointer inside its definition, \`revision\` the
revision that listed it, and \`change\`, \`before\` and \`after\` in \`--json\`:

- \`breaking\` (an error): an item removed or renamed; a required parameter or prompt argument
  added; a parameter narrowed — fewer types, an enum value removed, a tighter
  \`minimum\`/\`maximum\`/length/\`pattern\`/\`format\`, \`additionalProperties\` closed; an output
  field removed;
- \`risky\` (a warning): a description changed (anywhere in the definition); an annotation changed
  toward harm (\`readOnlyHint\` true → false, \`destructiveHint\` false → true, read with the
  spec's defaults); a tool added whose annotations say \`destructiveHint: true\`; any other change
  no rule classes;
- \`compatible\` (info): an item added, an optional parameter added, a parameter made optional, a
  parameter widened, annotations changed toward safety.

\`--update-surface\` rewrites FILE and leaves the exit status to the other findings. A target that
cannot be checked leaves FILE untouched (exit 3). Baselines, \`--only\` and \`--skip\` apply to
surface findings as to every other.

**Hidden text.** On every check, with or without \`--surface\`, the names, titles and
descriptions of every listed item (and the descriptions and property names inside a tool's
schemas, and a prompt's arguments) are read for what a person does not see and a model reads:
Unicode tag characters, bidirectional controls, zero-width characters, C0/C1 control characters
(tab and line breaks aside) and terminal escape sequences (\`description_hidden_text\`, a
warning; the message spells out what tag characters hide).

**Eras over stdio.** Without \`-r\`, one process is opened as a dual-era client opens it:
\`server/discover\`, and after a second of silence \`initialize\` beside it. A process that
answers \`initialize\` is served in the legacy revision it negotiated (2026-07-28 versioning: "an
\`initialize\` request selects legacy semantics, scoped to the stdio process"), so it is judged in
that revision only; 2026-07-28 is then checked in a fresh process that gets the whole deadline to
answer \`server/discover\`. A server that starts slowly (\`npx\`, a JVM) is judged the same
whatever its start-up time. The server runs in a process group of its own, and the whole group
(what it forked too) is ended when the check ends.

**A 2026-07-28 server without \`server/discover\`.** When 2026-07-28's opening has its
\`server/discover\` refused with a JSON-RPC error (and, in the stdio detection, \`initialize\` is
refused too), the revision is opened once more without discover (over stdio in a fresh
process), and \`tools/list\` is sent with the revision's \`_meta\`. A 2026-07-28 result
(\`resultType\` present) means the server speaks the revision: \`discover_missing\` (an error)
is reported, and the revision is checked as any other, its capabilities unknown, so its tools
are listed and judged (not its resources or prompts), and the HTTP refusals that are asked with
\`server/discover\` are not asked. An answer in the legacy shape (the official SDK v1 server
answers any request so) does not count: the revision stays refused. A server that opened with
\`initialize\` is not asked this way.

**What check keeps.** Each session keeps at most 32 MiB of listed definitions and 32 MiB of
messages to validate; past either, the rest is counted, not judged, and \`kept_over_budget\`
says so. The report files are written whatever the server sends.

**Exit status.** 0: nothing at or above \`--fail-on\`; 1: something was (or a baseline entry is
stale); 2: a usage error; 3: the target could not be checked at all (unreachable, not MCP,
asking for sign-in without credentials, or speaking none of the revisions \`-r\` names; its
sign-in findings are still reported).

**\`--json\`:**

\`\`\`
{ "target": "…", "revisions": { "2026-07-28": "ok", "2025-11-25": "unsupported", … },
  "findings": [ { "id": "…", "severity": "error|warning|info", "revision": "2026-07-28",
                  "revisions": ["2026-07-28", "2025-11-25"], "method": "tools/list",
                  "path": "/result/tools/2/inputSchema", "subject": "tool:search_notes",
                  "subjectPath": "/inputSchema", "message": "…", "fix": "…", "spec": "https://…",
                  "breaks": ["sdk-v2"] } ],
  "counts": { "error": 0, "warning": 2, "info": 0 }, "checked": { "messages": 41, "pages": 3 },
  "elapsedMs": 812, "unchecked": null, "stale": [] }
\`\`\`

A finding is one problem, however many revisions it occurs in: \`revisions\` lists them, newest
first, \`revision\` is the newest, and \`counts\` counts findings. \`subject\` is what it is about:
\`tool:<name>\`, \`prompt:<name>\`, \`resource:<uri>\`, \`template:<uriTemplate>\`,
\`page:<method>#<n>\` (a page of a list, or an item without a name), \`method:<method>\`,
\`http:<METHOD>\`, or \`server\` (stdio hygiene, what concerns the server as a whole);
\`subjectPath\` is the JSON Pointer below it (inside the tool's definition for \`tool:\`).
\`path\` is the absolute JSON Pointer into the offending message (as the newest revision sent
it), \`null\` where there is none. \`breaks\` names the real clients
(\`sdk-v1\`: \`@modelcontextprotocol/sdk\`'s Client; \`sdk-v2\`: \`@modelcontextprotocol/client\`;
\`ai-sdk\`: \`@ai-sdk/mcp\`; \`mcp-remote\`: the stdio bridge to a remote server) that this project's tests show failing against a server with exactly
that fault (src/testkit/breaks.ts); an empty list means untested, not harmless.
\`unchecked\` is \`{ "class", "detail", "message" }\` (the \`probe\` class) when exit is 3.

## Severity

\`error\`: the server breaks a MUST of the revision (or JSON-RPC 2.0). \`warning\`: a SHOULD, or a
known trap for real clients. \`info\`: what the spec allows but some clients trip on (a 406 to a
request that accepts only JSON), and what only the server's SDK can change (the official
TypeScript SDK answers a malformed cursor with -32603): said once, naming the SDK. A rule whose
weight differs by revision is weighed per revision: \`list_failed\` is an error on 2026-07-28,
where a server that declares a list MUST answer it, and a warning before.
`;

function revisions(r: CheckRule): string {
  return r.revisions === "all" ? "all" : r.revisions.join(", ");
}

/** Text that goes into a table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function section(r: CheckRule): string {
  const lines = [
    `### ${r.id}`,
    "",
    `**${r.title}** · ${r.severity} · revisions: ${revisions(r)}`,
    "",
    r.rule,
    "",
    `**Fix:** ${r.fix}`,
    "",
    r.spec.startsWith("https://") ? `**Spec:** <${r.spec}>` : `**See:** ${r.spec}`,
  ];
  if (r.breaks && r.breaks.length > 0)
    lines.push("", `**Breaks:** ${r.breaks.join(", ")} (shown by src/testkit/breaks.ts)`);
  if (r.example) lines.push("", "Example:", "", "```", r.example, "```");
  return lines.join("\n");
}

/** The whole page. */
export function checkDocs(): string {
  const groups: [string, string, readonly CheckRule[]][] = [
    ["Checks", "What `check` itself asks of a server.", OWN_RULES],
    [
      "The surface gate",
      "Differences between the recorded surface and the one listed now (`--surface FILE`); the severity is the change's class: breaking an error, risky a warning, compatible info.",
      SURFACE_RULES,
    ],
    [
      "Message defects",
      "What the codec finds wrong in a message the server sent (the same defects `mcp-wire lint` reports in a capture).",
      MESSAGE_CHECK_RULES,
    ],
    [
      "Sign-in",
      "When the server asks for credentials and none were given, the sign-in chain an OAuth client walks, as `mcp-wire probe` reports it (the check then exits 3).",
      SIGNIN_CHECK_RULES,
    ],
    [
      "About the run",
      "Results that are about the run itself (JUnit cases and SARIF results, not `--json` findings).",
      RUN_RULES,
    ],
  ];
  const table = [
    "## Every finding",
    "",
    "| id | severity | revisions | rule |",
    "|---|---|---|---|",
    ...groups.flatMap(([, , rules]) =>
      rules.map((r) => `| [${r.id}](#${r.id}) | ${r.severity} | ${revisions(r)} | ${cell(r.title)} |`),
    ),
  ];
  const body = groups.map(([title, intro, rules]) =>
    [`## ${title}`, "", intro, "", rules.map(section).join("\n\n")].join("\n"),
  );
  return [INTRO, table.join("\n"), ...body].join("\n\n") + "\n";
}
