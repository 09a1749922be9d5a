/**
 * Lints newline-delimited JSON-RPC: each line decoded, the whole checked as one conversation.
 * Streams: a capture of any size is read chunk by chunk with a cap on each line.
 */
import type { Readable } from "node:stream";
import { BoundedMap } from "../codec/bounded.js";
import { Conversation, type Sender } from "../codec/conversation.js";
import { decode, DEFAULT_MAX_BYTES, type DecodeOptions, type Decoded } from "../codec/decode.js";
import { defect, pointerToken, worstSeverity, type Defect } from "../codec/defects.js";
import { revisionEvidence, type RevisionEvidence } from "../codec/evidence.js";
import { LineSplitter, type Line } from "../codec/lines.js";
import { validate, type ValidateOptions } from "../schema/validate.js";
import type { MessageKind, RequestId } from "../codec/message.js";
import { recordOf, recordedLine, type HttpContext } from "../recording/recording.js";
import { LATEST_REVISION, META_PROTOCOL_VERSION, isRevision, type Revision } from "../rules/revisions.js";

export interface LintOptions {
  /** Judge by this revision. Without it, the revision is read from the conversation. */
  revision?: Revision;
  maxLineBytes?: number;
  /**
   * Also judge each message against its revision's official schema.json (`schema_invalid`; an
   * answer by the method of the request it answers). Not done while the revision is only assumed:
   * a capture judged by the wrong revision's schema would be all false alarms.
   */
  schema?: boolean;
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
  revisionSource: RevisionSource;
  /** How many conversations a `tap --listen` log held (each judged on its own); absent for one. */
  conversations?: number;
}

export type RevisionSource =
  "given" | RevisionEvidence["source"] | "MCP-Protocol-Version header" | "earlier initialize result" | "assumed";

/** The HTTP exchange that carried a message, as `tap --listen` saw it. */
export type { HttpContext };

/** Who sent a line and where it belongs, when the caller (`tap`, or a `tap --log` record) knows. */
export interface LineContext {
  from: Sender;
  /** The conversation it belongs to: a `tap --listen` keeps sessions and exchanges apart. */
  conversation?: string;
  http?: HttpContext;
}

/**
 * A `tap --log` record: one message as it crossed, with who sent it (the record format is
 * recording.ts's). `schema` says the recorder found schema defects in it: lint judges it against
 * the schema again, so `lint` of a log brings back what the tap found.
 */
interface TapRecord {
  context: LineContext;
  line: Line;
  text: string | Buffer;
  schema: boolean;
}

/** What a decoded line is when it is a line of a recording rather than a message. */
type RecordingPart = { tap: TapRecord } | { skip: true } | undefined;

const EMPTY = Buffer.alloc(0);

function asRecordingPart(d: Decoded): RecordingPart {
  if (d.kind !== "invalid") return undefined;
  const r = recordOf(d.value);
  // the header and the exchanges that carried no message hold nothing to judge
  if (r.type === "header" || r.type === "exchange" || r.type === "event") return { skip: true };
  if (r.type !== "message") return undefined;
  const context: LineContext = { from: r.from };
  if (r.conversation !== undefined) context.conversation = r.conversation;
  if (r.http) context.http = r.http;
  const { line, text } = recordedLine(r);
  return { tap: { context, line, text, schema: r.defects.some((d) => d.code === "schema_invalid") } };
}

/** One conversation of a capture: its ids, its revision, and the requests of its HTTP exchanges. */
interface Thread {
  conversation: Conversation;
  revision: Revision;
  revisionSource: RevisionSource;
  messages: number;
  /** Request ids the client sent in each HTTP exchange, for an answer that carries no id. */
  exchanges: BoundedMap<number, RequestId[]>;
}

/**
 * What a message is held to the schema by: its text (for a judge on another thread), its decoded
 * value (for one on this), and the options of `validate`. `answer`: an answer, whose
 * `schema_envelope_only` says nothing its conversation defect does not. `refusalWithoutId`: a
 * transport's refusal, whose missing id the schema must not hold against it.
 */
export interface SchemaQuestion {
  readonly text: string | Buffer;
  readonly value: unknown;
  readonly options: ValidateOptions;
  readonly answer: boolean;
  readonly refusalWithoutId: boolean;
}

