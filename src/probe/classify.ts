/**
 * From what went wrong to exactly one class and its detail (docs/probe.md). The order of the
 * checks is the order of precedence: an HTTP 401 or a key-refusing JSON-RPC error is
 * `auth_required` whatever else is true; every 5xx, 404 and 410 is `http_error`; other HTML is a
 * `web_page`.
 */
import { DEFECTS, type Defect } from "../codec/defects.js";
import { ConnectionErrorCode, InvalidResponseError, ResponseError, TimeoutError } from "../peer/errors.js";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  UNSUPPORTED_PROTOCOL_VERSION,
  describeError,
} from "../rules/error-codes.js";
import { LATEST_REVISION, type Revision } from "../rules/revisions.js";
import { HttpError } from "../transport/http/error.js";
import { RevisionNotSpokenError } from "../mcp/client.js";
import type { ProbeClass, RpcErrorSeen } from "./verdict.js";

export interface Classified {
  class: ProbeClass;
  detail: string;
  /** A sentence that leads the advice: what the server speaks instead of the revision asked for. */
  note?: string;
  /** Advice that replaces the class's own, when the failure itself says more (see `classifyHttpError`). */
  advice?: string;
  http?: { status: number; contentType: string };
  rpcError?: RpcErrorSeen;
}

const AUTH_WORDS =
  /\b(api[ _-]?key|apikey|token|auth\w*|unauthori[sz]ed|forbidden|credential\w*|bearer|log ?in|sign ?in|permission|access denied|not allowed|x-api-key)\b/i;
const VERSION_WORDS = /\bversion\b/i;

function rpcErrorSeen(code: number, message: string, revision: Revision = LATEST_REVISION): RpcErrorSeen {
  return { code, message, range: describeError(code, revision).range };
}

/** A JSON-RPC error answering the opening request. */
export function classifyRpcError(code: number, message: string, revision?: Revision): Classified {
  const rpcError = rpcErrorSeen(code, message, revision);
  if (AUTH_WORDS.test(message)) return { class: "auth_required", detail: "rpc_error_instead_of_401", rpcError };
  let detail = "other";
  if (code === METHOD_NOT_FOUND) detail = "method_not_found";
  else if (code === UNSUPPORTED_PROTOCOL_VERSION || (code === INVALID_PARAMS && VERSION_WORDS.test(message)))
    detail = "unsupported_version";
  else if (code === INVALID_PARAMS) detail = "invalid_params";
  else if (code === INTERNAL_ERROR) detail = "internal_error";
  else if (rpcError.range === "legacy") detail = "legacy_code";
  return { class: "rpc_error", detail, rpcError };
}

/** Codes that mean "the answer came, but was not a sound JSON-RPC answer". */
const NOT_JSONRPC = new Set(["bare_array", "no_envelope", "not_object", "missing_jsonrpc", "wrong_jsonrpc_version"]);

function isHtml(contentType: string | undefined, excerpt: string | undefined): boolean {
  if (contentType?.includes("text/html") || contentType?.includes("application/xhtml")) return true;
  const head = (excerpt ?? "").trimStart().slice(0, 200).toLowerCase();
  return (
    head.startsWith("<!doctype html") || head.startsWith("<html") || /^<(head|body|title|div|p|h1|meta)\b/.test(head)
  );
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase() || "none";
}

/**
 * What a TLS client reads when the server answers its handshake in plain HTTP: the first bytes
 * ("HTTP/1.1 400") are no TLS record, so the record's version or length is nonsense.
 */
const PLAIN_HTTP = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "ERR_SSL_HTTP_REQUEST"]);

function plainHttpAdvice(url: string): string {
  let meant = "";
  try {
    const u = new URL(url);
    if (u.protocol === "https:") {
      u.protocol = "http:";
      meant = ` (${u.href})`;
    }
  } catch {
    // the URL is said as it was given
  }
  return `The server answered the TLS handshake in plain HTTP: it most likely serves http://, not https://, at this port. Try the same URL with http://${meant}; a server that should speak TLS is missing its TLS setup (or a proxy in front of it is).`;
}

