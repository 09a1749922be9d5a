/**
 * The cells of the interop matrix, written once: a peer probed by `mcp-wire probe`; a client
 * talking to a peer through `mcp-wire tap`, with what tap reported live and what `lint` finds in
 * its log; mcp-wire's own client calling a tool. The quick subset in `npm test` and the broad
 * matrix in `npm run interop` both build their tests from these. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { connectClient, type ClientName, type Endpoint, type InteropClient } from "./interop-clients.js";
import {
  STEP_MS,
  lint,
  listDefects,
  probe,
  readLog,
  scratch,
  startHttpTap,
  tapStdioCommand,
  tapSummary,
  within,
  type LogRecord,
  type TapSummary,
} from "./interop-harness.js";
import type { PeerRow, RunningPeer } from "./interop-peers.js";

export type Call = PeerRow["call"];

/**
 * Cells that still fail because of a known gap in mcp-wire, by test name, with the reason: they
 * run as `todo`, so the suite stays green while the gap stays visible. Remove a line once its
 * cell passes.
 */
const KNOWN_GAPS: Readonly<Record<string, string>> = {};

/** `test`, or a `todo` test when the cell is a known gap. */
export function cell(name: string, fn: () => Promise<void>): void {
  const gap = KNOWN_GAPS[name];
  test(name, gap ? { todo: gap } : {}, fn);
}

/** Starts the peer once for the describe block this is called in, stops it afterwards. */
export function startedOnce(row: PeerRow): { readonly peer: RunningPeer; readonly dir: string } {
  const space = scratch();
  let started: RunningPeer | undefined;
  let failure: unknown;
  before(async () => {
    try {
      started = await within(row.start(space.dir), `starting ${row.name}`);
    } catch (e) {
      failure = e;
    }
  });
  after(async () => {
    await started?.stop();
    space.cleanup();
  });
  return {
    get peer(): RunningPeer {
      if (!started) throw failure instanceof Error ? failure : new Error(`${row.name} did not start`);
      return started;
    },
    dir: space.dir,
  };
}

/** list, then one call, checked. */
export async function listAndCall(client: InteropClient, call: Call, who: string): Promise<void> {
  const names = await within(client.listTools(), `${who}: tools/list`);
  assert.ok(names.includes(call.tool), `${who}: ${call.tool} in ${JSON.stringify(names)}`);
  const result = await within(client.callTool(call.tool, call.args), `${who}: tools/call ${call.tool}`);
  assert.equal(result.isError, false, `${who}: ${call.tool} failed: ${result.text}`);
  assert.match(result.text, call.expect, `${who}: ${call.tool}`);
}

