/**
 * What `tap` tells a person about the messages it watched: each defect as it happens on stderr,
 * or, with `--log FILE`, every message as an NDJSON record that `mcp-wire lint` reads back; and
 * a summary when the session ends.
 */
import { printable } from "../codec/printable.js";
import type { Writable } from "node:stream";
import type { Sender } from "../codec/conversation.js";
import type { Defect, DefectCode, Severity } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import type { MessageKind } from "../codec/message.js";
import type { HttpContext, RecordedTransport, SseContext } from "../recording/recording.js";
import { RecordingWriter } from "../recording/writer.js";
import { redact } from "../secrets/redact.js";

/** One message as it crossed the tap, with what was found wrong with it. */
export interface TapMessage {
  from: Sender;
  /** The line (stdio) or message (HTTP) number in its direction, from 1. */
  no: number;
  /** Where a person finds it in that direction: `line 12`, `message 3 (POST /mcp)`. */
  where: string;
  /** The bytes as they crossed, without the line ending. */
  line: Line;
  kind: MessageKind | "blank";
  defects: readonly Defect[];
  /** The HTTP exchange that carried it. */
  http?: HttpContext;
  /** The conversation it belongs to, when one tap follows several (`tap --listen`). */
  conversation?: string;
  /** The exchange's real session id: the log holds its alias only. */
  session?: string;
  /** How it came in an event stream. */
  sse?: SseContext;
  /** When it crossed (ms since the epoch): its record is written once it is judged, which may be later. */
  at?: number;
}

/** An HTTP exchange that carried no message (a 202, a DELETE, a GET that opened a stream), for the log. */
export interface TapExchange {
  from: Sender;
  http: HttpContext;
  conversation?: string;
  session?: string;
}

export interface TapReportOptions {
  /** Live defects and the summary (the tap's stderr). */
  live: Writable;
  /** With a log every message becomes a record there, and live output is the summary alone. */
  log?: Writable;
  /** The transport the log's header names. Default stdio. */
  transport?: RecordedTransport;
  /**
   * How far the log may fall behind, in bytes, before records are dropped (and counted): the
   * pass-through must never wait for a slow disk. Default 64 MiB.
   */
  maxLogBacklog?: number;
}

const ARROW: Record<Sender, string> = { client: "client→server", server: "server→client" };

export class TapReport {
  private readonly messages: Record<Sender, number> = { client: 0, server: 0 };
  private readonly codes = new Map<DefectCode, { n: number; severity: Severity }>();
  private withErrors = 0;
  private blank = 0;
  private crlf = 0;
  private readonly log: RecordingWriter | undefined;

  constructor(private readonly options: TapReportOptions) {
    if (options.log)
      this.log = new RecordingWriter(options.log, {
        transport: options.transport ?? "stdio",
        ...(options.maxLogBacklog !== undefined ? { maxBacklog: options.maxLogBacklog } : {}),
      });
  }

  message(m: TapMessage): void {
    if (m.line.crlf) this.crlf++;
    if (m.kind === "blank") {
      // a blank line is not a message: nothing to judge, nothing to log
      this.blank++;
      return;
    }
    this.messages[m.from]++;
    let error = false;
    for (const d of m.defects) {
      const seen = this.codes.get(d.code);
      if (seen) seen.n++;
      else this.codes.set(d.code, { n: 1, severity: d.severity });
      if (d.severity === "error") error = true;
    }
    if (error) this.withErrors++;
    if (this.log) this.log.message(m);
    else if (m.defects.length > 0) this.options.live.write(liveLines(m));
  }

  /** An exchange without a message: only the log keeps it. */
  exchange(e: TapExchange): void {
    this.log?.exchange(e);
  }

  /** A line of the tap's own on stderr: where it listens, what the server did. */
  note(text: string): void {
    this.options.live.write(`tap: ${text}\n`);
  }

  /** The end of the session: counts each way and defects by code. `revision` says how it was judged. */
  summary(revision: string): string {
    const lines = [
      `${this.messages.client} message${s(this.messages.client)} client→server, ${this.messages.server} server→client; ${revision}`,
    ];
    if (this.codes.size === 0) {
      lines.push("no defects");
    } else {
      const total = [...this.codes.values()].reduce((n, c) => n + c.n, 0);
      const byCode = [...this.codes.entries()]
        .sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0]))
        .map(([code, c]) => `${c.n} ${code} (${c.severity})`);
      lines.push(
        `${total} defect${s(total)} (${this.withErrors} message${s(this.withErrors)} with errors): ${byCode.join(", ")}`,
      );
    }
    const notes: string[] = [];
    if (this.crlf) notes.push(`${this.crlf} line${s(this.crlf)} ended in \\r\\n`);
    if (this.blank) notes.push(`${this.blank} blank line${s(this.blank)}`);
    const dropped = this.log?.dropped ?? 0;
    if (dropped) notes.push(`${dropped} record${s(dropped)} left out of the log, which fell behind`);
    if (notes.length) lines.push(notes.join("; "));
    return lines.map((l) => `tap: ${l}\n`).join("");
  }

  /** How many messages had each defect code, for callers that check. */
  get defectCounts(): ReadonlyMap<DefectCode, number> {
    return new Map([...this.codes].map(([code, c]) => [code, c.n]));
  }

  /** Ends the log, once everything is written. */
  close(): Promise<void> {
    return this.log ? this.log.close() : Promise.resolve();
  }
}

function s(n: number): string {
  return n === 1 ? "" : "s";
}

/** `tap: client→server line 12: error id_null at /id: …`, one line per defect. */
export function liveLines(m: TapMessage): string {
  let out = "";
  for (const d of m.defects)
    out += `tap: ${ARROW[m.from]} ${printable(redact(m.where))}: ${d.severity} ${d.code}${d.path ? ` at ${printable(d.path)}` : ""}: ${printable(redact(d.message))}\n`;
  return out;
}
