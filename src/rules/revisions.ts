/**
 * Every MCP revision's wire rules, as data. Other layers consult these records instead of
 * comparing revision strings, so a rule lives in exactly one place and a new revision is one
 * more record.
 *
 * Sources: each revision's `docs/specification/<revision>/basic/index.mdx` (ids, batching,
 * error responses), `basic/lifecycle.mdx` or `basic/versioning.mdx` (opening),
 * `basic/transports*.mdx` (HTTP) and `schema/<revision>/schema.ts` (types, error codes).
 */

export const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type Revision = (typeof REVISIONS)[number];

/** The newest revision, and the newest one that still opens with `initialize`. */
export const LATEST_REVISION: Revision = "2026-07-28";
export const LATEST_LEGACY_REVISION: Revision = "2025-11-25";

export type Era = "legacy" | "modern";

/** An error code a revision gives a meaning to, beyond JSON-RPC's five. */
export interface DefinedErrorCode {
  readonly code: number;
  readonly name: string;
  readonly meaning: string;
}

export interface RevisionRules {
  readonly revision: Revision;
  /** `legacy`: sessions opened by `initialize`; `modern`: stateless, every request self-describing. */
  readonly era: Era;
  /**
   * JSON arrays of messages. `receive`: 2025-03-26 says implementations MAY send batches and
   * MUST support receiving them; `initialize` must never be inside one.
   */
  readonly batches: "none" | "receive";
  /**
   * What a request id must not repeat. `session`: any id the sender used before in the session.
   * `in-flight`: only ids of the sender's requests still awaiting an answer.
   */
  readonly idReuse: "session" | "in-flight";
  /** How a conversation begins. */
  readonly opening: "initialize" | "per-request-meta";
  /**
   * `id` on an error response. Up to 2025-06-18 the schema requires it (JSON-RPC's `null` for an
   * unreadable request id); from 2025-11-25 it may be omitted when the request id was unreadable.
   */
  readonly errorIdOptional: boolean;
  /** `result.resultType`: `absent` before 2026-07-28, `required` from it (absent reads as complete). */
  readonly resultType: "absent" | "required";
  /** The `resultType` values the core protocol defines. */
  readonly resultTypes: readonly string[];
  /** `_meta` keys every request must carry (2026-07-28: protocol version and client capabilities). */
  readonly requiredRequestMeta: readonly string[];
  /** The HTTP transport of this revision. */
  readonly http: {
    readonly transport: "http+sse" | "streamable-http";
    readonly sessions: boolean;
    /** Request headers a client sends on every HTTP request after the opening. */
    readonly requestHeaders: readonly string[];
  };
  /**
   * True from 2026-07-28: -32000…-32019 is legacy, -32020…-32099 belongs to the specification,
   * and an undefined code there is a violation. Before, -32000…-32099 was all
   * implementation-defined, as in plain JSON-RPC.
   */
  readonly partitionedServerErrors: boolean;
  /** Codes this revision defines beyond JSON-RPC's five. */
  readonly definedErrorCodes: readonly DefinedErrorCode[];
  /** Codes an earlier revision defined that this one forbids sending. */
  readonly retiredErrorCodes: readonly DefinedErrorCode[];
}

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

const RESOURCE_NOT_FOUND: DefinedErrorCode = {
  code: -32002,
  name: "ResourceNotFound",
  meaning: "the resource named in resources/read does not exist",
};
const URL_ELICITATION_REQUIRED: DefinedErrorCode = {
  code: -32042,
  name: "URLElicitationRequired",
  meaning: "the request needs the user to complete a URL-mode elicitation first",
};

const legacyHttp = (headers: readonly string[]) =>
  ({ transport: "streamable-http", sessions: true, requestHeaders: headers }) as const;

const legacyBase = {
  era: "legacy",
  idReuse: "session",
  opening: "initialize",
  resultType: "absent",
  resultTypes: [],
  requiredRequestMeta: [],
  partitionedServerErrors: false,
  retiredErrorCodes: [],
} as const;

export const RULES: Readonly<Record<Revision, RevisionRules>> = {
  "2024-11-05": {
    ...legacyBase,
    revision: "2024-11-05",
    batches: "none",
    errorIdOptional: false,
    http: { transport: "http+sse", sessions: false, requestHeaders: [] },
    definedErrorCodes: [RESOURCE_NOT_FOUND],
  },
  "2025-03-26": {
    ...legacyBase,
    revision: "2025-03-26",
    batches: "receive",
    errorIdOptional: false,
    http: legacyHttp(["Mcp-Session-Id"]),
    definedErrorCodes: [RESOURCE_NOT_FOUND],
  },
  "2025-06-18": {
    ...legacyBase,
    revision: "2025-06-18",
    batches: "none",
    errorIdOptional: false,
    http: legacyHttp(["Mcp-Session-Id", "MCP-Protocol-Version"]),
    definedErrorCodes: [RESOURCE_NOT_FOUND],
  },
  "2025-11-25": {
    ...legacyBase,
    revision: "2025-11-25",
    batches: "none",
    errorIdOptional: true,
    http: legacyHttp(["Mcp-Session-Id", "MCP-Protocol-Version"]),
    definedErrorCodes: [RESOURCE_NOT_FOUND, URL_ELICITATION_REQUIRED],
  },
  "2026-07-28": {
    revision: "2026-07-28",
    era: "modern",
    batches: "none",
    idReuse: "in-flight",
    opening: "per-request-meta",
    errorIdOptional: true,
    resultType: "required",
    resultTypes: ["complete", "input_required"],
    requiredRequestMeta: [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES],
    http: {
      transport: "streamable-http",
      sessions: false,
      requestHeaders: ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"],
    },
    partitionedServerErrors: true,
    definedErrorCodes: [
      {
        code: -32020,
        name: "HeaderMismatch",
        meaning: "the HTTP headers do not match the request body, or a required header is missing or malformed",
      },
      {
        code: -32021,
        name: "MissingRequiredClientCapability",
        meaning: "the request needs a client capability the request's clientCapabilities did not declare",
      },
      {
        code: -32022,
        name: "UnsupportedProtocolVersion",
        meaning: "the server does not support the requested protocol version (data.supported lists the ones it does)",
      },
    ],
    retiredErrorCodes: [RESOURCE_NOT_FOUND, URL_ELICITATION_REQUIRED],
  },
};

/** A revision mcp-wire does not know was given where one is needed to judge or load anything. */
export class UnknownRevisionError extends Error {
  readonly code = "ERR_MCP_WIRE_UNKNOWN_REVISION";
  override readonly name = "UnknownRevisionError";
  constructor(readonly revision: unknown) {
    super(`unknown revision ${JSON.stringify(revision) ?? String(revision)}: mcp-wire knows ${REVISIONS.join(", ")}`);
  }
}

export function isRevision(value: unknown): value is Revision {
  return typeof value === "string" && Object.hasOwn(RULES, value);
}

export function rulesFor(revision: Revision): RevisionRules {
  return RULES[revision];
}

/** The revisions a legacy `initialize` may negotiate, newest first. */
export const LEGACY_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => RULES[r].era === "legacy").reverse();
