/**
 * `tap --listen` under a hostile server (docs/tap.md): one client pings through the tap while
 * another conversation through the same tap carries the worst message of the validator's hostile
 * benchmark, a 64 KB `tools/call` result of content blocks that match no branch of the content
 * union (`{"content":[{},{},…]}`), one after another. The tap judges off its forwarding path, so
 * the pings must not notice: the p95 of 1,000 pings under that load is at most the larger of 2×
 * and idle + 5 ms, idle being the p95 of 1,000 pings through the same tap alone, round by round.
 */
import { spawn } from "node:child_process";
import { createServer, request, Agent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import {
  quantile,
  table,
  fmtRatio,
  type Benchmark,
  type Profile,
  type RatioStats,
  type TargetOutcome,
} from "./harness.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const PINGS = 1000;
const HOSTILE_KB = 64;
const REVISION = "2025-11-25";

function hostileAnswer(id: unknown): string {
  const items = Math.floor((HOSTILE_KB * 1024 - 40) / 3);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[${"{},".repeat(items - 1)}{}]}}`;
}

/** The upstream: `tools/call` answered with the hostile result, anything else with `{}`. */
async function upstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => {
      const m = JSON.parse(Buffer.concat(parts).toString("utf8")) as { id: unknown; method: string };
      const body =
        m.method === "tools/call" ? hostileAnswer(m.id) : `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{}}`;
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

/** `mcp-wire tap --listen 0` in front of `url`, and the URL it gives the client. */
async function tap(url: string): Promise<{ url: string; stop(): Promise<string> }> {
  const child = spawn(process.execPath, [CLI, "tap", "--listen", "0", "--upstream", url, "--revision", REVISION], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.setEncoding("utf8");
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const tapUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the tap did not start:\n${err}`)), 30_000);
    child.stderr.on("data", (s: string) => {
      err += s;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url: tapUrl,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
      return err;
    },
  };
}

/** One request POSTed on `agent`, its answer read to the end; the milliseconds it took. */
function post(url: string, agent: Agent, body: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", accept: "application/json" } },
      (res) => {
        res.resume();
        res.once("end", () => resolve(performance.now() - start));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

async function pings(url: string, agent: Agent, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let id = 1; id <= n; id++) times.push(await post(url, agent, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`));
  return times;
}

function stats(per: number[]): RatioStats {
  return { median: quantile(per, 0.5), p25: quantile(per, 0.25), p75: quantile(per, 0.75) };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const n = profile.quick ? 200 : PINGS;
  const rounds = profile.quick ? 1 : Math.max(3, Math.min(profile.rounds, 5));
  const up = await upstream();
  const tapped = await tap(up.url);
  const pinger = new Agent({ keepAlive: true, maxSockets: 1 });
  const carrier = new Agent({ keepAlive: true, maxSockets: 1 });
  const perRound: { idle: number; loaded: number; hostile: number }[] = [];
  try {
    await pings(tapped.url, pinger, 200); // warm: the tap's threads started, its validators compiled
    for (let r = 0; r < rounds; r++) {
      const idle = quantile(await pings(tapped.url, pinger, n), 0.95);
      let carrying = true;
      let hostile = 0;
      const load = (async () => {
        for (let id = 1; carrying; id++) {
          await post(
            tapped.url,
            carrier,
            `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"blocks","arguments":{}}}`,
          );
          hostile++;
        }
      })();
      const loaded = quantile(await pings(tapped.url, pinger, n), 0.95);
      carrying = false;
      await load;
      perRound.push({ idle, loaded, hostile });
    }
  } finally {
    pinger.destroy();
    carrier.destroy();
    const stderr = await tapped.stop();
    up.server.closeAllConnections();
    up.server.close();
    const summary = stderr.split("\n").filter((l) => /^tap: \d+ (message|defect)/.test(l));
    console.log(summary.join("\n"));
  }
  const median = (values: number[]) => quantile(values, 0.5);
  console.log(
    table(
      ["", "p95 of a ping"],
      [
        [`${n} pings through the tap alone`, `${median(perRound.map((p) => p.idle)).toFixed(2)} ms`],
        [
          `${n} pings while another conversation carries ${HOSTILE_KB} KB hostile answers (${median(perRound.map((p) => p.hostile))} a round)`,
          `${median(perRound.map((p) => p.loaded)).toFixed(2)} ms`,
        ],
      ],
      [false, true],
    ),
  );
  // allowed / loaded, round by round: at least 1 when the target is met
  const ratio = stats(perRound.map((p) => Math.max(2 * p.idle, p.idle + 5) / p.loaded));
  console.log(`max(2 × idle, idle + 5 ms) / loaded p95: ${fmtRatio(ratio)} (at least 1)`);
  return [
    {
      of: "max(2× idle, idle+5ms)",
      versus: "p95 under hostile load",
      atLeast: 1,
      benchmark: "tap-hostile",
      measurement: `p95 of ${n} tap pings beside ${HOSTILE_KB} KB hostile answers`,
      ratio,
      met: ratio.median >= 1,
    },
  ];
}

export const tapHostileBenchmark: Benchmark = {
  name: "tap-hostile",
  title: "a tap client's pings while another conversation carries hostile answers",
  run,
};
