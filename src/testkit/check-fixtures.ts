/**
 * A check run for the writers' tests, shaped as the engine reports one: findings on several
 * revisions and of every severity, one without revision, method or path, text a hostile server
 * could send (markup, control characters, a lone surrogate, a Markdown image), and a target URL
 * carrying a secret.
 */
import { subjectOf } from "../check/subject.js";
import type { CheckReport, CheckRule, Finding } from "../check/types.js";

export const SECRET = "s3cr3t-key-value";

export const RULES: readonly CheckRule[] = [
  {
    id: "tool_input_schema_object",
    severity: "error",
    title: "Tool inputSchema is an object schema",
    rule: 'Every tool\'s inputSchema is a JSON Schema whose root has type "object".',
    revisions: ["2025-06-18", "2025-11-25", "2026-07-28"],
    spec: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool",
    fix: 'Give the tool an inputSchema of {"type": "object"}, with properties if it takes arguments.',
    example: '{"name": "search", "inputSchema": {"type": "string"}}',
    breaks: ["sdk-v2", "ai-sdk"],
  },
  {
    id: "tool_name_format",
    severity: "warning",
    title: "Tool names follow the naming rule",
    rule: "Tool names SHOULD be 1 to 128 characters of A-Z, a-z, 0-9, _, - and .",
    revisions: ["2025-11-25", "2026-07-28"],
    spec: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
    fix: "Rename the tool using only letters, digits, _, - and .",
  },
  {
    id: "stdio_exit_slow",
    severity: "info",
    title: "The server exits when stdin closes",
    rule: "A stdio server exits soon after its stdin closes.",
    revisions: "all",
    spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio",
    fix: "Exit when stdin ends.",
  },
];

/** The tools the sample's paths point into. */
const TOOLS = { result: { tools: [{ name: "search" }, { name: "search docs" }, { name: "fetch" }, { name: "evil" }] } };

const finding = (over: Partial<Finding> & Pick<Finding, "id">): Finding => {
  const rule = RULES.find((r) => r.id === over.id)!;
  const base = {
    severity: rule.severity,
    revision: "2025-11-25" as const,
    method: "tools/list",
    path: "/result/tools/0/inputSchema/type",
    message: 'inputSchema\'s root type is "string", not "object"',
    fix: rule.fix,
    spec: rule.spec,
    breaks: rule.breaks ?? [],
    ...over,
  };
  return {
    ...subjectOf(base.method, base.path, TOOLS),
    revisions: base.revision === null ? [] : [base.revision],
    ...base,
  };
};

export const HOSTILE = `<script>alert(1)</script> ]]> & "q" 'a' \u0001\u001f \ud800 | ![x](https://evil.example/p.png) **bold** \`tick\``;

export function sampleReport(over: Partial<CheckReport> = {}): CheckReport {
  const findings: Finding[] = [
    finding({ id: "tool_input_schema_object", revision: "2026-07-28", revisions: ["2026-07-28", "2025-11-25"] }),
    finding({
      id: "tool_input_schema_object",
      revision: "2026-07-28",
      path: "/result/tools/3/inputSchema/type",
      message: HOSTILE,
    }),
    finding({
      id: "tool_name_format",
      revision: "2025-11-25",
      path: "/result/tools/1/name",
      message: 'tool name "search docs" has a space',
    }),
    finding({
      id: "stdio_exit_slow",
      revision: null,
      method: null,
      path: null,
      message: "still running 5 s after stdin closed",
    }),
  ];
  return {
    target: `https://user:pw@mcp.example.com/mcp?api_key=${SECRET}`,
    revisions: {
      "2026-07-28": "ok",
      "2025-11-25": "ok",
      "2025-06-18": "ok",
      "2025-03-26": "refused",
      "2024-11-05": "refused",
    },
    findings,
    counts: { error: 2, warning: 1, info: 1 },
    checked: { messages: 41, pages: 3 },
    elapsedMs: 812,
    ran: [
      ...(["2025-06-18", "2025-11-25", "2026-07-28"] as const).map((revision) => ({
        id: "tool_input_schema_object",
        revision,
      })),
      ...(["2025-11-25", "2026-07-28"] as const).map((revision) => ({ id: "tool_name_format", revision })),
      { id: "stdio_exit_slow", revision: null },
    ],
    unchecked: null,
    stale: [],
    ...over,
  };
}

/** A target that could not be checked at all: nothing ran. */
export function uncheckedReport(): CheckReport {
  return sampleReport({
    revisions: {},
    findings: [],
    counts: { error: 0, warning: 0, info: 0 },
    checked: { messages: 0, pages: 0 },
    ran: [],
    unchecked: {
      class: "auth_required",
      detail: "http_401",
      message: "the server asks for sign-in and no credentials were given (--header)",
    },
  });
}
