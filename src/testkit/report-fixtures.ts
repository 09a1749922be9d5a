/**
 * Known census data for the report's tests: the two stories docs/report.md tells (1,100 servers
 * called once each on 20 August 2026; 82 attempts at one server between 20 July and 5 August
 * 2026), fed to an in-memory store the way the census feeds a real one.
 */
import type { AttemptRecord } from "../census/store.js";
import { MemoryStore } from "./memory-store.js";
import { adviceFor } from "../probe/advice.js";
import type { ProbeClass } from "../probe/verdict.js";
import { describeError } from "../rules/error-codes.js";
import { LATEST_REVISION, type Revision } from "../rules/revisions.js";

export type Shape = Partial<Omit<AttemptRecord, "runId" | "target" | "at">> & Pick<AttemptRecord, "class" | "detail">;

/** An attempt as the census would record it, with the probe's advice. */
export function attempt(runId: number, target: string, at: string, shape: Shape): AttemptRecord {
  const rpc =
    shape.rpcCode != null
      ? {
          code: shape.rpcCode,
          message: shape.rpcMessage ?? "",
          range: describeError(shape.rpcCode, LATEST_REVISION).range,
        }
      : null;
  const base: AttemptRecord = {
    runId,
    target,
    at,
    class: shape.class,
    detail: shape.detail,
    era: null,
    revision: null,
    transport: "streamable-http",
    httpStatus: null,
    contentType: null,
    rpcCode: rpc?.code ?? null,
    rpcMessage: rpc?.message ?? null,
    rpcRange: rpc?.range ?? null,
    tools: null,
    serverName: null,
    serverVersion: null,
    defects: [],
    elapsedMs: 120,
    repro: null,
    advice: null,
    auth: null,
  };
  const a = { ...base, ...shape };
  if (a.advice === null && a.class !== "invalid_target") {
    a.advice = adviceFor(a.class as ProbeClass, {
      detail: a.detail,
      rpcError: rpc,
      http: a.httpStatus !== null ? { status: a.httpStatus, contentType: a.contentType ?? "" } : null,
      transport: "streamable-http",
      revision: a.revision,
      defects: a.defects,
    });
  }
  return a;
}

export const ok = (era: "modern" | "legacy", revision: Revision, tools = 3): Shape => ({
  class: "ok",
  detail: era,
  era,
  revision,
  tools,
  httpStatus: 200,
  contentType: "application/json",
});
export const rpc = (cls: "rpc_error" | "auth_required", detail: string, code: number, message: string): Shape => ({
  class: cls,
  detail,
  rpcCode: code,
  rpcMessage: message,
  httpStatus: 200,
  contentType: "application/json",
});
export const fail = (cls: string, detail: string, extra: Partial<Shape> = {}): Shape => ({
  class: cls,
  detail,
  ...extra,
});

/** The mix of the 1,100-server census docs/report.md tells of (its six refusals as told). */
const SEED_CENSUS: [Shape, number][] = [
  [ok("modern", "2026-07-28"), 700],
  [ok("legacy", "2025-06-18"), 250],
  [ok("legacy", "2025-03-26"), 50],
  [rpc("auth_required", "rpc_error_instead_of_401", -32001, "invalid api key"), 1],
  [rpc("auth_required", "rpc_error_instead_of_401", -32001, "Authentication failed"), 1],
  [rpc("auth_required", "rpc_error_instead_of_401", -32001, "Unauthorized"), 1],
  [rpc("rpc_error", "method_not_found", -32601, "Unknown method: initialize"), 1],
  [rpc("rpc_error", "unsupported_version", -32602, "Unsupported MCP protocol version"), 1],
  [rpc("rpc_error", "internal_error", -32603, "Internal error"), 1],
  [fail("auth_required", "http_401", { httpStatus: 401 }), 10],
  [fail("unreachable", "dns"), 25],
  [fail("unreachable", "refused"), 15],
  [fail("timeout", "initialize", { elapsedMs: 10_000 }), 14],
  [fail("http_error", "http_404", { httpStatus: 404 }), 8],
  [fail("http_error", "http_502", { httpStatus: 502, contentType: "text/html" }), 4],
  [fail("web_page", "text/html", { httpStatus: 200, contentType: "text/html" }), 9],
  [fail("not_jsonrpc", "bare_array", { httpStatus: 200, contentType: "application/json" }), 2],
  [fail("not_jsonrpc", "no_envelope", { httpStatus: 200, contentType: "application/json" }), 3],
  [fail("protocol_violation", "id_null", { httpStatus: 200, contentType: "application/json" }), 4],
];

const SEED_DAY = "2026-08-20";

/** One run on 20 August 2026 calling 1,100 servers once each. */
export function seedCensus(store = new MemoryStore(() => new Date(`${SEED_DAY}T09:00:00Z`))): MemoryStore {
  const shapes = SEED_CENSUS.flatMap(([shape, n]) => Array.from({ length: n }, () => shape));
  const targets = shapes.map((_, i) => ({
    target: `https://mcp${String(i).padStart(4, "0")}.example.com/mcp`,
    kind: "http" as const,
    name: null,
  }));
  const runId = store.startRun("registry.json", targets, { timeout: 10_000 });
  shapes.forEach((shape, i) => {
    const at = new Date(Date.parse(`${SEED_DAY}T09:00:00Z`) + i * 1000).toISOString();
    store.recordAttempt(
      attempt(runId, targets[i]!.target, at, { ...shape, elapsedMs: shape.elapsedMs ?? 40 + ((i * 37) % 900) }),
    );
  });
  store.finishRun(runId);
  return store;
}

export const HISTORY_TARGET = "https://tools.example.org/mcp";

