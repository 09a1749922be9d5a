/**
 * What one conversation puts on the tape: each message judged (judge.ts) and recorded with the
 * HTTP facts of the exchange that carried it, and the exchanges and events that carried none.
 * The server's transports call it as messages cross, so the recording is the wire's order.
 */
import type { Sender } from "../codec/conversation.js";
import { redact } from "../secrets/redact.js";
import { Judge } from "./judge.js";
import type { HttpFacts, Tape } from "./tape.js";

export class Witness {
  readonly judge = new Judge();

  constructor(
    private readonly tape: Tape,
    readonly conversation: string | undefined,
  ) {}

  /** Records a message; returns its line in the recording (0 when the tape is full). */
  message(text: string, from: Sender, http?: HttpFacts, sse?: { id?: string; retry?: number }): number {
    const judged = this.judge.message(text, from);
    return this.tape.add(
      {
        from,
        // secrets in a URL or a token never reach a recording
        line: redact(text),
        kind: judged.decoded.kind,
        ...(this.conversation !== undefined ? { conversation: this.conversation } : {}),
        ...(http ? { http } : {}),
        ...(sse ? { sse } : {}),
        defects: judged.defects,
      },
      judged.decoded.message ?? judged.decoded.value,
    );
  }

  /** Records an HTTP exchange that carried no message (a 202, a 404, a GET that opened a stream). */
  exchange(from: Sender, http: HttpFacts): number {
    return this.tape.add({
      from,
      ...(this.conversation !== undefined ? { conversation: this.conversation } : {}),
      http,
    });
  }

  /** Records what the server saw of its own end. */
  event(event: string): number {
    return this.tape.add({
      from: "server",
      event,
      ...(this.conversation !== undefined ? { conversation: this.conversation } : {}),
    });
  }
}