export function classifyHttpError(e: HttpError, revision?: Revision): Classified {
  const http = e.status !== undefined ? { status: e.status, contentType: e.contentType ?? "" } : undefined;
  const withHttp = (c: Classified): Classified => (http ? { ...c, http } : c);
  switch (e.failure) {
    case "network": {
      const code = e.networkCode ?? "";
      if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT") return { class: "timeout", detail: "connect" };
      if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME")
        return { class: "unreachable", detail: "dns" };
      if (code === "ECONNREFUSED") return { class: "unreachable", detail: "refused" };
      if (PLAIN_HTTP.has(code)) return { class: "unreachable", detail: "tls", advice: plainHttpAdvice(e.url) };
      if (/CERT|TLS|SSL|HOSTNAME|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code))
        return { class: "unreachable", detail: "tls" };
      if (http) return withHttp({ class: "protocol_violation", detail: "stream_broken" });
      return {
        class: "unreachable",
        detail: code === "ECONNRESET" || code === "EPIPE" || code === "" ? "reset" : code.toLowerCase(),
      };
    }
    case "timeout":
      return withHttp({ class: "timeout", detail: e.step });
    case "redirect":
      return withHttp({ class: "http_error", detail: `redirect_${e.status ?? "other_origin"}` });
    case "too_large":
      return withHttp({ class: "protocol_violation", detail: "too_large" });
    default:
      break;
  }
  const status = e.status ?? 0;
  const rpc = e.rpcError ? rpcErrorSeen(e.rpcError.code, e.rpcError.message, revision) : undefined;
  if (status === 401 || status === 403)
    return withHttp({ class: "auth_required", detail: `http_${status}`, ...(rpc ? { rpcError: rpc } : {}) });
  // a 5xx whose JSON-RPC error refuses for lack of a key is a refusal, not a crash: auth_required
  // outranks http_error (docs/probe.md, "Classes and details")
  if (status >= 500 && rpc && AUTH_WORDS.test(rpc.message))
    return withHttp({ class: "auth_required", detail: "rpc_error_instead_of_401", rpcError: rpc });
  if (status >= 500)
    return withHttp({ class: "http_error", detail: `http_${status}`, ...(rpc ? { rpcError: rpc } : {}) });
  // a 404 or 410 says nothing is at that path, whatever page comes with it (a site's "not found"
  // page is HTML); a documentation page that is there answers 200, or 405 to a POST
  if (status === 404 || status === 410)
    return withHttp({ class: "http_error", detail: `http_${status}`, ...(rpc ? { rpcError: rpc } : {}) });
  if (isHtml(e.contentType, e.bodyExcerpt)) return withHttp({ class: "web_page", detail: mediaType(e.contentType) });
  if (e.failure === "status") return withHttp({ class: "http_error", detail: `http_${status}` });
  if (e.failure === "not_jsonrpc") {
    // no excerpt at all: the body could not even be decoded (a broken gzip), which is no emptiness
    if (e.bodyExcerpt !== undefined && e.bodyExcerpt.trim().length === 0)
      return withHttp({ class: "not_json", detail: "empty_body" });
    const first = e.defects.find((d) => d.severity === "error");
    if (!first || first.code === "parse_error" || first.code === "invalid_utf8")
      return withHttp({ class: "not_json", detail: "text" });
    if (NOT_JSONRPC.has(first.code)) return withHttp({ class: "not_jsonrpc", detail: first.code });
    return withHttp({ class: "protocol_violation", detail: first.code });
  }
  // no_response: an empty body where a JSON-RPC answer was due is not JSON at all (202 and 204
  // say "nothing to answer", which is wrong for a request in its own way)
  if (status !== 202 && status !== 204 && e.bodyExcerpt === "")
    return withHttp({ class: "not_json", detail: "empty_body" });
  // the body or stream held JSON-RPC, just not the answer to our request
  return withHttp({
    class: "protocol_violation",
    detail: status === 202 || status === 204 ? `no_response_http_${status}` : "no_response",
  });
}

/**
 * A failure of a step, with the defects seen so far. A request that went unanswered while the
 * server sent broken answers is a protocol violation (or not JSON-RPC at all), not a timeout.
 */
export function classifyFailure(
  e: unknown,
  defects: readonly Defect[],
  sawValidMessage: boolean,
  revision?: Revision,
): Classified {
  if (e instanceof HttpError) {
    const c = classifyHttpError(e, revision);
    // an answer that was not ours (a wrong or null id): the defect names what was wrong with it
    const broken =
      e.failure === "no_response" && c.class === "protocol_violation"
        ? classifyDefects(defects, sawValidMessage)
        : undefined;
    return broken ? { ...broken, ...(c.http ? { http: c.http } : {}) } : c;
  }
  if (e instanceof ResponseError) return classifyRpcError(e.code, e.message, revision);
  if (e instanceof RevisionNotSpokenError)
    return {
      class: "rpc_error",
      detail: "unsupported_version",
      note: notSpokenNote(e.requested, e.serverSpeaks, e.message),
    };
  if (e instanceof InvalidResponseError) {
    const first = e.defects.find((d) => d.severity === "error");
    return {
      class: NOT_JSONRPC.has(first?.code ?? "") ? "not_jsonrpc" : "protocol_violation",
      detail: first?.code ?? "invalid_response",
    };
  }
  const broken = classifyDefects(defects, sawValidMessage);
  if (broken) return broken;
  if (e instanceof TimeoutError) return { class: "timeout", detail: e.method };
  if ((e as { code?: unknown } | undefined)?.code === ConnectionErrorCode.Closed)
    return { class: "unreachable", detail: "exited" };
  return { class: "protocol_violation", detail: "other" };
}

/** "does not speak 2024-11-05; it chose 2025-03-26", in the probe's words. */
function notSpokenNote(requested: string, speaks: readonly string[], why: string): string {
  if (speaks.length === 1) return `The server does not speak ${requested}; it chose ${speaks[0]}.`;
  if (speaks.length > 1) return `The server does not speak ${requested}; it speaks ${speaks.join(", ")}.`;
  return `The server does not speak ${requested} (${why}).`;
}

/**
 * What the defects seen say on their own: broken answers (a wrong id, a bare array) mean the
 * server speaks but not JSON-RPC as it should; only non-JSON lines and nothing sound means it
 * does not speak JSON at all. Undefined when the defects explain nothing.
 */
export function classifyDefects(defects: readonly Defect[], sawValidMessage: boolean): Classified | undefined {
  const answerDefect = defects.find(
    (d) =>
      d.severity === "error" && d.code !== "parse_error" && d.code !== "invalid_utf8" && DEFECTS[d.code] !== undefined,
  );
  if (answerDefect)
    return {
      class: NOT_JSONRPC.has(answerDefect.code) ? "not_jsonrpc" : "protocol_violation",
      detail: answerDefect.code,
    };
  if (!sawValidMessage && defects.some((d) => d.code === "parse_error")) return { class: "not_json", detail: "text" };
  return undefined;
}
