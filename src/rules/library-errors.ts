/**
 * The errors mcp-wire throws, one stable string `code` each, with a sentence on when. Errors
 * the other side sent are not here: a `ResponseError` carries the JSON-RPC code it came with
 * (see error-codes.ts). docs/errors.md is this table for people.
 *
 * Every code is mcp-wire's own (`ERR_MCP_WIRE_…`): none is borrowed from Node or another
 * library, so a caller who branches on `code` never confuses ours with theirs.
 */

export interface LibraryError {
  /** The class that carries the code; every one is exported by the package. */
  readonly class: string;
  /** When it is thrown, in one sentence. */
  readonly when: string;
}

export const LIBRARY_ERRORS = {
  ERR_MCP_WIRE_ENCODE: {
    class: "EncodeError",
    when: "`encode` refused to write a message that breaks the revision's rules, or that is not JSON data; `defects` names each fault.",
  },
  ERR_MCP_WIRE_TIMEOUT: {
    class: "TimeoutError",
    when: "No answer came within the request's deadline, whichever timer saw it run out (over HTTP, `cause` is then the exchange's `HttpError`); `mismatchedId` names an answer that came with the request's id in the wrong type.",
  },
  ERR_MCP_WIRE_CLOSED: {
    class: "ClosedError",
    when: "The connection ended (or was already closed) before an answer came; `cause` says why when something did.",
  },
  ERR_MCP_WIRE_SERVER_EXITED: {
    class: "ServerExitedError",
    when: "The process of a stdio server ended (a `ClosedError`): `exitCode` or `signal` says how, `stderrTail` what it wrote last (secrets redacted), and the message both.",
  },
  ERR_MCP_WIRE_OPENING_TIMEOUT: {
    class: "OpeningTimeoutError",
    when: "`McpClient.connect` got no usable answer within `openTimeout` (default 30 s): `sent` names the opening requests, `received` counts what came back, `lastReceived` is the last of it, and a stdio server's stderr tail is in the message.",
  },
  ERR_MCP_WIRE_SPAWN: {
    class: "SpawnError",
    when: "The process of a stdio server could not be started; `osCode` is the operating system's reason (`ENOENT`, `EACCES`).",
  },
  ERR_MCP_WIRE_ABORTED: {
    class: "AbortedError",
    when: "The caller's AbortSignal fired before the answer came; `cause` is the signal's reason.",
  },
  ERR_MCP_WIRE_OVERLOADED: {
    class: "OverloadedError",
    when: "As many requests as `maxInFlight` allows already await an answer: the request was not sent.",
  },
  ERR_MCP_WIRE_INVALID_RESPONSE: {
    class: "InvalidResponseError",
    when: "The answer to the request came, but breaks the envelope's rules; `defects` names each fault.",
  },
  ERR_MCP_WIRE_TOO_LARGE: {
    class: "MessageTooLargeError",
    when: "The answer came larger than the channel's cap and was dropped unread: the request fails at once instead of at its deadline.",
  },
  ERR_MCP_WIRE_NEGOTIATION: {
    class: "NegotiationError",
    when: "The opening failed without a JSON-RPC error from the server: no revision both sides speak, or an opening answer that cannot be used.",
  },
  ERR_MCP_WIRE_REVISION_NOT_SPOKEN: {
    class: "RevisionNotSpokenError",
    when: "A client told to speak exactly one revision met a server that does not speak it; `serverSpeaks` lists what the server named instead.",
  },
  ERR_MCP_WIRE_HTTP: {
    class: "HttpError",
    when: "An HTTP exchange gave no JSON-RPC answer: no connection, a status without one, a body that is not JSON-RPC, a redirect elsewhere, a body over the cap; `failure`, `status`, `contentType` and `bodyExcerpt` say which. A 401 carries `wwwAuthenticate`, and from `connectHttp` the `resourceMetadataUrl` and `authorizationServers` where the server publishes them.",
  },
  ERR_MCP_WIRE_INPUT_REQUIRED: {
    class: "InputRequiredError",
    when: "A request ended on an `input_required` result the client could not follow; `reason` is `unhandled`, `rounds` or `malformed`.",
  },
  ERR_MCP_WIRE_UNKNOWN_REVISION: {
    class: "UnknownRevisionError",
    when: "A revision mcp-wire does not know was given where one must be known (`validate`'s `revision`); `revision` is what was given.",
  },
  ERR_MCP_WIRE_METHOD_NOT_IN_REVISION: {
    class: "MethodNotInRevisionError",
    when: "The client was asked for a method the connection's negotiated revision does not have (`ping` on 2026-07-28, `listen` before it): nothing was sent; `method` and `revision` say which.",
  },
  ERR_MCP_WIRE_TASKS_NOT_NEGOTIATED: {
    class: "TasksNotNegotiatedError",
    when: "A task method or a call as a task was asked for where tasks are not negotiated: `reason` is `revision` (it has none), `client` (the client did not declare them), `server` (the server did not, or not that operation) or `tool` (its listing forbids it); nothing was sent.",
  },
  ERR_MCP_WIRE_TASK_CANCELLED: {
    class: "TaskCancelledError",
    when: "A task the client was waiting on ended `cancelled`, not by this wait's own signal or deadline (which give `AbortedError` and `TimeoutError`); `taskId` and `statusMessage` say which and why.",
  },
  ERR_MCP_WIRE_PAGINATION: {
    class: "PaginationError",
    when: "A list walk stopped: the server gave a cursor it had already given (`reason: repeated_cursor`, it would loop), more pages than `maxPages` allows (`page_cap`), or a page without its array (`not_a_page`); `pages` counts what came.",
  },
  ERR_MCP_WIRE_NOT_A_CAPTURE: {
    class: "NotACaptureError",
    when: "`lintStream` was handed input that is no capture of newline-delimited JSON-RPC (a database, a program, prose); `message` says what it looks like instead.",
  },
  ERR_MCP_WIRE_RECORDING: {
    class: "RecordingError",
    when: "A file given to play or replay is not a recording this build can read: `reason` is `not_a_recording`, `truncated`, `unknown_version`, `not_a_file` (a FIFO), `line_too_large`, `too_large`, `invalid_json`, `out_of_order`, `id_collision` or `unreadable`; `file` and `line` say where.",
  },
  ERR_MCP_WIRE_RECORDING_WRITE: {
    class: "RecordingWriteError",
    when: "`recordTransport` was given a file it cannot write: thrown at once when it cannot be opened (`reason` `is_a_folder`, `no_folder`, `permission_denied`), or by the recorded transport's `close()` when a write failed on the way (`write_failed`); `file` and `osCode` say which.",
  },
} as const satisfies Readonly<Record<`ERR_MCP_WIRE_${string}`, LibraryError>>;

export type LibraryErrorCode = keyof typeof LIBRARY_ERRORS;
