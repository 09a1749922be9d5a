/**
 * The shapes `mcp-wire check` produces and every writer of its results (text, `--json`, JUnit,
 * SARIF, Markdown, the baseline) reads. The `--json` field names are stable: docs/check.md
 * describes them for users.
 */
import type { Severity } from "../codec/defects.js";
import type { Revision } from "../rules/revisions.js";
import type { SurfaceFile } from "./surface-gate.js";

/** A client we have seen fail, in this project's tests, against a server with exactly that fault. */
export type ClientName = "sdk-v1" | "sdk-v2" | "ai-sdk" | "mcp-remote" | "mcp-proxy" | "fastmcp" | "tmcp";

/** One rule `check` applies: its documentation, and the severity every finding of it carries. */
export interface CheckRule {
  /** Stable snake_case id; a finding, a JUnit case and a SARIF rule all use it. */
  readonly id: string;
  readonly severity: Severity;
  /** A short name for a heading, e.g. "Tool inputSchema is an object schema". */
  readonly title: string;
  /** The rule in plain words: what the server must (or should) do. */
  readonly rule: string;
  /** The revisions the rule applies to; `all` when it does not depend on one. */
  readonly revisions: readonly Revision[] | "all";
  /** Where the specification says so. */
  readonly spec: string;
  /** What the server's author changes. */
  readonly fix: string;
  /** A short example of the fault, as a reader would recognise it on the wire. */
  readonly example?: string;
  /** The clients this fault is shown (by a test) to break. */
  readonly breaks?: readonly ClientName[];
}

/**
 * One problem `check` found, once however many revisions it occurs in. `revision`, `method` and
 * `path` are null where they do not apply.
 */
export interface Finding {
  readonly id: string;
  readonly severity: Severity;
  /** The newest of `revisions`. */
  readonly revision: Revision | null;
  /** Every revision the problem occurs in, newest first (empty when it concerns none). */
  readonly revisions: readonly Revision[];
  readonly method: string | null;
  /** A JSON Pointer into the offending message (as sent in `revision`). */
  readonly path: string | null;
  /**
   * What the finding is about: `tool:<name>`, `prompt:<name>`, `resource:<uri>`,
   * `template:<uriTemplate>`, `page:<method>#<n>`, `method:<method>`, `http:<METHOD>` or
   * `server`. With `method` and `subjectPath` it names the problem whatever the order of a list.
   */
  readonly subject: string;
  /** The JSON Pointer below the subject (inside a tool's definition for `tool:`), or null. */
  readonly subjectPath: string | null;
  /** `path` in each revision, for baselines written before `subject`; `--json` leaves it out. */
  readonly pathIn?: Readonly<Partial<Record<Revision, string | null>>>;
  readonly message: string;
  readonly fix: string;
  readonly spec: string;
  readonly breaks: readonly ClientName[];
  /** Set when a `--baseline` entry accepts it: reported, but it does not fail the run. */
  readonly accepted?: true;
  /** A surface finding's class (`--surface`), with the value at `subjectPath` before and after. */
  readonly change?: SurfaceChange;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** How a change to a server's surface lands on its clients: an error, a warning, or info. */
export type SurfaceChange = "breaking" | "risky" | "compatible";

/** What one revision's attempt came to: spoken, refused by the server, or not reached at all. */
export type RevisionOutcome = "ok" | "refused" | "unsupported" | "failed" | "skipped";

/**
 * What a baseline entry is matched on, as read from a baseline file. An entry with a `subject`
 * matches by `id`, `subject`, `method` and `subjectPath`; one written before findings had subjects
 * matches by `id`, `revision`, `method` and `path` (the absolute path in that revision).
 */
export interface BaselineKey {
  readonly id: string;
  readonly revision: Revision | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly subject?: string;
  readonly subjectPath?: string | null;
  /** The revisions the entry occurred in, when the file says (to tell whether it was looked for). */
  readonly revisions?: readonly Revision[];
}

/** What happened to a stdio server that exited early or never answered. */
export interface StdioEnd {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last lines of its stderr, secrets redacted. */
  readonly stderrTail: string;
}

/** One `--call`, `--read` or `--get`, and what came of it. */
export interface CallReport {
  readonly kind: "call" | "read" | "get";
  readonly name: string;
  readonly revision: Revision;
  /** `ok`, `error <code>` (the server's error answer), `unknown` (not listed), or why it failed. */
  readonly outcome: string;
  readonly elapsedMs: number;
}

export interface CheckReport {
  readonly target: string;
  /** Each revision tried, in the order tried, with what came of it. */
  readonly revisions: Readonly<Partial<Record<Revision, RevisionOutcome>>>;
  readonly findings: readonly Finding[];
  /** One per finding (one per problem, however many revisions it occurs in). */
  readonly counts: { readonly error: number; readonly warning: number; readonly info: number };
  readonly checked: { readonly messages: number; readonly pages: number };
  readonly elapsedMs: number;
  /** The check ids that ran, with the revisions each ran for (JUnit writes one case per pair). */
  readonly ran: readonly { readonly id: string; readonly revision: Revision | null }[];
  /**
   * Set when the target could not be checked at all (unreachable, not MCP, or asking for sign-in
   * without credentials): exit 3, and the writers record one failed case saying why.
   */
  readonly unchecked: { readonly class: string; readonly detail: string; readonly message: string } | null;
  /** Baseline entries that no longer occur: they fail the run, so a baseline only shrinks. */
  readonly stale: readonly BaselineKey[];
  /** Set for a stdio server that exited early or never answered: how it ended, and what it said. */
  readonly stdio?: StdioEnd | null;
  /** Each `--call`, `--read` and `--get`, per revision, in order. */
  readonly calls?: readonly CallReport[];
  /** With the surface gate asked for (`--surface`): the surface the newest revision listed. */
  readonly surface?: SurfaceFile;
}

/**
 * `--fail-on`: the least severity that fails the run (`never`: no finding does). A stale
 * baseline entry fails it whatever this says.
 */
export type FailOn = "error" | "warning" | "never";
