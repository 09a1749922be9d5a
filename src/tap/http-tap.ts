/**
 * `mcp-wire tap --listen PORT --upstream URL`: a reverse proxy on loopback for Streamable HTTP
 * (and the older HTTP+SSE). Method, path, headers (less the hop-by-hop ones) and body go to the
 * upstream as they come; status, headers and body come back the same way, an SSE stream chunk by
 * chunk as the upstream writes it. A copy of each body, capped, is judged on the side: every
 * message with the codec and its session's conversation, every request's headers against its body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_MAX_BYTES } from "../codec/decode.js";
import type { Revision } from "../rules/revisions.js";
import { redact } from "../secrets/redact.js";
import { Exchange, type TapParts } from "./http-exchange.js";
import { Upstream } from "./http-forward.js";
import { HttpJudge } from "./http-judge.js";
import { requestTarget } from "./http-target.js";
import type { TapReport } from "./report.js";

export interface HttpTapOptions {
  /** The server's endpoint; requests keep their own path and query, on its origin. */
  upstream: string;
  report: TapReport;
  /** Port on 127.0.0.1; 0 for any free one. */
  port: number;
  /** Judge by this revision; without it each conversation's revision is read from its messages. */
  revision?: Revision;
  /** Validate each message against its revision's official schema.json (`schema_invalid`). Default true. */
  schema?: boolean;
  /** Largest body (or SSE event) analysed; the pass-through itself has no limit. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Legacy sessions followed at once; past it the oldest is forgotten. Default 1,000. */
  maxSessions?: number;
  /** How long judging one message's schema may take, off the forwarding path, before it is `schema_not_judged`. Default 1 s. */
  schemaBudgetMs?: number;
}

export interface HttpTap {
  /** What the client should call instead of the upstream: the tap's origin, the upstream's path. */
  readonly url: string;
  /** The revision each conversation was judged by, for the summary: as last heard from the judging thread, final once closed. */
  revisions(): string;
  /** Stops listening and ends every open exchange. */
  close(): Promise<void>;
}

/** A URL or path for printing and logging: its secrets (a userinfo password, secret-looking query values) hidden. */
export function shown(text: string): string {
  return redact(text);
}

/**
 * Once the tap closes, the messages still being judged get as long as verdicts keep coming (a
 * busy machine judges slowly, and a record left out is a record lost) — but not 2 s without one,
 * and not 30 s in all: past that, what is left is said to be left out of the report.
 */
const JUDGING_DRAIN = { quietMs: 2000, capMs: 30_000 };

/**
 * The tap: a loopback server whose every request (one whose Host and target it serves) is an
 * exchange with the upstream, judged by one judge.
 */
class HttpTapServer implements HttpTap {
  private readonly parts: TapParts;
  private readonly server: Server;
  private exchanges = 0;
  /** The tap's own origin, once it listens. */
  private origin = "";

  constructor(options: HttpTapOptions) {
    const cap = options.maxBodyBytes ?? DEFAULT_MAX_BYTES;
    const judge = new HttpJudge(options.report, cap, {
      ...(options.revision ? { revision: options.revision } : {}),
      maxSessions: options.maxSessions ?? 1000,
      schema: options.schema ?? true,
      ...(options.schemaBudgetMs !== undefined ? { schemaBudgetMs: options.schemaBudgetMs } : {}),
    });
    this.parts = { upstream: new Upstream(options.upstream), judge, report: options.report };
    this.server = createServer((req, res) => this.serve(req, res));
  }

  /** What the client should call instead of the upstream: the tap's origin, the upstream's path. */
  get url(): string {
    return this.origin + this.parts.upstream.url.pathname + this.parts.upstream.url.search;
  }

  async listen(port: number): Promise<void> {
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  revisions(): string {
    return this.parts.judge.revisions();
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      // open SSE streams and idle keep-alive connections would hold close() open
      this.server.closeAllConnections();
    });
    this.parts.upstream.close();
    await this.parts.judge.close(JUDGING_DRAIN);
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const checked = requestTarget(req);
    if ("refused" in checked) {
      const { status, note, body } = checked.refused;
      this.parts.report.note(note);
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
      return;
    }
    // the exchange runs itself: the request's and the answer's events hold it until both are over
    new Exchange(this.parts, req, res, checked.path, ++this.exchanges);
  }
}

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  const tap = new HttpTapServer(options);
  try {
    await tap.listen(options.port);
  } catch (e) {
    await tap.close();
    throw e;
  }
  return tap;
}
