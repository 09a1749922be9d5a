/**
 * The gauntlet server of one scenario run: the project's dual-era server core set up as the
 * scenario says, speaking the revisions both the scenario and `-r` allow, with every message
 * judged and recorded on the way in and out. Over stdio it wraps the library's line transport;
 * over HTTP, http.ts is its front.
 */
import type { Readable, Writable } from "node:stream";
import type { JsonObject, Message, RequestId } from "../codec/message.js";
import { McpServer } from "../mcp/server.js";
import type { Peer } from "../peer/peer.js";
import type { Transport, TransportSink } from "../peer/transport.js";
import { RULES, type Revision } from "../rules/revisions.js";
import { StreamTransport } from "../transport/stream.js";
import { VERSION } from "../version.js";
import { GauntletHttp } from "./http.js";
import type { ScenarioDef, WireHooks, WireKind } from "./scenario.js";
import type { Tape } from "./tape.js";
import { Witness } from "./witness.js";

/** The largest line the stdio server reads: the large result's answer is the client's to read, not ours. */
const MAX_LINE = 8 * 1024 * 1024;

export interface Core {
  readonly server: McpServer;
  readonly wire: WireHooks;
  readonly revisions: readonly Revision[];
}

/** The revisions a scenario speaks under `-r` (all it applies to when `wanted` is empty). */
export function servedRevisions(scenario: ScenarioDef, wanted: readonly Revision[]): Revision[] {
  return scenario.revisions.filter((r) => wanted.length === 0 || wanted.includes(r));
}

export function buildCore(scenario: ScenarioDef, revisions: readonly Revision[], transport: WireKind): Core {
  const server = new McpServer({
    serverInfo: { name: "mcp-wire-gauntlet", version: VERSION },
    instructions: `mcp-wire gauntlet, scenario ${scenario.id}: call each listed tool whose name starts with gauntlet_ once, with no arguments.`,
    revisions,
    ...(scenario.logging ? { logging: true } : {}),
    ...(scenario.capabilities ? { capabilities: scenario.capabilities } : {}),
  });
  const wire: WireHooks = {};
  scenario.setup({ server, wire, transport });
  return { server, wire, revisions };
}

function speaksModern(core: Core): boolean {
  return core.revisions.some((r) => RULES[r].era === "modern");
}

/** The line transport, with each message judged and recorded, and the scenario's rewrites applied. */
class WitnessedStream implements Transport {
  private readonly inner: StreamTransport;
  readonly maxMessageBytes = MAX_LINE;

  constructor(
    input: Readable,
    output: Writable,
    private readonly witness: Witness,
    private readonly wire: WireHooks,
  ) {
    this.inner = new StreamTransport(input, output, { maxLineBytes: MAX_LINE });
  }

  start(sink: TransportSink): void {
    const { witness, wire } = this;
    this.inner.start({
      message(data) {
        const text =
          typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
        const judged = witness.message(text, "client", undefined, undefined, MAX_LINE);
        // the peer takes the verdict when it would have read the message the same way
        const read = {
          decoded: judged.decoded,
          revision: judged.revision,
          role: "client" as const,
          maxBytes: MAX_LINE,
        };
        if (!wire.incoming) return sink.message(data, read);
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return sink.message(data);
        }
        sink.message(isObject(value) ? JSON.stringify(wire.incoming(value)) : text);
      },
      defect: (d, answer) => sink.defect(d, answer),
      closed: (e) => sink.closed(e),
    });
  }

  send(text: string, message?: Message | readonly Message[], _related?: RequestId): void | Promise<void> {
    const rewritten = message && !Array.isArray(message) ? this.wire.outgoing?.(message as Message) : undefined;
    if (rewritten === undefined) {
      this.witness.sent(text, message);
      this.witness.flush();
      return this.inner.send(text);
    }
    this.witness.sent(rewritten, undefined);
    this.witness.flush();
    return this.inner.send(rewritten);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Serves one stdio connection of a scenario run. */
export function serveStdio(core: Core, input: Readable, output: Writable, witness: Witness): Peer {
  return core.server.connect(new WitnessedStream(input, output, witness, core.wire));
}

/** The HTTP front of a scenario run, at `path`. */
export function serveHttp(core: Core, tape: Tape, path: string): GauntletHttp {
  return new GauntletHttp({
    server: core.server,
    wire: core.wire,
    tape,
    path,
    modern: speaksModern(core),
    legacy: core.revisions.some((r) => RULES[r].era === "legacy"),
  });
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
