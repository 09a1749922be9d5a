/**
 * `check --sarif FILE`: the run as SARIF 2.1.0, the format code scanning (GitHub's, among others)
 * shows as alerts. Code scanning rejects a result without a location in the repository, and a
 * server's findings have none of their own, so every result is located at the file the user names
 * with `--sarif-location` (the server's entry point, its manifest). Each rule carries its whole
 * documentation; each result a fingerprint that stays the same from run to run while the finding
 * does, so an alert is tracked, not reopened. docs/check.md describes it for users.
 */
import { createHash } from "node:crypto";
import type { Severity } from "../codec/defects.js";
import { redactSecrets } from "../secrets/redact.js";
import { RuleBook, rewriteAdvice, staleSentence } from "./documents.js";
import { endText } from "./stdio-end.js";
import type { BaselineKey, CheckReport, CheckRule, Finding } from "./types.js";

export const SARIF_SCHEMA =
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/** The fingerprint's name and version: a change to what it covers is a new version (v2: by subject, not path and revision). */
export const FINGERPRINT = "mcpWireFinding/v2";

export interface SarifOptions {
  /** A path relative to the repository's root, as `sarifLocation` accepts it. */
  location: string;
  /** mcp-wire's version, for the tool description. */
  toolVersion?: string;
  /** mcp-wire's package.json `homepage`, when it names one: the tool's and each rule's link. */
  homepage?: string;
  /** The command that rewrites the baseline, named by each stale entry. */
  rewrite?: string;
}

/** Results that are about the run itself, not a rule of the server's behaviour. */
export const RUN_RULES: readonly CheckRule[] = [
  {
    id: "unchecked",
    severity: "error",
    title: "The target could be checked",
    rule: "mcp-wire check reaches the server, finds MCP there and is let in; otherwise nothing else can be checked.",
    revisions: "all",
    spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle",
    fix: "Make the server reachable from the CI job, answer MCP at the address given, and pass credentials with --header if it asks for sign-in.",
  },
  {
    id: "baseline_stale",
    severity: "info",
    title: "Every baseline entry still occurs",
    rule: "A baseline accepts findings for now; an entry whose finding no longer occurs (it was fixed) fails the run whatever --fail-on says, so the baseline only shrinks. In SARIF it is a note, not an alert.",
    revisions: "all",
    spec: "mcp-wire explain baseline_stale",
    fix: "Rewrite the baseline with the same check and --update-baseline FILE (the run names the command), or remove the entry from the file.",
  },
];

/**
 * `--sarif-location`: a file path relative to the repository's root, in the form SARIF wants
 * (forward slashes, no leading `./`), or a message saying what is wrong.
 */
export function sarifLocation(text: string): string | { error: string } {
  const path = text
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "");
  const wrong = (why: string) => ({
    error: `--sarif-location takes a file path relative to the repository's root (e.g. src/server.ts), ${why}: ${JSON.stringify(text)}`,
  });
  if (path === "" || path === ".") return wrong("not an empty one");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || /^[a-z][a-z0-9+.-]*:/i.test(path))
    return wrong("not an absolute one or a URL");
  if (path.split("/").includes("..")) return wrong("inside the repository");
  if (path.endsWith("/")) return wrong("a file, not a folder");
  return path;
}

/** The SARIF log as an object (JSON.stringify it to write). Pure; everything shown is redacted first. */
export function sarifLog(input: CheckReport, catalogue: readonly CheckRule[], options: SarifOptions) {
  const report = redactSecrets(input);
  const location = sarifLocation(options.location);
  if (typeof location !== "string") throw new RangeError(location.error);
  const results = new Results(new RuleBook(catalogue), location, report.target);
  for (const f of report.findings) results.finding(f);
  if (report.unchecked) results.unchecked(report);
  // a stale entry is good news that the baseline must catch up with: a note, never an alert
  const advice = rewriteAdvice(options.rewrite, "remove the entry from the baseline");
  for (const s of report.stale) results.stale(s, advice);
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0" as const,
    // the generator mark, so mcp-wire may write this file again (see docs/check.md)
    properties: { generator: "mcp-wire" },
    runs: [
      {
        tool: { driver: driver(results.rules, options) },
        invocations: [invocation(report)],
        results: results.list,
        properties: {
          target: report.target,
          revisions: report.revisions,
          checked: report.checked,
          elapsedMs: report.elapsedMs,
          ...(report.calls && report.calls.length > 0 ? { calls: report.calls } : {}),
        },
      },
    ],
  };
}

