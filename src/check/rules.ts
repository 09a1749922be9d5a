/**
 * Every rule `mcp-wire check` applies: the one place a finding's id, severity, spec link and fix
 * come from. docs/check.md is generated from this list (scripts/check-docs.ts), and a test fails
 * when the two disagree.
 *
 * `breaks` names only the clients the evidence in src/testkit/breaks.ts shows failing against a server with
 * exactly that fault (and working against the same server without it).
 *
 * Three kinds of rule: the checks of this module (HTTP semantics, pagination, tool definitions,
 * stdio hygiene…); the message defects the codec finds in what a server sends (their severity is
 * the codec's one table, src/codec/defects.ts); and the defects of the sign-in walk.
 */
import { DEFECTS, type DefectCode, type Severity } from "../codec/defects.js";
import { AUTH_DEFECT_CODES, type AuthDefectCode } from "../auth/types.js";
import type { Revision } from "../rules/revisions.js";
import { SURFACE_RULES } from "./surface-rules.js";
import type { CheckRule } from "./types.js";

const SPEC = "https://modelcontextprotocol.io/specification";
const STREAMABLE: readonly Revision[] = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
const LEGACY_STREAMABLE: readonly Revision[] = ["2025-03-26", "2025-06-18", "2025-11-25"];
const LEGACY: readonly Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: readonly Revision[] = ["2026-07-28"];
const NAMING: readonly Revision[] = ["2025-11-25", "2026-07-28"];