/**
 * 82 attempts at one server, one a run, between 20 July and 5 August 2026: 4 protocol errors
 * (two bare arrays, two results without an envelope), 3 web pages, the rest fine.
 */
export function seedHistory(store?: MemoryStore): MemoryStore {
  const start = Date.parse("2026-07-20T06:00:00Z");
  const end = Date.parse("2026-08-05T18:00:00Z");
  const at = (i: number) => new Date(start + Math.round(((end - start) * i) / 81)).toISOString();
  let clock = start;
  const s = store ?? new MemoryStore(() => new Date(clock));
  const odd = new Map<number, Shape>([
    [5, fail("not_jsonrpc", "bare_array", { httpStatus: 200 })],
    [23, fail("not_jsonrpc", "no_envelope", { httpStatus: 200 })],
    [40, fail("not_jsonrpc", "bare_array", { httpStatus: 200 })],
    [61, fail("not_jsonrpc", "no_envelope", { httpStatus: 200 })],
    [12, fail("web_page", "text/html", { httpStatus: 200, contentType: "text/html" })],
    [47, fail("web_page", "text/html", { httpStatus: 200, contentType: "text/html" })],
    [70, fail("web_page", "text/html", { httpStatus: 200, contentType: "text/html" })],
  ]);
  for (let i = 0; i < 82; i++) {
    clock = Date.parse(at(i));
    const runId = s.startRun("watch.txt", [{ target: HISTORY_TARGET, kind: "http", name: null }], {});
    s.recordAttempt(
      attempt(runId, HISTORY_TARGET, at(i), { ...(odd.get(i) ?? ok("legacy", "2025-06-18")), elapsedMs: 80 + i }),
    );
    clock += 2000;
    s.finishRun(runId);
  }
  return s;
}

/**
 * Fifty targets as a newcomer's own census finds them, for the page's layout: most healthy, a
 * few failing in every way, URLs long enough to wrap (paths, query strings, a key), a target
 * with a long history, and three runs started within one minute, two of them in one second.
 */
export function seedFifty(): MemoryStore {
  let clock = Date.parse("2026-08-20T09:00:05Z");
  const store = new MemoryStore(() => new Date(clock));
  const long = (i: number) =>
    `https://analytics-gateway-${i}.eu-west-1.internal-platform.example.com/api/v2/organizations/acme-corporation-holdings/mcp/servers/reporting?workspace=production&region=eu-west-1&api_key=<redacted>`;
  const shapes: [string, Shape][] = [];
  for (let i = 0; i < 32; i++)
    shapes.push([
      i % 4 === 0 ? long(i) : `https://mcp${i}.example.com/mcp`,
      ok(i % 2 ? "modern" : "legacy", i % 2 ? "2026-07-28" : "2025-06-18"),
    ]);
  const failing: Shape[] = [
    fail("not_jsonrpc", "bare_array", { httpStatus: 200 }),
    fail("not_jsonrpc", "no_envelope", { httpStatus: 200 }),
    fail("protocol_violation", "id_null", {
      httpStatus: 200,
      defects: [{ code: "id_null", severity: "error", path: "/id", message: "the id is null" }],
    }),
    fail("web_page", "text/html", { httpStatus: 200, contentType: "text/html" }),
    fail("timeout", "initialize", { elapsedMs: 10_000 }),
    fail("unreachable", "dns"),
    fail("http_error", "http_404", { httpStatus: 404 }),
    fail("http_error", "http_502", { httpStatus: 502, contentType: "text/html" }),
    rpc("auth_required", "rpc_error_instead_of_401", -32001, "invalid api key"),
    rpc("rpc_error", "method_not_found", -32601, "Unknown method: initialize"),
    fail("auth_required", "http_401", { httpStatus: 401 }),
    fail("invalid_target", "template"),
    fail("not_json", "empty_body", { httpStatus: 200 }),
    fail("protocol_violation", "result_and_error", { httpStatus: 200 }),
    fail("timeout", "server/discover", { elapsedMs: 10_000 }),
    fail("unreachable", "refused"),
    fail("not_jsonrpc", "bare_array", { httpStatus: 200 }),
  ];
  failing.forEach((shape, i) =>
    shapes.push([i % 3 === 0 ? `${long(100 + i)}&page=${i}` : `https://broken${i}.example.net/v1/mcp`, shape]),
  );
  const targets = shapes.map(([target]) => ({ target, kind: "http" as const, name: null }));
  const first = store.startRun("targets.txt", targets, {});
  shapes.forEach(([target, shape], i) =>
    store.recordAttempt(attempt(first, target, new Date(clock + i * 100).toISOString(), shape)),
  );
  store.finishRun(first);
  // two more runs in the same minute, one of them in the same second, over the first few targets
  for (const at of ["2026-08-20T09:00:40Z", "2026-08-20T09:00:40.500Z"]) {
    clock = Date.parse(at);
    const run = store.startRun("targets.txt", targets.slice(0, 3), {});
    for (const [target, shape] of shapes.slice(0, 3)) store.recordAttempt(attempt(run, target, at, shape));
    store.finishRun(run);
  }
  // one target with a long history of its own, a run a day before the census
  for (let day = 0; day < 12; day++) {
    clock = Date.parse("2026-08-01T06:00:00Z") + day * 86_400_000;
    const run = store.startRun("watch.txt", [{ target: HISTORY_TARGET, kind: "http", name: null }], {});
    store.recordAttempt(
      attempt(
        run,
        HISTORY_TARGET,
        new Date(clock).toISOString(),
        day % 4 === 1
          ? fail("web_page", "text/html", { httpStatus: 200 })
          : day % 5 === 2
            ? fail("not_jsonrpc", "bare_array")
            : ok("legacy", "2025-06-18"),
      ),
    );
    store.finishRun(run);
  }
  return store;
}
