/**
 * Properties of the peer under random interleavings: requests both ways with every kind of
 * handler (answering, failing, throwing, waiting for a gate, hanging until cancelled, reporting
 * progress, asking the other side back), notifications, aborts, deadlines and closes from either
 * side, over the memory pair on a clock the test moves. Whatever the order:
 *
 * - every request settles, with an outcome the wire agrees with;
 * - nothing answers a notification, answers a request twice, or answers one whose cancellation
 *   arrived while its handler still ran (one that arrives after the handler finished may cross
 *   the answer, as the cancellation page allows: the answer was decided before it came);
 * - no timer and no AbortSignal listener outlives the requests that needed it: after every step
 *   the timers alive are exactly one per request awaiting an answer.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { RequestId } from "../codec/message.js";
import { createMemoryPair } from "../transport/memory.js";
import { AbortedError, ClosedError, ResponseError, TimeoutError } from "./errors.js";
import { Peer, type RequestContext, type RequestOptions } from "./peer.js";
import { guardEventLoop } from "../testkit/peer.js";
import type { Transport, TransportSink } from "./transport.js";

guardEventLoop();

/**
 * `setTimeout`, `clearTimeout` and `Date.now` on a clock only the test moves, with every timer
 * still pending in view: a leaked timer is one left in `timers` once nothing waits any more.
 * Installed only while a property runs; the test's own waits use setImmediate.
 */
class Clock {
  now = 1_000_000;
  private nextId = 1;
  readonly timers = new Map<number, { at: number; fn: () => void }>();

  install(): () => void {
    const saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, now: Date.now };
    // like node's: arguments after the delay are passed to the callback
    globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const id = this.nextId++;
      this.timers.set(id, { at: this.now + Math.max(0, ms ?? 0), fn: () => fn(...args) });
      return id;
    }) as unknown as typeof setTimeout;
    globalThis.clearTimeout = ((id: number | undefined) => {
      if (id !== undefined) this.timers.delete(id);
    }) as unknown as typeof clearTimeout;
    Date.now = () => this.now;
    return () => {
      globalThis.setTimeout = saved.setTimeout;
      globalThis.clearTimeout = saved.clearTimeout;
      Date.now = saved.now;
    };
  }

  /** Moves time on by `ms`, firing due timers in order, letting each one's consequences play out. */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
      await flush();
    }
    this.now = target;
  }
}

/** Lets queued deliveries and the promise chains they start run to quiet. */
async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

type Side = "a" | "b";
const BEHAVIOURS = ["answer", "fail", "throw", "gate", "hang", "progress", "askBack"] as const;
type Behaviour = (typeof BEHAVIOURS)[number];

type Op =
  | {
      op: "request";
      from: Side;
      behaviour: Behaviour;
      timeout: number | undefined;
      abortable: boolean;
      progress: boolean;
    }
  | { op: "notify"; from: Side }
  | { op: "abort"; pick: number }
  | { op: "release"; pick: number }
  | { op: "advance"; ms: number }
  | { op: "flush" }
  | { op: "close"; side: Side };

const side = fc.constantFrom<Side>("a", "b");
const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant("request" as const),
        from: side,
        behaviour: fc.constantFrom(...BEHAVIOURS),
        timeout: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        abortable: fc.boolean(),
        progress: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("notify" as const), from: side }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("abort" as const), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("release" as const), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 400 }) }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant("flush" as const) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("close" as const), side }) },
  ),
  { maxLength: 40 },
);

const APP_ERROR = 4321;

interface Wire {
  /** Requests this side received that it has not answered yet. */
  unanswered: Set<RequestId>;
  /** Requests this side's handlers have finished with (returned or thrown). */
  finished: Set<RequestId>;
  /** Requests whose notifications/cancelled reached this side while their handler still ran. */
  cancelled: Set<RequestId>;
  /** Responses this side received, by id. */
  responses: Map<RequestId, "result" | "error">;
  /** The wire id of each test request this side sent, by its number k. */
  idOf: Map<number, RequestId>;
}

/** Watches one side's transport: checks every answer it sends against what it was asked. */
class Watched implements Transport {
  constructor(
    private readonly inner: Transport,
    readonly wire: Wire,
    private readonly violations: string[],
    private readonly name: Side,
  ) {}

  start(sink: TransportSink): void {
    this.inner.start({
      message: (data) => {
        const m = JSON.parse(typeof data === "string" ? data : Buffer.from(data).toString("utf8")) as Record<
          string,
          unknown
        >;
        if (typeof m.method === "string" && m.id !== undefined) this.wire.unanswered.add(m.id as RequestId);
        if (m.method === "notifications/cancelled") {
          const id = (m.params as { requestId: RequestId }).requestId;
          if (!this.wire.finished.has(id)) this.wire.cancelled.add(id);
        }
        if (m.method === undefined)
          this.wire.responses.set(m.id as RequestId, m.error !== undefined ? "error" : "result");
        sink.message(data);
      },
      defect: (d) => sink.defect(d),
      closed: (e) => sink.closed(e),
    });
  }

