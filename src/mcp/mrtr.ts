/**
 * Multi Round-Trip Requests (2026-07-28): a server that needs more before it can answer returns
 * `resultType: "input_required"` with `inputRequests` (elicitation, sampling, roots) and an opaque
 * `requestState`. The client answers each input through a handler its user registered and sends
 * the original request again, as a new request with a new id, carrying `inputResponses` and the
 * state exactly as it came. The same handlers answer a legacy server's own requests.
 */
import type { JsonObject } from "../codec/message.js";
import { ConnectionError, ConnectionErrorCode } from "../peer/errors.js";
import { isObject } from "./meta.js";

export const INPUT_METHODS = ["elicitation/create", "sampling/createMessage", "roots/list"] as const;
export type InputMethod = (typeof INPUT_METHODS)[number];

/** What a handler knows about the question it answers. */
export interface InputContext {
  /** The server's key for this input; absent for a legacy server's own request. */
  key?: string;
  /** The client's request the server asked this for, as the caller gave it (no `_meta`); absent for a legacy server's own request. */
  request?: { method: string; params: JsonObject };
  /** 1 for the first `input_required` answer to the request, 2 for the next, … */
  round?: number;
  signal?: AbortSignal;
  /** The task this answer runs as, where a 2025-11-25 server asked for it as one (the `inputTasks` option). */
  taskId?: string;
}

/** Answers one input request: an ElicitResult, a CreateMessageResult or a ListRootsResult. */
export type InputHandler = (params: JsonObject, context: InputContext) => JsonObject | Promise<JsonObject>;
export type InputHandlers = { [M in InputMethod]?: InputHandler };

/** A server may only ask for what the client declared (2026-07-28 MRTR), so each handler declares its capability. */
export const INPUT_CAPABILITY: Readonly<Record<InputMethod, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/**
 * The handler for `method`, looked up among the handlers' own properties only: a server's method
 * name is never a key into an object's prototype (`constructor`, `__proto__`, `hasOwnProperty`).
 */
export function handlerOf(handlers: InputHandlers | undefined, method: string): InputHandler | undefined {
  if (handlers === undefined || !(INPUT_METHODS as readonly string[]).includes(method)) return undefined;
  if (!Object.hasOwn(handlers, method)) return undefined;
  const handler = handlers[method as InputMethod];
  return typeof handler === "function" ? handler : undefined;
}

export function inputCapabilities(handlers: InputHandlers | undefined): JsonObject {
  const capabilities: JsonObject = {};
  for (const method of INPUT_METHODS) if (handlerOf(handlers, method)) capabilities[INPUT_CAPABILITY[method]] = {};
  return capabilities;
}

export const DEFAULT_MAX_INPUT_ROUNDS = 8;

export type InputRequiredReason = "unhandled" | "rounds" | "malformed";

/**
 * A request ended on an `input_required` result the client could not follow: an input it has no
 * handler for (`unhandled`), more rounds than allowed (`rounds`), or a result that breaks the
 * rules (`malformed`). `result` is that last answer, as the server sent it.
 */
export class InputRequiredError extends ConnectionError {
  override readonly name = "InputRequiredError";
  constructor(
    readonly reason: InputRequiredReason,
    readonly method: string,
    readonly result: JsonObject,
    message: string,
  ) {
    super(ConnectionErrorCode.InputRequired, `${method}: ${message}`);
  }
}

export interface InputRoundsOptions {
  handlers: InputHandlers | undefined;
  maxRounds: number;
  signal?: AbortSignal;
}

/**
 * Answers the inputs of an `input_required` answer (`first`, to `params` the caller sent) and
 * sends again, while the answer is `input_required`. A result without `resultType` is complete
 * (servers before 2026-07-28 send none), and so is one of a type this client does not know: the
 * caller sees it as it came.
 */
export async function inputRounds(
  method: string,
  params: JsonObject,
  first: JsonObject,
  send: (params: JsonObject) => Promise<JsonObject>,
  options: InputRoundsOptions,
): Promise<JsonObject> {
  // a retry is the original request plus this round's answers: nothing the caller or an earlier round put there
  const { inputResponses: _responses, requestState: _state, ...original } = params;
  let current = params;
  for (let round = 1; ; round++) {
    const result = round === 1 ? first : await send(current);
    if (result.resultType !== "input_required") return result;
    if (round > options.maxRounds) {
      throw new InputRequiredError(
        "rounds",
        method,
        result,
        `still input_required after ${options.maxRounds} round(s) of answers`,
      );
    }
    const { inputRequests, requestState } = result;
    const requests = checkInputRequired(method, result);
    const missing = [...new Set(requests.map(([, r]) => r.method).filter((m) => !handlerOf(options.handlers, m)))];
    if (missing.length > 0) {
      throw new InputRequiredError(
        "unhandled",
        method,
        result,
        `the server asks for ${missing.join(", ")}, which the client has no handler for`,
      );
    }
    // one at a time: most of them put a question to a person
    // keys are the server's: each becomes an own property, even "__proto__" (an assignment would set the prototype)
    const answers: [string, JsonObject][] = [];
    for (const [key, request] of requests) {
      const handler = handlerOf(options.handlers, request.method)!;
      const context: InputContext = {
        key,
        request: { method, params: original },
        round,
        ...(options.signal ? { signal: options.signal } : {}),
      };
      answers.push([key, await handler(request.params ?? {}, context)]);
    }
    current = { ...original };
    if (inputRequests !== undefined) current.inputResponses = Object.fromEntries(answers) as JsonObject;
    // the very string that came: never parsed, never rebuilt (MUST NOT inspect or modify)
    if (requestState !== undefined) current.requestState = requestState;
  }
}

/** The input requests of an `input_required` result, or why it cannot be followed. */
function checkInputRequired(method: string, result: JsonObject): [string, { method: string; params?: JsonObject }][] {
  const { inputRequests, requestState } = result;
  const malformed = (why: string) =>
    new InputRequiredError("malformed", method, result, `an input_required result ${why}`);
  if (requestState !== undefined && typeof requestState !== "string")
    throw malformed("whose requestState is not a string");
  // with neither, the retry would be the request itself again
  if (inputRequests === undefined && requestState === undefined)
    throw malformed("with neither inputRequests nor requestState");
  if (inputRequests === undefined) return [];
  if (!isObject(inputRequests)) throw malformed("whose inputRequests is not an object");
  const requests: [string, { method: string; params?: JsonObject }][] = [];
  for (const [key, request] of Object.entries(inputRequests)) {
    if (
      !isObject(request) ||
      typeof request.method !== "string" ||
      (request.params !== undefined && !isObject(request.params))
    ) {
      throw malformed(`whose input request ${JSON.stringify(key)} is not a request`);
    }
    requests.push([key, request as { method: string; params?: JsonObject }]);
  }
  return requests;
}