/** A message judged but for its schema (see `Linter.lineDeferred`). */
export interface DeferredRecord {
  /** Every defect but the schema's; complete only once settled. */
  readonly record: LintRecord;
  readonly question?: SchemaQuestion;
  /** Puts the schema's defects (what `validate` found for `question`; `[]` without one) in the record, and counts it. */
  settle(found: readonly Defect[]): LintRecord;
}

/** A judged message and where its schema's defects go among its others. */
interface Judged {
  readonly record: LintRecord;
  readonly at: number;
  readonly question?: SchemaQuestion;
}

function schemaQuestion(
  t: Thread,
  text: string | Buffer,
  value: unknown,
  kind: MessageKind,
  sender: Sender,
  refusalWithoutId: boolean,
): SchemaQuestion {
  const answer = kind === "result" || kind === "error";
  const method = answer ? t.conversation.answeredMethod(value, sender) : undefined;
  const options = method === undefined ? { revision: t.revision } : { revision: t.revision, method };
  return { text, value, options, answer, refusalWithoutId };
}

/** What `validate` found for `q`, less what the conversation already says. */
function schemaAnswer(q: SchemaQuestion, found: readonly Defect[]): Defect[] {
  return found.filter(
    (d) =>
      // an answer to no request seen is a conversation defect already: that its result was
      // judged by the envelope alone adds nothing here
      !(q.answer && d.code === "schema_envelope_only") &&
      // the allowance a refusal has for its id, for the schema's `id` (a RequestId, never null)
      !(q.refusalWithoutId && d.path === "/id"),
  );
}

function revisionUnknown(t: Thread, unknown: { version: string; path: string }): Defect {
  return defect(
    "revision_unknown",
    unknown.path,
    `names protocol version ${JSON.stringify(unknown.version)}, which mcp-wire does not know: judged as ${t.revision} (${t.revisionSource === "assumed" ? "assumed" : `from the ${t.revisionSource}`}); pass --revision`,
  );
}

/** Conversations followed at once; past it the oldest is forgotten (a log of any length stays bounded). */
const MAX_THREADS = 10_000;

export class Linter {
  private readonly main: Thread;
  private readonly threads = new BoundedMap<string, Thread>(MAX_THREADS, (_, t) => this.retire(t));
  /** How conversations no longer followed were judged: description → how many. */
  private readonly retired = new Map<string, number>();
  /** The revision the latest `initialize` settled on: a conversation that opens without one (a stateless server) speaks it too. */
  private settled: Revision | undefined;
  private named = 0;
  private lineNo = 0;
  private readonly s: LintSummary;

  constructor(private readonly options: LintOptions = {}) {
    this.main = this.thread();
    this.s = {
      messages: 0,
      clean: 0,
      withWarnings: 0,
      withErrors: 0,
      blank: 0,
      crlf: 0,
      revision: this.main.revision,
      revisionSource: this.main.revisionSource,
    };
  }

  private thread(http?: HttpContext): Thread {
    let revision: Revision = this.options.revision ?? LATEST_REVISION;
    let revisionSource: RevisionSource = this.options.revision ? "given" : "assumed";
    if (!this.options.revision) {
      const header = http?.protocolVersion?.trim();
      if (header !== undefined && isRevision(header)) {
        revision = header;
        revisionSource = "MCP-Protocol-Version header";
      } else if (this.settled) {
        revision = this.settled;
        revisionSource = "earlier initialize result";
      }
    }
    return {
      conversation: new Conversation({ revision }),
      revision,
      revisionSource,
      messages: 0,
      exchanges: new BoundedMap(1024),
    };
  }

  get summary(): Readonly<LintSummary> {
    return this.s;
  }

  /**
   * Judges the next line of the capture. `from` is for a caller that knows who sent the line
   * (`tap`): the line is then the message itself, never read as a `tap --log` record.
   */
  line(line: Line, from?: Sender | LineContext): LintRecord {
    return this.read(line, from) ?? this.judgedHere(this.judge(this.lineNo, line, line.bytes, undefined));
  }

