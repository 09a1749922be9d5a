/**
 * What the schemas cannot say about a server over Streamable HTTP: the statuses and content
 * types of its answers, 202 for a notification, 404 for a session it does not have, and the
 * 2026-07-28 refusals (400 with -32020 or -32022, 404 with -32601, 405 for GET and DELETE).
 * Some are read off the exchanges the session made; the rest are requests of their own, each
 * without side effects (`ping`, or a request the server must refuse), under a deadline and a cap.
 */
import type { LookupFunction } from "node:net";
import { createParser } from "eventsource-parser";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  type Revision,
} from "../rules/revisions.js";
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from "../rules/error-codes.js";
import type { ExchangeRecord } from "../transport/http/client.js";
import { Abort, httpRequest, type HttpResponse } from "../transport/http/fetch.js";
import { H_METHOD, H_PROTOCOL_VERSION, H_SESSION_ID } from "../transport/http/headers.js";
import type { Findings } from "./findings.js";
import { validateMessage } from "./schema-checks.js";
import { UNKNOWN_METHOD } from "./session.js";
import { VERSION } from "../version.js";

const ACCEPT_BOTH = "application/json, text/event-stream";
/** The largest answer body a raw request reads: these are refusals and pings. */
const RAW_CAP = 256 * 1024;
/** Who `check` says it is, on every revision and transport. */
export const CLIENT_INFO = { name: "mcp-wire-check", version: VERSION };

export interface RawOptions {
  headers: Record<string, string>;
  timeout: number;
  lookup?: LookupFunction;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  /** The JSON-RPC message the body held (a JSON body, or the first on an SSE stream), if any. */
  rpc: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
  /** The body's first bytes. */
  text: string;
}

