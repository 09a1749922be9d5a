/**
 * Scenarios that pass when the client goes on in the same session after something a real server
 * sends on a bad day: `large_result`, `content_blocks`, `tool_errors`, `batch`.
 */
import type { JsonObject, Message } from "../../codec/message.js";
import type { CallToolResult } from "../../mcp/meta.js";
import { ResponseError } from "../../peer/errors.js";
import { INVALID_PARAMS } from "../../rules/error-codes.js";
import { SPEC, check, notObserved, type CheckDef, type ScenarioDef } from "../scenario.js";
import { between } from "../scenario.js";
import { ALL, plainTool, text, tool, wentOn } from "./common.js";
import { REVISIONS } from "../../rules/revisions.js";

/** A check that the client called something after the answer to its call of `name`. */
function goesOn(def: Omit<CheckDef, "score">, name: string, what: string): CheckDef {
  return check(def, (view, fault) => {
    const call = view.calls(name)[0];
    if (!call) return notObserved(`the client never called ${name}`);
    return wentOn(view, call, fault, what);
  });
}

/** 3.5 MiB of text in characters of two, three and four bytes, so any split lands inside one. */
const LARGE_BYTES = 3.5 * 1024 * 1024;
function largeText(): string {
  const unit = "é€😀"; // 2 + 3 + 4 bytes
  return unit.repeat(Math.floor(LARGE_BYTES / 9));
}

export const largeResult: ScenarioDef = {
  id: "large_result",
  title: "A 3.5 MiB tool result",
  behaviour:
    "gauntlet_large_result answers with 3.5 MiB of multi-byte text: one stdio line, or HTTP chunks that split characters; then gauntlet_after_large.",
  spec: `${SPEC}/2025-11-25/basic/transports`,
  revisions: ALL,
  setup({ server, wire }) {
    let big: string | undefined;
    server.tools.define(tool("gauntlet_large_result", "Call this tool once with no arguments."), () =>
      text((big ??= largeText())),
    );
    plainTool(server, "gauntlet_after_large", "Call this tool once with no arguments, after gauntlet_large_result.");
    wire.chunkBytes = 64 * 1024 + 1;
  },
  checks: [
    goesOn(
      {
        id: "large_result.continues",
        severity: "error",
        title: "The session survives a large result",
        rule: "A result of a few MiB is a message like any other: the client reads it and goes on in the same session.",
        spec: `${SPEC}/2025-11-25/basic/transports`,
        bug: "Clients with a small line or body cap, or that decode chunks apart, drop the connection on a large file or search result.",
      },
      "gauntlet_large_result",
      "the 3.5 MiB result",
    ),
  ],
};

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

function blocks(revision: string): CallToolResult {
  const content: CallToolResult["content"] = [
    { type: "text", text: "text block" },
    { type: "image", data: PNG, mimeType: "image/png" },
    {
      type: "resource",
      resource: { uri: "gauntlet://embedded", mimeType: "text/plain", text: "an embedded resource" },
    },
  ];
  if (revision >= "2025-03-26") content.push({ type: "audio", data: WAV, mimeType: "audio/wav" });
  if (revision >= "2025-06-18")
    content.push({ type: "resource_link", uri: "gauntlet://linked", name: "linked", mimeType: "text/plain" });
  return { content };
}

export const contentBlocks: ScenarioDef = {
  id: "content_blocks",
  title: "Every kind of content block",
  behaviour:
    "gauntlet_content_blocks answers with text, image, audio, resource_link and an embedded resource (as the revision has them); gauntlet_structured with structuredContent and an outputSchema; then gauntlet_after_content.",
  spec: `${SPEC}/2025-11-25/server/tools#tool-result`,
  revisions: ALL,
  setup({ server }) {
    server.tools.define(tool("gauntlet_content_blocks", "Call this tool once with no arguments."), (_a, c) =>
      blocks(c.revision),
    );
    const outputSchema: JsonObject = {
      type: "object",
      properties: { answer: { type: "number" } },
      required: ["answer"],
    };
    server.tools.define(
      tool("gauntlet_structured", "Call this tool once with no arguments.", { outputSchema }),
      (_a, c) =>
        c.revision >= "2025-06-18"
          ? { content: [{ type: "text", text: '{"answer":42}' }], structuredContent: { answer: 42 } }
          : text('{"answer":42}'),
    );
    plainTool(server, "gauntlet_after_content", "Call this tool once with no arguments, last.");
  },
  checks: [
    goesOn(
      {
        id: "content_blocks.continues",
        severity: "error",
        title: "The session survives every content block",
        rule: "Results may hold any content block the revision defines: the client goes on in the same session.",
        spec: `${SPEC}/2025-11-25/server/tools#tool-result`,
        bug: "Clients whose schemas know only text and image throw on audio or resource_link and lose the session.",
      },
      "gauntlet_content_blocks",
      "a result of every content block",
    ),
    goesOn(
      {
        id: "content_blocks.structured_continues",
        severity: "error",
        title: "The session survives structured content",
        rule: "A result with structuredContent valid against the tool's outputSchema is read, and the client goes on.",
        spec: `${SPEC}/2025-11-25/server/tools#structured-content`,
        bug: "Clients that validate structuredContent with the wrong dialect, or expect it where a revision has none, fail the call.",
      },
      "gauntlet_structured",
      "a structured result",
    ),
  ],
};

