/**
 * What `mcp-wire check` costs against what a client pays anyway: a full read-only check of
 * server-everything over stdio (every revision it speaks, each in a process of its own: opening,
 * every list to its end, ping, logging/setLevel, the unknown method, the malformed cursor, every
 * message validated against its revision's schema, the server's exit timed) against the official
 * SDK v1 client opening the same server as many times (spawn, initialize, tools/list, close).
 * Interleaved rounds, one of each per round; the ratio of the two times is taken round by round.
 * Target: the check takes at most 1.5× the SDK's time.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { checkStdio } from "../src/check/check.js";
import { quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const ARGS = [EVERYTHING, "stdio"];
/** The check may take this many times the SDK's opens (a time ratio: lower is better). */
const TARGET_TIMES = 1.5;

async function oneCheck(): Promise<{ ms: number; spoken: number; messages: number; errors: number }> {
  const t0 = performance.now();
  const report = await checkStdio(process.execPath, ARGS);
  const ms = performance.now() - t0;
  if (report.unchecked) throw new Error(`server-everything could not be checked: ${report.unchecked.message}`);
  return {
    ms,
    spoken: Object.values(report.revisions).filter((o) => o === "ok").length,
    messages: report.checked.messages,
    errors: report.counts.error,
  };
}

/** The SDK v1 client opening the server `times` times, one after another, listing its tools each time. */
async function sdkOpens(times: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < times; i++) {
    const client = new Client({ name: "bench-check", version: "1.0.0" });
    const transport = new StdioClientTransport({ command: process.execPath, args: ARGS, stderr: "ignore" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (tools.length === 0) throw new Error("server-everything listed no tools to the SDK client");
    await client.close();
  }
  return performance.now() - t0;
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const rounds = profile.quick ? 2 : Math.max(3, Math.min(profile.rounds, 7));
  // a first pass of each, unmeasured: module loading, the schemas compiled, the disk cache warm
  const warm = await oneCheck();
  await sdkOpens(warm.spoken);
  console.log(
    `server-everything speaks ${warm.spoken} revisions; a check validates ${warm.messages} messages and finds ${warm.errors} errors`,
  );
  const checks: number[] = [];
  const sdks: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // alternate which goes first, so neither always meets a machine the other just warmed
    if (r % 2 === 0) {
      checks.push((await oneCheck()).ms);
      sdks.push(await sdkOpens(warm.spoken));
    } else {
      sdks.push(await sdkOpens(warm.spoken));
      checks.push((await oneCheck()).ms);
    }
  }
  const ratios = checks.map((c, i) => c / sdks[i]!);
  const med = (v: number[]) => quantile(v, 0.5);
  console.log(
    table(
      ["contender", "median ms", "p25–p75 ms"],
      [
        [
          `mcp-wire check (${warm.spoken} revisions)`,
          med(checks).toFixed(0),
          `${quantile(checks, 0.25).toFixed(0)}–${quantile(checks, 0.75).toFixed(0)}`,
        ],
        [
          `SDK v1 client, ${warm.spoken} opens + tools/list`,
          med(sdks).toFixed(0),
          `${quantile(sdks, 0.25).toFixed(0)}–${quantile(sdks, 0.75).toFixed(0)}`,
        ],
      ],
      [false, true, true],
    ),
  );
  const ratio = med(ratios);
  console.log(
    `check / SDK opens: ${ratio.toFixed(2)}× the time [${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}] over ${rounds} rounds; target ≤ ${TARGET_TIMES}×: ${ratio <= TARGET_TIMES ? "met" : "MISSED"}`,
  );
  // the summary compares rates (higher is better): the SDK's time over the check's
  const inverse = ratios.map((x) => 1 / x);
  return [
    {
      benchmark: "check",
      measurement: "check of server-everything (stdio, every revision) vs SDK v1 opening it as often",
      of: "check rate",
      versus: "SDK v1 opens",
      atLeast: Number((1 / TARGET_TIMES).toFixed(2)),
      ratio: { median: quantile(inverse, 0.5), p25: quantile(inverse, 0.25), p75: quantile(inverse, 0.75) },
      met: ratio <= TARGET_TIMES,
    },
  ];
}

export const checkBenchmark: Benchmark = {
  name: "check",
  title: "mcp-wire check of server-everything (stdio) against the SDK v1 client opening it as often",
  run,
};
