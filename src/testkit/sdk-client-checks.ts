/**
 * The checks every official SDK client goes through against `mcp-wire serve`, whatever carries
 * the messages (stdio pipes or Streamable HTTP): tools, a call, progress, cancellation, and how
 * the v2 client negotiated. A test helper (src/testkit/, left out of the package): it declares tests only when a test file calls it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { LEGACY_REVISIONS } from "../rules/revisions.js";
import { signal, until, within } from "./mcp-interop.js";

export interface ProgressSeen {
  progress: number;
  total?: number | undefined;
}

export interface CallOptions {
  onprogress?: (p: ProgressSeen) => void;
  signal?: AbortSignal;
  timeout?: number;
}

/** What both SDK generations offer, in the shape these tests use. */
export interface SdkClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<{ content: unknown[]; isError?: boolean }>;
  close(): Promise<void>;
  /** Everything the SDK reported through `onerror`: stray responses, stray progress, … */
  readonly errors: Error[];
  /** The server's stderr, where a child process's is at hand. */
  stderr?(): string;
}

function textOf(result: { content: unknown[] }): string {
  const first = result.content[0] as { type?: string; text?: string } | undefined;
  assert.equal(first?.type, "text");
  return first.text ?? "";
}

const LATE_PROGRESS = "Received a progress notification for an unknown token: ";

/** The progress notifications an SDK reported through onerror because they came too late. */
function lateProgress(errors: readonly Error[]): ProgressSeen[] {
  return errors
    .filter((e) => e.message.startsWith(LATE_PROGRESS))
    .map((e) => {
      const { params } = JSON.parse(e.message.slice(LATE_PROGRESS.length)) as { params: ProgressSeen };
      return { progress: params.progress, total: params.total };
    });
}

function otherErrors(errors: readonly Error[]): string[] {
  return errors.filter((e) => !e.message.startsWith(LATE_PROGRESS)).map((e) => e.message);
}

/** The same checks for every client and carrier: tools, a call, progress, cancellation. */
export function sameChecks(connection: () => SdkClient, carrier: "stdio" | "http") {
  test("tools/list shows echo, add and progress", async () => {
    const { tools } = await within(connection().listTools(), "tools/list");
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo", "add", "progress"],
    );
  });

  test("tools/call echo returns its text", async () => {
    const result = await within(connection().callTool("echo", { text: `héllo, ${carrier}` }), "echo");
    assert.equal(result.isError ?? false, false);
    assert.equal(textOf(result), `héllo, ${carrier}`);
  });

  test("the progress tool's notifications reach onprogress, in order, each once", async () => {
    const client = connection();
    const errorsBefore = client.errors.length;
    const seen: ProgressSeen[] = [];
    const result = await within(
      client.callTool(
        "progress",
        { steps: 4, intervalMs: 5 },
        { onprogress: (p) => seen.push({ progress: p.progress, total: p.total }) },
      ),
      "progress",
    );
    assert.equal(textOf(result), "counted to 4");
    const expected = [1, 2, 3, 4].map((progress) => ({ progress, total: 4 }));
    if (carrier === "http") {
      // each notification is its own SSE event, read before the answer's
      assert.deepEqual(seen, expected);
      assert.deepEqual(
        client.errors.map((e) => e.message),
        [],
      );
      return;
    }
    // The SDKs dispatch notifications a microtask later than responses, so a progress
    // notification read in the same chunk as the response that follows it on the wire reaches
    // onerror as an "unknown token" instead of onprogress (typescript-sdk#2580). mcp-wire writes
    // every progress notification before the response; count those the SDK turned away too.
    const late = () => lateProgress(client.errors.slice(errorsBefore));
    await until(() => seen.length + late().length >= 4, "four progress notifications, delivered or late");
    assert.deepEqual([...seen, ...late()], expected);
    assert.deepEqual(otherErrors(client.errors.slice(errorsBefore)), []);
  });

  test("aborting the call cancels it: the SDK rejects, and the server neither answers it nor reports more progress", async () => {
    const client = connection();
    const errorsBefore = client.errors.length;
    const controller = new AbortController();
    const first = signal();
    // 250 ms between steps: the cancellation has that long to reach the server before step 2
    // would be reported, so a progress notification legitimately in flight stays unlikely.
    const call = client.callTool(
      "progress",
      { steps: 3, intervalMs: 250 },
      { signal: controller.signal, onprogress: () => first.fire() },
    );
    const settled = call.then(
      () => "resolved",
      (e: unknown) => e,
    );
    await within(first.promise, "the first progress notification");
    controller.abort();
    const outcome = await within(settled, "the cancelled call");
    assert.notEqual(outcome, "resolved", "a cancelled call must not resolve");
    assert.ok(outcome instanceof Error, `rejects with an Error, got ${String(outcome)}`);
    assert.match(`${outcome.name} ${outcome.message}`, /abort/i);
    // A later call on the same connection that ends after the cancelled one would have: had
    // the server gone on with the cancelled request (answering it, or reporting its progress),
    // that would arrive first, and the SDK would report the stray message through onerror.
    // This call asks for no progress, so any stray progress can only be the cancelled call's.
    const after = await within(
      client.callTool("progress", { steps: 4, intervalMs: 250 }),
      "the call after the cancelled one",
    );
    assert.equal(textOf(after), "counted to 4");
    assert.deepEqual(
      client.errors.slice(errorsBefore).map((e) => e.message),
      [],
      client.stderr ? `the server's stderr:\n${client.stderr()}` : undefined,
    );
  });
}

/** A v2 client in its default negotiation: a legacy revision, agreed through `initialize`. */
export function negotiatedLegacy(v2: V2Client): void {
  assert.equal(v2.getProtocolEra(), "legacy");
  const version = v2.getNegotiatedProtocolVersion();
  assert.ok(
    LEGACY_REVISIONS.includes(version as (typeof LEGACY_REVISIONS)[number]),
    `a legacy revision, got ${version}`,
  );
  assert.equal(v2.getServerVersion()?.name, "mcp-wire-reference");
}

/** A v2 client pinned to 2026-07-28: modern, from `server/discover`. */
export function negotiatedModern(v2: V2Client): void {
  assert.equal(v2.getProtocolEra(), "modern");
  assert.equal(v2.getNegotiatedProtocolVersion(), "2026-07-28");
  assert.ok(v2.getDiscoverResult()?.supportedVersions.includes("2026-07-28"));
  assert.equal(v2.getServerVersion()?.name, "mcp-wire-reference");
}
