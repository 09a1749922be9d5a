/**
 * A tiny fleet for the census tests: one node:http server on a loopback address (127.0.0.1 unless
 * told; `startHosts` puts one on each of 127.0.0.2, 127.0.0.3…, separate hosts) whose paths behave like
 * the servers a census meets (`/ok/…` the dual-era reference server, `/page/…` a web page,
 * `/401/…`, `/array/…` a bare array, `/hang/…` never answers, `/echo-auth/…` a JSON-RPC error
 * quoting the Authorization header it got). Every request can be delayed, and the server counts
 * how many it holds at once. Also a fake DNS for names that rebind, and a sign-in fixture on a
 * loopback address of its own (127.0.0.2, 127.0.0.3… are separate hosts). A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIPv4, type AddressInfo, type LookupFunction } from "node:net";
import { createReferenceServer } from "../mcp/reference-server.js";
import { createHttpHandler } from "../transport/http/server.js";

export interface Fleet {
  /** `http://ADDRESS:PORT` */
  base: string;
  /** The loopback address it listens on. */
  address: string;
  port: number;
  url(behaviour: "ok" | "page" | "401" | "array" | "hang" | "echo-auth", name: string | number): string;
  /** Requests received, by path. */
  readonly hits: Map<string, number>;
  /** Most requests held at once, over the whole life of the server. */
  readonly peak: () => number;
  /** Authorization headers received. */
  readonly authorizations: string[];
  /**
   * Every request, as this server saw it: path, Host header, the address its connection was
   * accepted on, and when it came and ended (its own clock, ms).
   */
  readonly requests: { path: string; host: string; local: string; start: number; end: number | undefined }[];
  close(): Promise<void>;
}

export interface FleetOptions {
  /** Held this long before any answer. Default 0. */
  delayMs?: number;
  /** Idle keep-alive connections are closed after this long. Default: node's 5 s. */
  keepAliveMs?: number;
  /** Shares a concurrency count with another fleet (two ports, one host). */
  counter?: { active: number; peak: number };
  /** Listens here; only 127.0.0.0/8. Default 127.0.0.1. */
  address?: string;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const counter = options.counter ?? { active: 0, peak: 0 };
  const hits = new Map<string, number>();
  const authorizations: string[] = [];
  const requests: Fleet["requests"][number][] = [];
  const handler = createHttpHandler(createReferenceServer(), { sessionIdleMs: 5_000 });
  const hanging = new Set<ServerResponse>();

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const behaviour = path.split("/")[1];
    if (req.headers.authorization) authorizations.push(req.headers.authorization);
    switch (behaviour) {
      case "ok":
        return handler.node(req, res);
      case "page":
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end("<!doctype html><title>Docs</title><h1>Our MCP server</h1>");
      case "401":
        return void res
          .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="x"' })
          .end('{"error":"unauthorized"}');
      case "array":
        return void res.writeHead(200, { "content-type": "application/json" }).end("[]");
      case "echo-auth": {
        let body = "";
        req.setEncoding("utf8").on("data", (c: string) => (body += c));
        return void req.on("end", () => {
          let id: unknown = null;
          try {
            id = (JSON.parse(body) as { id?: unknown }).id ?? null;
          } catch {
            // not JSON: answer with a null id
          }
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              id,
              error: { code: -32001, message: `invalid api key: ${req.headers.authorization ?? "none"}` },
            }),
          );
        });
      }
      case "hang":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      default:
        return void res.writeHead(404, { "content-type": "text/plain" }).end("no such path");
    }
  };

  const server: Server = createServer(
    options.keepAliveMs !== undefined ? { keepAliveTimeout: options.keepAliveMs } : {},
    (req, res) => {
      const path = (req.url ?? "/").split("?")[0]!;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const seen: Fleet["requests"][number] = {
        path,
        host: (req.headers.host ?? "").replace(/:\d+$/, ""),
        local: req.socket.localAddress ?? "",
        start: performance.now(),
        end: undefined,
      };
      requests.push(seen);
      counter.active++;
      counter.peak = Math.max(counter.peak, counter.active);
      let counted = true;
      const done = () => {
        seen.end ??= performance.now();
        if (counted) counter.active--;
        counted = false;
      };
      res.on("close", done);
      if (options.delayMs) setTimeout(() => serve(req, res), options.delayMs);
      else serve(req, res);
    },
  );
  const address = options.address ?? "127.0.0.1";
  if (!isIPv4(address) || !address.startsWith("127."))
    throw new Error(`a test fleet listens on loopback only, not ${address}`);
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, address, resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://${address}:${port}`;
  return {
    base,
    address,
    port,
    url: (behaviour, name) => `${base}/${behaviour}/${name}`,
    hits,
    peak: () => counter.peak,
    authorizations,
    requests,
    close: async () => {
      for (const res of hanging) res.destroy();
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `count` fleets, one on each of 127.0.0.2, 127.0.0.3…: as many separate hosts, each counting its own requests. */
export async function startHosts(
  count: number,
  options: Omit<FleetOptions, "address" | "counter"> = {},
): Promise<Fleet[]> {
  if (count < 1 || count > 254) throw new Error(`127.0.0.2 onwards holds 1 to 254 hosts, not ${count}`);
  const fleets = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => startFleet({ ...options, address: `127.0.0.${i + 2}` })),
  );
  const failed = fleets.find((f) => f.status === "rejected");
  if (failed) {
    await Promise.all(fleets.map((f) => (f.status === "fulfilled" ? f.value.close() : undefined)));
    throw failed.reason;
  }
  return fleets.map((f) => (f as PromiseFulfilledResult<Fleet>).value);
}

