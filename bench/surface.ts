/**
 * What the surface gate costs. (1) Comparing two surfaces of 1,000 tools (a tenth of them changed
 * in a parameter, a description or an annotation) against putting both in canonical form — the
 * work any comparison has to do — target ≤ 2× its time. (2) The comparison inside a check of
 * server-everything (stdio, every revision) against that check's own CPU time — target ≤ 5%
 * (`--surface` sends no request of its own: the lists are those the check walks anyway).
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { checkStdio } from "../src/check/check.js";
import { Findings, selection } from "../src/check/findings.js";
import type { Listed } from "../src/check/session.js";
import { compareSurfaces, surfaceOf, type SurfaceFile } from "../src/check/surface-gate.js";
import { canonicalJson } from "../src/codec/canonical.js";
import type { JsonObject } from "../src/codec/message.js";
import { quantile, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

function tool(i: number, changed: boolean): JsonObject {
  return {
    name: `tool_${i}`,
    description: changed ? `Does thing ${i}, now differently.` : `Does thing ${i}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for", maxLength: changed ? 100 : 200 },
        limit: { type: "integer", minimum: 1, maximum: 50 },
        mode: { type: "string", enum: ["fast", "deep", "wide"] },
      },
      required: changed ? ["query", "limit"] : ["query"],
    },
    annotations: { readOnlyHint: !changed, title: `Tool ${i}` },
  };
}

const listed = (tools: JsonObject[]): Listed => ({ tools, resources: [], resourceTemplates: [], prompts: [] });

function median(f: () => void, rounds: number): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return quantile(times, 0.5);
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const rounds = profile.quick ? 5 : 25;
  const a = listed(Array.from({ length: 1000 }, (_, i) => tool(i, false)));
  const b = listed(Array.from({ length: 1000 }, (_, i) => tool(i, i % 10 === 0)));
  let sa: SurfaceFile = surfaceOf(a, "2026-07-28");
  let sb: SurfaceFile = surfaceOf(b, "2026-07-28");
  const canonicalise = median(() => {
    sa = surfaceOf(a, "2026-07-28");
    sb = surfaceOf(b, "2026-07-28");
    for (const t of Object.values(sa.tools)) canonicalJson(t);
    for (const t of Object.values(sb.tools)) canonicalJson(t);
  }, rounds);
  let found = 0;
  const compare = median(() => {
    const findings = new Findings(selection(undefined, undefined));
    compareSurfaces(sa, sb, findings);
    found = findings.list.length;
  }, rounds);
  const ratio1 = compare / canonicalise;
  console.log(
    `1,000 tools, 100 changed (${found} findings): compare ${compare.toFixed(1)} ms, canonicalise both ${canonicalise.toFixed(1)} ms: ${ratio1.toFixed(2)}×; target ≤ 2×: ${ratio1 <= 2 ? "MET" : "MISSED"}`,
  );

  // the check's own CPU time, with the comparison inside it measured on the same lists
  const recorded = await checkStdio(process.execPath, [EVERYTHING, "stdio"], { surface: {} });
  if (!recorded.surface) throw new Error("server-everything listed no surface");
  const cpu0 = process.cpuUsage();
  const checked = await checkStdio(process.execPath, [EVERYTHING, "stdio"], { surface: { before: recorded.surface } });
  const cpu = process.cpuUsage(cpu0);
  const checkCpuMs = (cpu.user + cpu.system) / 1000;
  const surface = checked.surface!;
  const inside = median(
    () => compareSurfaces(recorded.surface!, surface, new Findings(selection(undefined, undefined))),
    rounds,
  );
  const share = inside / checkCpuMs;
  console.log(
    `check of server-everything: ${checkCpuMs.toFixed(0)} ms of CPU; its surface comparison ${inside.toFixed(2)} ms = ${(share * 100).toFixed(2)}%; target ≤ 5%: ${share <= 0.05 ? "MET" : "MISSED"}`,
  );
  const stat = (x: number) => ({ median: x, p25: x, p75: x });
  return [
    {
      benchmark: "surface",
      measurement: "comparing two 1,000-tool surfaces vs canonicalising both",
      of: "compare rate",
      versus: "canonicalise rate",
      atLeast: 0.5,
      ratio: stat(1 / ratio1),
      met: ratio1 <= 2,
    },
    {
      benchmark: "surface",
      measurement: "the surface comparison inside a check of server-everything vs the check's CPU time",
      of: "check CPU",
      versus: "comparison",
      atLeast: 20,
      ratio: stat(1 / share),
      met: share <= 0.05,
    },
  ];
}

export const surfaceBenchmark: Benchmark = {
  name: "surface",
  title: "check --surface: the comparison against canonicalising, and against the check's CPU time",
  run,
};