  send(text: string): void | Promise<void> {
    const m = JSON.parse(text) as Record<string, unknown>;
    if (m.method === undefined) {
      const id = m.id as RequestId | null | undefined;
      if (id === undefined || id === null)
        this.violations.push(`${this.name} sent an answer with no id (to a notification?): ${text}`);
      else if (!this.wire.unanswered.delete(id))
        this.violations.push(`${this.name} answered ${JSON.stringify(id)}, which it was not asked or already answered`);
      else if (this.wire.cancelled.has(id))
        this.violations.push(
          `${this.name} answered ${JSON.stringify(id)}, whose cancellation arrived while its handler ran`,
        );
    } else if (m.method === "work" && m.id !== undefined) {
      this.wire.idOf.set((m.params as { k: number }).k, m.id as RequestId);
    }
    return this.inner.send(text);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

interface Call {
  k: number;
  from: Side;
  behaviour: Behaviour;
  controller: AbortController | undefined;
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
}

/** Private maps that must be empty once nothing is under way; read through a cast on purpose. */
function internals(peer: Peer): Record<string, number> {
  const p = peer as unknown as Record<string, Map<unknown, unknown>>;
  return { pending: p.pending!.size, byProgressToken: p.byProgressToken!.size, serving: p.serving!.size };
}

async function run(program: Op[]): Promise<void> {
  const clock = new Clock();
  const restore = clock.install();
  try {
    const violations: string[] = [];
    const [ta, tb] = createMemoryPair();
    const wires: Record<Side, Wire> = {
      a: { unanswered: new Set(), finished: new Set(), cancelled: new Set(), responses: new Map(), idOf: new Map() },
      b: { unanswered: new Set(), finished: new Set(), cancelled: new Set(), responses: new Map(), idOf: new Map() },
    };
    const peers: Record<Side, Peer> = {
      a: new Peer(new Watched(ta, wires.a, violations, "a"), { revision: "2025-11-25", role: "client", timeout: 1000 }),
      b: new Peer(new Watched(tb, wires.b, violations, "b"), { revision: "2025-11-25", role: "server", timeout: 1000 }),
    };
    const gates = new Map<number, () => void>();
    const calls: Call[] = [];
    const notes: Record<Side, number> = { a: 0, b: 0 };

    for (const s of ["a", "b"] as const) {
      const peer = peers[s];
      peer.onNotification("note", () => notes[s]++);
      peer.handle("back", () => ({ back: true }));
      peer.handle("work", async (params, ctx) => {
        try {
          return await work(params!.k as number, params!.behaviour as Behaviour, ctx);
        } finally {
          wires[s].finished.add(ctx.id);
        }
      });
    }

    async function work(k: number, behaviour: Behaviour, ctx: RequestContext): Promise<unknown> {
      switch (behaviour) {
        case "answer":
          return { k };
        case "fail":
          throw new ResponseError(APP_ERROR, "refused", { k });
        case "throw":
          throw new Error("a bug in the handler");
        case "gate":
          await new Promise<void>((resolve) => gates.set(k, resolve));
          return { k };
        case "hang":
          await new Promise<never>((_, reject) =>
            ctx.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true }),
          );
          return { k };
        case "progress":
          await ctx.progress(1, 2, "half");
          return { k };
        case "askBack": {
          try {
            await ctx.request("back", { k }, { timeout: 50 });
          } finally {
            // the nested request's listener on this request's signal is gone once it settled
            const left = getEventListeners(ctx.signal, "abort").length;
            if (left > 0)
              violations.push(
                `${left} abort listener(s) left on request ${k}'s signal after its nested request settled`,
              );
          }
          return { k };
        }
      }
    }

    for (const op of program) {
      switch (op.op) {
        case "request": {
          const k = calls.length;
          const controller = op.abortable ? new AbortController() : undefined;
          const options: RequestOptions = {};
          if (op.timeout !== undefined) options.timeout = op.timeout;
          if (controller) options.signal = controller.signal;
          if (op.progress) options.onProgress = () => undefined;
          const call: Call = { k, from: op.from, behaviour: op.behaviour, controller, outcome: undefined };
          calls.push(call);
          peers[op.from].request("work", { k, behaviour: op.behaviour }, options).then(
            (value) => (call.outcome = { ok: true, value }),
            (error: unknown) => (call.outcome = { ok: false, error }),
          );
          break;
        }
        case "notify":
          peers[op.from].notify("note", {}).catch(() => undefined);
          break;
        case "abort":
          if (calls.length > 0) calls[op.pick % calls.length]!.controller?.abort("the test changed its mind");
          break;
        case "release":
          if (calls.length > 0) gates.get(op.pick % calls.length)?.();
          break;
        case "advance":
          await clock.advance(op.ms);
          break;
        case "flush":
          await flush();
          break;
        case "close":
          await peers[op.side].close();
          break;
      }
      // each request awaiting an answer owns exactly one timer, and nothing else holds one
      assert.equal(clock.timers.size, peers.a.inFlight + peers.b.inFlight, `timers after ${op.op}`);
    }

    // the end: open every gate and let every deadline pass
    await flush();
    for (const open of gates.values()) open();
    await flush();
    await clock.advance(60_000);
    await flush();

    const unsettled = calls.filter((c) => c.outcome === undefined).map((c) => `${c.from}:${c.k}:${c.behaviour}`);
    assert.deepEqual(unsettled, [], "every request settles");
    assert.deepEqual(
      [...clock.timers.values()].map((t) => t.at),
      [],
      "no timer outlives the requests",
    );
    for (const c of calls) {
      if (c.controller)
        assert.equal(
          getEventListeners(c.controller.signal, "abort").length,
          0,
          `request ${c.k}'s abort listener is removed`,
        );
      checkOutcome(c, wires[c.from]);
    }
    for (const s of ["a", "b"] as const)
      assert.deepEqual(internals(peers[s]), { pending: 0, byProgressToken: 0, serving: 0 }, `side ${s} holds nothing`);
    assert.deepEqual(violations, []);

    await peers.a.close();
    await peers.b.close();
    await flush();
    assert.ok(peers.a.closed && peers.b.closed);
    assert.equal(clock.timers.size, 0);
    assert.deepEqual(violations, []);
  } finally {
    restore();
  }
}