/** One HTTP request of check's own; undefined when no answer came (refused, reset, the deadline). */
async function raw(
  url: string,
  method: "GET" | "POST" | "DELETE",
  headers: Record<string, string>,
  body: string | undefined,
  options: RawOptions,
): Promise<RawAnswer | undefined> {
  const abort = new Abort();
  const timer = setTimeout(() => abort.abort(new Error("deadline")), options.timeout);
  try {
    const response = await httpRequest(url, {
      method,
      headers: { ...options.headers, ...headers },
      ...(body !== undefined ? { body } : {}),
      signal: abort,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    const contentType = response.headers.get("content-type") ?? "";
    // a GET may open an endless stream: only its status is wanted
    if (method !== "POST") {
      response.body.cancel();
      return { status: response.status, contentType, rpc: undefined, text: "" };
    }
    const { text, rpc } = contentType.includes("text/event-stream")
      ? await readStream(response)
      : await readJson(response);
    return { status: response.status, contentType, rpc, text };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

async function readAll(response: HttpResponse, stop?: (text: string) => boolean): Promise<string> {
  const parts: Buffer[] = [];
  let held = 0;
  for (;;) {
    const chunk = await response.body.read();
    if (chunk === undefined) break;
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    held += chunk.byteLength;
    if (held >= RAW_CAP || stop?.(Buffer.concat(parts).toString("utf8"))) {
      response.body.cancel();
      break;
    }
  }
  return Buffer.concat(parts).toString("utf8").slice(0, RAW_CAP);
}

async function readJson(response: HttpResponse): Promise<{ text: string; rpc: RawAnswer["rpc"] }> {
  const text = await readAll(response);
  return { text, rpc: rpcOf(text) };
}

/** The first JSON-RPC response on an SSE stream (the stream is let go of once it has come). */
async function readStream(response: HttpResponse): Promise<{ text: string; rpc: RawAnswer["rpc"] }> {
  let rpc: RawAnswer["rpc"];
  const parser = createParser({
    onEvent: (event) => {
      const m = rpcOf(event.data);
      if (rpc === undefined && m && (m.result !== undefined || m.error !== undefined)) rpc = m;
    },
  });
  let fed = 0;
  const text = await readAll(response, (all) => {
    parser.feed(all.slice(fed));
    fed = all.length;
    return rpc !== undefined;
  });
  return { text, rpc };
}

function rpcOf(text: string): RawAnswer["rpc"] {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as RawAnswer["rpc"]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A 2026-07-28 `server/discover` (the one request every modern server serves, without side
 * effects: 2026-07-28 has no ping) and the headers that mirror it.
 */
function modernDiscover(
  version: string,
  id: number,
  headerMethod = "server/discover",
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "server/discover",
    params: {
      _meta: { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: {}, [META_CLIENT_INFO]: CLIENT_INFO },
    },
  });
  return {
    body,
    headers: {
      "content-type": "application/json",
      accept: ACCEPT_BOTH,
      [H_PROTOCOL_VERSION]: version,
      [H_METHOD]: headerMethod,
    },
  };
}

/**
 * `a`, its JSON-RPC answer validated like every other message the server sent. A refusal without
 * the request's id (a transport-level refusal, `"id": null`) is left to the checks of its status:
 * it is a warning at most wherever mcp-wire reads one.
 */
function judged(
  a: RawAnswer | undefined,
  revision: Revision,
  method: string,
  findings: Findings,
): RawAnswer | undefined {
  if (a?.rpc !== undefined && a.rpc.id !== null && a.rpc.id !== undefined)
    validateMessage(a.rpc, revision, method, findings);
  return a;
}

function describe(a: RawAnswer | undefined): string {
  if (!a) return "no answer";
  const code = a.rpc?.error?.code;
  return `HTTP ${a.status}${a.contentType ? ` (${a.contentType.split(";")[0]})` : ""}${code !== undefined ? ` with error ${JSON.stringify(code)}` : a.rpc?.result !== undefined ? " with a result" : ""}`;
}

function isJsonType(contentType: string): boolean {
  const t = contentType.split(";")[0]!.trim().toLowerCase();
  return t === "application/json" || t === "text/event-stream";
}

/** Judges the exchanges of one revision's session: content types, and 202 for notifications. */
export function judgeExchanges(
  exchanges: readonly ExchangeRecord[],
  revision: Revision,
  findings: Findings,
  modern: boolean,
): void {
  findings.checked("http_content_type", revision);
  if (!modern) findings.checked("http_notification_not_202", revision);
  else findings.checked("http_unknown_method_not_404", revision);
  const foreign = new Map<string, string[]>();
  for (const x of exchanges) {
    if (x.httpMethod !== "POST" || x.status === undefined) continue;
    const notification = x.method.startsWith("notifications/") || x.method === "response";
    if (notification) {
      if (!modern && (x.status !== 202 || (x.bodyExcerpt ?? "") !== "")) {
        findings.add("http_notification_not_202", {
          revision,
          method: x.method,
          message: `POST ${x.method} was answered with HTTP ${x.status}${x.bodyExcerpt ? ` and a body (${JSON.stringify(x.bodyExcerpt.slice(0, 80))})` : ""}, not 202 with no body`,
        });
      }
      continue;
    }
    if (x.status >= 200 && x.status < 300 && (x.bodyExcerpt ?? "") !== "" && !isJsonType(x.contentType ?? "")) {
      const type = x.contentType ?? "";
      const methods = foreign.get(type) ?? [];
      if (!methods.includes(x.method)) methods.push(x.method);
      foreign.set(type, methods);
    }
    if (modern && x.method === UNKNOWN_METHOD && x.status !== 404) {
      findings.add("http_unknown_method_not_404", {
        revision,
        method: x.method,
        message: `a request for the unknown method ${UNKNOWN_METHOD} was answered with HTTP ${x.status}, not 404 (with error -32601)`,
      });
    }
  }
  // one finding per content type: the same answer path served every method
  for (const [type, methods] of foreign) {
    // about the answers to every method alike: no one method names it, so it is one finding in every revision
    findings.add("http_content_type", {
      revision,
      method: null,
      about: { subject: "http:POST", subjectPath: null },
      message: `answers came with Content-Type ${JSON.stringify(type)}, not application/json or text/event-stream (${methods.slice(0, 6).join(", ")}${methods.length > 6 ? ", …" : ""})`,
    });
  }
}

/** The requests of check's own in a legacy Streamable HTTP session (`session` when the server assigned one). */
export async function legacyHttpChecks(
  url: string,
  revision: Revision,
  session: string | undefined,
  findings: Findings,
  options: RawOptions,
): Promise<void> {
  findings.checked("http_accept_json_only_refused", revision);
  const a = judged(
    await raw(
      url,
      "POST",
      {
        "content-type": "application/json",
        accept: "application/json",
        ...versionHeader(revision),
        ...(session ? { [H_SESSION_ID]: session } : {}),
      },
      ping(9002),
      options,
    ),
    revision,
    "ping",
    findings,
  );
  if (a && a.status >= 400)
    findings.add("http_accept_json_only_refused", {
      revision,
      method: "ping",
      message: `a ping whose Accept names only application/json was refused with ${describe(a)}: allowed, since clients must accept both, but clients that send only application/json cannot use the server`,
    });
}

/**
 * Ends the session with a DELETE, and when the server accepts that, a request naming it must get
 * 404 (a server that does not let clients end sessions, 405, is not asked; nor is one that
 * ignores session ids altogether: having none to end, it breaks no rule by serving such a request).
 */
export async function endedSessionCheck(
  url: string,
  revision: Revision,
  session: string | undefined,
  findings: Findings,
  options: RawOptions,
): Promise<void> {
  if (session === undefined) return;
  const headers = { ...versionHeader(revision), [H_SESSION_ID]: session };
  const ended = await raw(url, "DELETE", headers, undefined, options);
  if (!ended || ended.status < 200 || ended.status >= 300) return;
  findings.checked("http_unknown_session_not_404", revision);
  const a = judged(
    await raw(
      url,
      "POST",
      { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
      ping(9001),
      options,
    ),
    revision,
    "ping",
    findings,
  );
  if (a && a.status !== 404)
    findings.add("http_unknown_session_not_404", {
      revision,
      method: "ping",
      message: `after the session was ended with a DELETE the server accepted (HTTP ${ended.status}), a request naming it was answered with ${describe(a)}, not 404: clients start a new session only on a 404`,
    });
}

function versionHeader(revision: Revision): Record<string, string> {
  return revision >= "2025-06-18" ? { [H_PROTOCOL_VERSION]: revision } : {};
}

function ping(id: number): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
}

/** The requests of check's own on 2026-07-28: the refusals the transport defines. */
export async function modernHttpChecks(
  url: string,
  revision: Revision,
  findings: Findings,
  options: RawOptions,
): Promise<void> {
  findings.checked("http_header_mismatch", revision);
  const mismatch = modernDiscover(revision, 9101, "tools/list");
  const m = judged(
    await raw(url, "POST", mismatch.headers, mismatch.body, options),
    revision,
    "server/discover",
    findings,
  );
  if (m && (m.status !== 400 || m.rpc?.error?.code !== HEADER_MISMATCH)) {
    findings.add("http_header_mismatch", {
      revision,
      method: "server/discover",
      message: `a server/discover whose Mcp-Method header says tools/list was answered with ${describe(m)}, not 400 with error -32020`,
    });
  }

  findings.checked("http_unsupported_version", revision);
  const unsupported = modernDiscover("1999-01-01", 9102);
  const u = judged(
    await raw(url, "POST", unsupported.headers, unsupported.body, options),
    revision,
    "server/discover",
    findings,
  );
  if (u) {
    const supported = (u.rpc?.error?.data as { supported?: unknown } | undefined)?.supported;
    if (u.status !== 400 || u.rpc?.error?.code !== UNSUPPORTED_PROTOCOL_VERSION) {
      findings.add("http_unsupported_version", {
        revision,
        method: "server/discover",
        message: `a request for protocol version 1999-01-01 was answered with ${describe(u)}, not 400 with error -32022`,
      });
    } else if (!Array.isArray(supported) || supported.length === 0) {
      findings.add("http_unsupported_version", {
        revision,
        method: "server/discover",
        path: "/error/data/supported",
        message: "the -32022 error does not list the supported versions in data.supported",
      });
    }
  }

  findings.checked("http_accept_json_only_refused", revision);
  const json = modernDiscover(revision, 9103);
  const j = judged(
    await raw(url, "POST", { ...json.headers, accept: "application/json" }, json.body, options),
    revision,
    "server/discover",
    findings,
  );
  if (j && j.status >= 400)
    findings.add("http_accept_json_only_refused", {
      revision,
      method: "server/discover",
      message: `a server/discover whose Accept names only application/json was refused with ${describe(j)}: allowed, since clients must accept both, but clients that send only application/json cannot use the server`,
    });
}

/** GET and DELETE on a server that speaks 2026-07-28 and no legacy Streamable HTTP revision. */
export async function modernOnlyChecks(
  url: string,
  revision: Revision,
  findings: Findings,
  options: RawOptions,
): Promise<void> {
  findings.checked("http_get_delete_not_405", revision);
  for (const method of ["GET", "DELETE"] as const) {
    const a = await raw(url, method, { accept: ACCEPT_BOTH, [H_PROTOCOL_VERSION]: revision }, undefined, options);
    if (a && a.status !== 405)
      findings.add("http_get_delete_not_405", {
        revision,
        method: null,
        about: { subject: `http:${method}`, subjectPath: null },
        message: `${method} to the endpoint was answered with HTTP ${a.status}, not 405`,
      });
  }
}
