/**
 * The demo fleet: local endpoints on 127.0.0.1 that behave like the servers a registry census
 * meets (healthy ones of both eras, web pages, bare arrays, refusals, hangs, broken answers) and
 * stdio commands that do the same, each with what `mcp-wire probe` should say about it. One
 * node:http server carries every HTTP behaviour at its own path; a second one is only there to
 * be another origin.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { listenLoopback } from "./listen.js";
import { HTTP_BEHAVIOURS, type FleetContext, type Route } from "./behaviours.js";
import type { Expectation } from "./expect.js";
import { fails } from "./expect.js";
import { startSigninServer } from "./signin.js";
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

function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const routes = new Map<string, Route>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const main = createServer((req, res) => {
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
  });
  // only there to be another origin: it serves the reference server too
  const other = createServer((req, res) => {
    const route = routes.get("modern");
    if ((req.url ?? "").split("?")[0] === "/modern" && route) route.handle(req, res, "");
    else res.writeHead(404, { "content-type": "text/plain" }).end("Not Found\n");
  });
  // a port that was free a moment ago: nothing listens there
  const spare = createServer();
  const base = options.basePort ?? 0;
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
  await shut(spare);

  const ctx: FleetContext = {
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://127.0.0.1:${otherPort}`,
    closedPort,
    hugeBytes: options.hugeBytes ?? 1024 * 1024 * 1024,
    dripMs: options.dripMs ?? 1000,
    token: options.token ?? "fleet-demo-token-5f2c9a",
    every(ms: number, res: ServerResponse, fn: () => void) {
      const timer = setInterval(() => {
        if (res.destroyed || res.writableEnded) stop();
        else fn();
      }, ms);
      const stop = () => {
        clearInterval(timer);
        timers.delete(timer);
      };
      timers.add(timer);
      res.on("close", stop);
    },
  };

  for (const b of HTTP_BEHAVIOURS) routes.set(b.name, b.start(ctx));
  const endpoints: FleetEndpoint[] = HTTP_BEHAVIOURS.map((b) => ({
    name: b.name,
    description: b.description,
    url: b.url ? b.url(ctx) : `${ctx.origin}/${b.name}`,
    expect: b.expect,
  }));
  for (const c of signin.cases) {
    endpoints.push({
      name: c.name,
      description: c.description,
      url: signin.url(c.name),
      expect: fails("auth_required", c.probeDetail, {
        status: c.status,
        auth: { verdict: c.expect.verdict, brokenAt: c.expect.brokenAt },
      }),
    });
  }
  const stdio: FleetCommand[] = stdioBehaviours();

  let closing: Promise<void> | undefined;
  const byName = new Map<string, FleetEndpoint | FleetCommand>([...endpoints, ...stdio].map((e) => [e.name, e]));
  return {
    endpoints,
    stdio,
    token: ctx.token,
    get(name) {
      const found = byName.get(name);
      if (!found) throw new Error(`the fleet has no behaviour named ${JSON.stringify(name)}`);
      return found;
    },
    url(name) {
      const found = byName.get(name);
      if (!found || !("url" in found)) throw new Error(`the fleet has no HTTP endpoint named ${JSON.stringify(name)}`);
      return found.url;
    },
    close() {
      closing ??= (async () => {
        for (const t of timers) clearInterval(t);
        timers.clear();
        await Promise.all([...routes.values()].map((r) => r.close?.()));
        await Promise.all([shut(main), shut(other), signin.close()]);
      })();
      return closing;
    },
  };
}
