/**
 * Opening an MCP server by URL, as the 2026-07-28 specification tells a dual-era client to:
 * a modern request first; `initialize` over Streamable HTTP on a 4xx without a modern error
 * body; the deprecated HTTP+SSE transport if that too is refused with 400, 404 or 405; a 401
 * read for where to sign in (sign-in.ts). What
 * worked is remembered per origin (the era is a property of the server) and tried first next
 * time, with a full detection again if it no longer works.
 */
import { BoundedMap } from "../codec/bounded.js";
import { HttpError } from "../transport/http/error.js";
import { StreamableHttpTransport, type HttpClientOptions } from "../transport/http/client.js";
import { SseClientTransport } from "../transport/http/sse-client.js";
import type { Revision } from "../rules/revisions.js";
import type { Transport } from "../peer/transport.js";
import { McpClient, type ClientOptions } from "./client.js";
import { withSignIn } from "./sign-in.js";

export type HttpTransportName = "streamable-http" | "http+sse";

export interface HttpConnectOptions<R extends Revision = Revision> extends ClientOptions<R>, HttpClientOptions {
  /** Use only this HTTP transport. Default: detect. */
  transport?: HttpTransportName;
  /** Detect afresh, and leave the per-origin memory of what worked as it was. */
  fresh?: boolean;
  /**
   * On a 401, read the protected-resource metadata for where to sign in (see sign-in.ts).
   * Default true; a tool that walks the sign-in chain itself, under its own guard (probe,
   * check), turns it off.
   */
  readSignIn?: boolean;
  /** Sees each channel opened before the client does (`check` records every message through it). */
  wrap?: (transport: Transport) => Transport;
  /**
   * Where what worked is remembered per origin. Default: one memory shared by the process; a
   * program (or a test) that wants its own passes `new Map()`.
   */
  eras?: HttpEraMemory;
}

/** What worked for an origin: the transport and the revision the server spoke. */
export interface HttpEra {
  transport: HttpTransportName;
  revision: Revision;
}

/** The per-origin memory `connectHttp` reads and writes: a `Map` will do. */
export interface HttpEraMemory {
  get(origin: string): HttpEra | undefined;
  set(origin: string, era: HttpEra): unknown;
  delete(origin: string): unknown;
}

export interface HttpConnection<R extends Revision = Revision> {
  client: McpClient<R>;
  transport: HttpTransportName;
}

/**
 * What worked, per origin. A program may open thousands of origins in its life (a census does,
 * with `fresh`, which neither reads nor adds to this): the oldest are forgotten past a bound.
 */
const remembered = new BoundedMap<string, HttpEra>(4096);

/** Forgets what worked for every origin in the process's shared memory (tests that use it). */
export function forgetHttpEras(): void {
  remembered.clear();
}

export async function connectHttp<R extends Revision = Revision>(
  url: string,
  options: HttpConnectOptions<R> = {},
): Promise<HttpConnection<R>> {
  if (options.fresh) return detect(url, options);
  const origin = new URL(url).origin;
  const eras = options.eras ?? remembered;
  const known = options.revision || options.transport ? undefined : eras.get(origin);
  if (known) {
    try {
      return (await open(url, known.transport, { ...options, revision: known.revision })) as HttpConnection<R>;
    } catch {
      eras.delete(origin); // the server changed: detect again
    }
  }
  const connection = await detect(url, options);
  eras.set(origin, { transport: connection.transport, revision: connection.client.revision });
  return connection;
}

async function detect<R extends Revision>(url: string, options: HttpConnectOptions<R>): Promise<HttpConnection<R>> {
  if (options.transport) return open(url, options.transport, options);
  try {
    return await open(url, "streamable-http", options);
  } catch (e) {
    if (
      !(e instanceof HttpError) ||
      e.step !== "initialize" ||
      (e.status !== 400 && e.status !== 404 && e.status !== 405)
    )
      throw e;
    try {
      return await open(url, "http+sse", options);
    } catch {
      throw e; // the Streamable HTTP refusal is the better evidence of what is wrong
    }
  }
}

async function open<R extends Revision>(
  url: string,
  transport: HttpTransportName,
  options: HttpConnectOptions<R>,
): Promise<HttpConnection<R>> {
  const connector = () => {
    const channel =
      transport === "http+sse" ? new SseClientTransport(url, options) : new StreamableHttpTransport(url, options);
    return options.wrap ? options.wrap(channel) : channel;
  };
  // HTTP+SSE carries only the legacy era: initialize at once, accepting any legacy revision
  try {
    const client = await McpClient.connect(
      connector,
      transport === "http+sse" && !options.revision ? { ...options, legacyOnly: true } : options,
    );
    return { client, transport };
  } catch (e) {
    // a server that wants sign-in: the error says where, from the metadata it publishes
    if (e instanceof HttpError && e.status === 401 && options.readSignIn !== false)
      throw await withSignIn(e, options.lookup);
    throw e;
  }
}
