/** For each verdict, what it means and what to do, in plain words. */
import { authAdvice } from "../auth/words.js";
import type { ProbeClass, ProbeResult } from "./verdict.js";

type Context = Pick<ProbeResult, "detail" | "rpcError" | "http" | "transport" | "revision" | "defects"> &
  Partial<Pick<ProbeResult, "auth">>;

const BY_CLASS: Record<ProbeClass, (v: Context) => string> = {
  ok: (v) =>
    v.detail === "modern"
      ? "The server speaks the stateless 2026-07-28 protocol: every request carries its own _meta, no handshake needed."
      : `The server speaks legacy MCP (${v.revision ?? "a revision before 2026-07-28"}) and opens sessions with initialize. Clients that only speak 2026-07-28 will fail against it; dual-era clients work.`,
  unreachable: (v) => {
    switch (v.detail) {
      case "dns":
        return "The host name does not resolve. Check the URL for typos; the server may have moved or been taken down.";
      case "refused":
        return "Nothing listens at that address and port. Check the port, and that the server is running.";
      case "reset":
        return "The connection was cut before an answer came: a crashing server, a proxy, or a firewall in between.";
      case "tls":
        return "The TLS handshake failed: an expired, self-signed or wrong-host certificate. Fix the certificate, or use the URL the certificate is for.";
      case "bad_url":
        return "This is not an http:// or https:// URL, so nothing was called. Check the address.";
      case "spawn":
        return "Check that the command is installed and on PATH, and that the file is executable.";
      case "exited":
        return "The server process exited before answering. Its stderr (kept as evidence) usually says why: a missing API key, a missing dependency, a bad argument.";
      default:
        return "No answer could be had from the server at all.";
    }
  },
  timeout: (v) =>
    v.detail === "connect"
      ? "The connection could not be opened in time: the host may be down, or a firewall drops the traffic."
      : `The server accepted the ${v.detail} request but sent no complete answer in time. It may be hanging, waiting for something, or far too slow; a server that waits for a reply to a notification hangs exactly like this.`,
  auth_required: (v) =>
    v.detail === "rpc_error_instead_of_401"
      ? `The server refuses for lack of a key but says so with a JSON-RPC error (${v.rpcError?.code ?? "?"} ${JSON.stringify(v.rpcError?.message ?? "")}) instead of HTTP 401. The authorization spec expects HTTP 401 with a WWW-Authenticate header, which clients know how to act on. Pass the key with --header 'Authorization: Bearer …' (or the header the server documents), and tell the server's authors.`
      : `The server wants credentials (HTTP ${v.http?.status ?? "401/403"}). Pass them with --header 'Authorization: Bearer …' (or the header the server documents); an OAuth server names its authorization server in the WWW-Authenticate header.`,
  http_error: (v) => {
    const s = v.http?.status ?? 0;
    if (s >= 500) {
      return s === 502 || s === 503 || s === 504
        ? `HTTP ${s}: a proxy or gateway answered because the MCP server behind it is down or not responding. Try again later, or tell the operator.`
        : `HTTP ${s}: the server failed while handling the request. Its logs say why.`;
    }
    if (s === 404)
      return "HTTP 404: nothing is served at this path. The MCP endpoint is often at /mcp (Streamable HTTP) or /sse (the old HTTP+SSE transport).";
    if (s === 410)
      return "HTTP 410: the endpoint is gone for good; the server was taken down or moved. Look for where its authors moved it, or remove it from your list.";
    if (s === 405)
      return "HTTP 405: this URL does not accept POST, so it is not a Streamable HTTP endpoint, and no HTTP+SSE stream answered either.";
    if (s === 415 || s === 406)
      return `HTTP ${s}: the server refused the content type or Accept header MCP requires (application/json, text/event-stream).`;
    return `HTTP ${s} with no JSON-RPC body: the server refused the request without saying why in MCP terms.`;
  },
  web_page: () =>
    "This URL serves HTML: it is probably a documentation or landing page, or a login page. Look for the MCP endpoint itself, often ending in /mcp or /sse.",
  not_json: (v) =>
    v.detail === "empty_body"
      ? "The server answered with an empty body where a JSON-RPC response was due."
      : v.transport === "stdio"
        ? `The server wrote text that is not JSON on stdout, where only JSON-RPC messages may go. ${LOG_TO_STDERR}`
        : "The server answered with text that is not JSON. It is not speaking MCP at this URL.",
  not_jsonrpc: (v) => {
    switch (v.detail) {
      case "bare_array":
        return "The server answered with a bare JSON array instead of a JSON-RPC response object: it is not speaking JSON-RPC, and a conforming client is right to reject it.";
      case "no_envelope":
        return 'The server sent a bare result (such as {"tools":[…]}) without the JSON-RPC envelope (jsonrpc, id, result). It speaks something MCP-like but not MCP: the result must be wrapped in a response.';
      case "wrong_jsonrpc_version":
        return 'The server\'s answer does not say "jsonrpc": "2.0". MCP requires JSON-RPC 2.0 exactly.';
      default:
        return "The answer is JSON, but not a JSON-RPC message.";
    }
  },
  rpc_error: (v) => {
    const e = v.rpcError;
    switch (v.detail) {
      case "method_not_found":
        return "The server answered the opening request with -32601 (method not found): it does not implement initialize or server/discover. It may be modern-only with a broken discovery, or not an MCP server at all.";
      case "unsupported_version":
        // no JSON-RPC error: the probe was told to speak exactly one revision (-r), and the server chose or speaks another
        if (!e)
          return "Speaking exactly the revision asked for (-r), the probe found none in common with the server: clients that speak only that revision fail against it. Without -r, a client negotiates one both sides speak.";
        return `The server rejected every protocol version offered (${JSON.stringify(e.message)}). Check which versions it supports; it may need a newer or older client.`;
      case "internal_error":
        return "The server failed while opening the session (-32603). Its logs say why; a missing configuration or API key is common.";
      case "invalid_params":
        return "The server rejected the opening request's parameters (-32602) for a reason other than the protocol version.";
      case "legacy_code":
        return `The server answered with ${e?.code ?? "an implementation-defined code"} (${JSON.stringify(e?.message ?? "")}), from the legacy range: no meaning can be read into it. Ask the server's authors what it means.`;
      default:
        return `The server answered the opening request with JSON-RPC error ${e?.code ?? "?"}: ${JSON.stringify(e?.message ?? "")}.`;
    }
  },
  protocol_violation: (v) => {
    const tell = "Clients will reject or misroute this answer; tell the server's authors.";
    if (v.detail === "too_large") {
      return "The answer was larger than the probe's byte cap (--max-bytes) and was cut off unread: a runaway or endless body. If the server really sends answers this large, raise the cap; otherwise tell the server's authors, since clients cap what they read too.";
    }
    if (v.detail === "echo") {
      return "What came back is the request itself (and then the probe's own reply to it): the program repeats what it is sent, like cat. It is not an MCP server; check the command or URL points at the server.";
    }
    if (v.detail === "stream_broken")
      return `The server's answer broke off mid-stream (the connection closed before the response was complete). ${tell}`;
    if (v.detail.startsWith("no_response")) {
      const status = v.detail.match(/http_(\d+)$/)?.[1];
      return `The server accepted the request${status ? ` with HTTP ${status}` : ""} but sent no JSON-RPC response to it: a request always gets one (a result or an error). ${tell}`;
    }
    return `The server answered, but broke the protocol (${v.detail}): ${v.defects.findLast((d) => d.code === v.detail)?.message ?? "see the defects"}. ${tell}`;
  },
};

