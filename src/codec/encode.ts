/**
 * A message → its JSON text, only if `decode` would find no error in it for the revision:
 * mcp-wire never puts an invalid message on the wire.
 */
import { rulesWithExtensions } from "../rules/extensions.js";
import { RULES, isRevision, type Revision } from "../rules/revisions.js";
import { checkValue, type Role } from "./check.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH } from "./decode.js";
import { defect, type Defect } from "./defects.js";
import { exceedsDepth, shallowText } from "./depth.js";
import type { Message } from "./message.js";

export interface EncodeOptions {
  revision: Revision;
  role?: Role;
  maxBytes?: number;
  maxDepth?: number;
  /** The extensions in force, as `decode` takes them: what they allow is sent. None by default. */
  extensions?: readonly string[] | undefined;
}

/** Thrown by `encode` instead of producing a message that breaks the revision's rules. */
export class EncodeError extends Error {
  readonly code = "ERR_MCP_WIRE_ENCODE";
  override readonly name = "EncodeError";
  constructor(readonly defects: readonly Defect[]) {
    super(
      `refusing to encode: ${defects.map((d) => `${d.code}${d.path ? ` at ${d.path}` : ""}: ${d.message}`).join("; ")}`,
    );
  }
}

export function encode(message: Message | readonly Message[], options: EncodeOptions): string {
  const extensions = options.extensions;
  const rules = !isRevision(options.revision)
    ? undefined
    : extensions !== undefined && extensions.length > 0
      ? rulesWithExtensions(options.revision, extensions)
      : RULES[options.revision];
  if (rules === undefined) {
    throw new EncodeError([defect("parse_error", "", `unknown revision ${JSON.stringify(options.revision)}`)]);
  }
  const checked = checkValue(message, rules, options.role);
  if (checked.defects.length > 0) {
    const errors = checked.defects.filter((d) => d.severity === "error");
    if (errors.length > 0) throw new EncodeError(errors);
  }

  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  let text: string;
  try {
    // serialised first: V8 stops a self-reference or a stack-deep value with an error of its own
    text = JSON.stringify(message);
  } catch (e) {
    if (exceedsDepth(message, maxDepth)) throw tooDeep(maxDepth);
    // BigInt: there is no JSON text for this value
    throw new EncodeError([defect("parse_error", "", `not JSON data: ${e instanceof Error ? e.message : String(e)}`)]);
  }
  // a text too short to nest past the limit needs no walk of the value (nearly every message)
  if (!shallowText(text, maxDepth) && exceedsDepth(message, maxDepth)) throw tooDeep(maxDepth);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (text.length * 3 > maxBytes && Buffer.byteLength(text, "utf8") > maxBytes) {
    throw new EncodeError([
      defect("too_large", "", `${Buffer.byteLength(text, "utf8")} bytes, over the ${maxBytes}-byte limit`),
    ]);
  }
  return text;
}

function tooDeep(maxDepth: number): EncodeError {
  return new EncodeError([defect("too_deep", "", `nests deeper than ${maxDepth} levels, or refers to itself`)]);
}
