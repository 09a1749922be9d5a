/**
 * A dual-era MCP server core: one endpoint, both eras.
 *
 * A request whose `_meta` names a protocol version is served statelessly by the 2026-07-28
 * rules (`resultType` on every result, -32022 for an unsupported version, -32021 for a missing
 * client capability). An `initialize` opens a legacy session on that connection, negotiated as
 * the legacy lifecycle says; later requests without `_meta` are served in it.
 */
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { Peer, type PeerOptions, type RequestContext } from "../peer/peer.js";
import type { Transport } from "../peer/transport.js";
import { INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION } from "../rules/error-codes.js";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  REVISIONS,
  RULES,
  isRevision,
  type Era,
  type Revision,
} from "../rules/revisions.js";
import { isObject, type Implementation } from "./meta.js";
import { ToolRegistry } from "./tools.js";

export interface ServerOptions {
  serverInfo: Implementation;
  instructions?: string;
  /** The revisions served, any order. Default: all five. */
  revisions?: readonly Revision[];
  /** Deadline for requests this server sends (none today; kept for the peer). */
  timeout?: number;
  maxInFlight?: number;
  onDefect?: PeerOptions["onDefect"];
}

/** What a handler knows about the request it serves. */
export interface ServeContext extends RequestContext {
  readonly era: Era;
  readonly revision: Revision;
  /** The client's capabilities: per request (modern) or from `initialize` (legacy). */
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: Implementation | undefined;
}

export type MethodHandler = (params: JsonObject, context: ServeContext) => unknown;

interface MethodEntry {
  handler: MethodHandler;
  /** Client capabilities the method cannot work without (modern requests get -32021). */
  requires: JsonObject | undefined;
}

/** A request's context with what the server core learned about its era. */
class Context implements ServeContext {
  constructor(
    private readonly request: RequestContext,
    readonly era: Era,
    readonly revision: Revision,
    readonly clientCapabilities: JsonObject,
    readonly clientInfo: Implementation | undefined,
  ) {}
  get id() {
    return this.request.id;
  }
  get method() {
    return this.request.method;
  }
  get signal() {
    return this.request.signal;
  }
  progress(progress: number, total?: number, message?: string) {
    return this.request.progress(progress, total, message);
  }
  notify(method: string, params?: JsonObject) {
    return this.request.notify(method, params);
  }
}

/** One connection's legacy session, if `initialize` opened one. */
interface Session {
  revision: Revision;
  clientCapabilities: JsonObject;
  clientInfo: Implementation | undefined;
}

const LIFECYCLE = new Set(["initialize", "server/discover", "ping"]);

export class McpServer {
  readonly tools = new ToolRegistry();
  private readonly methods = new Map<string, MethodEntry>();
  private readonly revisions: readonly Revision[];
  private readonly modern: readonly Revision[];
  private readonly legacy: readonly Revision[];
  private readonly serverInfoMeta: JsonObject;

  constructor(readonly options: ServerOptions) {
    const served = new Set(options.revisions ?? REVISIONS);
    // newest first: what discovery and negotiation offer
    this.revisions = [...REVISIONS].reverse().filter((r) => served.has(r));
    this.modern = this.revisions.filter((r) => RULES[r].era === "modern");
    this.legacy = this.revisions.filter((r) => RULES[r].era === "legacy");
    this.serverInfoMeta = { [META_SERVER_INFO]: options.serverInfo };
    this.method("tools/list", (params, context) => this.tools.list(params, context.era));
    this.method("tools/call", (params, context) => this.tools.call(params, context));
  }

  /** Serves another method in both eras. */
  method(name: string, handler: MethodHandler, options: { requires?: JsonObject } = {}): void {
    this.methods.set(name, { handler, requires: options.requires });
  }

  /** The capabilities this server declares, derived from what it serves. */
  get capabilities(): JsonObject {
    const caps: JsonObject = {};
    if (this.tools.size > 0) caps.tools = { listChanged: false };
    return caps;
  }

