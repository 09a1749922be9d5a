/**
 * A census history made up for tests and benchmarks of what reads many runs: `targets` servers
 * probed once a day for `runs` days up to `now`, most healthy, some failing now and then, some
 * asking for sign-in, and every seventh redefining a tool on the last day. Deterministic: the
 * same arguments give the same attempts.
 */
import type { AttemptRecord, Store, TargetRecord } from "../census/store.js";
import { surfaceRecord, withDigests } from "../census/surface.js";

const DAY = 86_400_000;

export interface HistoryOptions {
  targets: number;
  runs: number;
  /** The last run's time, ms. */
  now: number;
  /** Target URLs; `https://mcp<i>.example.com/mcp` by default. */
  url?: (i: number) => string;
}

export const historyUrl = (i: number) => `https://mcp${String(i).padStart(5, "0")}.example.com/mcp`;

function attemptOf(runId: number, target: string, i: number, run: number, runs: number, at: number): AttemptRecord {
  const failing = i % 10 === 3 && run % 3 === 0;
  const signin = i % 10 === 5;
  const redefined = i % 7 === 0 && run === runs - 1;
  const tools = [
    {
      name: "echo",
      description: redefined ? "Says the text back" : "Echoes the text",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    },
  ];
  const ok = !failing && !signin;
  return {
    runId,
    target,
    at: new Date(at).toISOString(),
    class: failing ? "unreachable" : signin ? "auth_required" : "ok",
    detail: failing ? "refused" : signin ? "http_401" : "modern",
    era: ok ? "modern" : null,
    revision: ok ? "2026-07-28" : null,
    transport: "streamable-http",
    httpStatus: failing ? null : signin ? 401 : 200,
    contentType: failing ? null : "application/json",
    rpcCode: null,
    rpcMessage: null,
    rpcRange: null,
    tools: ok ? tools.length : null,
    serverName: ok ? `server-${i}` : null,
    serverVersion: ok ? "1.0.0" : null,
    defects: [],
    elapsedMs: 40 + ((i * 37 + run * 11) % 400),
    repro: null,
    advice: null,
    auth: null,
    surface: ok ? withDigests(surfaceRecord({ tools, resources: null, resourceTemplates: null, prompts: null })) : null,
  };
}

/** Fills `store` with the history, a run a day; `record` stores one run's attempts (a batch where the engine has one). */
export async function fillHistory(
  store: Store,
  options: HistoryOptions,
  record: (attempts: AttemptRecord[]) => Promise<unknown> = async (as) => {
    for (const a of as) await store.recordAttempt(a);
  },
): Promise<void> {
  const url = options.url ?? historyUrl;
  const targets: TargetRecord[] = Array.from({ length: options.targets }, (_, i) => ({
    target: url(i),
    kind: "http",
    name: null,
  }));
  for (let run = 0; run < options.runs; run++) {
    const start = options.now - (options.runs - 1 - run) * DAY;
    const runId = await store.startRun("history", targets, {});
    await record(targets.map((t, i) => attemptOf(runId, t.target, i, run, options.runs, start + i)));
    await store.finishRun(runId);
  }
}

/**
 * One server called `perDay` times a day for `days` days up to `now`, a run each call: its
 * latency wanders between 30 ms and about 2 s and every ninth call finds it unreachable. What a
 * chart of a busy server's latency must stay readable over. `record` as for `fillHistory`.
 */
export async function fillBusyServer(
  store: Store,
  target: string,
  options: { days: number; perDay: number; now: number },
  record: (attempts: AttemptRecord[]) => Promise<unknown> = (as) => store.recordAttempt(as[0]!),
): Promise<void> {
  const calls = options.days * options.perDay;
  for (let n = 0; n < calls; n++) {
    const at = options.now - (calls - 1 - n) * (DAY / options.perDay);
    const runId = await store.startRun("busy", [{ target, kind: "http", name: null }], {});
    const down = n % 9 === 4;
    const attempt = attemptOf(runId, target, 1, n, calls, at);
    await record([
      {
        ...attempt,
        class: down ? "unreachable" : "ok",
        detail: down ? "refused" : "modern",
        elapsedMs: 30 + ((n * 7919) % 2000) * ((n % 5) / 4),
      },
    ]);
    await store.finishRun(runId);
  }
}
