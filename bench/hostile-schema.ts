/**
 * The validator under a hostile server (docs/schema.md): the worst message of issue 37's first
 * attack, a result of thousands of content blocks that match no branch of the content union
 * (`{"content":[{},{},…]}`), validated as a `tools/call` result at 8, 16, 32 and 64 KB, against
 * a healthy 64 KB `tools/list` result. Validation must stay linear in the message: each doubling
 * at most 2.5× the time of the size before, and the 64 KB hostile message at most 10× the
 * healthy one. Each figure is the median of several runs, round by round.
 */
import { validate } from "../src/index.js";
import {
  fmtRatio,
  quantile,
  table,
  type Benchmark,
  type Profile,
  type RatioStats,
  type TargetOutcome,
} from "./harness.js";

const REVISION = "2025-11-25";
const SIZES_KB = [8, 16, 32, 64] as const;

function hostile(kb: number): unknown {
  const items = Math.floor((kb * 1024 - 40) / 3);
  return { jsonrpc: "2.0", id: 1, result: { content: Array.from({ length: items }, () => ({})) } };
}

function healthy(kb: number): unknown {
  const tools: unknown[] = [];
  let size = 0;
  for (let i = 0; size < kb * 1024; i++) {
    const tool = {
      name: `tool_${i}`,
      description: `Looks up record ${i} in the catalogue and returns its fields as text.`,
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" }, limit: { type: "integer" } },
        required: ["id"],
      },
    };
    size += JSON.stringify(tool).length + 1;
    tools.push(tool);
  }
  return { jsonrpc: "2.0", id: 1, result: { tools } };
}

/** Milliseconds one validation of `message` takes, as the median of a short run. */
function timed(message: unknown, method: string, runs: number): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    validate(message, { revision: REVISION, method });
    ms.push(performance.now() - start);
  }
  return quantile(ms, 0.5);
}

function stats(per: number[]): RatioStats {
  return { median: quantile(per, 0.5), p25: quantile(per, 0.25), p75: quantile(per, 0.75) };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const runs = profile.quick ? 3 : 9;
  const rounds = profile.quick ? 2 : Math.max(3, profile.rounds);
  const messages = SIZES_KB.map((kb) => hostile(kb));
  const sound = healthy(64);
  // warm: compile the definitions and let the JIT see both paths
  for (let i = 0; i < 3; i++) {
    timed(messages[0], "tools/call", 1);
    timed(sound, "tools/list", 1);
  }
  const perRound: { hostile: number[]; healthy: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    perRound.push({
      hostile: messages.map((m) => timed(m, "tools/call", runs)),
      healthy: timed(sound, "tools/list", runs),
    });
  }
  const median = (values: number[]) => quantile(values, 0.5);
  const rows = SIZES_KB.map((kb, i) => [
    `${kb} KB hostile`,
    `${median(perRound.map((p) => p.hostile[i]!)).toFixed(3)} ms`,
  ]);
  rows.push(["64 KB healthy tools/list", `${median(perRound.map((p) => p.healthy)).toFixed(3)} ms`]);
  console.log(table(["validate()", "median"], rows, [false, true]));
  // worst growth per doubling, round by round: target ≤ 2.5, reported as 2.5 / growth ≥ 1
  const growth = stats(
    perRound.map((p) => 2.5 / Math.max(...p.hostile.slice(1).map((ms, i) => ms / Math.max(p.hostile[i]!, 1e-3)))),
  );
  const versusHealthy = stats(perRound.map((p) => 10 / (p.hostile[3]! / Math.max(p.healthy, 1e-3))));
  console.log(`2.5 / worst growth per doubling: ${fmtRatio(growth)} (at least 1: linear)`);
  console.log(`10 / (64 KB hostile / 64 KB healthy): ${fmtRatio(versusHealthy)} (at least 1)`);
  const measurement = "validate() of a hostile tools/call result at 8-64 KB";
  return [
    {
      of: "2.5",
      versus: "hostile growth per doubling",
      atLeast: 1,
      benchmark: "hostile-schema",
      measurement,
      ratio: growth,
      met: growth.median >= 1,
    },
    {
      of: "10",
      versus: "64 KB hostile / healthy",
      atLeast: 1,
      benchmark: "hostile-schema",
      measurement,
      ratio: versusHealthy,
      met: versusHealthy.median >= 1,
    },
  ];
}

export const hostileSchemaBenchmark: Benchmark = {
  name: "hostile-schema",
  title: "validation time of a hostile message, growing with its size",
  run,
};
