/**
 * A scenario's recording as its scorers ask about it: the client's requests by method, the answer
 * to each, the revision the client spoke, and what came after what. Answers are matched to their
 * requests within one conversation (a stdio process, an HTTP session or exchange), since ids repeat
 * across them.
 */
import { META_PROTOCOL_VERSION, isRevision, type Revision } from "../rules/revisions.js";
import type { Entry } from "./tape.js";
import type { WireKind } from "./scenario.js";

interface Msg {
  id?: unknown;
  method?: unknown;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown };
}

export function msg(e: Entry): Msg | undefined {
  const v = e.value;
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Msg) : undefined;
}

export class View {
  /** The client's messages, in order. */
  readonly client: readonly Entry[];

  constructor(
    readonly entries: readonly Entry[],
    readonly transport: WireKind,
    /** The revision the run was bound to (`-r`), if any. */
    readonly bound: Revision | undefined,
  ) {
    this.client = entries.filter((e) => e.record.from === "client" && e.record.line !== undefined);
  }

  /** The client's requests, of `method` when given. */
  requests(method?: string): Entry[] {
    return this.client.filter((e) => {
      const m = msg(e);
      return (
        m !== undefined &&
        m.id !== undefined &&
        typeof m.method === "string" &&
        (method === undefined || m.method === method)
      );
    });
  }

  /** The client's notifications of `method`. */
  notifications(method: string): Entry[] {
    return this.client.filter((e) => {
      const m = msg(e);
      return m !== undefined && m.id === undefined && m.method === method;
    });
  }

  /** The client's tool calls of `name`. */
  calls(name?: string): Entry[] {
    return this.requests("tools/call").filter((e) => name === undefined || msg(e)?.params?.name === name);
  }

  /** The server's requests of `method`. */
  serverRequests(method: string): Entry[] {
    return this.entries.filter((e) => {
      if (e.record.from !== "server") return false;
      const m = msg(e);
      return m !== undefined && m.id !== undefined && m.method === method;
    });
  }

  /** The answer from the other side to the request `e`, in its conversation. */
  answerTo(e: Entry): Entry | undefined {
    const id = msg(e)?.id;
    const from = e.record.from === "client" ? "server" : "client";
    return this.entries.find(
      (a) =>
        a.line > e.line &&
        a.record.from === from &&
        a.record.conversation === e.record.conversation &&
        sameId(msg(a), id) &&
        msg(a)?.method === undefined,
    );
  }

  /** The client's requests after line `line`, in the same conversation as `e` when given. */
  requestsAfter(line: number, e?: Entry): Entry[] {
    return this.requests().filter(
      (r) => r.line > line && (e === undefined || r.record.conversation === e.record.conversation),
    );
  }

  /** The revision the client spoke: the `initialize` answer's version, or a 2026-07-28 request's `_meta`. */
  revision(): Revision | undefined {
    for (const e of this.entries) {
      const m = msg(e);
      const meta = m?.params?._meta?.[META_PROTOCOL_VERSION];
      if (e.record.from === "client" && m?.method !== "server/discover" && isRevision(meta) && meta === "2026-07-28")
        return meta;
      if (e.record.from === "server" && m?.result !== undefined && typeof m.result.protocolVersion === "string") {
        const v = m.result.protocolVersion;
        if (isRevision(v)) return v;
      }
    }
    return undefined;
  }

  /**
   * Whether the client spoke 2026-07-28: no `initialize` opened a session. A dual-era client
   * whose `server/discover` went unanswered past its probe timeout sends `initialize` (the
   * fallback 2026-07-28 stdio asks for); a modern server refuses that one, and the conversation
   * stays modern.
   */
  modern(): boolean {
    return (
      this.revision() === "2026-07-28" &&
      !this.requests("initialize").some((e) => {
        const answer = this.answerTo(e);
        return answer !== undefined && msg(answer)?.result !== undefined;
      })
    );
  }

  /** The first `clientInfo` the client sent. */
  clientInfo(): { name: string; version: string } | undefined {
    for (const e of this.client) {
      const p = msg(e)?.params;
      const info = p?.clientInfo ?? p?._meta?.["io.modelcontextprotocol/clientInfo"];
      if (typeof info === "object" && info !== null) {
        const { name, version } = info as { name?: unknown; version?: unknown };
        if (typeof name === "string") return { name, version: typeof version === "string" ? version : "" };
      }
    }
    return undefined;
  }
}

function sameId(m: Msg | undefined, id: unknown): boolean {
  return m !== undefined && m.id === id && id !== undefined;
}