/**
 * The run's results, in order, each located at the repository file and pointing at its rule in
 * the driver's list, which grows by each rule the catalogue lacks as a result first needs it.
 */
class Results {
  readonly list: object[] = [];
  readonly rules: CheckRule[];
  private readonly index: Map<string, number>;
  private readonly at: readonly object[];
  /** How often each fingerprint occurred so far. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly book: RuleBook,
    location: string,
    private readonly target: string,
  ) {
    this.rules = [...book.catalogue];
    this.index = new Map(this.rules.map((r, i) => [r.id, i]));
    this.at = [{ physicalLocation: { artifactLocation: { uri: location }, region: { startLine: 1 } } }];
  }

  finding(f: Finding): void {
    this.list.push({
      ruleId: f.id,
      ruleIndex: this.ruleIndex(this.book.of(f)),
      level: level(f.severity),
      message: { text: plain(findingText(f)) },
      locations: this.at,
      partialFingerprints: this.fingerprint([f.id, f.subject, f.method, f.subjectPath]),
      ...(f.accepted
        ? {
            suppressions: [
              { kind: "external", status: "accepted", justification: "accepted by the mcp-wire check --baseline file" },
            ],
          }
        : {}),
      properties: {
        target: this.target,
        revision: f.revision,
        revisions: [...f.revisions],
        method: f.method,
        path: f.path,
        subject: f.subject,
        subjectPath: f.subjectPath,
        fix: f.fix,
        breaks: [...f.breaks],
      },
    });
  }

  unchecked(report: CheckReport): void {
    const u = report.unchecked!;
    const end = report.stdio ? ` ${endText(report.stdio)}` : "";
    this.list.push({
      ruleId: "unchecked",
      ruleIndex: this.ruleIndex(runRule("unchecked")),
      level: "error",
      message: { text: plain(`${report.target} could not be checked: ${u.message} (${u.class}: ${u.detail})${end}`) },
      locations: this.at,
      partialFingerprints: this.fingerprint(["unchecked", u.class, u.detail]),
      properties: {
        target: this.target,
        class: u.class,
        detail: u.detail,
        ...(report.stdio ? { stdio: report.stdio } : {}),
      },
    });
  }

  stale(s: BaselineKey, advice: string): void {
    this.list.push({
      ruleId: "baseline_stale",
      ruleIndex: this.ruleIndex(runRule("baseline_stale")),
      level: "note",
      message: { text: plain(staleSentence(s, advice)) },
      locations: this.at,
      partialFingerprints: this.fingerprint([
        "baseline_stale",
        s.id,
        s.subject ?? s.revision,
        s.method,
        s.subjectPath ?? s.path,
      ]),
      properties: { target: this.target, entry: staleEntry(s) },
    });
  }

  /** The rule's place in the driver's list; the catalogue's own rule, when it has one by that id. */
  private ruleIndex(rule: CheckRule): number {
    let i = this.index.get(rule.id);
    if (i === undefined) {
      i = this.rules.push(rule) - 1;
      this.index.set(rule.id, i);
    }
    return i;
  }

  private fingerprint(parts: readonly (string | null)[]) {
    const base = createHash("sha256").update(JSON.stringify(parts)).digest("hex");
    // the same finding twice in a run (two tools with one fault) stays two alerts
    const n = (this.seen.get(base) ?? 0) + 1;
    this.seen.set(base, n);
    return { [FINGERPRINT]: `${base}:${n}` };
  }
}