/** The outcome a requester saw must be one the wire and the handler allow. */
function checkOutcome(c: Call, wire: Wire): void {
  const o = c.outcome!;
  const id = wire.idOf.get(c.k);
  const seen = id === undefined ? undefined : wire.responses.get(id);
  const label = `request ${c.k} (${c.behaviour}, from ${c.from})`;
  if (o.ok) {
    assert.deepEqual(o.value, { k: c.k }, label);
    assert.ok(
      ["answer", "gate", "progress", "askBack", "hang"].includes(c.behaviour) && c.behaviour !== "hang",
      `${label} resolved`,
    );
    assert.equal(seen, "result", `${label} resolved, so a result came on the wire`);
    return;
  }
  const e = o.error;
  if (e instanceof ResponseError) {
    assert.equal(seen, "error", `${label} got a ResponseError, so an error came on the wire`);
    if (c.behaviour === "fail") assert.deepEqual([e.code, e.data], [APP_ERROR, { k: c.k }], label);
    else assert.ok(e.code === -32603 && (c.behaviour === "throw" || c.behaviour === "askBack"), `${label}: ${e.code}`);
    return;
  }
  if (e instanceof AbortedError) {
    assert.ok(c.controller?.signal.aborted, `${label} was aborted only if its signal was`);
    return;
  }
  assert.ok(e instanceof TimeoutError || e instanceof ClosedError, `${label}: ${String(e)}`);
}

describe("Peer properties over the memory pair", () => {
  test("random interleavings: every request settles, nothing answers a notification or twice, no timer or listener leaks", async () => {
    await fc.assert(fc.asyncProperty(ops, run), { numRuns: 250 });
  });

  test("a few interleavings that matter, by hand", async () => {
    // answered, then its deadline passes: the timer went with the answer
    await run([
      { op: "request", from: "a", behaviour: "answer", timeout: 10, abortable: true, progress: true },
      { op: "flush" },
      { op: "advance", ms: 100 },
    ]);
    // a hanging handler, its requester aborts; then a notification each way
    await run([
      { op: "request", from: "b", behaviour: "hang", timeout: undefined, abortable: true, progress: false },
      { op: "flush" },
      { op: "abort", pick: 0 },
      { op: "notify", from: "a" },
      { op: "notify", from: "b" },
      { op: "flush" },
    ]);
    // asking back while the asker's requester times out, then the other side closes
    await run([
      { op: "request", from: "a", behaviour: "askBack", timeout: 1, abortable: false, progress: false },
      { op: "advance", ms: 5 },
      { op: "close", side: "b" },
    ]);
    // a gate released after a timeout: the late answer is suppressed
    await run([
      { op: "request", from: "a", behaviour: "gate", timeout: 5, abortable: false, progress: false },
      { op: "flush" },
      { op: "advance", ms: 10 },
      { op: "release", pick: 0 },
      { op: "flush" },
    ]);
  });
});