  /** Serves one connection (a stdio pipe, an in-memory pair). Returns its peer. */
  connect(transport: Transport): Peer {
    const peer = new Peer(transport, {
      revision: this.legacy[0] ?? this.modern[0]!,
      role: "server",
      ...(this.options.timeout !== undefined ? { timeout: this.options.timeout } : {}),
      ...(this.options.maxInFlight !== undefined ? { maxInFlight: this.options.maxInFlight } : {}),
      ...(this.options.onDefect ? { onDefect: this.options.onDefect } : {}),
    });
    let session: Session | undefined;

    if (this.legacy.length > 0) {
      peer.handle("initialize", (params) => {
        const p = params ?? {};
        const requested = p.protocolVersion;
        // the legacy lifecycle: echo a version we support, otherwise offer our newest
        const revision = isRevision(requested) && this.legacy.includes(requested) ? requested : this.legacy[0]!;
        session = {
          revision,
          clientCapabilities: isObject(p.capabilities) ? p.capabilities : {},
          clientInfo: isObject(p.clientInfo) ? (p.clientInfo as Implementation) : undefined,
        };
        peer.revision = revision;
        const result: JsonObject = { protocolVersion: revision, capabilities: this.capabilities, serverInfo: this.options.serverInfo };
        if (this.options.instructions) result.instructions = this.options.instructions;
        return result;
      });
      peer.handle("ping", () => ({}));
    }
    if (this.modern.length > 0) {
      peer.handle("server/discover", (params, context) =>
        this.modernCall(params, context, () => {
          const result: JsonObject = { supportedVersions: [...this.revisions], capabilities: this.capabilities, ttlMs: 60_000, cacheScope: "public" };
          if (this.options.instructions) result.instructions = this.options.instructions;
          return result;
        }),
      );
    }
    for (const [name, entry] of this.methods) {
      if (LIFECYCLE.has(name)) continue;
      peer.handle(name, (params, context) => {
        if (hasModernMeta(params) || !session) {
          return this.modernCall(params, context, (modernContext) => entry.handler(params ?? {}, modernContext), entry.requires);
        }
        return entry.handler(params ?? {}, new Context(context, "legacy", session.revision, session.clientCapabilities, session.clientInfo));
      });
    }
    return peer;
  }

  /** A stateless 2026-07-28 request: checks its `_meta`, runs it, stamps the result. */
  private modernCall(
    params: JsonObject | undefined,
    context: RequestContext,
    run: (context: ServeContext) => unknown,
    requires?: JsonObject,
  ): JsonObject | Promise<JsonObject> {
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const requested = meta?.[META_PROTOCOL_VERSION];
    if (typeof requested !== "string") {
      const legacyHint = this.legacy.length > 0 ? "; a legacy client opens with initialize instead" : "";
      throw new ResponseError(INVALID_PARAMS, `Missing _meta["${META_PROTOCOL_VERSION}"]: every request names its protocol version${legacyHint}`, { supported: [...this.revisions] });
    }
    if (!isRevision(requested) || !this.modern.includes(requested)) {
      throw new ResponseError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", { supported: [...this.revisions], requested });
    }
    const capabilities = meta![META_CLIENT_CAPABILITIES];
    if (!isObject(capabilities)) {
      throw new ResponseError(INVALID_PARAMS, `Missing _meta["${META_CLIENT_CAPABILITIES}"]: every request declares the client's capabilities ({} for none)`);
    }
    if (requires) {
      const missing = Object.keys(requires).filter((k) => capabilities[k] === undefined);
      if (missing.length > 0) {
        const requiredCapabilities = Object.fromEntries(missing.map((k) => [k, requires[k]]));
        throw new ResponseError(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: ${missing.join(", ")}`, { requiredCapabilities });
      }
    }
    const info = meta![META_CLIENT_INFO];
    const result = run(new Context(context, "modern", requested, capabilities, isObject(info) ? (info as Implementation) : undefined));
    return result instanceof Promise ? result.then((r) => this.stamp(r)) : this.stamp(result);
  }

  /** Every modern result says its type and, as the spec asks, who answered. */
  private stamp(result: unknown): JsonObject {
    const r: JsonObject = isObject(result) ? result : {};
    const meta = isObject(r._meta) ? { ...r._meta, [META_SERVER_INFO]: this.options.serverInfo } : this.serverInfoMeta;
    // one literal, no properties added afterwards: adding to a spread copy is many times slower
    return { resultType: "complete", ...r, _meta: meta };
  }
}

function hasModernMeta(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return isObject(meta) && meta[META_PROTOCOL_VERSION] !== undefined;
}
