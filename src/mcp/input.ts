/**
 * Asking the client for input while serving a request, in each era's way: a legacy session
 * sends the request and waits for the answer; a 2026-07-28 request ends with an
 * `input_required` result, and the client's retry carries the answers. Answers from earlier
 * rounds ride in `requestState`, sealed with the server's key so a client cannot forge them.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import { isObject, type InputRequest } from "./meta.js";

/** Thrown by `context.ask` on 2026-07-28 when the answer is not there yet; the core turns it into `input_required`. */
export class InputNeeded extends Error {
  constructor() {
    super("the client's answer is needed first");
  }
}

/** The prefix of a `requestState` the core made (others are the handler's own). */
const PREFIX = "mcp-wire.1.";

export class AnswerSeal {
  private readonly key = randomBytes(32);

  seal(answers: JsonObject): string {
    const data = Buffer.from(JSON.stringify(answers)).toString("base64url");
    return `${PREFIX}${data}.${createHmac("sha256", this.key).update(data).digest("base64url")}`;
  }

  /** The answers a core-made state carries; {} for a state the handler made; -32602 for a forged one. */
  open(state: string | undefined): JsonObject {
    if (state === undefined || !state.startsWith(PREFIX)) return {};
    const [data, mac, extra] = state.slice(PREFIX.length).split(".");
    const forged = () => new ResponseError(INVALID_PARAMS, "requestState failed its integrity check");
    if (data === undefined || mac === undefined || extra !== undefined) throw forged();
    const expected = createHmac("sha256", this.key).update(data).digest();
    const given = Buffer.from(mac, "base64url");
    // decoding ignores the last character's spare bits: only the very text the server made passes
    if (given.length !== expected.length || given.toString("base64url") !== mac || !timingSafeEqual(given, expected))
      throw forged();
    const answers: unknown = JSON.parse(Buffer.from(data, "base64url").toString("utf8"));
    return isObject(answers) ? answers : {};
  }
}

/** The `input_required` result asking for `asked`, carrying every answer so far in its state. */
export function inputRequired(asked: Record<string, InputRequest>, answers: JsonObject, seal: AnswerSeal): JsonObject {
  const result: JsonObject = {
    resultType: "input_required",
    inputRequests: asked as unknown as JsonObject,
  };
  if (Object.keys(answers).length > 0) result.requestState = seal.seal(answers);
  return result;
}
