/**
 * Helpers shared by the peer and transport tests. A test helper: src/testkit/ is left out of the package, and it declares no tests.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { afterEach } from "node:test";
import type { Role } from "../codec/check.js";
import type { DefectCode } from "../codec/defects.js";
import type { Revision } from "../rules/revisions.js";
import { createMemoryPair } from "../transport/memory.js";
import { StreamTransport } from "../transport/stream.js";
import { Peer, type DefectReport, type PeerOptions } from "../peer/peer.js";
import type { Transport } from "../peer/transport.js";
import { within } from "./within.js";

/** Waits for `promise`, but never longer than `ms` of real time (5 s by default). */
export { within };

// Captured before any test mocks the timers: bounded waits must run on real time.
const realSetTimeout = globalThis.setTimeout;
const realSetImmediate = globalThis.setImmediate;

/** Fails the test in which anything reached the event loop unhandled. */
export function guardEventLoop(): void {
  const escaped: string[] = [];
  process.on("uncaughtException", (e) =>
    escaped.push(`uncaughtException: ${e instanceof Error ? e.stack : String(e)}`),
  );
  process.on("unhandledRejection", (e) =>
    escaped.push(`unhandledRejection: ${e instanceof Error ? e.stack : String(e)}`),
  );
  afterEach(async () => {
    // a rejection left unhandled is reported after the microtasks of its tick
    await ticks(2);
    assert.deepEqual(escaped.splice(0), [], "nothing may escape to the event loop");
  });
}

/** The error `promise` rejects with (within a bounded wait); fails if it resolves. */
export async function rejection(promise: Promise<unknown>, ms = 5000): Promise<Error> {
  const outcome = await within(
    promise.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    "the rejection",
    ms,
  );
  if (outcome.ok) assert.fail(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  assert.ok(outcome.error instanceof Error, `rejected with a non-Error: ${String(outcome.error)}`);
  return outcome.error;
}

/** Lets `n` turns of the event loop pass (microtasks, stream events, I/O callbacks). */
export async function ticks(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => realSetImmediate(resolve));
}

/** Real-time pause, for the few tests that need a process or the clock to move on. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

/** Polls `condition` until it holds, within a bounded wait. */
export async function until(condition: () => boolean, ms = 5000, what = "the condition"): Promise<void> {
  // performance.now, not Date.now: tests that mock the clock mock Date too
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail(`${what} did not hold within ${ms} ms`);
    await sleep(5);
  }
}

/** What a peer reported to its `onDefect` listener. */
export class Defects {
  readonly reports: DefectReport[] = [];
  readonly listener = (report: DefectReport): void => {
    this.reports.push(report);
  };
  codes(): DefectCode[] {
    return this.reports.map((r) => r.defect.code);
  }
  has(code: DefectCode): boolean {
    return this.reports.some((r) => r.defect.code === code);
  }
}

/** A way to connect two transports: in memory, or newline-delimited over real stream pipes. */
export interface Channel {
  readonly name: string;
  pair(): [Transport, Transport];
}

const MEMORY: Channel = { name: "memory pair", pair: createMemoryPair };

const STREAMS: Channel = {
  name: "stream pipes",
  pair() {
    const aToB = new PassThrough();
    const bToA = new PassThrough();
    return [new StreamTransport(bToA, aToB), new StreamTransport(aToB, bToA)];
  },
};

export const CHANNELS: readonly Channel[] = [MEMORY, STREAMS];

export type PeerSetup = Partial<Omit<PeerOptions, "onDefect">> & { revision?: Revision };

/** A client peer and a server peer talking to each other. */
export function connectPeers(channel: Channel, options: { client?: PeerSetup; server?: PeerSetup } = {}) {
  const [a, b] = channel.pair();
  const clientDefects = new Defects();
  const serverDefects = new Defects();
  const client = new Peer(a, {
    revision: "2025-11-25",
    role: "client",
    ...options.client,
    onDefect: clientDefects.listener,
  });
  const server = new Peer(b, {
    revision: "2025-11-25",
    role: "server",
    ...options.server,
    onDefect: serverDefects.listener,
  });
  return { client, server, clientDefects, serverDefects };
}

/**
 * A peer facing a scripted other side that writes raw text and records what it receives, so
 * a test can play a misbehaving peer.
 */
export class Scripted {
  readonly peer: Peer;
  readonly defects = new Defects();
  /** Every text the peer sent, in order. */
  readonly received: string[] = [];
  private readonly other: Transport;
  private waiters: (() => void)[] = [];
  private read = 0;
  otherClosed = false;

  constructor(channel: Channel, role: Role, options: PeerSetup = {}) {
    const [mine, other] = channel.pair();
    this.other = other;
    other.start({
      message: (data) => {
        this.received.push(typeof data === "string" ? data : Buffer.from(data).toString("utf8"));
        for (const w of this.waiters.splice(0)) w();
      },
      defect: () => undefined,
      closed: () => {
        this.otherClosed = true;
        for (const w of this.waiters.splice(0)) w();
      },
    });
    this.peer = new Peer(mine, { revision: "2025-11-25", role, ...options, onDefect: this.defects.listener });
  }

  /** Writes text (or a value as JSON) to the peer, as is. */
  send(message: string | object): void | Promise<void> {
    return this.other.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The next message the peer sends, parsed. */
  async next(ms = 5000): Promise<Record<string, unknown>> {
    const text = await within(this.nextText(), "the peer's next message", ms);
    return JSON.parse(text) as Record<string, unknown>;
  }

  private async nextText(): Promise<string> {
    while (this.read >= this.received.length) {
      if (this.otherClosed) throw new Error("the connection closed before the peer sent anything more");
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.received[this.read++]!;
  }

  /** Messages the peer sent that no `next()` has taken yet, parsed. */
  unread(): Record<string, unknown>[] {
    return this.received.slice(this.read).map((t) => JSON.parse(t) as Record<string, unknown>);
  }

  closeOther(): Promise<void> {
    return this.other.close();
  }
}