  /**
   * `line`, except that a line of a recording that holds no message (its header, an HTTP
   * exchange without a body) is skipped: undefined, and not counted.
   */
  read(line: Line, from?: Sender | LineContext): LintRecord | undefined {
    const n = ++this.lineNo;
    const context = typeof from === "string" ? { from } : from;
    if (context !== undefined || line.overflow || isBlank(line.bytes))
      return this.judgedHere(this.judge(n, line, line.bytes, context));
    const decoded = decode(line.bytes, { revision: this.main.revision, maxBytes: this.maxBytes });
    const part = asRecordingPart(decoded);
    if (part && "skip" in part) return undefined;
    if (!part) return this.judgedHere(this.judge(n, line, line.bytes, undefined, decoded));
    const tap = part.tap;
    if (line.crlf) tap.line.crlf = true;
    return this.judgedHere(this.judge(n, tap.line, tap.text, tap.context, undefined, tap.schema));
  }

  /** How a conversation is judged so far; undefined for one not seen (or forgotten). */
  revisionOf(conversation: string): { revision: Revision; revisionSource: RevisionSource } | undefined {
    const t = this.threads.get(conversation);
    return t ? { revision: t.revision, revisionSource: t.revisionSource } : undefined;
  }

  /** A conversation that has ended: its state is dropped, its revision kept for the summary. */
  end(conversation: string): void {
    const t = this.threads.get(conversation);
    if (!t) return;
    this.threads.delete(conversation);
    this.retire(t);
  }

  private retire(t: Thread): void {
    if (t.messages === 0) return;
    const key = describe(t);
    this.retired.set(key, (this.retired.get(key) ?? 0) + 1);
  }

