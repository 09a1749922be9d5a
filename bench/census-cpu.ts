/**
 * The CPU a census spends per probe, against a bare `node:http` client doing the very same HTTP
 * exchanges in the same run. Target: the census within 1.25× the bare client's CPU per probe.
 *
 * The fleet runs in a child process (bench/census-fleet.ts). A real probe of each of its
 * answering behaviours is first recorded through a proxy (bench/census-capture.ts): every
 * request, its headers and body, and which were sent together. Then, round after round, two
 * child processes take turns over the same targets at the same concurrency: `runCensus` into a
 * real SQLite store (bench/census-run.ts), and a bare client replaying the recorded requests on
 * one keep-alive agent, reading every answer to its end (bench/census-bare.ts). Each first does a
 * warm-up pass over other targets, then times its pass with process.cpuUsage (user + system,
 * all threads: GC and SQLite included). The fleet counts the requests and bytes each one caused,
 * so the output shows they did the same exchanges.
 *
 * Three more children take their turns in every round, to show where the census's CPU goes: the
 * MCP client alone and probeHttp alone (bench/census-layers.ts), and the census with its attempts
 * kept in memory (census-run.ts, `memory`), over the same targets. They are reported layer by
 * layer, not targeted.
 *
 * Hanging targets are left out: a hang costs a probe almost no CPU, only time.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { captureProbes } from "./census-capture.js";
import type { FleetStats } from "./census-fleet.js";
import { answeringIndices, mostFirst, ratioStats, runJsonChild, targetTable, withFleet } from "./census-support.js";
import { loadLine, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const CONCURRENCY = 50;
const TIMEOUT_MS = 10_000;
const TARGET = 1.25;

interface CensusResult {
  probes: number;
  ms: number;
  censusCpuMs: number;
  classes: Record<string, number>;
  admission: { lowest: number; reason?: string; reprobed: number };
}

interface BareResult {
  probes: number;
  ms: number;
  cpuMs: number;
  requests: number;
  statuses: Record<string, number>;
}

interface LayerResult {
  probes: number;
  ms: number;
  cpuMs: number;
  classes: Record<string, number>;
}

type Contender = "census" | "memory" | "bare" | "client" | "probe";

const NAMES: Record<Contender, string> = {
  census: "mcp-wire census (runCensus, SQLite)",
  memory: "mcp-wire census, attempts kept in memory",
  bare: "bare node:http client",
  client: "mcp-wire client alone (connect, tools/list, close)",
  probe: "mcp-wire probeHttp alone (nothing stored)",
};

interface Turn {
  who: Contender;
  round: number;
  probes: number;
  cpuMsPerProbe: number;
  ms: number;
  fleet: FleetStats;
  note: string;
}

function delta(a: FleetStats, b: FleetStats): FleetStats {
  return {
    cpuMs: b.cpuMs - a.cpuMs,
    requests: b.requests - a.requests,
    connections: b.connections - a.connections,
    bytesIn: b.bytesIn - a.bytesIn,
    bytesOut: b.bytesOut - a.bytesOut,
  };
}

function run(profile: Profile): Promise<TargetOutcome[]> {
  const count = profile.quick ? 720 : 3_600;
  const warmup = profile.quick ? 180 : 720;
  const rounds = profile.quick ? 1 : 4;
  return withFleet([], async (fleet, dir) => {
    const captured = await captureProbes(fleet.port);
    const scriptFile = path.join(dir, "script.json");
    writeFileSync(scriptFile, JSON.stringify([...captured]));
    const perProbe = answeringIndices(captured.size * 10).map((i) => captured.get(i % 20)!.waves.flat().length);
    console.log(
      `${count.toLocaleString("en")} answering endpoints (every behaviour of the census bench but the hanging ones) on one local server (a separate process), ${CONCURRENCY} at a time, ` +
        `after a warm-up of ${warmup}; --per-host raised to ${CONCURRENCY} as the fleet is one host`,
    );
    console.log(
      `what a probe sends, recorded through a proxy (requests in waves sent together): ${[...captured.values()]
        .filter((c, k, all) => all.findIndex((o) => o.behaviour === c.behaviour) === k)
        .map((c) => `${c.behaviour} ${c.waves.map((w) => w.length).join("+")}`)
        .join(
          ", ",
        )}; ${(perProbe.reduce((a, b) => a + b, 0) / perProbe.length).toFixed(2)} requests per probe on average`,
    );
    console.log(
      "each contender is a child process timed with process.cpuUsage (user + system, all threads) over its timed pass only\n",
    );

    const turns: Turn[] = [];
    const order: Contender[] = ["census", "bare", "client", "probe", "memory"];
    for (let r = 0; r < rounds; r++) {
      // a different one goes first each round, so none always runs on a fresher machine
      for (const who of [...order.slice(r % order.length), ...order.slice(0, r % order.length)]) {
        const before = await fleet.stats();
        if (who === "census" || who === "memory") {
          const db = who === "memory" ? "memory" : path.join(dir, `census-${r}.db`);
          const x = await runJsonChild<CensusResult>("./census-run.js", [
            "wire",
            String(fleet.port),
            String(count),
            String(CONCURRENCY),
            String(TIMEOUT_MS),
            db,
            String(warmup),
            "answering",
          ]);
          const throttled =
            x.admission.lowest < CONCURRENCY
              ? `; admission lowered the limit to ${x.admission.lowest} (${x.admission.reason}), ${x.admission.reprobed} re-probed`
              : "";
          turns.push({
            who,
            round: r,
            probes: x.probes,
            cpuMsPerProbe: x.censusCpuMs / x.probes,
            ms: x.ms,
            fleet: delta(before, await fleet.stats()),
            note: mostFirst(x.classes) + throttled,
          });
        } else if (who === "client" || who === "probe") {
          const x = await runJsonChild<LayerResult>("./census-layers.js", [
            who,
            String(fleet.port),
            String(warmup),
            String(count),
            String(CONCURRENCY),
            String(TIMEOUT_MS),
          ]);
          turns.push({
            who,
            round: r,
            probes: x.probes,
            cpuMsPerProbe: x.cpuMs / x.probes,
            ms: x.ms,
            fleet: delta(before, await fleet.stats()),
            note: mostFirst(x.classes),
          });
        } else {
          const x = await runJsonChild<BareResult>("./census-bare.js", [
            String(fleet.port),
            scriptFile,
            String(warmup),
            String(count),
            String(CONCURRENCY),
          ]);
          const statuses = Object.entries(x.statuses)
            .map(([s, k]) => `${s}: ${k}`)
            .join(", ");
          turns.push({
            who,
            round: r,
            probes: x.probes,
            cpuMsPerProbe: x.cpuMs / x.probes,
            ms: x.ms,
            fleet: delta(before, await fleet.stats()),
            note: `HTTP ${statuses}`,
          });
        }
      }
    }

    const all = warmup + count;
    console.log(
      table(
        [
          "round",
          "contender",
          "CPU ms/probe",
          "s",
          "fleet: req/probe",
          "bytes in/probe",
          "bytes out/probe",
          "connections",
          "fleet CPU ms/probe",
          "outcome",
        ],
        turns.map((t) => [
          String(t.round + 1),
          NAMES[t.who],
          t.cpuMsPerProbe.toFixed(3),
          (t.ms / 1000).toFixed(2),
          (t.fleet.requests / all).toFixed(2),
          (t.fleet.bytesIn / all).toFixed(0),
          (t.fleet.bytesOut / all).toFixed(0),
          String(t.fleet.connections),
          (t.fleet.cpuMs / all).toFixed(3),
          t.note,
        ]),
        [true, false, true, true, true, true, true, true, true, false],
      ),
    );
    const census = turns.filter((t) => t.who === "census");
    const bare = turns.filter((t) => t.who === "bare");
    // the census's CPU over the bare client's, layer by layer (medians over the rounds)
    const med = (who: Contender) =>
      quantile(
        turns.filter((t) => t.who === who).map((t) => t.cpuMsPerProbe),
        0.5,
      );
    const reqs = (who: Contender) =>
      quantile(
        turns.filter((t) => t.who === who).map((t) => t.fleet.requests / all),
        0.5,
      );
    const excess = med("census") - med("bare");
    const layers: [Contender, string][] = [
      ["bare", "bare node:http client: the recorded requests, every answer read, nothing else"],
      ["client", "+ the MCP client: encode, HTTP client, decode, peer; dual-era opening, tools/list, close"],
      ["probe", "+ the probe: the verdict, the sign-in walk's requests, redaction"],
      ["memory", "+ the census: limiter, admission, attempt records (kept in memory)"],
      ["census", "+ SQLite: each attempt committed to the census's database"],
    ];
    console.log(
      `\nwhere the census's CPU goes, layer by layer (median CPU ms per probe over the rounds; the client alone sends no sign-in walk, so fewer requests):\n${table(
        ["layer", "CPU ms/probe", "added", "share of census − bare", "fleet: req/probe"],
        layers.map(([who, what], k) => {
          const added = k === 0 ? undefined : med(who) - med(layers[k - 1]![0]);
          return [
            what,
            med(who).toFixed(3),
            added === undefined ? "" : `${added >= 0 ? "+" : ""}${added.toFixed(3)}`,
            added === undefined ? "" : `${((100 * added) / excess).toFixed(0)}%`,
            reqs(who).toFixed(2),
          ];
        }),
        [false, true, true, true, true],
      )}`,
    );
    const mismatch = census.some(
      (c, k) =>
        c.fleet.requests !== bare[k]!.fleet.requests ||
        Math.abs(c.fleet.bytesIn - bare[k]!.fleet.bytesIn) > 0.01 * c.fleet.bytesIn,
    );
    console.log(
      mismatch
        ? "\nWARNING: the census and the bare client did not send the fleet the same requests and bytes in every round: the comparison is not like for like"
        : "\nthe fleet counted the same requests (and bytes in to within 1%) from both contenders in every round",
    );
    console.log(
      `(${loadLine()}; CPU time leaves out time spent waiting for a core, so a busy machine moves these figures less than wall time)`,
    );

    // per round: probes per CPU second of the census over those of the bare client
    const perRound = census.map((c, k) => bare[k]!.cpuMsPerProbe / c.cpuMsPerProbe);
    const over = census.map((c, k) => c.cpuMsPerProbe / bare[k]!.cpuMsPerProbe);
    const outcome: TargetOutcome = {
      of: "mcp-wire census",
      versus: "bare node:http client",
      // within 1.25× the CPU per probe, as probes per CPU second
      atLeast: Number((1 / TARGET).toFixed(2)),
      benchmark: "census-cpu",
      measurement: "census CPU per probe",
      ratio: ratioStats(perRound),
      met: quantile(over, 0.5) <= TARGET,
    };
    console.log(
      targetTable(
        [
          [
            "census CPU per probe",
            `${quantile(
              census.map((c) => c.cpuMsPerProbe),
              0.5,
            ).toFixed(3)} ms`,
            "",
            undefined,
          ],
          [
            "bare node:http CPU per probe",
            `${quantile(
              bare.map((c) => c.cpuMsPerProbe),
              0.5,
            ).toFixed(3)} ms`,
            "",
            undefined,
          ],
          [
            "census / bare, paired by round",
            `${quantile(over, 0.5).toFixed(2)}× [${quantile(over, 0.25).toFixed(2)}–${quantile(over, 0.75).toFixed(2)}]`,
            `≤ ${TARGET}×`,
            outcome.met,
          ],
        ],
        "measured [p25–p75]",
      ),
    );
    return [outcome];
  });
}

export const censusCpuBenchmark: Benchmark = {
  name: "census-cpu",
  title: "CPU per probe of a census of local endpoints against a bare node:http client doing the same exchanges",
  run,
};
