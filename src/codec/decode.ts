/**
 * Text (or bytes) → a JSON-RPC message and its defects, for one MCP revision. Never throws.
 */
import { rulesWithExtensions } from "../rules/extensions.js";
import { RULES, isRevision, type Revision, type RevisionRules } from "../rules/revisions.js";
import { checkEveryRule, type Checked, type Role } from "./check.js";
import { cleanKind, isPlainObject } from "./clean.js";
import { defect, type Defect } from "./defects.js";
import { DEFAULT_MAX_DEPTH, deepUnparsed, depthBeforeParse, exceedsDepth } from "./depth.js";
import type { Message } from "./message.js";
import { cannotBeJson, TooDeepError } from "./parse.js";
import { jsonSyntaxError } from "./syntax.js";

export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
export { DEFAULT_MAX_DEPTH };

export interface DecodeOptions {
  revision: Revision;
  /** Who sent the message, when known; some rules bind only one side. */
  role?: Role;
  /** Larger inputs are `too_large` and never parsed. Default 4 MiB. */
  maxBytes?: number;
  /** Deeper nesting is `too_deep`. Default 128. */
  maxDepth?: number;
  /**
   * The ids of the extensions in force (negotiated by both sides), e.g.
   * `io.modelcontextprotocol/tasks`, which allows `resultType: "task"` on 2026-07-28. None by default.
   */
  extensions?: readonly string[];
}

/**
 * What `decode` found: a union on `kind` (see `Checked`), so `if (d.kind === "request")
 * d.message.method` type-checks as it reads. An `invalid` verdict carries the parsed JSON as
 * `value` when the text was JSON but not a sound message (for evidence).
 */
export type Decoded = Checked;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// the revision of the last call and its rules: a stream of messages is judged by one revision
let lastRevision: Revision | undefined;
let lastRules: RevisionRules | undefined;

function rulesOf(revision: unknown, extensions: readonly string[] | undefined): RevisionRules | undefined {
  if (extensions !== undefined && extensions.length > 0 && isRevision(revision)) {
    return rulesWithExtensions(revision, extensions);
  }
  if (revision === lastRevision) return lastRules;
  // not RULES[...] alone: "toString" or "__proto__" would find Object.prototype's members
  if (!isRevision(revision)) return undefined;
  lastRevision = revision;
  return (lastRules = RULES[revision]);
}

export function decode(input: string | Uint8Array, options: DecodeOptions): Decoded {
  const rules = rulesOf(options.revision, options.extensions);
  if (rules === undefined) {
    return invalid([
      defect("parse_error", "", `unknown revision ${JSON.stringify(options.revision)}: cannot judge the message`),
    ]);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let text: string;
  if (typeof input === "string") {
    text = input;
    // A UTF-16 unit is one to three UTF-8 bytes: only count bytes when the length leaves doubt.
    if (text.length * 3 > maxBytes && (text.length > maxBytes || Buffer.byteLength(text, "utf8") > maxBytes)) {
      return tooLarge(
        text.length > maxBytes ? `over ${text.length} characters` : `${Buffer.byteLength(text, "utf8")} bytes`,
        maxBytes,
      );
    }
  } else {
    if (input.byteLength > maxBytes) return tooLarge(`${input.byteLength} bytes`, maxBytes);
    try {
      text = utf8.decode(input);
    } catch {
      return invalid([
        defect("invalid_utf8", "", "the bytes are not valid UTF-8, which JSON text must be (RFC 8259 §8.1)"),
      ]);
    }
  }

  let bom: Defect | undefined;
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    bom = defect(
      "byte_order_mark",
      "",
      "starts with a UTF-8 byte-order mark, ignored here; JSON text must not carry one (RFC 8259 §8.1)",
    );
  }

  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  // measured before it is built: a deep text is refused at the cost of its bytes
  const deep = depthBeforeParse(text, maxDepth);
  if (deep === true) return refusedDeep(text, bom, maxDepth);
  let value: unknown;
  // A body that is plainly not JSON (a web page, nothing at all) is named without JSON.parse: its
  // SyntaxError, message and stack, costs more than the check, and the name does not need it.
  const plainly = text.charCodeAt(0) !== 0x7b && cannotBeJson(text) ? notJsonAtAll(text) : undefined;
  if (plainly !== undefined) return notParsed(text, bom, deep, maxDepth, plainly);
  try {
    value = JSON.parse(text);
  } catch (e) {
    return notParsed(text, bom, deep, maxDepth, parseErrorMessage(text, e));
  }

  const role = options.role;
  if (isPlainObject(value)) {
    const kind = cleanKind(value, rules, role, true);
    if (kind !== undefined) {
      // A clean message's other members are strings and numbers: only this one can nest, and
      // walking it alone spares the walk a pass over the envelope on every message.
      if (deep === undefined) {
        const inner = kind === "result" ? value.result : kind === "error" ? value.error : value.params;
        if (maxDepth < 1 || (typeof inner === "object" && inner !== null && exceedsDepth(inner, maxDepth - 1)))
          return invalid(withBom(bom, [tooDeep(maxDepth)]));
      }
      return { kind, message: value as unknown as Message, defects: bom ? [bom] : [] } as Decoded;
    }
  }
  if (deep === undefined && exceedsDepth(value, maxDepth)) return invalid(withBom(bom, [tooDeep(maxDepth)]));

  const checked: Decoded = checkEveryRule(value, rules, role);
  if (bom) checked.defects.unshift(bom);
  if (checked.kind === "invalid") checked.value = value;
  return checked;
}