export const toolErrors: ScenarioDef = {
  id: "tool_errors",
  title: "A protocol error and a tool error",
  behaviour:
    "gauntlet_tool_errors answers -32602; gauntlet_is_error answers isError: true; then gauntlet_after_errors.",
  spec: `${SPEC}/2025-11-25/server/tools#error-handling`,
  revisions: ALL,
  setup({ server }) {
    server.tools.define(tool("gauntlet_tool_errors", "Call this tool once with no arguments."), () => {
      throw new ResponseError(INVALID_PARAMS, "gauntlet: these arguments are refused on purpose");
    });
    server.tools.define(tool("gauntlet_is_error", "Call this tool once with no arguments."), () => ({
      content: [{ type: "text", text: "gauntlet: this tool failed on purpose" }],
      isError: true,
    }));
    plainTool(server, "gauntlet_after_errors", "Call this tool once with no arguments, last.");
  },
  checks: [
    goesOn(
      {
        id: "tool_errors.after_protocol_error",
        severity: "error",
        title: "A -32602 answer does not end the session",
        rule: "An error response fails one request, never the connection: the client calls the next tool in the same session (stdio: the same process).",
        spec: `${SPEC}/2025-11-25/server/tools#error-handling`,
        bug: "Clients that treat any JSON-RPC error as fatal restart the server process or drop the session on a bad argument.",
      },
      "gauntlet_tool_errors",
      "the -32602 answer",
    ),
    goesOn(
      {
        id: "tool_errors.after_tool_error",
        severity: "error",
        title: "isError: true does not end the session",
        rule: "A tool result with isError is a result: the client goes on in the same session.",
        spec: `${SPEC}/2025-11-25/server/tools#error-handling`,
        bug: "Clients that throw on isError lose the session, although the error was meant for the model.",
      },
      "gauntlet_is_error",
      "the isError result",
    ),
  ],
};

/** The marker the batch tool sends, which the wire turns into an array of two notifications. */
const BATCH_MARKER = "gauntlet/batch";

export const batch: ScenarioDef = {
  id: "batch",
  title: "Two notifications as one JSON array",
  behaviour:
    "While answering gauntlet_batch the server sends two notifications/message as one JSON-RPC batch; then gauntlet_after_batch.",
  spec: `${SPEC}/2025-03-26/basic#batching`,
  revisions: between(REVISIONS, "2025-03-26", "2025-03-26"),
  logging: true,
  setup({ server, wire }) {
    server.tools.define(tool("gauntlet_batch", "Call this tool once with no arguments."), async (_a, context) => {
      // only 2025-03-26 has batches: elsewhere a batch would be this server's own fault
      if (context.revision === "2025-03-26") await context.notify(BATCH_MARKER, {});
      return text("gauntlet_batch: done");
    });
    plainTool(server, "gauntlet_after_batch", "Call this tool once with no arguments, after gauntlet_batch.");
    wire.outgoing = (message: Message) => {
      if ((message as { method?: string }).method !== BATCH_MARKER) return undefined;
      const note = (n: number) => ({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", logger: "gauntlet", data: `batched notification ${n}` },
      });
      return JSON.stringify([note(1), note(2)]);
    };
  },
  checks: [
    goesOn(
      {
        id: "batch.continues",
        severity: "error",
        title: "A batch from the server is read",
        rule: "2025-03-26 lets either side send a JSON-RPC batch: the client reads both notifications and goes on.",
        spec: `${SPEC}/2025-03-26/basic#batching`,
        bug: "Clients written after batching was removed choke on an array from a 2025-03-26 server and drop the connection.",
      },
      "gauntlet_batch",
      "the batch",
    ),
  ],
};
