/**
 * Two families of failure, never confused: a `ResponseError` is an error the other side sent on
 * the wire (its JSON-RPC `code` is a number, from the peer); a `ConnectionError` happened here
 * (timeout, closed, aborted, …: its `code` is a stable string, never a JSON-RPC number). Each
 * local failure has its own class, so callers can branch with `instanceof` or on `code`.
 */
import type { Defect } from "../codec/defects.js";
import type { RequestId } from "../codec/message.js";
import type { LibraryErrorCode } from "../rules/library-errors.js";

/**
 * An error response received from the other side, or one a handler throws to be sent as one.
 * `code` is the JSON-RPC code.
 */
export class ResponseError extends Error {
  override readonly name = "ResponseError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /**
   * One the other side sent. It captures no stack frames: its code, message and data say all
   * there is, the frames would show only the receive path (no caller's, it settles a pending
   * request from the transport's data handler), and capturing them was a measurable share of
   * what a census spends on servers that refuse a request. A handler's own throw keeps its stack.
   */
  static received(code: number, message: string, data?: unknown): ResponseError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new ResponseError(code, message, data);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  /** The JSON-RPC error object this error travels as. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The codes of the failures on this side, by name (each described in `LIBRARY_ERRORS`). */
export const ConnectionErrorCode = {
  Timeout: "ERR_MCP_WIRE_TIMEOUT",
  Closed: "ERR_MCP_WIRE_CLOSED",
  Aborted: "ERR_MCP_WIRE_ABORTED",
  Overloaded: "ERR_MCP_WIRE_OVERLOADED",
  InvalidResponse: "ERR_MCP_WIRE_INVALID_RESPONSE",
  Negotiation: "ERR_MCP_WIRE_NEGOTIATION",
  RevisionNotSpoken: "ERR_MCP_WIRE_REVISION_NOT_SPOKEN",
  Http: "ERR_MCP_WIRE_HTTP",
  InputRequired: "ERR_MCP_WIRE_INPUT_REQUIRED",
  TooLarge: "ERR_MCP_WIRE_TOO_LARGE",
  Spawn: "ERR_MCP_WIRE_SPAWN",
  MethodNotInRevision: "ERR_MCP_WIRE_METHOD_NOT_IN_REVISION",
  Pagination: "ERR_MCP_WIRE_PAGINATION",
  ServerExited: "ERR_MCP_WIRE_SERVER_EXITED",
  OpeningTimeout: "ERR_MCP_WIRE_OPENING_TIMEOUT",
  TasksNotNegotiated: "ERR_MCP_WIRE_TASKS_NOT_NEGOTIATED",
  TaskCancelled: "ERR_MCP_WIRE_TASK_CANCELLED",
} as const satisfies Readonly<Record<string, LibraryErrorCode>>;
export type ConnectionErrorCode = (typeof ConnectionErrorCode)[keyof typeof ConnectionErrorCode];

/** A failure on this side of the connection. */
export class ConnectionError extends Error {
  override readonly name: string = "ConnectionError";
  constructor(
    readonly code: ConnectionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No answer within the deadline. */
export class TimeoutError extends ConnectionError {
  override readonly name = "TimeoutError";
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    /**
     * The id of an answer that came for this request with the right value but the wrong type
     * (`"3"` for `3`): ids match by type too (JSON-RPC 2.0 §5), so it answered nothing.
     */
    readonly mismatchedId?: RequestId,
    /** `cause`: what the channel knows of the wait that ran out (over HTTP, the exchange's `HttpError`). */
    options?: { cause?: unknown },
  ) {
    super(
      ConnectionErrorCode.Timeout,
      `${method}: no answer within ${timeoutMs} ms${mismatchedId === undefined ? "" : `; an answer with id ${JSON.stringify(mismatchedId)} (${typeof mismatchedId === "string" ? "a string" : "a number"}) did arrive, but a request's id must come back with its own type, and this request's is ${typeof mismatchedId === "string" ? "a number" : "a string"}`}`,
      options,
    );
  }
}

/** The connection closed before an answer came. */
export class ClosedError extends ConnectionError {
  override readonly name: string = "ClosedError";
  constructor(
    message = "the connection is closed",
    options?: { cause?: unknown },
    code: ConnectionErrorCode = ConnectionErrorCode.Closed,
  ) {
    super(code, message, options);
  }
}

/**
 * The process of a stdio server ended: a `ClosedError` that says how (`exitCode` or `signal`)
 * and what it wrote last to stderr (`stderrTail`, secrets redacted), which is most often why.
 */
export class ServerExitedError extends ClosedError {
  override readonly name = "ServerExitedError";
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly signal: string | null,
    readonly stderrTail: string,
    /** What else the reader should know (a second start, what the opening had sent). */
    note?: string,
  ) {
    const how = signal !== null ? `was killed by ${signal}` : `exited with status ${exitCode ?? "unknown"}`;
    const tail = stderrTail.trim();
    super(
      `the server (${command}) ${how}${note ? `; ${note}` : ""}${tail ? `; its stderr ends:\n${indent(tail)}` : "; it wrote nothing to stderr"}`,
      undefined,
      ConnectionErrorCode.ServerExited,
    );
  }

  /** The same exit, with `note` added to what it says. */
  noted(note: string): ServerExitedError {
    return new ServerExitedError(this.command, this.exitCode, this.signal, this.stderrTail, note);
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

/**
 * The process behind the connection could not be started (the command was not found, is not
 * executable, …): `osCode` is the operating system's error code (`ENOENT`, `EACCES`), and
 * `cause` the error itself.
 */
export class SpawnError extends ConnectionError {
  override readonly name = "SpawnError";
  readonly osCode: string | undefined;
  constructor(
    readonly command: string,
    cause: Error,
  ) {
    const osCode = (cause as NodeJS.ErrnoException).code;
    super(
      ConnectionErrorCode.Spawn,
      `${command} could not be started: ${osCode === undefined ? cause.message : `${osCode} (${OS_WORDS[osCode] ?? cause.message})`}`,
      { cause },
    );
    this.osCode = osCode;
  }
}

/** What the common reasons a command cannot start mean, in words. */
const OS_WORDS: Readonly<Record<string, string>> = {
  ENOENT: "no such file, or not on PATH",
  EACCES: "permission denied: not executable, or in a folder that cannot be entered",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "a folder, not a program",
  ENOEXEC: "not a program this system can run",
  E2BIG: "the arguments and environment are too long",
  EMFILE: "this process has too many files open",
  EAGAIN: "the system cannot start another process now",
  ENOMEM: "not enough memory to start it",
};

/** The caller gave up on the request (its AbortSignal fired). */
export class AbortedError extends ConnectionError {
  override readonly name = "AbortedError";
  constructor(method: string, reason?: unknown) {
    super(
      ConnectionErrorCode.Aborted,
      `${method}: aborted${reason instanceof Error ? `: ${reason.message}` : typeof reason === "string" ? `: ${reason}` : ""}`,
      { cause: reason },
    );
  }
}

/** Too many requests already await an answer. */
export class OverloadedError extends ConnectionError {
  override readonly name = "OverloadedError";
  constructor(readonly limit: number) {
    super(ConnectionErrorCode.Overloaded, `${limit} requests already await an answer`);
  }
}

/** The other side answered, but not with a valid response. */
export class InvalidResponseError extends ConnectionError {
  override readonly name = "InvalidResponseError";
  constructor(
    method: string,
    readonly defects: readonly Defect[],
  ) {
    super(
      ConnectionErrorCode.InvalidResponse,
      `${method}: invalid response: ${defects
        .filter((d) => d.severity === "error")
        .map((d) => d.code)
        .join(", ")}`,
    );
  }
}

/**
 * The answer came, but was larger than the channel's cap and was dropped unread: the request
 * fails at once instead of waiting out its deadline.
 */
export class MessageTooLargeError extends ConnectionError {
  override readonly name = "MessageTooLargeError";
  constructor(
    readonly method: string,
    /** The answer's size in bytes. */
    readonly size: number,
    /** The cap it passed. */
    readonly limit: number,
  ) {
    super(
      ConnectionErrorCode.TooLarge,
      `${method}: the answer of ${size} bytes is over the ${limit}-byte limit, dropped unread`,
    );
  }
}