/** Text that nests too deep to be parsed: too_deep if it is JSON, else where it stops being JSON. */
function refusedDeep(text: string, bom: Defect | undefined, maxDepth: number): Decoded {
  const notJson = jsonSyntaxError(text);
  return invalid(
    withBom(bom, [notJson ? defect("parse_error", "", parseErrorMessage(text, notJson)) : tooDeep(maxDepth)]),
  );
}

function tooDeep(maxDepth: number): Defect {
  return defect("too_deep", "", new TooDeepError(maxDepth).message);
}

function invalid(defects: Defect[]): Decoded {
  return { kind: "invalid", defects };
}

function tooLarge(size: string, maxBytes: number): Decoded {
  return invalid([defect("too_large", "", `${size}, over the ${maxBytes}-byte limit: not parsed`)]);
}

function withBom(bom: Defect | undefined, defects: Defect[]): Defect[] {
  return bom ? [bom, ...defects] : defects;
}

/** Text JSON.parse refused (or would): too_deep when it nests too deep, else parse_error with `message`. */
function notParsed(
  text: string,
  bom: Defect | undefined,
  deep: boolean | undefined,
  maxDepth: number,
  message: string,
): Decoded {
  if (deep === undefined && deepUnparsed(text, maxDepth)) return refusedDeep(text, bom, maxDepth);
  return invalid(withBom(bom, [defect("parse_error", "", message)]));
}

/** One line saying what the text is, since "Unexpected token <" helps nobody. */
function parseErrorMessage(text: string, error: unknown): string {
  const known = notJsonAtAll(text);
  if (known !== undefined) return known;
  // V8 quotes the text around the fault, line breaks included: a defect message is one line
  const why = error instanceof Error ? error.message.replace(/[\r\n\u2028\u2029]/g, " ").slice(0, 160) : "invalid JSON";
  return `not valid JSON: ${why}`;
}

/** What text that is not JSON at all is instead (empty, a web page, markup, SSE), when it is one of those. */
function notJsonAtAll(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (trimmed.length === 0) return "empty: no JSON at all";
  const head = trimmed.slice(0, 15).toLowerCase();
  if (
    head.startsWith("<!doctype html") ||
    head.startsWith("<html") ||
    (trimmed[0] === "<" && /<(head|body|title|div|p|h1)\b/i.test(trimmed.slice(0, 1024)))
  ) {
    return "not JSON: an HTML page";
  }
  if (trimmed[0] === "<") return "not JSON: markup (starts with <)";
  if (trimmed.startsWith("event:") || trimmed.startsWith("data:") || trimmed.startsWith("id:")) {
    return "not JSON: Server-Sent Events text";
  }
  return undefined;
}
