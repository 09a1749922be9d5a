/**
 * What `tap` tells a person about the messages it watched: each defect as it happens on stderr,
 * or, with `--log FILE`, every message as an NDJSON record that `mcp-wire lint` reads back; and
 * a summary when the session ends.
 */
import { isUtf8 } from "node:buffer";
import type { Writable } from "node:stream";
import type { Sender } from "../codec/conversation.js";
import type { Defect, DefectCode, Severity } from "../codec/defects.js";
import type { Line } from "../codec/lines.js";
import type { MessageKind } from "../codec/message.js";
import type { HttpContext } from "../lint/lint.js";
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
}

export interface TapReportOptions {
  /** Live defects and the summary (the tap's stderr). */
  live: Writable;
  /** With a log every message becomes a record there, and live output is the summary alone. */
  log?: Writable;
  /**
   * How far the log may fall behind, in bytes, before records are dropped (and counted): the
   * pass-through must never wait for a slow disk. Default 64 MiB.
   */
  maxLogBacklog?: number;
}

export const ARROW: Record<Sender, string> = { client: "client→server", server: "server→client" };

export class TapReport {
  private readonly messages: Record<Sender, number> = { client: 0, server: 0 };
  private readonly codes = new Map<DefectCode, { n: number; severity: Severity }>();
  private withErrors = 0;
  private blank = 0;
  private crlf = 0;
  private logDropped = 0;
  private readonly maxLogBacklog: number;

  constructor(private readonly options: TapReportOptions) {
    this.maxLogBacklog = options.maxLogBacklog ?? 64 * 1024 * 1024;
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
    const log = this.options.log;
    if (log) {
      if (log.writableLength > this.maxLogBacklog) this.logDropped++;
      else log.write(logRecord(m));
    } else if (m.defects.length > 0) {
      this.options.live.write(liveLines(m));
    }
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
    if (this.logDropped)
      notes.push(`${this.logDropped} record${s(this.logDropped)} left out of the log, which fell behind`);
    if (notes.length) lines.push(notes.join("; "));
    return lines.map((l) => `tap: ${l}\n`).join("");
  }

  /** How many messages had each defect code, for callers that check. */
  get defectCounts(): ReadonlyMap<DefectCode, number> {
    return new Map([...this.codes].map(([code, c]) => [code, c.n]));
  }

  /** Ends the log, once everything is written. */
  close(): Promise<void> {
    const log = this.options.log;
    if (!log || log.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      log.once("error", () => resolve());
      log.end(() => resolve());
    });
  }
}

function s(n: number): string {
  return n === 1 ? "" : "s";
}

/**
 * `{at, from, no, line, kind, conversation?, http?, defects}`: `line` holds the text exactly, so `mcp-wire lint` judges it
 * again; bytes a string cannot hold (not UTF-8) go in `base64` too, and a line over the cap,
 * whose bytes were never kept, is `overflow` with its `size`.
 */
export function logRecord(m: TapMessage): string {
  const r: Record<string, unknown> = { at: new Date().toISOString(), from: m.from, no: m.no };
  if (m.line.overflow) {
    r.line = "";
    r.overflow = true;
    r.size = m.line.size;
  } else {
    // secrets (a URL's password, a token in a query) never reach the log; what redact changes
    // stays inside JSON strings, so lint still judges the same message
    r.line = redact(m.line.bytes.toString("utf8"));
    if (!isUtf8(m.line.bytes)) r.base64 = m.line.bytes.toString("base64");
  }
  if (m.line.crlf) r.crlf = true;
  r.kind = m.kind;
  if (m.conversation !== undefined) r.conversation = m.conversation;
  if (m.http) r.http = m.http;
  r.defects = m.defects;
  return JSON.stringify(r) + "\n";
}

/** `tap: client→server line 12: error id_null at /id: …`, one line per defect. */
export function liveLines(m: TapMessage): string {
  let out = "";
  for (const d of m.defects)
    out += `tap: ${ARROW[m.from]} ${redact(m.where)}: ${d.severity} ${d.code}${d.path ? ` at ${d.path}` : ""}: ${redact(d.message)}\n`;
  return out;
}
