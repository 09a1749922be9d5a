/**
 * Where the census's CPU goes, layer by layer, run by bench/census-cpu.ts in a process of its
 * own: the targets, concurrency and warm-up of the census child, through one layer of mcp-wire
 * at a time and nothing around it.
 *
 *   node census-layers.js <client|probe> <port> <warmup> <count> <concurrency> <timeoutMs>
 *
 * `client`: per target what a probe's client does, connectHttp (the dual-era opening, a
 * fallback to `initialize` included) then tools/list then close, with the probe's options and
 * under an `Abort` deadline as the probe has, but no judging, no sign-in walk. `probe`:
 * probeHttp as the census calls it (no trace), the whole verdict with its sign-in walk, and
 * nothing stored. Prints one JSON line: `{ probes, cpuMs, ms, classes }`.
 */
import { connectHttp } from "../src/mcp/connect-http.js";
import type { McpClient } from "../src/mcp/client.js";
import { probeHttp } from "../src/probe/probe.js";
import { Abort } from "../src/transport/http/fetch.js";
import { answeringIndices, cpuMs, inTurn } from "./census-support.js";
import { VERSION } from "../src/version.js";

const [layer, port, warmup, count, concurrency, timeout] = process.argv.slice(2);
if (layer !== "client" && layer !== "probe") {
  process.stderr.write("usage: census-layers <client|probe> <port> <warmup> <count> <concurrency> <timeoutMs>\n");
  process.exit(2);
}
const T = Number(timeout);
const indices = answeringIndices(Number(warmup) + Number(count));
const url = (i: number) => `http://127.0.0.1:${port}/t/${i}`;
const classes: Record<string, number> = {};
const tally = (c: string) => void (classes[c] = (classes[c] ?? 0) + 1);
const ignore = () => undefined;
/** What ends a finished probe's deadline, made once as the probe makes it: an abort without a reason makes an Error, frames and all. */
const OVER = new Error("the probe is over");

async function client(i: number): Promise<void> {
  const deadline = new Abort();
  let mcp: McpClient | undefined;
  try {
    mcp = (
      await connectHttp(url(i), {
        fresh: true,
        timeout: T,
        signal: deadline,
        clientInfo: { name: "mcp-wire-probe", version: VERSION },
        onExchange: ignore,
        onDefect: ignore,
        onStep: ignore,
      })
    ).client;
    await mcp.listTools({ timeout: T });
    tally("listed");
  } catch (e) {
    tally((e as Error).name);
  }
  if (mcp) await mcp.close().catch(ignore);
  deadline.abort(OVER);
}

async function probe(i: number): Promise<void> {
  tally((await probeHttp(url(i), { timeout: T, trace: false })).class);
}

const work = layer === "client" ? client : probe;
await inTurn(indices.slice(0, Number(warmup)), Number(concurrency), work);
for (const k of Object.keys(classes)) delete classes[k];
const measured = indices.slice(Number(warmup));
const cpu = process.cpuUsage();
const t0 = performance.now();
await inTurn(measured, Number(concurrency), work);
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ probes: measured.length, cpuMs: cpuMs(cpu), ms, classes })}\n`);
process.exit(0);
