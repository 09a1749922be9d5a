/**
 * One HTTP answer of the gauntlet server: a JSON body when the answer comes alone, an event stream
 * when messages come before it (progress, a server request, a notification). Events carry ids so
 * a stream closed on purpose can be resumed with `Last-Event-ID`; while no response is attached,
 * events wait in order for the GET that resumes them. Bodies may be written in pieces of a set
 * size, so that multi-byte characters are split across them.
 */
import type { ServerResponse } from "node:http";

export interface Written {
  contentType: string;
  status: number;
  /** The event's id, for a message sent as an event. */
  eventId?: string;
}

export class AnswerStream {
  private res: ServerResponse | undefined;
  private started = false;
  private seq = 0;
  /** Events sent while no response was attached, for the GET that resumes the stream. */
  private readonly waiting: string[] = [];
  /** Set once the answer is written: the stream ends. */
  done = false;

  constructor(
    res: ServerResponse,
    /** The stream's id, the prefix of its event ids. */
    readonly id: string,
    private readonly chunkBytes: number | undefined,
    /** The Accept header allowed JSON (or named nothing). */
    private readonly jsonAllowed: boolean,
  ) {
    this.res = res;
  }

  /** A message before the answer: always an event. */
  event(text: string): Written {
    return this.writeEvent(text);
  }

  /**
   * The answer: a JSON body when nothing came before it, else the stream's last event. A status
   * other than 200 (a 2026-07-28 error) is always a JSON body.
   */
  answer(text: string, status = 200): Written {
    this.done = true;
    if (!this.started && this.res && (this.jsonAllowed || status !== 200)) {
      const res = this.res;
      const bytes = Buffer.from(text, "utf8");
      if (this.chunkBytes && bytes.length > this.chunkBytes) {
        res.writeHead(status, { "content-type": "application/json" });
        this.write(res, bytes);
        res.end();
      } else {
        // one piece, its length known: headers and body leave in one write
        res.writeHead(status, { "content-type": "application/json", "content-length": String(bytes.length) });
        res.end(bytes);
      }
      return { contentType: "application/json", status };
    }
    const written = this.writeEvent(text);
    this.res?.end();
    return written;
  }

  /** Closes the response after a priming event with an id and `retry`, leaving the stream resumable. */
  cut(retryMs: number): { eventId: string } {
    const res = this.start()!;
    const eventId = `${this.id}-${this.seq++}`;
    res.write(`id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`);
    res.end();
    this.res = undefined;
    return { eventId };
  }

  /** A GET with `Last-Event-ID` takes the stream over: what waited is sent, the rest follows live. */
  resume(res: ServerResponse): void {
    this.res = res;
    this.started = false;
    this.start();
    for (const event of this.waiting.splice(0)) this.write(res, Buffer.from(event, "utf8"));
    if (this.done) res.end();
  }

  private start(): ServerResponse | undefined {
    const res = this.res;
    if (!res) return undefined;
    if (!this.started) {
      this.started = true;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    }
    return res;
  }

  private writeEvent(text: string): Written {
    const eventId = `${this.id}-${this.seq++}`;
    const event = `id: ${eventId}\ndata: ${text}\n\n`;
    const res = this.start();
    if (res) this.write(res, Buffer.from(event, "utf8"));
    else this.waiting.push(event);
    return { contentType: "text/event-stream", status: 200, eventId };
  }

  private write(res: ServerResponse, bytes: Buffer): void {
    const size = this.chunkBytes;
    if (!size || bytes.length <= size) {
      res.write(bytes);
      return;
    }
    for (let at = 0; at < bytes.length; at += size) res.write(bytes.subarray(at, at + size));
  }
}
