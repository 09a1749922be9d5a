/**
 * The floor of the census CPU benchmark, run by bench/census-cpu.ts in a process of its own:
 * a bare `node:http` client doing, for each target, exactly the requests a probe of it sends
 * (captured by bench/census-capture.ts: same methods, paths, headers and bodies, the same waves
 * of requests sent together, a legacy session's id carried over) on one keep-alive agent, as
 * many targets at a time as the census. It reads every answer to its end and stores nothing.
 *
 *   node census-bare.js <port> <script.json> <warmup> <count> <concurrency> [<timeoutMs> all]
 *
 * The targets are the fleet's answering ones in index order (as the census child takes them);
 * the first `warmup` are done before the clock starts. With `<timeoutMs> all` (bench/census-latency.ts)
 * they are every target `/t/0` … `/t/<count-1>` instead, each probe under that deadline: a target
 * whose behaviour answers nothing gets the request every probe opens with, given up at the
 * deadline, as a census gives up on it. Prints one JSON line:
 * `{ probes, cpuMs, ms, requests, statuses, pace }`, `pace` saying when each tenth of the
 * measured targets was done (ms from the start).
 */
import { Agent, request } from "node:http";
import { readFileSync } from "node:fs";
import type { CapturedProbe, CapturedRequest } from "./census-capture.js";
import { MIX } from "./census-fleet.js";
import { answeringIndices, cpuMs, inTurn, Pace } from "./census-support.js";

const [port, scriptFile, warmup, count, concurrency, timeoutArg, which] = process.argv.slice(2);
const script = new Map<number, CapturedProbe>(
  JSON.parse(readFileSync(scriptFile!, "utf8")) as [number, CapturedProbe][],
);
const indices =
  which === "all"
    ? Array.from({ length: Number(warmup) + Number(count) }, (_, i) => i)
    : answeringIndices(Number(warmup) + Number(count));
const timeoutMs = timeoutArg === undefined ? undefined : Number(timeoutArg);
/** What every probe sends first (POST server/discover): all a silent target ever gets. */
const opening = [...script.values()][0]!.waves[0]![0]!;
const agent = new Agent({ keepAlive: true });
const statuses = new Map<number, number>();
let requests = 0;
const pace = new Pace(Number(count));

function send(
  r: CapturedRequest,
  i: number,
  session: { id: string | undefined },
  deadline: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = r.session && session.id !== undefined ? { ...r.headers, "mcp-session-id": session.id } : r.headers;
    // a request the deadline ended is over, as a census's probe of that target is
    const fail = (e: unknown) => (deadline?.aborted ? resolve() : reject(e));
    const req = request(
      {
        host: "127.0.0.1",
        port: Number(port),
        method: r.method,
        path: r.path.replace("{i}", String(i)),
        headers,
        agent,
        signal: deadline,
      },
      (res) => {
        const id = res.headers["mcp-session-id"];
        if (typeof id === "string") session.id = id;
        statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
        let bytes = 0;
        res.on("data", (c: Buffer) => (bytes += c.length));
        res.on("end", () => {
          requests++;
          resolve();
        });
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(r.body === "" ? undefined : r.body);
  });
}

async function probe(i: number): Promise<void> {
  const session = { id: undefined as string | undefined };
  const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const waves = script.get(i % MIX.length)?.waves ?? [[opening]];
  for (const wave of waves) {
    if (deadline?.aborted) break;
    if (wave.length === 1) await send(wave[0]!, i, session, deadline);
    else await Promise.all(wave.map((r) => send(r, i, session, deadline)));
  }
  pace.done();
}

await inTurn(indices.slice(0, Number(warmup)), Number(concurrency), probe);
const measured = indices.slice(Number(warmup), Number(warmup) + Number(count));
pace.start();
const before = requests;
const cpu = process.cpuUsage();
const t0 = performance.now();
await inTurn(measured, Number(concurrency), probe);
const ms = performance.now() - t0;
const used = cpuMs(cpu);
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ probes: measured.length, cpuMs: used, ms, requests: requests - before, statuses: Object.fromEntries(statuses), pace: pace.marks })}\n`,
);
process.exit(0);