/** What a stdio server that writes anything but JSON-RPC on stdout must do instead (stdio transport: stdout carries only MCP messages). */
const LOG_TO_STDERR = "Log to stderr: a log line or banner on stdout breaks clients that read every line as a message.";

/** How advice begins its note on a server that works but broke rules on the way (the report groups by it). */
export const NOT_CLEANLY = "It works, but not cleanly";

export function adviceFor(cls: ProbeClass, context: Context): string {
  // the sign-in walk knows more than the refusal alone: what kind of sign-in, and where it breaks
  // (a key refused with a JSON-RPC error keeps its own words: they say what to send instead)
  if (
    cls === "auth_required" &&
    context.auth &&
    !(context.auth.verdict === "not_oauth" && context.detail === "rpc_error_instead_of_401")
  )
    return authAdvice(context.auth);
  const advice = BY_CLASS[cls](context);
  if (cls !== "ok") return advice;
  // it works, but what it got away with is what breaks the next, stricter client
  const codes = [...new Set(context.defects.filter((d) => d.severity !== "info").map((d) => d.code))];
  if (codes.length === 0) return advice;
  const stdout =
    context.transport === "stdio" && codes.includes("parse_error")
      ? ` A line on stdout was not JSON: ${LOG_TO_STDERR}`
      : "";
  const discover = codes.includes("discover_missing")
    ? " It refuses server/discover, which a 2026-07-28 server MUST implement: dual-era clients send it first and take the server for a legacy one; serve it (DiscoverResult: supported versions, capabilities, identity)."
    : "";
  return `${advice} ${NOT_CLEANLY}: ${codes.slice(0, 4).join(", ")}${codes.length > 4 ? ", …" : ""} (see the defects); a stricter client may fail where this one coped.${stdout}${discover}`;
}
