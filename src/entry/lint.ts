/**
 * mcp-wire/lint: captures of newline-delimited JSON-RPC (a stdio session, a tap's log), framed
 * with a line cap and judged line by line as `mcp-wire lint` does. See docs/library.md.
 */
export { LineSplitter } from "../codec/lines.js";
export { revisionEvidence } from "../codec/evidence.js";
export type { RevisionEvidence } from "../codec/evidence.js";
export type { Line } from "../codec/lines.js";
export { Linter, lintStream, summaryLine } from "../lint/lint.js";
export type { LintOptions, LintRecord, LintSummary, LineContext, HttpContext, RevisionSource } from "../lint/lint.js";
