/**
 * The demo fleet: local endpoints on 127.0.0.1 that behave like the servers a registry census
 * meets (healthy ones of both eras, web pages, bare arrays, refusals, hangs, broken answers) and
 * stdio commands that do the same, each with what `mcp-wire probe` should say about it. One
 * node:http server carries every HTTP behaviour at its own path; a second one is only there to
 * be another origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeServer, listenLoopback } from "./listen.js";
import { HTTP_BEHAVIOURS, type FleetContext, type Route } from "./behaviours.js";
import type { Expectation } from "./expect.js";
import { fails } from "./expect.js";
import { startSigninServer, type SigninServer } from "./signin.js";
import { DEMO_SIGNIN_CASES, SIGNIN_CASES } from "./signin-cases.js";
import { stdioBehaviours } from "./stdio.js";

export type { Expectation } from "./expect.js";

export interface FleetOptions {
  /** Size of the huge body. Default 1 GiB. */
  hugeBytes?: number;
  /** Pause between two dripped bytes. Default 1,000 ms. */
  dripMs?: number;
  /** The token `auth-bearer` accepts. Default: a fixed demo token. */
  token?: string;
  /**
   * The first of four ports to listen on when they are free (the fleet's own origin, a second
   * origin, a port left closed, the sign-in chains' origin). Default: any free ports.
   */
  basePort?: number;
}

export interface FleetEndpoint {
  name: string;
  description: string;
  url: string;
  expect: Expectation;
}

export interface FleetCommand {
  name: string;
  description: string;
  command: string;
  args: string[];
  expect: Expectation;
}

export interface Fleet {
  endpoints: FleetEndpoint[];
  stdio: FleetCommand[];
  /** The token `auth-bearer` accepts. */
  token: string;
  /** The endpoint or command of that name (throws for an unknown name: a typo in a test). */
  get(name: string): FleetEndpoint | FleetCommand;
  url(name: string): string;
  /** Ends every response under way (endless ones too), every timer and both servers. */
  close(): Promise<void>;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const routes = new Map<string, Route>();
  const servers = await listenAll(routes, options.basePort ?? 0);
  const timers = new Timers();
  const ctx: FleetContext = {
    origin: `http://127.0.0.1:${servers.port}`,
    otherOrigin: `http://127.0.0.1:${servers.otherPort}`,
    closedPort: servers.closedPort,
    hugeBytes: options.hugeBytes ?? 1024 * 1024 * 1024,
    dripMs: options.dripMs ?? 1000,
    token: options.token ?? "fleet-demo-token-5f2c9a",
    every: (ms, res, fn) => timers.every(ms, res, fn),
  };
  for (const b of HTTP_BEHAVIOURS) routes.set(b.name, b.start(ctx));
  const endpoints = [...httpEndpoints(ctx), ...signinEndpoints(servers.signin)];
  return new LocalFleet(endpoints, stdioBehaviours(), ctx.token, async () => {
    timers.clear();
    await Promise.all([...routes.values()].map((r) => r.close?.()));
    await Promise.all([closeServer(servers.main), closeServer(servers.other), servers.signin.close()]);
  });
}

/** The fleet's servers, listening, and the port left closed. */
interface FleetServers {
  main: Server;
  port: number;
  other: Server;
  otherPort: number;
  closedPort: number;
  signin: SigninServer;
}

/**
 * Every server of the fleet listening: its own origin (each behaviour at its path), a second
 * origin, a port that was free a moment ago and is left closed, and the sign-in chains' origin.
 */
