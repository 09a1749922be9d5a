/**
 * An HTTP exchange that did not yield a JSON-RPC answer: the step, the status, the content type
 * and the first bytes of the body, so a person (or the probe) can tell a web page from a proxy's
 * 502 from a refused connection without a schema dump.
 */
import type { Defect } from "../../codec/defects.js";
import { ConnectionError, ConnectionErrorCode } from "../../peer/errors.js";

export type HttpFailure =
  /** no HTTP answer at all: DNS, refused, reset, TLS; `cause` says which */
  | "network"
  /** an HTTP status that carries no JSON-RPC answer */
  | "status"
  /** a 2xx body that is not JSON-RPC (a web page, a bare array, an empty body) */
  | "not_jsonrpc"
  /** the answer (JSON or SSE) ended without a response to the request */
  | "no_response"
  /** the body passed the size cap */
  | "too_large"
  /** a redirect to another origin, not followed */
  | "redirect"
  /** the exchange passed its deadline */
  | "timeout";

export interface HttpErrorInit {
  failure: HttpFailure;
  /** The JSON-RPC method of the message being sent. */
  step: string;
  url: string;
  status?: number;
  contentType?: string;
  /** The first bytes of the body, for evidence (capped). */
  bodyExcerpt?: string;
  /** A JSON-RPC error found in the body, when there was one (e.g. -32001 with a 401). */
  rpcError?: { code: number; message: string; data?: unknown };
  /** For `network`: the system error code (ENOTFOUND, ECONNREFUSED, ECONNRESET, CERT_…). */
  networkCode?: string;
  location?: string;
  /** What the codec says about a body that is not a JSON-RPC answer. */
  defects?: readonly Defect[];
  /** The challenge of a 401 (OAuth servers name their authorization server here). */
  wwwAuthenticate?: string;
  /** For a 401: the protected-resource metadata (RFC 9728) the client read. */
  resourceMetadataUrl?: string;
  /** For a 401: the authorization servers that metadata names, where to sign in. */
  authorizationServers?: readonly string[];
}

export class HttpError extends ConnectionError {
  override readonly name = "HttpError";
  readonly failure: HttpFailure;
  readonly step: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly contentType: string | undefined;
  readonly bodyExcerpt: string | undefined;
  readonly rpcError: HttpErrorInit["rpcError"];
  readonly networkCode: string | undefined;
  readonly location: string | undefined;
  readonly defects: readonly Defect[];
  readonly wwwAuthenticate: string | undefined;
  readonly resourceMetadataUrl: string | undefined;
  readonly authorizationServers: readonly string[] | undefined;

  constructor(init: HttpErrorInit, message: string, options?: { cause?: unknown }) {
    // A refused server/discover is how every legacy server answers a dual-era client's opening
    // request, which reads it and falls back: its fields are all the evidence, and capturing frames
    // for it was a measurable share of a census (one per legacy server). Any other failure keeps
    // its frames, which show whose call it ended.
    const limit = Error.stackTraceLimit;
    if (init.step === "server/discover") Error.stackTraceLimit = 0;
    super(ConnectionErrorCode.Http, `${init.step}: ${message}`, options);
    Error.stackTraceLimit = limit;
    this.failure = init.failure;
    this.step = init.step;
    this.url = init.url;
    this.status = init.status;
    this.contentType = init.contentType;
    this.bodyExcerpt = init.bodyExcerpt;
    this.rpcError = init.rpcError;
    this.networkCode = init.networkCode;
    this.location = init.location;
    this.defects = init.defects ?? [];
    this.wwwAuthenticate = init.wwwAuthenticate;
    this.resourceMetadataUrl = init.resourceMetadataUrl;
    this.authorizationServers = init.authorizationServers;
  }
}

/**
 * The system error code behind a failed request: on the error itself (node:http), or in its
 * `cause`, sometimes twice (undici). An OpenSSL failure that node reports as EPROTO is named by
 * its reason (`ERR_SSL_WRONG_VERSION_NUMBER`), as undici named it.
 */
export function networkCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === "object"; i++) {
    const code = (cur as { code?: unknown }).code;
    if (code === "EPROTO") {
      const reason = /SSL routines:[^:]*:([^:]+)/.exec(String((cur as { message?: unknown }).message))?.[1];
      if (reason)
        return `ERR_SSL_${reason
          .trim()
          .toUpperCase()
          .replace(/[^A-Z0-9]+/g, "_")}`;
    }
    if (typeof code === "string" && code !== "UND_ERR_SOCKET" && !code.startsWith("ERR_MCP")) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}