function runRule(id: string): CheckRule {
  return RUN_RULES.find((r) => r.id === id)!;
}

function driver(rules: readonly CheckRule[], options: SarifOptions) {
  return {
    name: "mcp-wire",
    ...(options.toolVersion ? { version: options.toolVersion } : {}),
    ...(options.homepage ? { informationUri: options.homepage } : {}),
    rules: rules.map((r) => descriptor(r, options.homepage)),
  };
}

function invocation(report: CheckReport) {
  return {
    executionSuccessful: report.unchecked === null,
    ...(report.unchecked
      ? { toolExecutionNotifications: [{ level: "error", message: { text: plain(report.unchecked.message) } }] }
      : {}),
  };
}

/** The log as the text of the file. */
export function renderSarif(report: CheckReport, rules: readonly CheckRule[], options: SarifOptions): string {
  return `${JSON.stringify(sarifLog(report, rules, options), null, 2)}\n`;
}

function staleEntry(s: BaselineKey) {
  return s.subject !== undefined
    ? { id: s.id, subject: s.subject, method: s.method, subjectPath: s.subjectPath ?? null }
    : { id: s.id, revision: s.revision, method: s.method, path: s.path };
}

/**
 * Text for a SARIF plain-text message: a viewer renders `[text](target)` as a link (SARIF
 * §3.11.6), so brackets a server sent are escaped, and a backslash before one doubled.
 */
export function plain(text: string): string {
  return text.replace(/\\(?=[[\]])/g, "\\\\").replace(/[[\]]/g, "\\$&");
}

function level(severity: Severity): "error" | "warning" | "note" {
  return severity === "info" ? "note" : severity;
}

function findingText(f: Finding): string {
  const where = [f.subject, f.method, f.subjectPath ? `at ${f.subjectPath}` : null, f.revisions.join(", ")]
    .filter((x) => x !== null && x !== "" && x !== `method:${f.method}`)
    .join(" ");
  return `${f.message}${where ? ` (${where})` : ""}`;
}

function isUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

/** A rule with its whole documentation, as text and as Markdown. */
function descriptor(r: CheckRule, homepage: string | undefined) {
  const revisions = r.revisions === "all" ? "every revision" : r.revisions.join(", ");
  const text = [
    r.rule,
    `Fix: ${r.fix}`,
    ...(r.example ? [`Example: ${r.example}`] : []),
    `Applies to: ${revisions}.`,
    ...(r.breaks && r.breaks.length > 0 ? [`Known to break: ${r.breaks.join(", ")}.`] : []),
    `Specification: ${r.spec}`,
    `More: mcp-wire explain ${r.id}`,
  ].join("\n\n");
  const markdown = [
    r.rule,
    `**Fix:** ${r.fix}`,
    ...(r.example ? [`**Example:**\n\n\`\`\`\n${r.example.replace(/```/g, "` ` `")}\n\`\`\``] : []),
    `**Applies to:** ${revisions}.`,
    ...(r.breaks && r.breaks.length > 0 ? [`**Known to break:** ${r.breaks.map((b) => `\`${b}\``).join(", ")}.`] : []),
    `**Specification:** ${isUrl(r.spec) ? `<${r.spec}>` : r.spec}`,
    `**More:** \`mcp-wire explain ${r.id}\``,
  ].join("\n\n");
  return {
    id: r.id,
    name: pascal(r.id),
    shortDescription: { text: r.title },
    fullDescription: { text: r.rule },
    help: { text, markdown },
    ...(homepage && isUrl(homepage) ? { helpUri: homepage } : {}),
    defaultConfiguration: { level: level(r.severity) },
    properties: {
      tags: ["mcp", ...(r.revisions === "all" ? [] : r.revisions.map((v) => `mcp-${v}`))],
      "problem.severity": r.severity === "info" ? "recommendation" : r.severity,
      precision: "very-high",
    },
  };
}

/** `tool_input_schema_object` → `ToolInputSchemaObject`, the form SARIF's rule names take. */
function pascal(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}
