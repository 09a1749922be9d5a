/**
 * What one conversation puts on the tape: each message judged (judge.ts) and recorded with the
 * HTTP facts of the exchange that carried it, and the exchanges and events that carried none.
 * The server's transports call it as messages cross, so the recording is the wire's order.
 */
import type { Sender } from "../codec/conversation.js";
import type { Defect } from "../codec/defects.js";
import type { Message } from "../codec/message.js";
import { Judge, type Judged } from "./judge.js";
import { unstamped, type HttpFacts, type Tape, type TapeRecord } from "./tape.js";

/** What a sound message's record holds: one list for all of them, not one kept per record. */
const NO_DEFECTS: readonly Defect[] = Object.freeze([]);

type SseFacts = NonNullable<TapeRecord["sse"]>;

export class Witness {
  readonly judge = new Judge();

  constructor(
    private readonly tape: Tape,
    readonly conversation: string | undefined,
  ) {}

  /** Records a message; returns how it was judged. */
  message(
    text: string,
    from: Sender,
    http?: HttpFacts,
    sse?: { id?: string; retry?: number },
    maxBytes?: number,
  ): Judged {
    const judged = this.judge.message(text, from, maxBytes);
    this.record(text, from, judged, http, sse);
    return judged;
  }

  /**
   * Records a message the server wrote: `text` is `message` as its encoder wrote it, or what a
   * scenario made of it (then `message` is left out, and the text is read as any message is).
   */
  sent(text: string, message: Message | readonly Message[] | undefined, http?: HttpFacts, sse?: SseFacts): void {
    const judged = message !== undefined ? this.judge.own(text, message) : this.judge.message(text, "server");
    this.record(text, "server", judged, http, sse);
  }

  private record(text: string, from: Sender, judged: Judged, http?: HttpFacts, sse?: SseFacts): void {
    const defects = judged.defects.length > 0 ? judged.defects : NO_DEFECTS;
    // as it crossed: the recording's writer redacts secrets on the way to the file
    const record = unstamped(from, text, judged.decoded.kind, this.conversation, http, sse, undefined, defects);
    this.tape.add(record, judged.decoded.message !== undefined || judged.decoded.value !== undefined);
  }

  /** Makes sure what was recorded is on disk (a stdio server's file) before the client can see more. */
  flush(): void {
    this.tape.flush?.();
  }

  /** Records an HTTP exchange that carried no message (a 202, a 404, a GET that opened a stream). */
  exchange(from: Sender, http: HttpFacts): number {
    return this.tape.add(
      unstamped(from, undefined, undefined, this.conversation, http, undefined, undefined, undefined),
    );
  }

  /** Records what the server saw of its own end. */
  event(event: string): number {
    return this.tape.add(
      unstamped("server", undefined, undefined, this.conversation, undefined, undefined, event, undefined),
    );
  }
}
