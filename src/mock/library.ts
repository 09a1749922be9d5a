/**
 * `mockServer`: a recording played to a client in the same process — over an in-memory
 * transport (`transport()`, a new session each call) or over loopback HTTP (`url`) for clients
 * that speak HTTP (the official SDKs, `@ai-sdk/mcp`). `close()` says which requests no recording
 * answered, so a test can fail on them.
 */
import type { Transport } from "../peer/transport.js";
import { createMemoryPair } from "../transport/memory.js";
import { MockHttpServer } from "./http.js";
import type { MatchMode } from "./match.js";
import { MockPlayer, type UnmatchedRequest } from "./player.js";
import { openScript } from "./script.js";

export interface MockServerOptions {
  /** How requests find their recorded answers. Default "exact". */
  match?: MatchMode;
  /** Also serve over HTTP on 127.0.0.1 (a free port): `url` is then set. */
  http?: boolean;
}

export interface MockServer {
  /** The endpoint to connect to, with `http: true`. */
  url?: string;
  /** A transport for the library's client, connected to a new session of the mock. */
  transport(): Transport;
  /** Stops serving; resolves with the requests no recording answered. */
  close(): Promise<{ unmatched: UnmatchedRequest[] }>;
}

export type { UnmatchedRequest };

/**
 * Serves the recording in `file`, answering while the rest of a long file is read; rejects with a
 * `RecordingError` when it is not one this build can play (not a recording, cut off at its end, a
 * FIFO). What a file holds wrong further on (an invalid line, ids that collide) makes `close()`
 * reject with its `RecordingError`.
 */
export async function mockServer(file: string, options: MockServerOptions = {}): Promise<MockServer> {
  const script = await openScript(file);
  const player = new MockPlayer(script, options.match ?? "exact");
  const open: Transport[] = [];
  let http: MockHttpServer | undefined;
  let url: string | undefined;
  if (options.http) {
    http = new MockHttpServer(player);
    url = await http.listen();
  }
  return {
    ...(url !== undefined ? { url } : {}),
    transport() {
      const [client, server] = createMemoryPair();
      const session = player.session();
      server.start({
        message: (data) => {
          let value: unknown;
          try {
            value = JSON.parse(typeof data === "string" ? data : Buffer.from(data).toString("utf8"));
          } catch {
            return;
          }
          for (const m of Array.isArray(value) ? value : [value])
            void session.receive(m, (text) => server.send(text)).catch(() => undefined);
        },
        defect: () => undefined,
        closed: () => session.close(),
      });
      open.push(server);
      return client;
    },
    async close() {
      await Promise.all(open.map((t) => t.close()));
      await http?.close();
      // a recording found broken further on than the mock had read when it started
      while (!script.complete) await script.more();
      return { unmatched: [...player.unmatched] };
    },
  };
}
