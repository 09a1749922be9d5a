/**
 * Scenarios only HTTP has: `session_expired` (a session that answers 404), `sse_resume` (a call's
 * stream closed after a priming event), `auth_challenge` (a 401 naming the resource metadata).
 */
import { REVISIONS } from "../../rules/revisions.js";
import { SPEC, between, check, notApplicable, notObserved, pass, type ScenarioDef } from "../scenario.js";
import { plainTool, text, tool } from "./common.js";

const TRANSPORTS = `${SPEC}/2025-11-25/basic/transports`;
/** How long the client is asked to wait before resuming. */
export const RETRY_MS = 500;

export const sessionExpired: ScenarioDef = {
  id: "session_expired",
  title: "A session that expires",
  behaviour: "After the first tools/call is answered, every request of that session gets 404; a new session works.",
  spec: `${TRANSPORTS}#session-management`,
  revisions: between(REVISIONS, "2025-03-26", "2025-11-25"),
  transports: ["http"],
  setup({ server, wire }) {
    plainTool(server, "gauntlet_first", "Call this tool once with no arguments.");
    plainTool(server, "gauntlet_second", "Call this tool once with no arguments, after gauntlet_first.");
    const expired = new Set<string>();
    let first: string | undefined;
    wire.answered = (session, method) => {
      if (method === "tools/call" && first === undefined) expired.add((first = session));
    };
    wire.expired = (session) => expired.has(session);
  },
  checks: [
    check(
      {
        id: "session_expired.reinitialized",
        severity: "error",
        title: "A 404 on the session leads to a new initialize",
        rule: "A client that gets 404 for a request carrying Mcp-Session-Id starts a new session with initialize, without a session id (MUST).",
        spec: `${TRANSPORTS}#session-management`,
        bug: "Clients that keep sending the dead session id, or give up, lose the server after every restart or scale-in.",
      },
      (view, fault) => {
        const gone = view.entries.find((e) => e.record.http?.status === 404 && e.record.from === "server");
        if (!gone)
          return notObserved("the client sent nothing after its first call, so the session never answered 404");
        const again = view
          .requests("initialize")
          .find((e) => e.line > gone.line && e.record.http?.sessionHeader !== true);
        if (again) return pass("the client opened a new session", [gone.line, again.line]);
        const stale = view.requestsAfter(gone.line).find((e) => e.record.http?.sessionHeader === true);
        return fault(
          stale ? "the client went on with the expired session id" : "the client never opened a new session",
          stale ? [gone.line, stale.line] : [gone.line],
        );
      },
    ),
  ],
};

export const sseResume: ScenarioDef = {
  id: "sse_resume",
  title: "A call's stream closed before its answer",
  behaviour: `gauntlet_resume's response stream sends an event with an id and retry: ${RETRY_MS}, then closes; the answer waits for a GET with Last-Event-ID.`,
  spec: `${TRANSPORTS}#resumability-and-redelivery`,
  revisions: ["2025-11-25"],
  transports: ["http"],
  scriptedMs: RETRY_MS,
  setup({ server, wire }) {
    server.tools.define(tool("gauntlet_resume", "Call this tool once with no arguments."), () => text("resumed"));
    plainTool(server, "gauntlet_after_resume", "Call this tool once with no arguments, after gauntlet_resume.");
    let cut = false;
    wire.cut = (method, params) => {
      if (cut || method !== "tools/call" || params?.name !== "gauntlet_resume") return false;
      return (cut = true);
    };
  },
  checks: [
    check(
      {
        id: "sse_resume.resumed",
        severity: "warning",
        title: "The client resumes a closed stream",
        rule: "When the server closes a stream after an event with an id, the client SHOULD reconnect with GET and Last-Event-ID to get the rest.",
        spec: `${TRANSPORTS}#resumability-and-redelivery`,
        bug: "Clients that treat a closed stream as the end wait for an answer that only a resumed stream would bring.",
      },
      (view, fault) => {
        const primed = view.entries.find((e) => e.record.sse?.retry !== undefined && e.record.from === "server");
        if (!primed) return notObserved("the client never called gauntlet_resume");
        const resumed = view.entries.find(
          (e) =>
            e.line > primed.line &&
            e.record.http?.method === "GET" &&
            e.record.http.lastEventId === primed.record.sse!.id,
        );
        return resumed
          ? pass("the client resumed with Last-Event-ID", [primed.line, resumed.line])
          : fault("the client never resumed the closed stream", [primed.line]);
      },
    ),
    check(
      {
        id: "sse_resume.retry_respected",
        severity: "error",
        title: "The retry field is respected",
        rule: "The client waits the retry field's milliseconds before reconnecting (MUST).",
        spec: `${TRANSPORTS}#resumability-and-redelivery`,
        bug: "Clients that reconnect at once hammer a server that asked them to wait.",
      },
      (view, fault) => {
        const primed = view.entries.find((e) => e.record.sse?.retry !== undefined && e.record.from === "server");
        if (!primed) return notObserved("the client never called gauntlet_resume");
        const resumed = view.entries.find(
          (e) => e.line > primed.line && e.record.http?.method === "GET" && e.record.http.lastEventId,
        );
        if (!resumed) return notApplicable("the client did not resume");
        const waited = Date.parse(resumed.record.at) - Date.parse(primed.record.at);
        if (Number.isNaN(waited)) return notApplicable("the recording keeps no times to measure the wait by");
        // a few milliseconds of clock granularity either way
        return waited + 20 >= (primed.record.sse!.retry ?? 0)
          ? pass(`the client waited ${waited} ms`, [primed.line, resumed.line])
          : fault(`the client reconnected after ${waited} ms, not the ${primed.record.sse!.retry} ms asked`, [
              primed.line,
              resumed.line,
            ]);
      },
    ),
  ],
};

export const authChallenge: ScenarioDef = {
  id: "auth_challenge",
  title: "A 401 challenge",
  behaviour: "The first request gets 401 with WWW-Authenticate: Bearer resource_metadata=…; the metadata is served.",
  spec: `${SPEC}/2025-11-25/basic/authorization`,
  revisions: REVISIONS,
  transports: ["http"],
  flag: "auth",
  setup({ server, wire }) {
    plainTool(server, "gauntlet_signed_in", "Call this tool once with no arguments.");
    wire.challenge = true;
  },
  checks: [
    check(
      {
        id: "auth_challenge.metadata_fetched",
        severity: "error",
        title: "The protected-resource metadata is fetched",
        rule: "A client that signs in reads the resource_metadata URL of a 401's WWW-Authenticate (RFC 9728) to find the authorization server (MUST).",
        spec: `${SPEC}/2025-11-25/basic/authorization#authorization-server-discovery`,
        bug: "Clients that guess the authorization server from the MCP URL fail against servers whose sign-in lives elsewhere.",
      },
      (view, fault) => {
        const challenged = view.entries.find((e) => e.record.http?.status === 401);
        if (!challenged) return notObserved("the client sent no request");
        const fetched = view.entries.find(
          (e) =>
            e.line > challenged.line &&
            e.record.http?.method === "GET" &&
            e.record.http.path.startsWith("/.well-known/oauth-protected-resource"),
        );
        return fetched
          ? pass("the client fetched the metadata", [challenged.line, fetched.line])
          : fault("the client never fetched the metadata", [challenged.line]);
      },
    ),
  ],
};