/**
 * Per address a connection was accepted on, the most of `requests` held at once, from when each
 * came to when its answer ended (one still open counts as held to the end).
 */
export function peakPerAddress(requests: readonly Fleet["requests"][number][]): Map<string, number> {
  const peaks = new Map<string, number>();
  for (const local of new Set(requests.map((r) => r.local))) {
    const events = requests
      .filter((r) => r.local === local)
      .flatMap((r) => [
        { at: r.start, d: 1 },
        { at: r.end ?? Infinity, d: -1 },
      ])
      .sort((a, b) => a.at - b.at || a.d - b.d);
    let held = 0;
    let peak = 0;
    for (const e of events) peak = Math.max(peak, (held += e.d));
    peaks.set(local, peak);
  }
  return peaks;
}

/** Resolves when `condition` holds, checking every 20 ms; rejects after `ms` saying what it waited for. */
export async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A fake DNS that answers each name with the next of `answers` at each call (the last one from
 * then on): a rebinding name. An answer that is not an array fails the lookup.
 */
export function rebinding(answers: (string[] | "fail")[]): LookupFunction & { calls: number } {
  let calls = 0;
  const lookup = (
    hostname: string,
    options: { all?: boolean },
    callback: (e: NodeJS.ErrnoException | null, a?: unknown, f?: number) => void,
  ) => {
    const answer = answers[Math.min(calls++, answers.length - 1)]!;
    queueMicrotask(() => {
      if (answer === "fail")
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }));
      const list = answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return Object.defineProperty(lookup as unknown as LookupFunction & { calls: number }, "calls", { get: () => calls });
}

/**
 * A sign-in fixture on one loopback address: each endpoint `/mcp/N` refuses with a challenge
 * naming its resource metadata, which names `as` as its authorization server. Every answer is
 * held a moment, and the server counts the requests it holds at once.
 */
export async function signinHost(
  address: string,
  as: () => string,
): Promise<{ origin: string; peak: () => number; hits: () => number; close: () => Promise<void> }> {
  let active = 0;
  let peak = 0;
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    active++;
    peak = Math.max(peak, active);
    res.on("close", () => active--);
    const path = (req.url ?? "/").split("?")[0]!;
    setTimeout(() => {
      const endpoint = /^\/mcp\/\d+$/.exec(path);
      const prm = /^\/\.well-known\/oauth-protected-resource(\/mcp\/\d+)$/.exec(path);
      if (endpoint && req.method === "POST") {
        res
          .writeHead(401, {
            "content-type": "application/json",
            "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}"`,
          })
          .end('{"error":"invalid_token"}');
      } else if (prm) {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ resource: `${origin}${prm[1]}`, authorization_servers: [as()] }));
      } else if (path === "/.well-known/oauth-authorization-server") {
        const issuer = origin;
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            registration_endpoint: `${issuer}/register`,
            response_types_supported: ["code"],
            code_challenge_methods_supported: ["S256"],
          }),
        );
      } else {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such path");
      }
    }, 15);
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const origin = `http://${address}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    peak: () => peak,
    hits: () => hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