/** `mcp-wire probe` as a process: `ok`, exit 0, and no defect but those `expected` (by code). */
async function probeIsClean(peer: RunningPeer, expected: readonly string[] = []): Promise<void> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(peer.env ?? {})) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  try {
    const { status, verdict, raw } = await probe(peer.target);
    assert.equal(
      verdict.class,
      "ok",
      `class ${verdict.class} (${verdict.detail}): ${verdict.advice}\n${raw.slice(0, 3000)}`,
    );
    const unexpected = verdict.defects.filter((d) => !expected.includes(d.code));
    assert.deepEqual(
      unexpected,
      [],
      `false defects on a healthy peer:\n${listDefects(unexpected)}\n${raw.slice(0, 3000)}`,
    );
    assert.deepEqual(
      verdict.defects.map((d) => d.code).filter((c) => expected.includes(c)),
      [...expected],
      "the defects this peer really has",
    );
    assert.equal(status, 0);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export interface Tapped {
  /** The tap's end-of-session summary: its live report when it writes a log. */
  summary: TapSummary;
  records: LogRecord[];
  log: string;
}

let logs = 0;

/**
 * `clients` (one or several, at once) list and call through `mcp-wire tap --log` in front of
 * `peer`: `tap -- <command>` for a stdio peer (each client starts its own tap), `tap --listen`
 * for an HTTP one (all clients share it). `bridge` puts a process between client and tap, as
 * mcp-remote does: it gets the tap's URL and gives the endpoint the client uses. With
 * `clientErrors: "none"` the clients must not report anything through their error hooks; with
 * `oneAfterAnother` each client starts when the one before has closed.
 */
export async function throughTap(
  clients: readonly ClientName[],
  peer: RunningPeer,
  call: Call,
  dir: string,
  options: { bridge?: (tapUrl: string) => Endpoint; clientErrors?: "none"; oneAfterAnother?: boolean } = {},
): Promise<Tapped[]> {
  const bridge = options.bridge;
  const taps: { log: string; summary: () => string; stop?: () => Promise<unknown> }[] = [];
  const endpoints: Endpoint[] = [];
  const pe = peer.endpoint;
  if (pe.kind === "stdio") {
    for (const _ of clients) {
      const log = join(dir, `tap-${++logs}.ndjson`);
      const stderrPath = join(dir, `tap-${logs}.stderr`);
      endpoints.push({
        kind: "stdio",
        ...tapStdioCommand(log, pe.command, pe.args),
        ...(pe.env ? { env: pe.env } : {}),
        stderrPath,
      });
      taps.push({ log, summary: () => "" });
    }
  } else {
    const log = join(dir, `tap-${++logs}.ndjson`);
    const tap = await startHttpTap(pe.url, log);
    const endpoint: Endpoint = bridge
      ? bridge(tap.url)
      : { kind: "http", url: tap.url, ...(pe.sse ? { sse: true } : {}) };
    for (const _ of clients) endpoints.push(endpoint);
    taps.push({ log, summary: () => tap.proc.stderr, stop: () => tap.proc.stop() });
  }
  const opened: InteropClient[] = [];
  const each = async (name: ClientName, i: number): Promise<void> => {
    const client = await connectClient(name, endpoints[i]!);
    opened.push(client);
    await listAndCall(client, call, name);
    await client.close();
    // what a client says on the side depends on the peer too (mcp-lite answers the SDK's
    // GET with 400, which it reports): only a peer of ours must leave it silent
    if (options.clientErrors === "none") assert.deepEqual(client.errors, [], `${name} reported errors`);
    if (pe.kind === "stdio") {
      const tap = taps[i]!;
      tap.summary = () => client.stderr();
      await waitForSummary(tap.summary, `${name}'s tap`);
    }
  };
  try {
    if (options.oneAfterAnother) for (const [i, name] of clients.entries()) await each(name, i);
    else await Promise.all(clients.map(each));
  } finally {
    await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
    for (const tap of taps) await tap.stop?.();
  }
  return taps.map((tap) => ({
    summary: tapSummary(tap.summary()),
    records: existsSync(tap.log) ? readLog(tap.log) : [],
    log: tap.log,
  }));
}

async function waitForSummary(stderr: () => string, what: string): Promise<void> {
  const start = Date.now();
  while (!/^tap: \d+ messages? client→server/m.test(stderr())) {
    if (Date.now() - start > STEP_MS)
      throw new Error(`${what} printed no summary after ${STEP_MS} ms; its stderr:\n${stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Zero defects live (the summary and every log record) and from `lint` of the log, exit 0. */
export function assertClean(tapped: readonly Tapped[]): void {
  for (const t of tapped) {
    const logged = t.records.flatMap((r) =>
      r.defects.map((d) => ({ ...d, message: `${r.from}: ${d.message} — ${r.line.slice(0, 200)}` })),
    );
    assert.ok(t.records.length > 0, `the tap logged no message (${t.log})`);
    assert.deepEqual(logged, [], `tap reported defects live (${t.summary.defects}):\n${listDefects(logged)}`);
    assert.ok(t.summary.clean, `tap's summary: ${t.summary.defects}`);
    const linted = lint(t.log);
    assert.deepEqual(
      linted.defects,
      [],
      `lint of the tap's log (exit ${linted.status}):\n${listDefects(linted.defects)}`,
    );
    assert.equal(linted.status, 0, linted.stderr);
  }
}

/** For an HTTP peer: several clients at once through one tap, which must keep them apart. */
export function concurrentCell(row: PeerRow, ctx: { readonly peer: RunningPeer; readonly dir: string }): void {
  if (row.transport !== "streamable-http") return;
  cell(`${row.name}: three clients at once through one tap --listen: no defects`, async () => {
    assertClean(await throughTap(["sdk-v1", "sdk-v1", "mcp-wire"], ctx.peer, row.call, ctx.dir));
  });
}

/**
 * The cells every server peer gets: probe, SDK v1 and v2 through tap + lint, mcp-wire's client,
 * and unless `concurrent` is false, several clients through one tap.
 */
export function serverCells(row: PeerRow, options: { concurrent?: boolean } = {}): void {
  describe(row.name, () => {
    const ctx = startedOnce(row);
    cell(`${row.name}: probe says ok with no defects`, () => probeIsClean(ctx.peer, row.probeDefects));
    cell(`${row.name}: SDK v1 client through tap: no defects live or in lint`, async () => {
      assertClean(await throughTap(["sdk-v1"], ctx.peer, row.call, ctx.dir));
    });
    // a dual-era client: server/discover first, so a legacy peer's refusal crosses the tap too
    cell(`${row.name}: SDK v2 client (auto) through tap: no defects live or in lint`, async () => {
      assertClean(await throughTap(["sdk-v2"], ctx.peer, row.call, ctx.dir));
    });
    if (options.concurrent !== false) concurrentCell(row, ctx);
    cell(`${row.name}: mcp-wire's client lists and calls`, async () => {
      const client = await connectClient("mcp-wire", ctx.peer.endpoint);
      try {
        await listAndCall(client, row.call, "mcp-wire");
      } finally {
        await client.close();
      }
    });
  });
}
