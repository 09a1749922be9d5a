/**
 * `tap --listen` keeps conversations apart as the protocol makes them over HTTP: each sessionless
 * exchange on its own, a legacy session by `Mcp-Session-Id`, an HTTP+SSE session by its
 * `endpoint`. Real SDK clients, several at once and one after another, through the tap to
 * `mcp-wire serve --http` and to server-everything (Streamable HTTP and HTTP+SSE): no defect
 * live, and `lint` of the tap's `--log` finds exactly what the tap found.
 */
import assert from "node:assert/strict";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as V1SseTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as V2Client,
  SSEClientTransport as V2SseTransport,
  StreamableHTTPClientTransport as V2HttpTransport,
} from "@modelcontextprotocol/client";
import { startHttpTap, type HttpTap } from "./http-tap.js";
import { TapReport } from "./report.js";
import { lintJson, startEverythingHttp, startServeHttp, within, type Started, messageRecords } from "../testkit/tap.js";

const TIMEOUT = 10_000;
const dir = mkdtempSync(join(tmpdir(), "mcp-wire-tap-conversations-"));
const stops: (() => unknown)[] = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
  rmSync(dir, { recursive: true, force: true });
});

class Live extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString("utf8");
    done();
  }
}

/** An in-process tap in front of `upstream`, logging every message to a file. */
async function tapWithLog(
  upstream: Started,
  name: string,
): Promise<{ tap: HttpTap; report: TapReport; live: Live; log: string }> {
  stops.push(() => upstream.stop());
  const log = join(dir, `${name}.ndjson`);
  const live = new Live();
  const report = new TapReport({ live, log: createWriteStream(log) });
  const tap = await startHttpTap({ upstream: upstream.url, port: 0, report });
  stops.push(() => tap.close());
  return { tap, report, live, log };
}

type Kind = "v1" | "v2" | "v2-auto" | "v2-modern" | "v1-sse" | "v2-sse";

/** One SDK client's whole session through the tap: connect, list, call echo, close. */
async function session(url: string, kind: Kind, echo: (text: string) => Record<string, unknown>): Promise<void> {
  const target = new URL(url);
  const client =
    kind === "v1" || kind === "v1-sse"
      ? new V1Client({ name: `tap-${kind}`, version: "1.0.0" })
      : new V2Client(
          { name: `tap-${kind}`, version: "1.0.0" },
          kind === "v2-auto"
            ? { versionNegotiation: { mode: "auto" } }
            : kind === "v2-modern"
              ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
              : {},
        );
  const transport =
    kind === "v1"
      ? new V1HttpTransport(target)
      : kind === "v1-sse"
        ? new V1SseTransport(target)
        : kind === "v2-sse"
          ? new V2SseTransport(target)
          : new V2HttpTransport(target);
  await within((client as V1Client).connect(transport as V1HttpTransport, { timeout: TIMEOUT }), `${kind} connect`);
  const { tools } = await within((client as V1Client).listTools(undefined, { timeout: TIMEOUT }), `${kind} tools/list`);
  assert.ok(
    tools.some((t) => t.name === "echo"),
    kind,
  );
  const text = `héllo from ${kind}`;
  const result = (await within(
    (client as V1Client).callTool({ name: "echo", arguments: echo(text) }, undefined, { timeout: TIMEOUT }),
    `${kind} echo`,
  )) as { content: { text?: string }[] };
  assert.match(result.content[0]?.text ?? "", new RegExp(text));
  if (transport instanceof V1HttpTransport) await transport.terminateSession().catch(() => undefined);
  await (client as V1Client).close();
}

/** What the tap found (every record's defects) and what lint finds in its log: both must be nothing. */
async function assertCleanBothWays(
  t: { tap: HttpTap; report: TapReport; live: Live; log: string },
  minConversations: number,
): Promise<void> {
  await t.tap.close();
  await t.report.close();
  const records = messageRecords<{ conversation?: string; defects: { code: string }[]; http?: { exchange?: number } }>(
    t.log,
  );
  const found = records.flatMap((r) => r.defects.map((d) => d.code));
  assert.deepEqual(found, [], `the tap found: ${found.join(", ")}`);
  assert.ok(
    records.every((r) => typeof r.conversation === "string" && typeof r.http?.exchange === "number"),
    "every record names its conversation and exchange",
  );
  const conversations = new Set(records.map((r) => r.conversation)).size;
  assert.ok(conversations >= minConversations, `${conversations} conversations`);
  assert.match(t.report.summary(t.tap.revisions()), /^tap: no defects$/m);
  const lint = lintJson(t.log);
  assert.equal(lint.records.length, records.length);
  assert.deepEqual(
    lint.records.flatMap((r) => r.defects.map((d) => d.code)),
    [],
    "lint of the log",
  );
  assert.equal(lint.status, 0);
}

describe("tap --listen: conversations kept apart", () => {
  test("six SDK clients at once through the tap to `serve --http`: no defect live, none in lint of the log", async () => {
    const t = await tapWithLog(await startServeHttp(), "six");
    const kinds: Kind[] = ["v1", "v2", "v2-auto", "v2-modern", "v1", "v2-modern"];
    await Promise.all(kinds.map((k) => session(t.tap.url, k, (text) => ({ text }))));
    await assertCleanBothWays(t, 6);
  });

  test("one client after another, where server-everything refuses server/discover with 400 {id: null}: no defect", async () => {
    const t = await tapWithLog(await startEverythingHttp("streamable"), "discover-refused");
    for (const k of ["v2-auto", "v2-auto", "v1", "v2"] as const)
      await session(t.tap.url, k, (message) => ({ message }));
    await assertCleanBothWays(t, 4);
    // read once the tap has closed: records are written as each message's judging completes
    const refusals = readFileSync(t.log, "utf8")
      .split("\n")
      .filter((l) => /"status":400/.test(l));
    assert.equal(refusals.length, 2, "both server/discover requests were refused with a 400 body");
  });

  test("HTTP+SSE: the answers on the GET stream are matched to the requests POSTed for its session (v1 and v2 SSE clients, two sessions)", async () => {
    const t = await tapWithLog(await startEverythingHttp("sse"), "sse");
    for (const k of ["v1-sse", "v2-sse"] as const) await session(t.tap.url, k, (message) => ({ message }));
    await assertCleanBothWays(t, 2);
  });
});
