/**
 * A census people keep watching, at the size of the official registry: 14,000 servers probed once
 * a day for 30 days (420,000 attempts, each with its tools' surface) in SQLite. Measured:
 *
 * - `report --changes` over the whole history: under 5 s;
 * - `report --serve`: the index, a server's page (under 200 ms each) and the JSON API (under
 *   50 ms), each the median of requests over loopback HTTP after the server started, which is
 *   timed and printed too (it reads the 30 days once).
 *
 * Every answer is checked (the server count, the changes found), so a fast wrong answer shows.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { SqliteStore } from "../src/census/sqlite-store.js";
import { changesOf } from "../src/report/changes.js";
import { serveReport } from "../src/report/serve/app.js";
import { serverId } from "../src/report/serve/model.js";
import { fillHistory, historyUrl } from "../src/testkit/census-history.js";
import { fmtBytes, quantile, table, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

const DAY = 86_400_000;
const NOW = Date.parse("2026-12-03T12:00:00.000Z");

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`serve benchmark: ${what}`);
}

/** Median and worst of `n` timed GETs of `url`, each body read whole; `verify` checks the last. */
async function timeGets(
  url: string,
  n: number,
  verify: (body: string) => void,
): Promise<{ median: number; worst: number }> {
  const times: number[] = [];
  let body = "";
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    body = await res.text();
    times.push(performance.now() - t0);
    check(res.status === 200, `${url} answered ${res.status}`);
  }
  verify(body);
  return { median: quantile(times, 0.5), worst: Math.max(...times) };
}

function outcome(name: string, budgetMs: number, t: { median: number; worst: number }): TargetOutcome {
  return {
    of: `${budgetMs} ms budget`,
    versus: name,
    atLeast: 1,
    benchmark: "serve",
    measurement: "report --serve and --changes over 14,000 servers × 30 days",
    ratio: { median: budgetMs / t.median, p25: budgetMs / t.worst, p75: budgetMs / t.median },
    met: t.median < budgetMs,
  };
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const targets = profile.quick ? 1_400 : 14_000;
  const runs = 30;
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-wire-serve-bench-"));
  const file = path.join(dir, "census.db");
  try {
    const fill0 = performance.now();
    const writer = new SqliteStore(file);
    writer.db.pragma("cache_size = -262144");
    await fillHistory(writer, { targets, runs, now: NOW - 3_600_000 }, (as) => writer.recordAttempts(as));
    writer.db.pragma("wal_checkpoint(TRUNCATE)");
    await writer.close();
    console.log(
      `filled ${(targets * runs).toLocaleString("en")} attempts (${targets.toLocaleString("en")} servers × ${runs} days, with surfaces) in ${((performance.now() - fill0) / 1000).toFixed(1)} s; database ${fmtBytes(statSync(file).size)}`,
    );

    const store = new SqliteStore(file, { readonly: true });
    try {
      // --changes: every seventh server redefined a tool on the last day, every tenth from 3 fails now and then
      const c0 = performance.now();
      const changes = await changesOf(store, { since: new Date(NOW - 30 * DAY).toISOString() });
      const changesMs = performance.now() - c0;
      check(changes.length === targets, `--changes followed ${changes.length} servers, ${targets} were written`);
      const redefined = changes.filter((t) =>
        t.changes.some(
          (c) =>
            c.kind === "surface" &&
            c.tools.redefined.some((r) => r.name === "echo" && r.changed.join() === "description"),
        ),
      ).length;
      // every seventh server redefines echo on the last day, but those asking for sign-in list no tools
      let written = 0;
      for (let i = 0; i < targets; i++) if (i % 7 === 0 && i % 10 !== 5) written++;
      check(redefined === written, `--changes found ${redefined} redefinitions, ${written} were written`);

      const s0 = performance.now();
      const server = await serveReport(store, { now: () => NOW });
      const startMs = performance.now() - s0;
      try {
        check(server.servers === targets, `--serve loaded ${server.servers} servers`);
        const n = profile.quick ? 5 : 21;
        const one = serverId(historyUrl(7));
        const index = await timeGets(server.url, n, (b) =>
          check(b.includes(`${targets.toLocaleString("en")} servers checked`), "the index does not count every server"),
        );
        const sorted = await timeGets(`${server.url}?sort=uptime30d&page=3`, n, (b) =>
          check(b.includes("page 3 of"), "the sorted index is not on page 3"),
        );
        const page = await timeGets(`${server.url}server/${one}`, n, (b) =>
          check(b.includes("~ echo (description)"), "the server page lacks its change"),
        );
        const api = await timeGets(`${server.url}api/servers`, n, (b) =>
          check((JSON.parse(b) as { total: number }).total === targets, "the API does not count every server"),
        );
        const apiOne = await timeGets(`${server.url}api/servers/${one}`, n, (b) =>
          check(
            (JSON.parse(b) as { attempts: unknown[] }).attempts.length === runs,
            "the API lists the wrong attempts",
          ),
        );
        console.log(
          "\n" +
            table(
              [
                "over 14,000 servers × 30 days".replace("14,000", targets.toLocaleString("en")),
                "median ms",
                "worst ms",
                "budget ms",
              ],
              [
                ["report --changes (30 days, one pass)", changesMs.toFixed(0), changesMs.toFixed(0), "5000"],
                ["report --serve start (reads 30 days)", startMs.toFixed(0), startMs.toFixed(0), "—"],
                ["GET / (index, page 1)", index.median.toFixed(1), index.worst.toFixed(1), "200"],
                ["GET /?sort=uptime30d&page=3", sorted.median.toFixed(1), sorted.worst.toFixed(1), "200"],
                ["GET /server/<id>", page.median.toFixed(1), page.worst.toFixed(1), "200"],
                ["GET /api/servers", api.median.toFixed(1), api.worst.toFixed(1), "50"],
                ["GET /api/servers/<id>", apiOne.median.toFixed(1), apiOne.worst.toFixed(1), "50"],
              ],
              [false, true, true, true],
            ),
        );
        return [
          outcome("report --changes", 5_000, { median: changesMs, worst: changesMs }),
          outcome("GET / (index)", 200, index),
          outcome("GET / sorted, page 3", 200, sorted),
          outcome("GET /server/<id>", 200, page),
          outcome("GET /api/servers", 50, api),
          outcome("GET /api/servers/<id>", 50, apiOne),
        ];
      } finally {
        await server.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const serveBenchmark: Benchmark = {
  name: "serve",
  title: "report --serve and --changes over a registry-sized history",
  run,
};