/** The rules of `check` itself. */
const OWN = [
  {
    id: "schema_invalid",
    severity: "error",
    title: "Every message matches the revision's schema",
    rule: "Every message the server sends validates against the official schema.json of the revision spoken: a result against its method's result definition, an error against the error definition, a request or notification against its own.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/schema`,
    fix: "Send the shape the schema defines: the path and the definition in the message say which member is missing or of the wrong type.",
    example: '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search"}]}}  (a tool without inputSchema)',
  },
  {
    id: "http_content_type",
    severity: "error",
    title: "Answers are application/json or text/event-stream",
    rule: "A POSTed request is answered with Content-Type application/json (one JSON object) or text/event-stream (an SSE stream).",
    revisions: STREAMABLE,
    spec: `${SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server`,
    fix: "Set Content-Type: application/json on JSON answers (or answer with an SSE stream as text/event-stream).",
    example: 'HTTP/1.1 200 OK\nContent-Type: text/plain\n\n{"jsonrpc":"2.0","id":1,"result":{}}',
    breaks: ["sdk-v1", "sdk-v2", "ai-sdk", "mcp-remote"],
  },
  {
    id: "http_notification_not_202",
    severity: "error",
    title: "A POSTed notification gets 202 with no body",
    rule: "When the server accepts a notification (or response) POSTed to it, it answers 202 Accepted with no body.",
    revisions: LEGACY_STREAMABLE,
    spec: `${SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server`,
    fix: "Answer a POSTed notification with status 202 and an empty body.",
    example: 'POST notifications/initialized → HTTP/1.1 200 OK\n\n{"jsonrpc":"2.0","result":{}}',
  },
  {
    id: "http_unknown_session_not_404",
    severity: "error",
    title: "A request in an ended session gets 404",
    rule: "Once a session has ended (here: the client ended it with a DELETE the server accepted), the server answers every request naming it with 404 Not Found, which tells the client to start a new session.",
    revisions: LEGACY_STREAMABLE,
    spec: `${SPEC}/2025-11-25/basic/transports#session-management`,
    fix: "Look the Mcp-Session-Id up before serving the request, and answer 404 when there is no such session (any more).",
    example: "DELETE (200), then POST ping with the same Mcp-Session-Id → HTTP/1.1 400 Bad Request",
  },
  {
    id: "http_header_mismatch",
    severity: "error",
    title: "Headers that disagree with the body get 400 and -32020",
    rule: "A request whose MCP-Protocol-Version or Mcp-Method header does not match its body is rejected with 400 Bad Request and a HeaderMismatch (-32020) JSON-RPC error.",
    revisions: MODERN,
    spec: `${SPEC}/2026-07-28/basic/transports/streamable-http#server-validation`,
    fix: "Compare MCP-Protocol-Version with the body's _meta protocol version, and Mcp-Method (and Mcp-Name) with the body, before serving; answer 400 with error -32020 when they differ.",
    example: 'Mcp-Method: tools/list with body method "server/discover" → HTTP/1.1 200 OK',
  },
  {
    id: "http_unsupported_version",
    severity: "error",
    title: "An unsupported version gets 400 and -32022 naming the supported ones",
    rule: "A request for a protocol version the server does not implement is rejected with 400 Bad Request and an UnsupportedProtocolVersionError (-32022) whose data.supported lists the versions it does.",
    revisions: MODERN,
    spec: `${SPEC}/2026-07-28/basic/transports/streamable-http#protocol-version-header`,
    fix: 'Answer 400 with {"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"…"}}.',
    example: "MCP-Protocol-Version: 1999-01-01 → HTTP/1.1 200 OK",
  },
  {
    id: "http_unknown_method_not_404",
    severity: "error",
    title: "An unknown method gets 404 and -32601",
    rule: "A request for a method the server does not implement is answered with 404 Not Found and a JSON-RPC error -32601.",
    revisions: MODERN,
    spec: `${SPEC}/2026-07-28/basic/transports/streamable-http#protocol-version-header`,
    fix: "Answer an unknown method with HTTP status 404 and the -32601 error in the body.",
    example: "POST method mcp-wire/no-such-method → HTTP/1.1 200 OK with error -32601",
  },
  {
    id: "http_get_delete_not_405",
    severity: "warning",
    title: "GET and DELETE get 405 on a 2026-07-28-only server",
    rule: "A server that speaks only 2026-07-28 answers GET and DELETE to the MCP endpoint with 405 Method Not Allowed (it has no standalone stream and no sessions).",
    revisions: MODERN,
    spec: `${SPEC}/2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions`,
    fix: "Answer GET and DELETE to the endpoint with status 405.",
    example: "GET /mcp → HTTP/1.1 200 OK (an HTML page)",
  },
  {
    id: "http_accept_json_only_refused",
    severity: "info",
    title: "A request accepting only application/json is served",
    rule: "Clients must send Accept: application/json, text/event-stream, so a server may refuse one naming only application/json; but some clients send only that, and a server that answers it with JSON works with them too.",
    revisions: STREAMABLE,
    spec: `${SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server`,
    fix: "Serve a request whose Accept names only application/json with a JSON answer instead of refusing it (406 or 400).",
    example: "Accept: application/json → HTTP/1.1 406 Not Acceptable",
  },
  {
    id: "unknown_method_not_32601",
    severity: "error",
    title: "An unknown method gets -32601",
    rule: "A request for a method the server does not have is answered with the JSON-RPC error -32601 (Method not found).",
    revisions: "all",
    spec: `${SPEC}/2026-07-28/basic/index#error-codes`,
    fix: "Answer a request for an unknown method with error code -32601.",
    example: '{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Unknown method"}}',
  },
  {
    id: "bad_params_not_32602",
    severity: "warning",
    title: "Malformed params get -32602",
    rule: "A list request whose cursor is not a string is invalid: it should be answered with the JSON-RPC error -32602 (Invalid params), as should an invalid cursor. Where the answer is the server SDK's own (the official TypeScript SDK answers params its validation refuses with -32603), the finding is info and names the SDK: only the SDK can change it.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination#error-handling`,
    fix: "Validate params and answer malformed ones with error code -32602.",
    example: '{"method":"tools/list","params":{"cursor":42}} → {"error":{"code":-32603,"message":"Internal error"}}',
  },
  {
    id: "ping_failed",
    severity: "error",
    title: "ping is answered with an empty result",
    rule: "Either side may send ping at any time; the receiver must answer promptly with an empty result. (2026-07-28 removed ping.)",
    revisions: LEGACY,
    spec: `${SPEC}/2025-11-25/basic/utilities/ping`,
    fix: "Answer ping with {} as the result.",
    example: '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}',
  },
  {
    id: "logging_set_level_failed",
    severity: "error",
    title: "A server that declares logging accepts logging/setLevel",
    rule: "A server that declares the logging capability serves logging/setLevel with an empty result.",
    revisions: LEGACY,
    spec: `${SPEC}/2025-11-25/server/utilities/logging`,
    fix: "Serve logging/setLevel, or stop declaring the logging capability.",
    example: 'capabilities {"logging":{}}, then logging/setLevel → error -32601',
  },
  {
    id: "list_failed",
    severity: "error",
    title: "A declared list can be listed",
    rule: "A server that declares tools, resources or prompts answers their list requests with a result. On 2026-07-28 it MUST (server/tools, server/resources, server/prompts: an error); before, the capabilities a server declares establish the features available in the session (basic/lifecycle, capability negotiation) without a MUST of their own: a warning.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/lifecycle#capability-negotiation`,
    fix: "Serve the list method of every capability the server declares, or stop declaring it.",
    example: 'capabilities {"prompts":{}}, then prompts/list → error -32601',
  },
  {
    id: "request_unanswered",
    severity: "error",
    title: "Every request is answered",
    rule: "Every request gets a response (a result or an error) within the deadline, and the connection stays up while the client waits for it.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
    fix: "Answer every request, with an error if it cannot be served; never drop one or close the connection under it.",
    example: "ping → no answer within 10 s",
  },
  {
    id: "pagination_cursor_repeated",
    severity: "error",
    title: "A nextCursor never repeats",
    rule: "Each page's nextCursor leads further: a cursor that comes back makes a client that follows every cursor list forever.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
    fix: "Encode the position after the page in nextCursor, and leave nextCursor out on the last page.",
    example: 'page 2 → {"tools":[…],"nextCursor":"page-1"}  (the cursor that led to page 2)',
  },
  {
    id: "pagination_not_advancing",
    severity: "error",
    title: "Each page moves on",
    rule: "A page that repeats the previous page's items while naming a new cursor never brings the list to an end.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
    fix: "Serve the items after the cursor, not from the start, and end the list by leaving nextCursor out.",
    example: "every page → the same three tools and a fresh nextCursor",
  },
  {
    id: "pagination_page_cap",
    severity: "warning",
    title: "A list ends within 1,000 pages",
    rule: "check follows at most 1,000 pages of one list; a list that still goes on is either endless or paged so finely that clients give up.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
    fix: "Serve larger pages, and make sure the last page has no nextCursor.",
  },
  {
    id: "pagination_empty_cursor",
    severity: "warning",
    title: "No empty-string nextCursor before 2026-07-28",
    rule: 'Before 2026-07-28 an empty-string nextCursor is ambiguous: many clients read its presence as "more" and ask again. (On 2026-07-28 it is a valid cursor, and a client must follow it.)',
    revisions: LEGACY,
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
    fix: "Leave nextCursor out of the last page instead of sending an empty string.",
    example: '{"tools":[…],"nextCursor":""}',
  },
  {
    id: "tool_input_schema_not_object",
    severity: "error",
    title: "A tool's inputSchema is an object schema",
    rule: 'A tool\'s inputSchema is a JSON Schema object whose root has type "object".',
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/tools#tool`,
    fix: 'Give every tool an inputSchema like {"type":"object","properties":{…}} — {"type":"object"} for a tool without arguments.',
    example: '{"name":"search","inputSchema":{"type":"string"}}',
    breaks: ["sdk-v1", "sdk-v2", "ai-sdk"],
  },
  {
    id: "tool_schema_invalid",
    severity: "error",
    title: "A tool's schemas are valid under the revision's JSON Schema dialect",
    rule: "A tool's inputSchema and outputSchema are valid JSON Schemas under the dialect the revision gives them: JSON Schema 2020-12 from 2025-11-25 on, draft-07 before (as those revisions' own schema.json), unless $schema names draft-07 or 2020-12.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/index#json-schema-usage`,
    fix: "Fix the keyword the message names (a misspelt type, a required that is not an array of strings…).",
    example: '{"type":"object","properties":{"q":{"type":"text"}}}',
  },
  {
    id: "tool_schema_unchecked",
    severity: "info",
    title: "A tool's schemas were too large to check",
    rule: "A tool's inputSchema or outputSchema too large for mcp-wire to compile (over 64 KiB as JSON, or nested past what code generation can hold), or that takes past its time budget (250 ms against its meta-schema, 10 s for all of one listing's schemas), is reported as not checked: nothing is known to be wrong with it, and a called tool's structuredContent is not judged against it.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/index#json-schema-usage`,
    fix: "Nothing to fix for the protocol; a smaller schema (shared definitions, fewer inline properties) lets clients validate it cheaply.",
    example: '{"type":"object","properties":{"p0":{"type":"string"},"p1":{"type":"string"},…}}  (4,000 properties)',
  },
  {
    id: "tool_name_format",
    severity: "warning",
    title: "Tool names follow the naming rule",
    rule: "Tool names should be 1 to 128 characters of ASCII letters, digits, underscore, hyphen and dot.",
    revisions: NAMING,
    spec: `${SPEC}/2025-11-25/server/tools#tool-names`,
    fix: "Rename the tool using only A-Z, a-z, 0-9, _, - and . (at most 128 characters).",
    example: '{"name":"search the web"}',
  },
  {
    id: "tool_name_duplicate",
    severity: "warning",
    title: "Tool names are unique",
    rule: "Tool names should be unique within a server: a client cannot call the second of two tools with one name.",
    revisions: NAMING,
    spec: `${SPEC}/2025-11-25/server/tools#tool-names`,
    fix: "Give each tool a name of its own.",
  },
  {
    id: "tool_result_no_content",
    severity: "error",
    title: "A tool result carries content",
    rule: "The result of tools/call has a content array (empty if there is nothing to show).",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/tools#tool-result`,
    fix: 'Return {"content":[…]} from every tool call, also beside structuredContent.',
    example: '{"result":{"structuredContent":{"sum":3}}}',
    breaks: ["sdk-v2", "ai-sdk"],
  },
  {
    id: "call_target_unknown",
    severity: "error",
    title: "What --call, --read and --get name is listed",
    rule: "A tool named by --call, a prompt named by --get, and a resource named by --read (on a server without resource templates) is one the server lists; otherwise it is not sent, and the run says so rather than passing in silence.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/tools#listing-tools`,
    fix: "Name a tool, prompt or resource the server lists (check the spelling), or list the one the server serves.",
    example: "mcp-wire check --call serach_notes … (the server lists search_notes)",
  },
  {
    id: "tool_structured_content_invalid",
    severity: "error",
    title: "structuredContent conforms to the tool's outputSchema",
    rule: "A tool that declares an outputSchema returns structuredContent, and it conforms to that schema.",
    revisions: ["2025-06-18", "2025-11-25", "2026-07-28"],
    spec: `${SPEC}/2025-11-25/server/tools#output-schema`,
    fix: "Return structuredContent in the shape the tool's outputSchema declares (or change the schema).",
    example: 'outputSchema {"type":"object","required":["sum"]} and structuredContent {"total":3}',
    breaks: ["sdk-v2"],
  },
  {
    id: "stdout_not_jsonrpc",
    severity: "error",
    title: "stdout carries only JSON-RPC messages",
    rule: "A stdio server writes nothing to stdout that is not a valid MCP message: logs go to stderr.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/transports#stdio`,
    fix: "Write logs, banners and debugging output to stderr (console.error), never to stdout.",
    example: "Weather MCP Server v1.2 running on stdio",
  },
  {
    id: "stdio_exit_slow",
    severity: "warning",
    title: "A stdio server exits when its input closes",
    rule: "Clients end a stdio server by closing its input and waiting for it to exit, then sending SIGTERM: a server should exit within a few seconds (check waits 5 s) once stdin ends.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/basic/lifecycle#stdio`,
    fix: "Exit when stdin ends (listen for its end event, and let no timer or open handle keep the process alive).",
  },
  {
    id: "description_hidden_text",
    severity: "warning",
    title: "Names and descriptions hide nothing",
    rule: "The names, titles and descriptions of tools, resources, resource templates and prompts (and the descriptions and property names inside a tool's schemas) carry no text a person does not see and a model reads: no Unicode tag characters, bidirectional controls, zero-width characters, C0/C1 control characters (tab and line breaks aside) or terminal escape sequences. No MUST names them, but a person approves a server by reading these texts while the model reads every character: hidden text is how a description carries instructions the person never saw.",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/tools#security-considerations`,
    fix: "Remove the invisible characters: write every name and description in plain visible text.",
    example: '"description": "Adds two numbers.\u{E0049}\u{E0067}\u{E006E}…"  (tag characters spelling an instruction)',
  },
  {
    id: "kept_over_budget",
    severity: "warning",
    title: "The lists fit in what check keeps",
    rule: "check keeps at most 32 MiB of listed definitions, and 32 MiB of messages to validate, per session: what a server sends past that is counted, not judged (clients that load a whole list choke on such sizes too).",
    revisions: "all",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
    fix: "List fewer or smaller items (a client loads every page of a list into memory).",
  },
] as const satisfies readonly CheckRule[];