async function listenAll(routes: ReadonlyMap<string, Route>, base: number): Promise<FleetServers> {
  const main = createServer((req, res) => routeRequest(routes, req, res));
  // only there to be another origin: it serves the reference server too
  const other = createServer((req, res) => {
    const route = routes.get("modern");
    if ((req.url ?? "").split("?")[0] === "/modern" && route) route.handle(req, res, "");
    else res.writeHead(404, { "content-type": "text/plain" }).end("Not Found\n");
  });
  const spare = createServer();
  const at = (i: number) => (base > 0 ? base + i : 0);
  const [port, otherPort, closedPort] = await Promise.all([
    listenLoopback(main, at(0)),
    listenLoopback(other, at(1)),
    listenLoopback(spare, at(2)),
  ]);
  // sign-in chains need their own origin: their metadata lives at well-known paths of its root
  const signin = await startSigninServer(
    SIGNIN_CASES.filter((c) => DEMO_SIGNIN_CASES.includes(c.name)),
    at(3),
  );
  await closeServer(spare);
  return { main, port, other, otherPort, closedPort, signin };
}

/** A request to the fleet's own origin, to the behaviour its first path segment names. */
function routeRequest(routes: ReadonlyMap<string, Route>, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0]!;
  const slash = path.indexOf("/", 1);
  const name = decodeURIComponent(slash === -1 ? path.slice(1) : path.slice(1, slash));
  const route = routes.get(name);
  if (!route) {
    res
      .writeHead(404, { "content-type": "text/plain" })
      .end(`Not Found. Behaviours: ${[...routes.keys()].map((n) => `/${n}`).join(" ")}\n`);
    return;
  }
  try {
    route.handle(req, res, slash === -1 ? "" : path.slice(slash));
  } catch {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end("fleet: the behaviour failed\n");
    else res.destroy();
  }
}

/** The timers of endless answers (drips, streams): each ends with its response, all with the fleet. */
class Timers {
  private readonly live = new Set<ReturnType<typeof setInterval>>();

  every(ms: number, res: ServerResponse, fn: () => void): void {
    const timer = setInterval(() => {
      if (res.destroyed || res.writableEnded) stop();
      else fn();
    }, ms);
    const stop = () => {
      clearInterval(timer);
      this.live.delete(timer);
    };
    this.live.add(timer);
    res.on("close", stop);
  }

  clear(): void {
    for (const t of this.live) clearInterval(t);
    this.live.clear();
  }
}

function httpEndpoints(ctx: FleetContext): FleetEndpoint[] {
  return HTTP_BEHAVIOURS.map((b) => ({
    name: b.name,
    description: b.description,
    url: b.url ? b.url(ctx) : `${ctx.origin}/${b.name}`,
    expect: b.expect,
  }));
}

/** Each sign-in chain as an endpoint that refuses, with what the walk should find along it. */
function signinEndpoints(signin: SigninServer): FleetEndpoint[] {
  return signin.cases.map((c) => ({
    name: c.name,
    description: c.description,
    url: signin.url(c.name),
    expect: fails("auth_required", c.probeDetail, {
      status: c.status,
      auth: { verdict: c.expect.verdict, brokenAt: c.expect.brokenAt },
    }),
  }));
}

/** The running fleet: its endpoints and commands, by name, and one close for all of it. */
class LocalFleet implements Fleet {
  private readonly byName: ReadonlyMap<string, FleetEndpoint | FleetCommand>;
  private closing: Promise<void> | undefined;

  constructor(
    readonly endpoints: FleetEndpoint[],
    readonly stdio: FleetCommand[],
    readonly token: string,
    private readonly end: () => Promise<void>,
  ) {
    this.byName = new Map([...endpoints, ...stdio].map((e) => [e.name, e]));
  }

  get(name: string): FleetEndpoint | FleetCommand {
    const found = this.byName.get(name);
    if (!found) throw new Error(`the fleet has no behaviour named ${JSON.stringify(name)}`);
    return found;
  }

  url(name: string): string {
    const found = this.byName.get(name);
    if (!found || !("url" in found)) throw new Error(`the fleet has no HTTP endpoint named ${JSON.stringify(name)}`);
    return found.url;
  }

  close(): Promise<void> {
    this.closing ??= this.end();
    return this.closing;
  }
}
