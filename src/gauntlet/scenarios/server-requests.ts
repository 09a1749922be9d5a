/**
 * `server_requests`: while a tool call is in flight the server asks the client things. Legacy
 * revisions: ping, a method nobody knows, and roots/sampling/elicitation where declared; on
 * 2026-07-28 the declared ones through an `input_required` result and the client's retry.
 */
import type { JsonObject } from "../../codec/message.js";
import type { ServeContext } from "../../mcp/server.js";
import { METHOD_NOT_FOUND } from "../../rules/error-codes.js";
import { SPEC, check, notApplicable, notObserved, pass, type CheckDef, type ScenarioDef } from "../scenario.js";
import { msg, type View } from "../view.js";
import { ALL, text, tool } from "./common.js";

const UNKNOWN = "gauntlet/unknown_method";
const ASK_TIMEOUT = 10_000;
const STATE = "gauntlet-request-state";

interface Ask {
  key: string;
  capability: string;
  method: string;
  params: JsonObject;
  since: string;
}

const ASKS: readonly Ask[] = [
  { key: "roots", capability: "roots", method: "roots/list", params: {}, since: "2024-11-05" },
  {
    key: "sampling",
    capability: "sampling",
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "Say hello." } }], maxTokens: 16 },
    since: "2024-11-05",
  },
  {
    key: "elicitation",
    capability: "elicitation",
    method: "elicitation/create",
    params: {
      message: "Your name, please.",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    },
    since: "2025-06-18",
  },
];

async function legacyAsks(context: ServeContext): Promise<void> {
  const quiet = () => undefined;
  await context.request("ping", undefined, { timeout: ASK_TIMEOUT }).catch(quiet);
  await context.request(UNKNOWN, {}, { timeout: ASK_TIMEOUT }).catch(quiet);
  for (const ask of ASKS) {
    if (context.revision < ask.since || context.clientCapabilities[ask.capability] === undefined) continue;
    await context.request(ask.method, ask.params, { timeout: ASK_TIMEOUT }).catch(quiet);
  }
}

function modernAsks(context: ServeContext): JsonObject | undefined {
  if (context.requestState === STATE) return undefined;
  const inputRequests: JsonObject = {};
  for (const ask of ASKS)
    if (context.clientCapabilities[ask.capability] !== undefined)
      inputRequests[ask.key] = { method: ask.method, params: ask.params };
  if (Object.keys(inputRequests).length === 0) return undefined;
  return { resultType: "input_required", inputRequests, requestState: STATE };
}

/** A legacy request of the server's that the client must answer: answered at all, and how. */
function answered(
  view: View,
  method: string,
  fault: (m: string, e?: readonly number[]) => ReturnType<CheckDef["score"]>,
  wantError?: number,
) {
  const asked = view.serverRequests(method)[0];
  if (!asked) return undefined;
  const answer = view.answerTo(asked);
  if (!answer) return fault(`the client never answered the server's ${method}`, [asked.line]);
  const m = msg(answer)!;
  if (wantError !== undefined) {
    if (m.error?.code === wantError) return pass(`${method} got ${wantError}`, [asked.line, answer.line]);
    return fault(`${method} got ${m.error ? `error ${String(m.error.code)}` : "a result"}, not ${wantError}`, [
      answer.line,
    ]);
  }
  if (answer.record.defects?.some((d) => d.severity === "error"))
    return fault(`the answer to ${method} is malformed`, [answer.line]);
  return pass(`${method} was answered`, [asked.line, answer.line]);
}

function legacyCheck(id: string, method: string, rule: string, bug: string, wantError?: number): CheckDef {
  return check(
    {
      id,
      severity: "error",
      title: `${method} is answered`,
      rule,
      spec: `${SPEC}/2025-11-25/basic/utilities/ping`,
      bug,
    },
    (view, fault) => {
      if (view.modern()) return notApplicable("2026-07-28 servers send no requests");
      if (view.calls("gauntlet_server_requests").length === 0)
        return notObserved("the client never called gauntlet_server_requests");
      return answered(view, method, fault, wantError) ?? notObserved(`the server never sent ${method}`);
    },
  );
}

function askCheck(ask: Ask): CheckDef {
  return check(
    {
      id: `server_requests.${ask.key}`,
      severity: "error",
      title: `${ask.method} is answered where declared`,
      rule: `A client that declares ${ask.capability} answers ${ask.method} (legacy) or fulfils it in its retry of an input_required result (2026-07-28), validly.`,
      spec: `${SPEC}/2025-11-25/client/${ask.key}`,
      bug: `Clients declare ${ask.capability} and never answer ${ask.method}: the server's tool call hangs until it times out.`,
    },
    (view, fault) => {
      const calls = view.calls("gauntlet_server_requests");
      if (calls.length === 0) return notObserved("the client never called gauntlet_server_requests");
      if (!view.modern()) {
        const asked = answered(view, ask.method, fault);
        return asked ?? notApplicable(`the client did not declare ${ask.capability}`);
      }
      const first = view.answerTo(calls[0]!);
      const wanted = (msg(first ?? calls[0]!)?.result?.inputRequests as JsonObject | undefined)?.[ask.key];
      if (!first || wanted === undefined) return notApplicable(`the client did not declare ${ask.capability}`);
      const retry = calls.find((e) => e.line > first.line);
      const responses = msg(retry ?? calls[0]!)?.params?.inputResponses as JsonObject | undefined;
      if (!retry) return fault("the client never retried with inputResponses", [first.line]);
      if (msg(retry)?.params?.requestState !== STATE) return fault("the retry did not echo requestState", [retry.line]);
      if (responses?.[ask.key] === undefined)
        return fault(`the retry's inputResponses has no ${ask.key}`, [retry.line]);
      return pass(`the retry answered ${ask.key}`, [first.line, retry.line]);
    },
  );
}

export const serverRequests: ScenarioDef = {
  id: "server_requests",
  title: "The server asks the client things",
  behaviour:
    "gauntlet_server_requests: before answering, the server pings the client, sends gauntlet/unknown_method, and asks roots/list, sampling/createMessage and elicitation/create where declared (2026-07-28: an input_required result for the declared ones).",
  spec: `${SPEC}/2025-11-25/basic/utilities/ping`,
  revisions: ALL,
  setup({ server }) {
    server.tools.define(
      tool("gauntlet_server_requests", "Call this tool once with no arguments; answer what it asks."),
      async (_args, context) => {
        if (context.era === "modern") return (modernAsks(context) as never) ?? text("gauntlet_server_requests: done");
        await legacyAsks(context);
        return text("gauntlet_server_requests: done");
      },
    );
  },
  checks: [
    legacyCheck(
      "server_requests.ping",
      "ping",
      "The receiver of a ping answers promptly with an empty result (MUST).",
      "Clients that leave a server's ping unanswered are dropped by servers that use ping as a liveness check.",
    ),
    legacyCheck(
      "server_requests.unknown_method",
      UNKNOWN,
      "A request for a method the client does not serve gets error -32601 (JSON-RPC: every request gets a response).",
      "Clients that drop requests they do not know leave the server's request pending until it times out.",
      METHOD_NOT_FOUND,
    ),
    ...ASKS.map(askCheck),
  ],
};
