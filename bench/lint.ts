/**
 * `lint` stays linear in the number of messages: the ids a conversation remembers (one million
 * each way by default) turn over without each eviction costing more than the last. A capture is
 * generated in memory (requests with fresh ids, two in three answered, the rest left pending
 * until forgotten) and judged line by line by the Linter, as `mcp-wire lint` does, at 1M and 3M
 * messages; the figure is the time per message at each size (CPU time, so neighbours on the
 * machine weigh less). Linear: the rate at 3M is at least 0.67 of the rate at 1M (it was
 * quadratic: 1.2M lines took 18.6 s, 1.6M more than 45 s).
 */
import { performance } from "node:perf_hooks";
import type { Line } from "../src/codec/lines.js";
import { Linter } from "../src/lint/lint.js";
import { table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const RATE_KEPT_AT_LEAST = 0.67;

function line(text: string): Line {
  const bytes = Buffer.from(text);
  return { bytes, crlf: false, overflow: false, size: bytes.length };
}

/** Judges `messages` lines of a generated capture; returns CPU µs per message and the defects found. */
function judge(messages: number): { usPerMessage: number; defects: number; heapMb: number } {
  const linter = new Linter({ revision: "2025-11-25" });
  let defects = 0;
  let done = 0;
  const start = process.cpuUsage();
  const wall = performance.now();
  for (let id = 0; done < messages; id++) {
    defects += linter.line(line(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`)).defects.length;
    done++;
    if (id % 3 !== 0 && done < messages) {
      defects += linter.line(line(`{"jsonrpc":"2.0","id":${id},"result":{"tools":[]}}`)).defects.length;
      done++;
    }
  }
  const cpu = process.cpuUsage(start);
  void wall;
  return { usPerMessage: (cpu.user + cpu.system) / messages, defects, heapMb: process.memoryUsage().heapUsed / 1e6 };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const sizes = profile.quick ? [100_000, 300_000] : [1_000_000, 3_000_000];
  const rows: string[][] = [];
  const per: number[] = [];
  for (const n of sizes) {
    const r = judge(n);
    if (r.defects !== 0)
      throw new Error(`the generated capture is sound, yet lint found ${r.defects} defects at ${n} messages`);
    per.push(r.usPerMessage);
    rows.push([n.toLocaleString("en-US"), r.usPerMessage.toFixed(2), r.heapMb.toFixed(0)]);
  }
  console.log(table(["messages", "CPU µs per message", "heap MB after"], rows, [true, true, true]));
  const kept = per[0]! / per[1]!;
  const name = (n: number) => `rate at ${n.toLocaleString("en-US")}`;
  const outcome: TargetOutcome = {
    benchmark: "lint",
    measurement: "lint per message",
    of: name(sizes[1]!),
    versus: name(sizes[0]!),
    atLeast: RATE_KEPT_AT_LEAST,
    ratio: { median: kept, p25: kept, p75: kept },
    met: kept >= RATE_KEPT_AT_LEAST,
  };
  console.log(
    `rate kept from ${sizes[0]!.toLocaleString("en-US")} to ${sizes[1]!.toLocaleString("en-US")} messages: ${kept.toFixed(2)}× (linear ≥ ${RATE_KEPT_AT_LEAST.toFixed(2)}×)`,
  );
  return [outcome];
}

export const lintBenchmark: Benchmark = {
  name: "lint",
  title: "mcp-wire lint at scale: time per message at 1M and 3M messages (linear in the capture's length)",
  run,
};
