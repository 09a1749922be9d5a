/**
 * Every message of one conversation judged as `tap` judges it: the codec (`decode`), the rules
 * across messages (`Conversation`), and the official `schema.json` of the revision the message
 * was sent in. The revision is learned as the conversation goes: an `initialize` is judged by the
 * version it asks for, what follows by the version the server answered, and a 2026-07-28 request
 * by the version its `_meta` names (a dual-era client's `server/discover` is judged as 2026-07-28).
 */
import { cleanKind, isPlainObject } from "../codec/clean.js";
import { Conversation, type Sender } from "../codec/conversation.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, decode, type Decoded } from "../codec/decode.js";
import type { Defect } from "../codec/defects.js";
import { exceedsDepth, shallowText } from "../codec/depth.js";
import type { Message } from "../codec/message.js";
import { validate } from "../schema/validate.js";
import { LATEST_LEGACY_REVISION, META_PROTOCOL_VERSION, RULES, isRevision, type Revision } from "../rules/revisions.js";

/** Ids each side's memory keeps: a flooding client cannot grow it. */
const REMEMBER = 10_000;

export interface Judged {
  readonly decoded: Decoded;
  readonly defects: Defect[];
  readonly revision: Revision;
}

export class Judge {
  private readonly conversation: Conversation;

  constructor(revision: Revision = LATEST_LEGACY_REVISION) {
    this.conversation = new Conversation({ revision, remember: REMEMBER });
  }

  get revision(): Revision {
    return this.conversation.revision;
  }

  /**
   * Judges one message from `from`; only the client's are scored, the server's keep the
   * conversation's state. `maxBytes` is the transport's cap, so the peer can take the verdict as
   * its own instead of reading the message again.
   */
  message(text: string, from: Sender, maxBytes = DEFAULT_MAX_BYTES): Judged {
    let revision = this.conversation.revision;
    let decoded = decode(text, { revision, role: from, maxBytes });
    const sentIn = from === "client" ? revisionOf(decoded.message) : undefined;
    if (sentIn !== undefined && sentIn !== revision) {
      // the message names another revision (an initialize, a 2026-07-28 _meta): judged by it
      this.conversation.revision = revision = sentIn;
      decoded = decode(text, { revision, role: from, maxBytes });
    }
    const message = decoded.message ?? decoded.value;
    const answered = this.conversation.answeredMethod(message, from);
    // `observe` gives a list of its own: the decoder's stays as the peer reads it
    const observed = this.conversation.observe(decoded, from);
    const defects = decoded.defects.length === 0 ? observed : [...decoded.defects, ...observed];
    if (from === "client" && decoded.kind !== "invalid" && decoded.message !== undefined) {
      const schema = validate(decoded.message, answered ? { revision, method: answered } : { revision });
      for (const d of schema) defects.push(d);
    }
    if (from === "server" && answered === "initialize") this.learnFromInitialize(message);
    return { decoded, defects, revision };
  }

  /**
   * Judges a message the server itself wrote, `text` being `message` as the peer's encoder wrote
   * it. A single message the rules find clean is what decoding `text` would give, so it is not
   * read again; anything else (a batch, a rewrite, a message with a finding) is read as any is.
   */
  own(text: string, message: Message | readonly Message[] | undefined): Judged {
    const revision = this.conversation.revision;
    if (!isPlainObject(message) || !ownIsClean(text, message)) return this.message(text, "server");
    const kind = cleanKind(message, RULES[revision], "server");
    if (kind === undefined) return this.message(text, "server");
    const decoded = { kind, message, defects: [] } as unknown as Decoded;
    const answered = this.conversation.answeredMethod(message, "server");
    const defects = this.conversation.observe(decoded, "server");
    if (answered === "initialize") this.learnFromInitialize(message);
    return { decoded, defects, revision };
  }

  private learnFromInitialize(message: unknown): void {
    const version = (message as { result?: { protocolVersion?: unknown } } | undefined)?.result?.protocolVersion;
    if (isRevision(version)) this.conversation.revision = version;
  }
}

/**
 * Whether decoding `text` could find nothing the message object does not show: no byte-order
 * mark, not past the size cap, not past the depth cap (measured as `decode` measures it).
 */
function ownIsClean(text: string, message: Record<string, unknown>): boolean {
  if (text.charCodeAt(0) === 0xfeff) return false;
  if (text.length * 3 > DEFAULT_MAX_BYTES && Buffer.byteLength(text, "utf8") > DEFAULT_MAX_BYTES) return false;
  return shallowText(text, DEFAULT_MAX_DEPTH) || !exceedsDepth(message, DEFAULT_MAX_DEPTH);
}

/** The revision a client message says it was sent in, if it says. */
function revisionOf(message: unknown): Revision | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const m = message as { method?: unknown; params?: { protocolVersion?: unknown; _meta?: Record<string, unknown> } };
  const meta = m.params?._meta?.[META_PROTOCOL_VERSION];
  if (isRevision(meta)) return meta;
  if (m.method === "server/discover") return "2026-07-28";
  if (m.method === "initialize" && isRevision(m.params?.protocolVersion)) return m.params.protocolVersion;
  return undefined;
}