/** What a server author changes for a codec defect; `rule` where the codec's generic sentence would mislead. */
interface MessageRule {
  title: string;
  fix: string;
  spec: string;
  revisions?: readonly Revision[];
  rule?: string;
  example?: string;
}

/** What a server author changes for each codec defect a server's message can carry. */
const MESSAGE_RULES = {
  parse_error: {
    title: "Every message is JSON",
    fix: "Send each message as one JSON text.",
    spec: "https://www.jsonrpc.org/specification#parse_error",
  },
  invalid_utf8: {
    title: "Messages are UTF-8",
    fix: "Encode messages as UTF-8.",
    spec: `${SPEC}/2025-11-25/basic/transports`,
  },
  too_large: {
    title: "Messages fit the size cap",
    fix: "Page long lists and return large content as resources, not one huge message.",
    spec: `${SPEC}/2025-11-25/server/utilities/pagination`,
  },
  too_deep: {
    title: "Messages are not nested absurdly deep",
    fix: "Flatten the structure.",
    spec: "https://www.jsonrpc.org/specification",
  },
  not_object: {
    title: "Each message is a JSON object",
    fix: "Send JSON-RPC objects only.",
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  no_envelope: {
    title: "Results are wrapped in a JSON-RPC response",
    fix: 'Wrap the result: {"jsonrpc":"2.0","id":…,"result":{…}}.',
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  bare_array: {
    title: "No bare arrays",
    fix: "Send a JSON-RPC response object, not an array.",
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  batch_not_allowed: {
    title: "No batches where the revision has none",
    fix: "Send messages one at a time.",
    spec: `${SPEC}/2025-11-25/basic/index`,
  },
  missing_jsonrpc: {
    title: 'Every message has "jsonrpc": "2.0"',
    fix: 'Add "jsonrpc":"2.0" to every message.',
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  wrong_jsonrpc_version: {
    title: 'jsonrpc is exactly "2.0"',
    fix: 'Send "jsonrpc":"2.0".',
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  id_null: {
    title: "Responses carry the request's id",
    fix: "Answer with the id of the request.",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
  },
  id_missing: {
    title: "Responses carry an id",
    fix: "Answer with the id of the request.",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
  },
  id_invalid_type: {
    title: "Ids are strings or integers",
    fix: "Use a string or an integer id.",
    spec: `${SPEC}/2025-11-25/basic/index#requests`,
  },
  id_fractional: {
    title: "Ids are integers, not fractions",
    fix: "Use a string or an integer id.",
    spec: `${SPEC}/2025-11-25/basic/index#requests`,
  },
  result_and_error: {
    title: "A response has a result or an error, not both",
    fix: "Send either result or error.",
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  neither_result_nor_error: {
    title: "A response has a result or an error",
    fix: "Send result (or error) in every response.",
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  result_not_object: {
    title: "A result is an object",
    fix: "Return an object as the result.",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
  },
  error_invalid: {
    title: "An error has a code and a message",
    fix: 'Send {"code":<integer>,"message":"…"}.',
    spec: "https://www.jsonrpc.org/specification#error_object",
  },
  error_code_not_integer: {
    title: "Error codes are integers",
    fix: "Send an integer code.",
    spec: "https://www.jsonrpc.org/specification#error_object",
  },
  unexpected_member: {
    title: "No unknown envelope members",
    fix: "Remove members JSON-RPC does not define from the envelope (put extra data in result or error.data).",
    spec: "https://www.jsonrpc.org/specification#response_object",
  },
  error_code_undefined_mcp: {
    title: "No undefined codes in MCP's reserved range",
    fix: "Use -32601, -32602, -32603 or an application code outside -32768…-32000.",
    spec: `${SPEC}/2026-07-28/basic/index#error-codes`,
  },
  error_code_reserved: {
    title: "No codes in JSON-RPC's reserved range",
    fix: "Use a standard code or an application code outside -32768…-32000.",
    spec: "https://www.jsonrpc.org/specification#error_object",
  },
  error_code_legacy: {
    title: "No implementation-defined server error codes",
    fix: "Use a standard code (-32601, -32602, -32603) or an HTTP status for transport-level refusals (401 for credentials).",
    spec: "https://www.jsonrpc.org/specification#error_object",
  },
  error_code_retired: {
    title: "No retired error codes",
    fix: "On 2026-07-28, answer a missing resource with -32602, not -32002.",
    spec: `${SPEC}/2026-07-28/server/resources#error-handling`,
  },
  result_type_missing: {
    title: "2026-07-28 results carry resultType",
    fix: 'Add "resultType":"complete" to every result.',
    spec: `${SPEC}/2026-07-28/basic/patterns/mrtr`,
    revisions: MODERN,
  },
  result_type_unknown: {
    title: "resultType is a known value",
    fix: 'Send "complete" or "input_required".',
    spec: `${SPEC}/2026-07-28/basic/patterns/mrtr`,
    revisions: MODERN,
  },
  meta_invalid: {
    title: "_meta is an object of namespaced keys",
    fix: "Send _meta as an object.",
    spec: `${SPEC}/2025-11-25/basic/index#_meta`,
  },
  unknown_response_id: {
    title: "Responses answer a request that was sent",
    fix: "Answer each request once, with its own id.",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
  },
  duplicate_response: {
    title: "Each request is answered once",
    fix: "Answer each request exactly once.",
    spec: `${SPEC}/2025-11-25/basic/index#responses`,
  },
  response_to_notification: {
    title: "Notifications get no response",
    fix: "Do not answer notifications.",
    spec: `${SPEC}/2025-11-25/basic/index#notifications`,
  },
  response_after_cancel: {
    title: "No response after a cancellation",
    fix: "Stop work on a cancelled request and send nothing for it.",
    spec: `${SPEC}/2025-11-25/basic/utilities/cancellation`,
  },
  id_reused_in_flight: {
    title: "The server's own request ids do not repeat",
    fix: "Give each request a fresh id.",
    spec: `${SPEC}/2025-11-25/basic/index#requests`,
  },
  id_reused_in_session: {
    title: "The server's own request ids do not repeat in a session",
    fix: "Give each request a fresh id.",
    spec: `${SPEC}/2025-11-25/basic/index#requests`,
  },
  initialize_version_not_latest: {
    title: "initialize answers with the latest version supported",
    fix: "When the offered version is not supported, answer with the latest one the server supports.",
    spec: `${SPEC}/2025-11-25/basic/lifecycle#version-negotiation`,
    revisions: LEGACY,
  },
  version_not_negotiated: {
    title: "initialize negotiates instead of failing",
    fix: "Answer an unsupported offered version with a version the server supports, not an error.",
    spec: `${SPEC}/2025-11-25/basic/lifecycle#version-negotiation`,
    revisions: LEGACY,
  },
  discover_missing: {
    title: "A 2026-07-28 server serves server/discover",
    rule: "A server that answers 2026-07-28 requests (a 2026-07-28 result, resultType present, to a request carrying its _meta) MUST implement server/discover, the request a dual-era client sends first to learn the server's versions, capabilities and identity. One that refuses it is taken for a legacy server by such clients, and its initialize refusal leaves them nothing to use; check goes on in 2026-07-28 without it, the capabilities then unknown (only the tools are listed).",
    fix: "Serve server/discover: answer it with the supported versions, the capabilities and the server's identity (DiscoverResult).",
    spec: `${SPEC}/2026-07-28/server/discover`,
    revisions: MODERN,
    example:
      '{"method":"server/discover"} → {"error":{"code":-32601,"message":"Method not found"}}, then tools/list with _meta → {"result":{"resultType":"complete","tools":[…]}}',
  },
  redirect: {
    title: "The endpoint answers without a redirect",
    fix: "Publish the endpoint's exact URL (with or without the trailing slash the server wants): many clients do not follow a redirected POST.",
    spec: `${SPEC}/2025-11-25/basic/transports`,
  },
} satisfies Partial<Record<DefectCode, MessageRule>>;

/** The sign-in walk's defects: who fixes what is in each finding's message. */
const AUTH_TITLES: Record<AuthDefectCode, string> = {
  no_challenge: "A 401 carries a Bearer challenge",
  challenge_without_resource_metadata: "The challenge names the protected resource metadata",
  auth_status_not_401: "A refusal for lack of credentials is HTTP 401",
  resource_metadata_not_found: "Protected resource metadata can be found",
  resource_metadata_invalid: "Protected resource metadata is valid",
  resource_mismatch: "The metadata's resource is the endpoint",
  authorization_server_metadata_not_found: "Authorization server metadata can be found",
  authorization_server_metadata_invalid: "Authorization server metadata is valid",
  issuer_mismatch: "The issuer is the listed authorization server",
  pkce_s256_missing: "The authorization server offers PKCE S256",
  no_registration: "Clients can register",
  insecure_endpoint: "Sign-in endpoints use https",
  offline_access_in_challenge: "The challenge does not ask for offline_access",
  cors_headers_not_exposed: "Browsers can read the 401's headers",
  cors_preflight_rejected: "The CORS preflight is accepted",
  metadata_without_cors: "Metadata is readable cross-origin",
};
const AUTH_SPEC = `${SPEC}/2025-11-25/basic/authorization`;

function messageRule(code: DefectCode, m: MessageRule): CheckRule {
  return {
    id: code,
    severity: DEFECTS[code].severity as Severity,
    title: m.title,
    rule:
      m.rule ??
      `The codec's ${code} defect, in a message the server sent: the codec's reading of every message (mcp-wire lint reports the same defect in a capture).`,
    revisions: m.revisions ?? "all",
    spec: m.spec,
    fix: m.fix,
    ...(m.example ? { example: m.example } : {}),
  };
}

/** Sign-in defects the walk only ever reports as warnings (the others are errors, some milder in one case). */
const AUTH_WARNINGS: ReadonlySet<AuthDefectCode> = new Set([
  "no_registration",
  "offline_access_in_challenge",
  "cors_headers_not_exposed",
  "cors_preflight_rejected",
  "metadata_without_cors",
]);

function authRule(code: AuthDefectCode): CheckRule {
  return {
    id: code,
    severity: AUTH_WARNINGS.has(code) ? "warning" : "error",
    title: AUTH_TITLES[code],
    rule: "A step of the sign-in chain an OAuth client walks when the server asks for credentials (as mcp-wire probe reports it). Where the revision's rules make it a SHOULD, the finding is a warning.",
    revisions: "all",
    spec: AUTH_SPEC,
    fix: "The finding's message says what to change, and on which side: the MCP server, its authorization server, or a proxy in front.",
  };
}

/** The rules of `check` itself, the codec's message defects, the sign-in walk's defects: docs/check.md shows them apart. */
export const OWN_RULES: readonly CheckRule[] = OWN;
export const MESSAGE_CHECK_RULES: readonly CheckRule[] = Object.entries(MESSAGE_RULES).map(([code, m]) =>
  messageRule(code as DefectCode, m as MessageRule),
);
export const SIGNIN_CHECK_RULES: readonly CheckRule[] = AUTH_DEFECT_CODES.map(authRule);

export const CHECK_RULES: readonly CheckRule[] = [
  ...OWN_RULES,
  ...SURFACE_RULES,
  ...MESSAGE_CHECK_RULES,
  ...SIGNIN_CHECK_RULES,
];

const BY_ID = new Map(CHECK_RULES.map((r) => [r.id, r]));

/** The id of every rule of the catalogue: a finding is made by naming one, so a typo does not compile. */
export type CheckRuleId =
  (typeof OWN)[number]["id"] | (typeof SURFACE_RULES)[number]["id"] | keyof typeof MESSAGE_RULES | AuthDefectCode;

/** The rule of `id`; throws for an id the catalogue lacks (a bug: every finding comes from here). */
export function ruleOf(id: CheckRuleId): CheckRule {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`no check rule ${JSON.stringify(id)}`);
  return rule;
}

export function isRuleId(id: string): id is CheckRuleId {
  return BY_ID.has(id);
}

/** Whether the rule applies to `revision` (a finding outside a revision applies everywhere). */
export function appliesTo(rule: CheckRule, revision: Revision | null): boolean {
  return revision === null || rule.revisions === "all" || rule.revisions.includes(revision);
}
