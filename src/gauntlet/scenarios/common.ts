/** What several scenarios share: plain tools, and "did the client go on after this". */
import type { CallToolResult, Tool } from "../../mcp/meta.js";
import type { McpServer } from "../../mcp/server.js";
import type { ToolHandler } from "../../mcp/tools.js";
import { REVISIONS, type Revision } from "../../rules/revisions.js";
import { between, pass, type Verdict } from "../scenario.js";
import { msg, type View } from "../view.js";
import type { Entry } from "../tape.js";

export const ALL: readonly Revision[] = REVISIONS;
export const LEGACY: readonly Revision[] = between(REVISIONS, "2024-11-05", "2025-11-25");

export function tool(name: string, description: string, extra: Partial<Tool> = {}): Tool {
  return { name, description, inputSchema: { type: "object", properties: {} }, ...extra };
}

export function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

/** A tool that answers with a line of text. */
export function plainTool(server: McpServer, name: string, description: string, handler?: ToolHandler): void {
  server.tools.define(tool(name, description), handler ?? (() => text(`${name}: done`)));
}

/**
 * Whether the client went on after `e` (its request's answer): another request in the same
 * conversation, or, when `call` is named, a call of that tool.
 */
export function wentOn(
  view: View,
  e: Entry,
  fault: (message: string, evidence?: readonly number[]) => Verdict,
  what: string,
): Verdict {
  const answer = view.answerTo(e);
  const after = view.requestsAfter(answer?.line ?? e.line, e);
  if (after.length > 0) {
    const next = after[0]!;
    return pass(`the client went on after ${what}: ${String(msg(next)?.method)}`, [e.line, next.line]);
  }
  return fault(
    `the client sent nothing more in the same ${view.transport === "stdio" ? "server process" : "session"} after ${what}`,
    answer ? [e.line, answer.line] : [e.line],
  );
}
