/**
 * Lints newline-delimited JSON-RPC: each line decoded, the whole checked as one conversation.
 * Streams: a capture of any size is read chunk by chunk with a cap on each line.
 */
import type { Readable } from "node:stream";
import { Conversation, type Sender } from "../codec/conversation.js";
import { decode, DEFAULT_MAX_BYTES, type Decoded } from "../codec/decode.js";
import { defect, pointerToken, worstSeverity, type Defect } from "../codec/defects.js";
import { revisionEvidence, type RevisionEvidence } from "../codec/evidence.js";
import { LineSplitter, type Line } from "../codec/lines.js";
import type { MessageKind } from "../codec/message.js";
import { LATEST_REVISION, META_PROTOCOL_VERSION, isRevision, type Revision } from "../rules/revisions.js";

export interface LintOptions {
  /** Judge by this revision. Without it, the revision is read from the conversation. */
  revision?: Revision;
  maxLineBytes?: number;
}

export interface LintRecord {
  line: number;
  kind: MessageKind | "blank";
  defects: Defect[];
  /** The sender, when the line was a `tap --log` record. */
  from?: Sender;
}

export interface LintSummary {
  messages: number;
  clean: number;
  withWarnings: number;
  withErrors: number;
  blank: number;
  crlf: number;
  revision: Revision;
  /** How the revision was chosen. */
  revisionSource: "given" | RevisionEvidence["source"] | "assumed";
}

/**
 * A `tap --log` record: one message as it crossed, with who sent it. `line` is the text; the tap
 * adds `base64` when the bytes were not UTF-8 (a string cannot hold them), `crlf` when the line
 * ended in `\r\n`, and `overflow` with `size` for a line over its cap (whose bytes it never
 * kept), so lint judges exactly what the tap judged.
 */
interface TapRecord {
  from: Sender;
  line: Line;
  text: string | Buffer;
}

function asTapRecord(d: Decoded): TapRecord | undefined {
  const v = d.value as Record<string, unknown> | undefined;
  if (d.kind !== "invalid" || !v || typeof v !== "object" || Array.isArray(v)) return undefined;
  if ((v.from !== "client" && v.from !== "server") || typeof v.line !== "string" || v.jsonrpc !== undefined) return undefined;
  const crlf = v.crlf === true;
  if (v.overflow === true && typeof v.size === "number") {
    return { from: v.from, line: { bytes: EMPTY, crlf, overflow: true, size: v.size }, text: "" };
  }
  const bytes = typeof v.base64 === "string" ? Buffer.from(v.base64, "base64") : undefined;
  // the text stays a string when it is one: a lone surrogate must reach JSON.parse as it was
  const text = bytes ?? v.line;
  return { from: v.from, line: { bytes: bytes ?? Buffer.from(v.line, "utf8"), crlf, overflow: false, size: bytes?.length ?? v.line.length }, text };
}

const EMPTY = Buffer.alloc(0);

export class Linter {
  private readonly conversation: Conversation;
  private lineNo = 0;
  private readonly s: LintSummary;

  constructor(private readonly options: LintOptions = {}) {
    const revision = options.revision ?? LATEST_REVISION;
    this.conversation = new Conversation({ revision });
    this.s = { messages: 0, clean: 0, withWarnings: 0, withErrors: 0, blank: 0, crlf: 0, revision, revisionSource: options.revision ? "given" : "assumed" };
  }

  get summary(): Readonly<LintSummary> {
    return this.s;
  }

  /**
   * Judges the next line of the capture. `from` is for a caller that knows who sent the line
   * (`tap`): the line is then the message itself, never read as a `tap --log` record.
   */
  line(line: Line, from?: Sender): LintRecord {
    const n = ++this.lineNo;
    if (from !== undefined || line.overflow || isBlank(line.bytes)) return this.judge(n, line, line.bytes, from);
    const decoded = decode(line.bytes, { revision: this.s.revision, maxBytes: this.maxBytes });
    const tap = asTapRecord(decoded);
    if (!tap) return this.judge(n, line, line.bytes, undefined, decoded);
    if (line.crlf) tap.line.crlf = true;
    return this.judge(n, tap.line, tap.text, tap.from);
  }

  private get maxBytes(): number {
    return this.options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  }

