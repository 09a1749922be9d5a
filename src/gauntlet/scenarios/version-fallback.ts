/**
 * `version_fallback.older` and `.unknown`: the server answers `initialize` with an older revision
 * than the client asked for, or with one nobody knows. Bound to the legacy revisions: a dual-era
 * client is pushed down by a server that does not speak 2026-07-28.
 */
import type { JsonObject, Message } from "../../codec/message.js";
import { LEGACY_REVISIONS, isRevision } from "../../rules/revisions.js";
import { SPEC, check, notApplicable, notObserved, pass, type ScenarioDef } from "../scenario.js";
import { msg, type View } from "../view.js";
import { LEGACY, plainTool } from "./common.js";

const NEGOTIATION = `${SPEC}/2025-11-25/basic/lifecycle#version-negotiation`;
/** A version no revision has: the client cannot speak it. */
const UNKNOWN_VERSION = "2099-01-01";

/** The legacy revision just older than `requested` (the newest legacy one for anything else). */
function olderThan(requested: unknown): string | undefined {
  const newestFirst = LEGACY_REVISIONS;
  const i = isRevision(requested) ? newestFirst.indexOf(requested) : -1;
  return i < 0 ? newestFirst[0] : newestFirst[i + 1];
}

function initialize(view: View) {
  const init = view.requests("initialize")[0];
  const answer = init ? view.answerTo(init) : undefined;
  return { init, answer, offered: answer ? msg(answer)?.result?.protocolVersion : undefined };
}

export const versionOlder: ScenarioDef = {
  id: "version_fallback.older",
  title: "initialize answered with an older revision",
  behaviour: "initialize is answered with the legacy revision just older than the one asked for.",
  spec: NEGOTIATION,
  revisions: LEGACY,
  setup({ server, wire }) {
    plainTool(server, "gauntlet_version", "Call this tool once with no arguments.");
    wire.incoming = (message: JsonObject) => {
      if (message.method !== "initialize" || typeof message.params !== "object" || message.params === null)
        return message;
      const params = message.params as JsonObject;
      const older = olderThan(params.protocolVersion);
      return older ? { ...message, params: { ...params, protocolVersion: older } } : message;
    };
  },
  checks: [
    check(
      {
        id: "version_fallback.older.continues",
        severity: "error",
        title: "The client goes on in the offered revision, or closes",
        rule: "A client that accepts the older revision the server offers speaks it from then on, bodies and MCP-Protocol-Version header alike; one that does not support it disconnects.",
        spec: NEGOTIATION,
        bug: "Clients that accept the answer but keep sending the header of the version they asked for get 400 from servers that check it.",
      },
      (view, fault) => {
        const { init, answer, offered } = initialize(view);
        if (!init)
          return view.modern()
            ? notApplicable("the client spoke 2026-07-28 only")
            : notObserved("the client never sent initialize");
        if (!answer) return notObserved("initialize was never answered");
        if (offered === msg(init)?.params?.protocolVersion)
          return notApplicable("the client asked for the oldest revision: there is nothing older");
        const later = view.requestsAfter(answer.line, init);
        const wrong = later.find(
          (e) => e.record.http?.protocolVersion !== undefined && e.record.http.protocolVersion !== offered,
        );
        if (wrong)
          return fault(
            `MCP-Protocol-Version was ${wrong.record.http!.protocolVersion}, not the offered ${String(offered)}`,
            [answer.line, wrong.line],
          );
        return later.length > 0
          ? pass(`the client went on in ${String(offered)}`, [answer.line, later[0]!.line])
          : pass(`the client closed after ${String(offered)} was offered`, [answer.line]);
      },
    ),
  ],
};

export const versionUnknown: ScenarioDef = {
  id: "version_fallback.unknown",
  title: "initialize answered with a revision nobody knows",
  behaviour: `initialize is answered with protocolVersion ${UNKNOWN_VERSION}.`,
  spec: NEGOTIATION,
  revisions: LEGACY,
  setup({ server, wire }) {
    plainTool(server, "gauntlet_version", "Call this tool once with no arguments.");
    wire.outgoing = (message: Message) => {
      const result = (message as { result?: JsonObject }).result;
      if (!result || typeof result.protocolVersion !== "string" || result.serverInfo === undefined) return undefined;
      return JSON.stringify({ ...message, result: { ...result, protocolVersion: UNKNOWN_VERSION } });
    };
  },
  checks: [
    check(
      {
        id: "version_fallback.unknown.not_continued",
        severity: "warning",
        title: "The client does not go on in a revision it does not know",
        rule: "If the client does not support the version in the server's answer, it SHOULD disconnect: no notifications/initialized, no requests.",
        spec: NEGOTIATION,
        bug: "Clients that never look at the answered version go on as if it were theirs, and misread every later message.",
      },
      (view, fault) => {
        const { init, answer } = initialize(view);
        if (!init)
          return view.modern()
            ? notApplicable("the client spoke 2026-07-28 only")
            : notObserved("the client never sent initialize");
        if (!answer) return notObserved("initialize was never answered");
        const later = view.client.filter(
          (e) =>
            e.line > answer.line &&
            e.record.conversation === init.record.conversation &&
            msg(e)?.method !== "initialize",
        );
        if (later.length > 0)
          return fault(`the client went on with ${String(msg(later[0]!)?.method)} in ${UNKNOWN_VERSION}`, [
            answer.line,
            later[0]!.line,
          ]);
        return pass("the client did not go on in the unknown revision", [answer.line]);
      },
    ),
  ],
};