  /** `revision 2025-11-25 (from the initialize request)`, or how many conversations each way. */
  revisions(): string {
    const seen = new Map(this.retired);
    const live = [this.main, ...this.threads.values()];
    for (const t of live) {
      if (t.messages === 0) continue;
      const key = describe(t);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    if (seen.size === 0) return `revision ${describe(this.main)}`;
    const parts = [...seen].map(([k, n]) => (n === 1 ? k : `${k} × ${n}`));
    return `${seen.size === 1 && [...seen.values()][0] === 1 ? "revision" : "conversations judged by revision"} ${parts.join(", ")}`;
  }

  private threadOf(context: LineContext | undefined): Thread {
    const key = context?.conversation;
    if (key === undefined) return this.main;
    let t = this.threads.get(key);
    if (!t) {
      t = this.thread(context?.http);
      this.threads.set(key, t);
      this.s.conversations = ++this.named;
    }
    return t;
  }

  private get maxBytes(): number {
    return this.options.maxLineBytes ?? DEFAULT_MAX_BYTES;
  }

  /**
   * Judges the next message a caller knows the sender of (`tap`), leaving its schema to the
   * caller: the record holds every other defect, and `settle` adds the schema's and counts it.
   * `question` is what to hold to the schema (absent when there is nothing to: `settle([])`).
   */
  lineDeferred(line: Line, from: Sender | LineContext): DeferredRecord {
    const n = ++this.lineNo;
    const judged = this.judge(n, line, line.bytes, typeof from === "string" ? { from } : from);
    return {
      record: judged.record,
      ...(judged.question !== undefined ? { question: judged.question } : {}),
      settle: (found) => this.settle(judged, found),
    };
  }

  /** The schema's defects (`found`, from `validate`) put in their place in the record, which is counted. */
  private settle(judged: Judged, found: readonly Defect[]): LintRecord {
    const { record, question, at } = judged;
    if (question !== undefined) {
      const schema = schemaAnswer(question, found);
      if (schema.length > 0) record.defects.splice(at, 0, ...schema);
    }
    return record.kind === "blank" ? record : this.count(record);
  }

  /** A judged message, its schema judged here and now. */
  private judgedHere(judged: Judged): LintRecord {
    const q = judged.question;
    return this.settle(judged, q === undefined ? [] : validate(q.value, q.options));
  }

  private judge(
    n: number,
    line: Line,
    text: string | Buffer,
    context: LineContext | undefined,
    decoded?: Decoded,
    recordedSchema = false,
  ): Judged {
    if (line.crlf) this.s.crlf++;
    const from = context?.from;
    const withFrom = (record: LintRecord): LintRecord => {
      if (from) record.from = from;
      return record;
    };
    if (line.overflow) {
      const message = `a line of ${line.size} bytes, over the ${this.maxBytes}-byte limit: not parsed`;
      return { record: withFrom({ line: n, kind: "invalid", defects: [defect("too_large", "", message)] }), at: 1 };
    }
    if (isBlank(line.bytes)) {
      this.s.blank++;
      return { record: withFrom({ line: n, kind: "blank", defects: [] }), at: 0 };
    }
    const t = this.threadOf(context);
    t.messages++;
    if (decoded !== undefined && t.revision !== this.main.revision) decoded = undefined;
    decoded = this.adoptRevision(t, decoded ?? decode(text, this.decodeOptions(t.revision, from)), text, from);
    // A plain capture has no direction: the conversation tells who sent what (see senderOf).
    let value = decoded.message ?? decoded.value;
    const sender = from ?? t.conversation.senderOf(value);
    // a result type an extension adds is judged again once the exchange shows the extension in force
    if (decoded.defects.some((d) => d.code === "result_type_unknown")) {
      const extensions = t.conversation.extensionsFor(value, sender);
      if (extensions.length > 0) {
        decoded = decode(text, { ...this.decodeOptions(t.revision, from), extensions });
        value = decoded.message ?? decoded.value;
      }
    }
    const http = context?.http;
    let answers: RequestId[] | undefined;
    if (http?.exchange !== undefined) {
      if (sender === "client") {
        const ids = requestIds(value);
        if (ids.length > 0) t.exchanges.set(http.exchange, ids);
      } else if (http.status !== undefined && http.status >= 400) {
        // an HTTP error status may carry "a JSON-RPC error response that has no id"
        // (transports): it answers what that exchange's POST sent
        answers = t.exchanges.get(http.exchange) ?? [];
      }
    }
    // An error on an HTTP error status is the transport's refusal, and the status says what a
    // legacy-range code (-32000) cannot: a client acts on the 400, so that code is no trap there;
    // a missing or null id is what the transport allows such a body.
    const refusal = answers !== undefined && decoded.kind === "error";
    const own = refusal
      ? decoded.defects.filter(
          (d) => d.code !== "error_code_legacy" && !(noId(value) && (d.code === "id_null" || d.code === "id_missing")),
        )
      : decoded.defects;
    const judgeSchema =
      (this.options.schema ?? recordedSchema) && t.revisionSource !== "assumed" && decoded.kind !== "invalid";
    // asked before the conversation sees the message: an answer closes the request it answers
    const question =
      judgeSchema && text.length <= SCHEMA_BUDGET_BYTES
        ? schemaQuestion(t, text, value, decoded.kind, sender, refusal && noId(value))
        : undefined;
    const schema = judgeSchema && question === undefined ? [notJudged(text.length)] : [];
    const defects = own.concat(t.conversation.observe(decoded, sender, answers ? { answers } : {}), schema);
    const at = defects.length;
    const unknown = this.options.revision ? undefined : unknownVersion(decoded);
    if (unknown) defects.push(revisionUnknown(t, unknown));
    return { record: withFrom({ line: n, kind: decoded.kind, defects }), at, ...(question ? { question } : {}) };
  }

  private decodeOptions(revision: Revision, from: Sender | undefined): DecodeOptions {
    return { revision, maxBytes: this.maxBytes, ...(from ? { role: from } : {}) };
  }

  /** `t` takes up the revision `decoded` shows, unless one was given; `decoded` again by it when it changed. */
  private adoptRevision(t: Thread, decoded: Decoded, text: string | Buffer, from: Sender | undefined): Decoded {
    if (!this.options.revision) {
      const evidence = revisionEvidence(decoded);
      if (
        evidence &&
        (evidence.revision !== t.revision ||
          t.revisionSource === "assumed" ||
          t.revisionSource === "earlier initialize result" ||
          t.revisionSource === "MCP-Protocol-Version header")
      ) {
        t.revision = evidence.revision;
        t.revisionSource = evidence.source;
        t.conversation.revision = evidence.revision;
        decoded = decode(text, this.decodeOptions(evidence.revision, from));
      }
      if (evidence?.source === "initialize result") this.settled = evidence.revision;
    }
    this.s.revision = t.revision;
    this.s.revisionSource = t.revisionSource;
    return decoded;
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

/**
 * Messages larger than this are not held to the schema: judging runs on the tap's forwarding
 * path, and its cost grows with the message, so past this size the tap says it did not judge.
 */
const SCHEMA_BUDGET_BYTES = 1024 * 1024;

function notJudged(size: number): Defect {
  return defect(
    "schema_not_judged",
    "",
    `a message of ${size} bytes is not held to the schema: over the ${SCHEMA_BUDGET_BYTES}-byte budget of schema validation`,
  );
}

/** How one conversation was judged, for a summary. */
function describe(t: { revision: Revision; revisionSource: RevisionSource }): string {
  return `${t.revision} (${howChosen(t.revisionSource)})`;
}

function howChosen(source: RevisionSource): string {
  return source === "given"
    ? "as given"
    : source === "assumed"
      ? "assumed: no initialize or _meta seen"
      : `from the ${source}`;
}

function noId(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const id = (v as { id?: unknown }).id;
  return id === undefined || id === null;
}

/** The ids of the requests in a message (or a batch). */
function requestIds(v: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(v) ? v : [v]) {
    if (typeof m !== "object" || m === null) continue;
    const o = m as Record<string, unknown>;
    if (typeof o.method === "string" && (typeof o.id === "string" || typeof o.id === "number")) ids.push(o.id);
  }
  return ids;
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
    if (m.method === "initialize" && unknown(params.protocolVersion))
      return { version: params.protocolVersion, path: "/params/protocolVersion" };
    const meta = params._meta as Record<string, unknown> | undefined;
    const v = meta && typeof meta === "object" ? meta[META_PROTOCOL_VERSION] : undefined;
    if (unknown(v)) return { version: v, path: `/params/_meta/${pointerToken(META_PROTOCOL_VERSION)}` };
  } else if (d.kind === "result") {
    const r = m.result as Record<string, unknown>;
    if (unknown(r.protocolVersion) && (r.serverInfo !== undefined || r.capabilities !== undefined))
      return { version: r.protocolVersion, path: "/result/protocolVersion" };
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
 * The input is not a capture of newline-delimited JSON-RPC at all (a program, a database,
 * prose): linting it line by line would bury that in one defect a line. `message` says what it
 * looks like instead, in a few words ("an SQLite database").
 */
export class NotACaptureError extends Error {
  override readonly name = "NotACaptureError";
  readonly code = "ERR_MCP_WIRE_NOT_A_CAPTURE";
}

/** Lines that must all fail to look like JSON before the input is judged not to be a capture. */
const SNIFF_LINES = 5;
/** The first bytes looked at for a binary file's signature or a NUL byte. */
const SNIFF_BYTES = 8192;

/** Blank lines held back at most while undecided, so that the records waiting stay few. */
const MAX_BLANKS = 1000;

/** File signatures a person may hand lint by mistake, and what to call them. */
const SIGNATURES: [prefix: Buffer, what: string][] = [
  [Buffer.from("SQLite format 3\0", "latin1"), "an SQLite database"],
  [Buffer.from("PGDMP", "latin1"), "a PostgreSQL dump"],
  [Buffer.from([0x7f, 0x45, 0x4c, 0x46]), "a program (ELF)"],
  [Buffer.from([0x1f, 0x8b]), "gzip-compressed (decompress it first: gunzip -c FILE | mcp-wire lint)"],
  [Buffer.from("PK\x03\x04", "latin1"), "a ZIP archive"],
  [Buffer.from("%PDF-", "latin1"), "a PDF document"],
  [Buffer.from([0x89, 0x50, 0x4e, 0x47]), "a PNG image"],
];

/**
 * Decides, from the first bytes and the first few lines, whether the input is a capture: a
 * binary signature or a NUL byte (which no JSON text holds) says no at once; otherwise the first
 * line that looks like JSON says yes, and SNIFF_LINES lines that do not say no. A capture of a
 * server that logs to stdout still opens with JSON within its first lines.
 */
class CaptureSniffer {
  private head = Buffer.alloc(0);
  private lines = 0;
  private blanks = 0;
  /** Undefined while undecided; null for a capture; else why it is none. */
  verdict: string | null | undefined;

  chunk(bytes: Buffer): void {
    if (this.verdict !== undefined || this.head.length >= SNIFF_BYTES) return;
    this.head = Buffer.concat([this.head, bytes.subarray(0, SNIFF_BYTES - this.head.length)]);
    for (const [prefix, what] of SIGNATURES) {
      if (this.head.length >= prefix.length && this.head.subarray(0, prefix.length).equals(prefix))
        return void (this.verdict = `it is ${what}`);
    }
    if (this.head.includes(0)) this.verdict = "it holds binary data (NUL bytes), not text";
  }

  line(line: Line): void {
    if (this.verdict !== undefined) return;
    const bytes = line.overflow ? (line.prefix ?? EMPTY) : line.bytes;
    const text = bytes.toString("utf8").trim();
    // blank lines say nothing either way; a great many of them are linted as what they are
    if (text === "") return void (++this.blanks >= MAX_BLANKS && (this.verdict = null));
    if (looksLikeJson(text)) return void (this.verdict = null);
    if (++this.lines >= SNIFF_LINES) this.verdict = `its first ${SNIFF_LINES} lines are not JSON`;
  }

  /** The input ended while undecided: lines, none of them JSON, are no capture; nothing at all is an empty one. */
  end(): void {
    if (this.verdict === undefined) this.verdict = this.lines > 0 ? `no line of it is JSON` : null;
  }
}

function looksLikeJson(text: string): boolean {
  if (text.startsWith("{") || text.startsWith("[")) return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lints a whole stream, calling `onRecord` for each line; `onRecord` may return a promise
 * (output back-pressure), and reading waits for it. Input that is not a capture at all is
 * refused within its first lines with `NotACaptureError`, before any record is handed on.
 */
export async function lintStream(
  input: Readable,
  options: LintOptions,
  onRecord: (record: LintRecord) => void | Promise<void>,
): Promise<LintSummary> {
  const linter = new Linter(options);
  const ready: LintRecord[] = [];
  const sniffer = new CaptureSniffer();
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_BYTES, (line) => {
    sniffer.line(line);
    const r = linter.read(line);
    if (r) ready.push(r);
  });
  const flush = async () => {
    // records wait until the input is known to be a capture
    if (sniffer.verdict === undefined) return;
    if (sniffer.verdict !== null) throw new NotACaptureError(sniffer.verdict);
    for (const r of ready.splice(0)) {
      const wait = onRecord(r);
      if (wait) await wait;
    }
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    sniffer.chunk(bytes);
    // a binary file is refused before its first line is split
    if (sniffer.verdict) await flush();
    splitter.push(bytes);
    await flush();
  }
  splitter.end();
  sniffer.end();
  await flush();
  return linter.summary;
}

/** `12 messages: 9 clean, 2 with warnings, 1 with errors`, and what else a reader should know. */
export function summaryLine(s: LintSummary): string {
  const parts = [
    `${s.messages} message${s.messages === 1 ? "" : "s"}: ${s.clean} clean, ${s.withWarnings} with warnings, ${s.withErrors} with errors`,
  ];
  const notes: string[] = [];
  if (s.blank) notes.push(`${s.blank} blank line${s.blank === 1 ? "" : "s"} skipped`);
  if (s.crlf) notes.push(`${s.crlf} line${s.crlf === 1 ? "" : "s"} ended in \\r\\n (read as \\n)`);
  const how =
    s.revisionSource === "assumed"
      ? "assumed: no initialize or _meta seen; pass --revision"
      : howChosen(s.revisionSource);
  notes.push(
    s.conversations
      ? `${s.conversations} conversation${s.conversations === 1 ? "" : "s"}, each judged on its own; the last by revision ${s.revision} (${how})`
      : `revision ${s.revision} (${how})`,
  );
  return `${parts[0]} — ${notes.join("; ")}`;
}