  private judge(n: number, line: Line, text: string | Buffer, from: Sender | undefined, decoded?: Decoded): LintRecord {
    if (line.crlf) this.s.crlf++;
    const maxBytes = this.maxBytes;
    const withFrom = (record: LintRecord): LintRecord => {
      if (from) record.from = from;
      return record;
    };
    if (line.overflow) {
      return this.count(withFrom({ line: n, kind: "invalid", defects: [defect("too_large", "", `a line of ${line.size} bytes, over the ${maxBytes}-byte limit: not parsed`)] }));
    }
    if (isBlank(line.bytes)) {
      this.s.blank++;
      return withFrom({ line: n, kind: "blank", defects: [] });
    }
    decoded ??= decode(text, { revision: this.s.revision, maxBytes, ...(from ? { role: from } : {}) });
    if (!this.options.revision) {
      const evidence = revisionEvidence(decoded);
      if (evidence && (evidence.revision !== this.s.revision || this.s.revisionSource === "assumed")) {
        this.s.revision = evidence.revision;
        this.s.revisionSource = evidence.source;
        this.conversation.revision = evidence.revision;
        decoded = decode(text, { revision: evidence.revision, maxBytes, ...(from ? { role: from } : {}) });
      }
    }
    // A plain capture has no direction: calls from one side, answers from the other. A broken
    // answer (a null id) or a batch of answers is still an answer.
    const sender = from ?? (isAnswer(decoded.message ?? decoded.value) ? "server" : "client");
    const defects = decoded.defects.concat(this.conversation.observe(decoded, sender));
    const unknown = this.options.revision ? undefined : unknownVersion(decoded);
    if (unknown) {
      defects.push(defect("revision_unknown", unknown.path, `names protocol version ${JSON.stringify(unknown.version)}, which mcp-wire does not know: judged as ${this.s.revision} (${this.s.revisionSource === "assumed" ? "assumed" : `from the ${this.s.revisionSource}`}); pass --revision`));
    }
    return this.count(withFrom({ line: n, kind: decoded.kind, defects }));
  }

  private count(record: LintRecord): LintRecord {
    this.s.messages++;
    const worst = worstSeverity(record.defects);
    if (worst === "error") this.s.withErrors++;
    else if (worst === "warning") this.s.withWarnings++;
    else this.s.clean++;
    return record;
  }
}

function isResponse(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return o.method === undefined && (o.result !== undefined || o.error !== undefined);
}

function isAnswer(v: unknown): boolean {
  return Array.isArray(v) ? v.length > 0 && v.every(isResponse) : isResponse(v);
}

/**
 * A protocol version a message names where `revisionEvidence` looks, but which is none of the
 * revisions mcp-wire knows: the capture is judged by another revision than it speaks.
 */
function unknownVersion(d: Decoded): { version: string; path: string } | undefined {
  const m = d.message as Record<string, unknown> | undefined;
  if (!m || Array.isArray(m)) return undefined;
  const unknown = (v: unknown): v is string => typeof v === "string" && !isRevision(v);
  if (d.kind === "request") {
    const params = m.params as Record<string, unknown> | undefined;
    if (!params) return undefined;
    if (m.method === "initialize" && unknown(params.protocolVersion)) return { version: params.protocolVersion, path: "/params/protocolVersion" };
    const meta = params._meta as Record<string, unknown> | undefined;
    const v = meta && typeof meta === "object" ? meta[META_PROTOCOL_VERSION] : undefined;
    if (unknown(v)) return { version: v, path: `/params/_meta/${pointerToken(META_PROTOCOL_VERSION)}` };
  } else if (d.kind === "result") {
    const r = m.result as Record<string, unknown>;
    if (unknown(r.protocolVersion) && (r.serverInfo !== undefined || r.capabilities !== undefined)) return { version: r.protocolVersion, path: "/result/protocolVersion" };
  }
  return undefined;
}

function isBlank(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Lints a whole stream, calling `onRecord` for each line; `onRecord` may return a promise
 * (output back-pressure), and reading waits for it.
 */
export async function lintStream(
  input: Readable,
  options: LintOptions,
  onRecord: (record: LintRecord) => void | Promise<void>,
): Promise<LintSummary> {
  const linter = new Linter(options);
  const ready: LintRecord[] = [];
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_BYTES, (line) => ready.push(linter.line(line)));
  const flush = async () => {
    for (const r of ready.splice(0)) {
      const wait = onRecord(r);
      if (wait) await wait;
    }
  };
  for await (const chunk of input) {
    splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
    await flush();
  }
  splitter.end();
  await flush();
  return linter.summary;
}

/** `12 messages: 9 clean, 2 with warnings, 1 with errors`, and what else a reader should know. */
export function summaryLine(s: LintSummary): string {
  const parts = [`${s.messages} message${s.messages === 1 ? "" : "s"}: ${s.clean} clean, ${s.withWarnings} with warnings, ${s.withErrors} with errors`];
  const notes: string[] = [];
  if (s.blank) notes.push(`${s.blank} blank line${s.blank === 1 ? "" : "s"} skipped`);
  if (s.crlf) notes.push(`${s.crlf} line${s.crlf === 1 ? "" : "s"} ended in \\r\\n (read as \\n)`);
  const how =
    s.revisionSource === "given"
      ? "as given"
      : s.revisionSource === "assumed"
        ? "assumed: no initialize or _meta seen; pass --revision"
        : `from the ${s.revisionSource}`;
  notes.push(`revision ${s.revision} (${how})`);
  return `${parts[0]} — ${notes.join("; ")}`;
}
