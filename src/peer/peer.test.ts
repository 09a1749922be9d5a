/**
 * The peer engine over the in-memory pair and over real stream pipes: correlation, remote and
 * local errors, serving, progress, cancellation, limits, closing, and misbehaving peers.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import fc from "fast-check";
import { REVISIONS, RULES } from "../rules/revisions.js";
import {
  AbortedError,
  ClosedError,
  ConnectionError,
  ConnectionErrorCode,
  InvalidResponseError,
  OverloadedError,
  ResponseError,
  TimeoutError,
} from "./errors.js";
import { Peer, type Progress } from "./peer.js";
import type { HttpTransport, Transport } from "./transport.js";
import { CHANNELS, Scripted, connectPeers, guardEventLoop, rejection, ticks, until, within } from "../testkit/peer.js";

guardEventLoop();

/** Virtual time for deadlines; the bounded waits of the helpers keep running on real time. */
function mockClock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"] });
  return (ms) => t.mock.timers.tick(ms);
}

/** Watches a promise without handling its outcome for the caller. */
function watch<T>(promise: Promise<T>): { readonly settled: boolean; readonly promise: Promise<T> } {
  const state = { settled: false, promise };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

for (const channel of CHANNELS) {
  describe(`Peer over ${channel.name}`, () => {
    describe("correlation", () => {
      test("concurrent requests answered out of order each get their own answer", async () => {
        const { client, server } = connectPeers(channel);
        const gates = new Map<number, () => void>();
        server.handle("work", async (params) => {
          const n = params!.n as number;
          await new Promise<void>((resolve) => gates.set(n, resolve));
          return { n };
        });
        const answers = [0, 1, 2, 3, 4].map((n) => client.request("work", { n }));
        await until(() => gates.size === 5, 5000, "all five handlers running");
        for (const n of [3, 0, 4, 2, 1]) gates.get(n)!();
        assert.deepEqual(
          await within(Promise.all(answers)),
          [0, 1, 2, 3, 4].map((n) => ({ n })),
        );
        assert.equal(client.inFlight, 0);
        await client.close();
      });

      test("any order of answers from a raw server reaches the right requests", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc
              .integer({ min: 1, max: 12 })
              .chain((n) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n })),
            async (order) => {
              const s = new Scripted(channel, "client");
              const answers = order.map((_, n) => s.peer.request<{ n: number }>("work", { n }));
              const ids = new Map<number, unknown>();
              for (let i = 0; i < order.length; i++) {
                const m = await s.next();
                ids.set((m.params as { n: number }).n, m.id);
              }
              for (const n of order) await s.send({ jsonrpc: "2.0", id: ids.get(n), result: { n } });
              const got = await within(Promise.all(answers));
              assert.deepEqual(
                got.map((r) => r.n),
                order.map((_, n) => n),
              );
              assert.deepEqual(s.defects.codes(), []);
              await s.peer.close();
            },
          ),
          { numRuns: 25 },
        );
      });

      test('an answer with id "5" does not answer request 5: unknown_response_id, then a timeout', async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("slow", {}, { timeout: 1000 });
        const m = await s.next();
        assert.equal(typeof m.id, "number");
        await s.send({ jsonrpc: "2.0", id: String(m.id), result: {} });
        await ticks();
        assert.deepEqual(s.defects.codes(), ["unknown_response_id"]);
        assert.equal(s.peer.inFlight, 1);
        tick(1000);
        const e = await rejection(pending);
        assert.ok(e instanceof TimeoutError);
        assert.equal(e.code, ConnectionErrorCode.Timeout);
        // the timeout says what came instead, so the caller sees the cause and not a silent server
        assert.equal(e.mismatchedId, String(m.id));
        assert.match(
          e.message,
          new RegExp(
            `^slow: no answer within 1000 ms; an answer with id "${m.id}" \\(a string\\) did arrive, but a request's id must come back with its own type, and this request's is a number$`,
          ),
        );
        // stdio has no stream to close: the requester tells the other side it gave up
        const cancelled = await s.next();
        assert.deepEqual(cancelled.params, { requestId: m.id, reason: "timed out after 1000 ms" });
        await s.peer.close();
      });

      test("a timeout with no answer at all, or only one for another id, says nothing of ids", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("slow", {}, { timeout: 1000 });
        const m = await s.next();
        // "03" is not the string form of 3, nor 4 of any pending id: strangers, not mismatches
        await s.send({ jsonrpc: "2.0", id: `0${String(m.id)}`, result: {} });
        await s.send({ jsonrpc: "2.0", id: Number(m.id) + 1, result: {} });
        await ticks();
        tick(1000);
        const e = await rejection(pending);
        assert.ok(e instanceof TimeoutError);
        assert.equal(e.mismatchedId, undefined);
        assert.equal(e.message, "slow: no answer within 1000 ms");
        await s.peer.close();
      });

      test("a server answers with the very id it was given, value and type", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(fc.string({ maxLength: 20 }), fc.maxSafeInteger(), fc.constantFrom("5", 5, "0", 0, "-1", -1)),
            async (id) => {
              const s = new Scripted(channel, "server");
              s.peer.handle("ping", () => ({}));
              await s.send({ jsonrpc: "2.0", id, method: "ping" });
              const answer = await s.next();
              assert.ok(Object.is(answer.id, id), `answered ${JSON.stringify(answer.id)} to ${JSON.stringify(id)}`);
              await s.peer.close();
            },
          ),
          { numRuns: 40 },
        );
      });
    });

    describe("errors", () => {
      test("a remote error arrives as ResponseError with its code, message and data", async () => {
        const { client, server } = connectPeers(channel);
        server.handle("check", () => {
          throw new ResponseError(-32602, "Invalid params: name is required", { field: "name", hints: [1, null] });
        });
        const e = await rejection(client.request("check", {}));
        assert.ok(e instanceof ResponseError);
        assert.ok(!(e instanceof ConnectionError));
        assert.equal(e.code, -32602);
        assert.equal(e.message, "Invalid params: name is required");
        assert.deepEqual(e.data, { field: "name", hints: [1, null] });
        // the handler's own error shows where it was thrown; the one received carries no frames
        // of a receive path that names no caller
        let thrown: ResponseError | undefined;
        server.handle("where", () => {
          thrown = new ResponseError(-32602, "here");
          throw thrown;
        });
        const received = await rejection(client.request("where", {}));
        assert.match(thrown?.stack ?? "", /\n\s+at /);
        assert.ok(received instanceof ResponseError && received !== thrown);
        assert.equal(received.stack, "ResponseError: here");
        await client.close();
      });

      test("a remote -32001 and a local timeout can never be confused", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const remote = s.peer.request("a", {}, { timeout: 1000 });
        const local = s.peer.request("b", {}, { timeout: 1000 });
        const first = await s.next();
        await s.next();
        await s.send({ jsonrpc: "2.0", id: first.id, error: { code: -32001, message: "Request timed out" } });
        tick(1000);
        const [r, l] = [await rejection(remote), await rejection(local)];
        assert.ok(r instanceof ResponseError && !(r instanceof ConnectionError));
        assert.equal(typeof r.code, "number");
        assert.equal(r.code, -32001);
        assert.ok(l instanceof TimeoutError && l instanceof ConnectionError && !(l instanceof ResponseError));
        assert.equal(typeof l.code, "string");
        assert.equal(l.code, "ERR_MCP_WIRE_TIMEOUT");
        await s.peer.close();
      });

      test("whatever integer code a remote error carries, it stays a ResponseError with that number", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
            fc.string({ maxLength: 40 }),
            fc.option(fc.jsonValue(), { nil: undefined }),
            async (code, message, data) => {
              const s = new Scripted(channel, "client");
              const pending = s.peer.request("x");
              const m = await s.next();
              const error = data === undefined ? { code, message } : { code, message, data };
              await s.send({ jsonrpc: "2.0", id: m.id, error });
              const e = await rejection(pending);
              assert.ok(e instanceof ResponseError && !(e instanceof ConnectionError));
              assert.deepEqual(e.toJSON(), JSON.parse(JSON.stringify(error)));
              await s.peer.close();
            },
          ),
          { numRuns: 30 },
        );
      });

      test("a response that is not a valid one fails its request with InvalidResponseError", async () => {
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("x");
        const m = await s.next();
        await s.send({ jsonrpc: "2.0", id: m.id, result: [1, 2] });
        const e = await rejection(pending);
        assert.ok(e instanceof InvalidResponseError);
        assert.equal(e.code, ConnectionErrorCode.InvalidResponse);
        assert.ok(s.defects.has("result_not_object"));
        await s.peer.close();
      });
    });

    describe("serving", () => {
      test("a notification is never answered, whatever it is", async () => {
        const s = new Scripted(channel, "server");
        const seen: unknown[] = [];
        s.peer.onNotification("notifications/known", (params) => seen.push(params));
        s.peer.onNotification("notifications/throws", () => {
          throw new Error("boom");
        });
        s.peer.handle("ping", () => ({}));
        await s.send({ jsonrpc: "2.0", method: "notifications/unknown" });
        await s.send({ jsonrpc: "2.0", method: "notifications/known", params: { a: 1 } });
        await s.send({ jsonrpc: "2.0", method: "notifications/throws" });
        await s.send({ jsonrpc: "2.0", method: "notifications/known", params: [1, 2] });
        await s.send({ jsonrpc: "1.0", method: "notifications/known" });
        await s.send({ jsonrpc: "2.0", method: "ping" });
        await s.send({ jsonrpc: "2.0", id: 1, method: "ping" });
        assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 1, result: {} });
        await ticks(5);
        assert.deepEqual(s.unread(), []);
        assert.deepEqual(seen, [{ a: 1 }]);
        await s.peer.close();
      });

      test("an unknown method gets -32601 with the request's id", async () => {
        const s = new Scripted(channel, "server");
        await s.send({ jsonrpc: "2.0", id: "abc", method: "tools/nothing" });
        const answer = await s.next();
        assert.equal(answer.id, "abc");
        assert.equal((answer.error as { code: number }).code, -32601);
        await s.peer.close();
      });

      test("a request with array params gets -32600 with its id", async () => {
        const s = new Scripted(channel, "server");
        let called = false;
        s.peer.handle("tools/call", () => (called = true));
        await s.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: ["a", 1] });
        const answer = await s.next();
        assert.equal(answer.id, 7);
        assert.equal((answer.error as { code: number }).code, -32600);
        assert.equal(called, false);
        assert.ok(s.defects.has("params_not_object"));
        await s.peer.close();
      });

      test("an empty method name is a well-formed request for a method nobody has: -32601, not -32600", async () => {
        const s = new Scripted(channel, "server");
        await s.send({ jsonrpc: "2.0", id: 3, method: "" });
        const answer = await s.next();
        assert.equal(answer.id, 3);
        assert.equal((answer.error as { code: number }).code, -32601);
        assert.deepEqual(s.defects.codes(), []);
        await s.peer.close();
      });

      test("2025-03-26: [1,2,3] is a batch of three invalid requests, answered by three -32600s with id null", async () => {
        const s = new Scripted(channel, "server", { revision: "2025-03-26" });
        await s.send("[1,2,3]");
        const answers = (await s.next()) as unknown as Record<string, unknown>[];
        assert.ok(Array.isArray(answers), JSON.stringify(answers));
        assert.deepEqual(
          answers.map((a) => [a.id, (a.error as { code: number }).code]),
          [
            [null, -32600],
            [null, -32600],
            [null, -32600],
          ],
        );
        await s.send("[null]");
        assert.equal(((await s.next()) as unknown as unknown[]).length, 1);
        assert.deepEqual(
          s.defects.codes().filter((c) => c !== "not_object"),
          [],
        );
        await s.peer.close();
      });

      for (const revision of REVISIONS) {
        const idOmitted = RULES[revision].errorIdOptional;
        test(`${revision}: unparseable input gets -32700 with ${idOmitted ? "no id" : "id null"}`, async () => {
          const s = new Scripted(channel, "server", { revision });
          await s.send('{"jsonrpc":"2.0","id":1,"method":"ping"');
          const answer = await s.next();
          assert.equal((answer.error as { code: number }).code, -32700);
          if (idOmitted) assert.ok(!("id" in answer), `2025-11-25 on omits the id: ${JSON.stringify(answer)}`);
          else assert.equal(answer.id, null);
          assert.ok(s.defects.has("parse_error"));
          await s.peer.close();
        });
      }

      test("a client ignores a server's garbage and only reports it", async () => {
        const s = new Scripted(channel, "client");
        s.peer.handle("ping", () => ({}));
        await s.send("this is not json");
        await s.send({ jsonrpc: "2.0", id: 7, method: "ping", params: [1] });
        await s.send({ hello: "world" });
        await s.send([]);
        await s.send({ jsonrpc: "2.0", id: 8, method: "ping" });
        assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 8, result: {} });
        await ticks(5);
        assert.deepEqual(s.unread(), []);
        const codes = s.defects.codes();
        for (const code of ["parse_error", "params_not_object", "no_envelope"] as const)
          assert.ok(codes.includes(code), `${code} in ${codes.join(", ")}`);
        await s.peer.close();
      });

      test("a handler's exception becomes -32603 Internal error, with nothing of the exception on the wire", async () => {
        const s = new Scripted(channel, "server");
        s.peer.handle("sync", () => {
          throw new Error("SECRET database password in /srv/app/config.js");
        });
        s.peer.handle("async", async () => {
          await ticks(1);
          throw new TypeError("SECRET cannot read properties of undefined");
        });
        s.peer.handle("string", () => {
          throw "SECRET a bare string";
        });
        for (const [id, method] of [
          [1, "sync"],
          [2, "async"],
          [3, "string"],
        ] as const) {
          const text = s.received.length;
          await s.send({ jsonrpc: "2.0", id, method });
          const answer = await s.next();
          assert.deepEqual(answer, { jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } });
          const raw = s.received[text]!;
          assert.ok(!raw.includes("SECRET") && !raw.includes(".js") && !raw.includes("    at "), raw);
        }
        await s.peer.close();
      });

      test("a thrown ResponseError is sent as is", async () => {
        const s = new Scripted(channel, "server");
        s.peer.handle("bad", () => {
          throw new ResponseError(-32602, "Invalid params: x must be a number", { path: "/x", got: "string" });
        });
        await s.send({ jsonrpc: "2.0", id: "q", method: "bad", params: { x: "1" } });
        assert.deepEqual(await s.next(), {
          jsonrpc: "2.0",
          id: "q",
          error: { code: -32602, message: "Invalid params: x must be a number", data: { path: "/x", got: "string" } },
        });
        await s.peer.close();
      });
    });

    describe("progress", () => {
      test("onProgress receives the notifications that carry its token, and only those", async () => {
        const s = new Scripted(channel, "client");
        const got: Progress[] = [];
        const pending = s.peer.request("long", { a: 1 }, { onProgress: (p) => got.push(p) });
        const m = await s.next();
        const token = (m.params as { _meta: { progressToken: unknown } })._meta.progressToken;
        assert.deepEqual((m.params as { a: number }).a, 1);
        assert.ok(typeof token === "number" || typeof token === "string");
        const other = typeof token === "number" ? String(token) : Number(token);
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: other, progress: 99 },
        });
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "someone else", progress: 98 },
        });
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 3 },
        });
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 2.5, total: 3, message: "almost" },
        });
        await s.send({ jsonrpc: "2.0", id: m.id, result: { done: true } });
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 3 },
        });
        assert.deepEqual(await within(pending), { done: true });
        await ticks();
        assert.deepEqual(got, [
          { progress: 1, total: 3 },
          { progress: 2.5, total: 3, message: "almost" },
        ]);
        await s.peer.close();
      });

      test("a handler's progress reaches the requester's onProgress; without onProgress nothing is sent", async () => {
        const s = new Scripted(channel, "server");
        s.peer.handle("long", async (_params, context) => {
          await context.progress(1, 2, "half");
          await context.progress(2, 2);
          return {};
        });
        await s.send({ jsonrpc: "2.0", id: 1, method: "long", params: { _meta: { progressToken: "tok" } } });
        assert.deepEqual(await s.next(), {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "tok", progress: 1, total: 2, message: "half" },
        });
        assert.deepEqual(await s.next(), {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "tok", progress: 2, total: 2 },
        });
        assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 1, result: {} });
        await s.send({ jsonrpc: "2.0", id: 2, method: "long" });
        assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 2, result: {} });
        await s.peer.close();

        const { client, server } = connectPeers(channel);
        server.handle("long", async (_params, context) => {
          for (let i = 1; i <= 3; i++) await context.progress(i, 3);
          return { ok: 1 };
        });
        const got: Progress[] = [];
        assert.deepEqual(await within(client.request("long", {}, { onProgress: (p) => got.push(p) })), { ok: 1 });
        assert.deepEqual(
          got,
          [1, 2, 3].map((progress) => ({ progress, total: 3 })),
        );
        await client.close();
      });

      test("resetTimeoutOnProgress extends the deadline, but maxTotalTimeout still ends it", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const reset = watch(
          s.peer.request(
            "long",
            {},
            { timeout: 100, onProgress: () => undefined, resetTimeoutOnProgress: true, maxTotalTimeout: 350 },
          ),
        );
        const plain = watch(s.peer.request("long", {}, { timeout: 100, onProgress: () => undefined }));
        const tokens = [await s.next(), await s.next()].map(
          (m) => (m.params as { _meta: { progressToken: unknown } })._meta.progressToken,
        );
        const progress = async (n: number) => {
          for (const progressToken of tokens)
            await s.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: n } });
          await ticks();
        };
        // progress every 80 ms: each one comes before the 100 ms deadline it restarts
        for (let n = 1; n <= 4; n++) {
          tick(80);
          await ticks();
          if (n >= 2) assert.ok(plain.settled, "without the reset, progress does not extend the deadline");
          assert.ok(!reset.settled, `still waiting after ${n * 80} ms`);
          await progress(n);
        }
        // 320 ms have passed: the next deadline is the overall one, at 350 ms, not 420
        tick(29);
        await ticks();
        assert.ok(!reset.settled);
        tick(1);
        const e = await rejection(reset.promise);
        assert.ok(e instanceof TimeoutError);
        assert.equal(e.timeoutMs, 350);
        const p = await rejection(plain.promise);
        assert.ok(p instanceof TimeoutError);
        assert.equal(p.timeoutMs, 100);
        await s.peer.close();
      });
      test("a maxTotalTimeout shorter than the timeout is the deadline from the start", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const request = watch(
          s.peer.request(
            "long",
            {},
            { timeout: 1000, onProgress: () => undefined, resetTimeoutOnProgress: true, maxTotalTimeout: 200 },
          ),
        );
        await s.next();
        tick(199);
        await ticks();
        assert.ok(!request.settled);
        tick(1);
        const e = await rejection(request.promise);
        assert.ok(e instanceof TimeoutError);
        assert.equal(e.timeoutMs, 200);
        await s.peer.close();
      });
    });

    describe("cancellation", () => {
      test("aborting rejects with AbortedError, sends notifications/cancelled, and a late answer is silently ignored", async () => {
        const s = new Scripted(channel, "client");
        const controller = new AbortController();
        const pending = s.peer.request("slow", {}, { signal: controller.signal });
        const m = await s.next();
        controller.abort("the user gave up");
        const e = await rejection(pending);
        assert.ok(e instanceof AbortedError);
        assert.equal(e.code, ConnectionErrorCode.Aborted);
        const cancelled = await s.next();
        assert.equal(cancelled.method, "notifications/cancelled");
        assert.ok(!("id" in cancelled));
        const params = cancelled.params as { requestId: unknown; reason?: unknown };
        assert.ok(
          Object.is(params.requestId, m.id),
          `requestId ${JSON.stringify(params.requestId)} for id ${JSON.stringify(m.id)}`,
        );
        assert.equal(typeof params.reason, "string");
        await s.send({ jsonrpc: "2.0", id: m.id, result: {} });
        await ticks();
        assert.deepEqual(s.defects.codes(), []);
        assert.equal(s.peer.inFlight, 0);
        await s.peer.close();
      });

      test("a signal already aborted rejects at once and sends nothing", async () => {
        const s = new Scripted(channel, "client");
        s.peer.handle("ping", () => ({}));
        const e = await rejection(s.peer.request("x", {}, { signal: AbortSignal.abort() }));
        assert.ok(e instanceof AbortedError);
        await s.send({ jsonrpc: "2.0", id: "p", method: "ping" });
        assert.equal((await s.next()).id, "p");
        await ticks();
        assert.deepEqual(s.unread(), []);
        await s.peer.close();
      });

      test("an incoming notifications/cancelled aborts the handler's signal, and no response is sent", async () => {
        const s = new Scripted(channel, "server");
        const reasons: unknown[] = [];
        s.peer.handle("slow", async (_params, context) => {
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
          reasons.push(context.signal.reason);
          return { finished: "anyway" };
        });
        s.peer.handle("ping", () => ({}));
        await s.send({ jsonrpc: "2.0", id: "r1", method: "slow" });
        await ticks();
        await s.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "r1", reason: "changed my mind" },
        });
        await until(() => reasons.length === 1);
        assert.deepEqual(reasons, ["changed my mind"]);
        await s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
        assert.equal((await s.next()).id, 2);
        await ticks(5);
        assert.deepEqual(s.unread(), []);
        await s.peer.close();
      });

      test('notifications/cancelled for 7 does not cancel request "7"', async () => {
        const s = new Scripted(channel, "server");
        let release!: () => void;
        s.peer.handle("slow", async (_params, context) => {
          await new Promise<void>((resolve) => (release = resolve));
          return { aborted: context.signal.aborted };
        });
        await s.send({ jsonrpc: "2.0", id: "7", method: "slow" });
        await until(() => release !== undefined);
        await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
        await ticks();
        release();
        assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: "7", result: { aborted: false } });
        await s.peer.close();
      });

      test("cancelling across two peers stops the handler", async () => {
        const { client, server } = connectPeers(channel);
        let stopped: (() => void) | undefined;
        const handlerStopped = new Promise<void>((resolve) => (stopped = resolve));
        let started = false;
        server.handle("slow", (_params, context) => {
          started = true;
          return new Promise((_, reject) =>
            context.signal.addEventListener("abort", () => (stopped!(), reject(new Error("stopped"))), { once: true }),
          );
        });
        const controller = new AbortController();
        const pending = client.request("slow", {}, { signal: controller.signal });
        await until(() => started);
        controller.abort();
        assert.ok((await rejection(pending)) instanceof AbortedError);
        await within(handlerStopped);
        await ticks(5);
        assert.equal(client.inFlight, 0);
        await client.close();
      });

      test("giving up on initialize never sends notifications/cancelled (2025-11-25 cancellation)", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        s.peer.handle("ping", () => ({}));
        const controller = new AbortController();
        const aborted = s.peer.request(
          "initialize",
          { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
          { signal: controller.signal },
        );
        const timedOut = s.peer.request(
          "initialize",
          { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
          { timeout: 50 },
        );
        await s.next();
        await s.next();
        controller.abort();
        tick(50);
        assert.ok((await rejection(aborted)) instanceof AbortedError);
        assert.ok((await rejection(timedOut)) instanceof TimeoutError);
        await s.send({ jsonrpc: "2.0", id: "p", method: "ping" });
        assert.equal((await s.next()).id, "p");
        await ticks();
        assert.deepEqual(s.unread(), []);
        await s.peer.close();
      });
    });

    describe("limits and closing", () => {
      test("past maxInFlight a request rejects with OverloadedError, and room frees as answers come", async () => {
        const s = new Scripted(channel, "client", { maxInFlight: 2 });
        const a = s.peer.request("a");
        const b = s.peer.request("b");
        const e = await rejection(s.peer.request("c"));
        assert.ok(e instanceof OverloadedError);
        assert.equal(e.code, ConnectionErrorCode.Overloaded);
        assert.equal(e.limit, 2);
        const first = await s.next();
        await s.next();
        await s.send({ jsonrpc: "2.0", id: first.id, result: {} });
        await within(a);
        const d = s.peer.request("d");
        assert.equal(s.peer.inFlight, 2);
        await s.peer.close();
        for (const p of [b, d]) assert.ok((await rejection(p)) instanceof ClosedError);
      });

      test("close() rejects every pending request at once with ClosedError, and later calls too", async () => {
        const { client, server } = connectPeers(channel);
        let running = 0;
        const signals: AbortSignal[] = [];
        server.handle("never", (_params, context) => {
          running++;
          signals.push(context.signal);
          return new Promise(() => undefined);
        });
        const pending = Array.from({ length: 20 }, () => client.request("never"));
        await until(() => running === 20);
        let closes = 0;
        void client.ended.then(() => closes++);
        await within(client.close("done here"));
        const outcomes = await within(Promise.allSettled(pending));
        for (const o of outcomes) {
          assert.equal(o.status, "rejected");
          assert.ok((o as PromiseRejectedResult).reason instanceof ClosedError);
        }
        assert.equal(client.inFlight, 0);
        assert.ok(client.closed);
        assert.ok((await rejection(client.request("again"))) instanceof ClosedError);
        assert.ok((await rejection(client.notify("notifications/again"))) instanceof ClosedError);
        // the other side saw the close: its handlers are told to stop
        await within(server.ended);
        await until(() => signals.every((s) => s.aborted));
        await ticks();
        assert.equal(closes, 1);
      });

      test("the other side closing rejects every pending request with ClosedError, and ends the peer once", async () => {
        const closed: (Error | undefined)[] = [];
        const s = new Scripted(channel, "client", { onClose: (e) => closed.push(e) });
        const pending = Array.from({ length: 10 }, (_, i) => s.peer.request("x", { i }));
        for (let i = 0; i < 10; i++) await s.next();
        await s.closeOther();
        const outcomes = await within(Promise.allSettled(pending));
        assert.ok(outcomes.every((o) => o.status === "rejected" && o.reason instanceof ClosedError));
        assert.ok((await within(s.peer.ended)) instanceof ClosedError);
        await s.peer.close();
        assert.equal(closed.length, 1);
      });
    });

    describe("misbehaving peers", () => {
      test("garbage lines are reported and the conversation goes on", async () => {
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("x");
        const m = await s.next();
        for (const garbage of [
          "}{",
          "null",
          "42",
          '"text"',
          "[]",
          "[1,2]",
          "{}",
          '{"jsonrpc":"2.0"}',
          '{"jsonrpc":"2.0","id":1}',
          "\u0000\u0001",
          "\ufeff{",
          '{"jsonrpc":"2.0","method":5}',
        ]) {
          await s.send(garbage);
        }
        await s.send({ jsonrpc: "2.0", id: m.id, result: { fine: true } });
        assert.deepEqual(await within(pending), { fine: true });
        assert.ok(s.defects.reports.length >= 12, s.defects.codes().join(", "));
        assert.ok(s.defects.reports.every((r) => r.defect.severity !== "error" || typeof r.excerpt === "string"));
        await s.peer.close();
      });

      test("a second answer to the same request is reported as duplicate_response; the first one counts", async () => {
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("x");
        const m = await s.next();
        await s.send({ jsonrpc: "2.0", id: m.id, result: { n: 1 } });
        await s.send({ jsonrpc: "2.0", id: m.id, result: { n: 2 } });
        await s.send({ jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "Internal error" } });
        assert.deepEqual(await within(pending), { n: 1 });
        await ticks();
        assert.deepEqual(s.defects.codes(), ["duplicate_response", "duplicate_response"]);
        await s.peer.close();
      });

      test("answers with ids of the wrong type are reported, and the request still times out", async (t) => {
        const tick = mockClock(t);
        const s = new Scripted(channel, "client");
        const pending = s.peer.request("x", {}, { timeout: 500 });
        const m = await s.next();
        for (const id of [true, { n: m.id }, [m.id], (m.id as number) + 0.5, null])
          await s.send({ jsonrpc: "2.0", id, result: {} });
        await ticks();
        const codes = s.defects.codes();
        for (const code of ["id_invalid_type", "id_fractional", "id_null"] as const)
          assert.ok(codes.includes(code), `${code} in ${codes.join(", ")}`);
        assert.equal(s.peer.inFlight, 1);
        tick(500);
        assert.ok((await rejection(pending)) instanceof TimeoutError);
        await s.peer.close();
      });

      test("a flood of 100,000 notifications: the handler sees each one, memory stays bounded", async () => {
        const s = new Scripted(channel, "server");
        let count = 0;
        let last = -1;
        s.peer.onNotification("notifications/message", (params) => {
          count++;
          last = params!.n as number;
        });
        const before = process.memoryUsage();
        const N = 100_000;
        for (let n = 0; n < N; n++) {
          const wait = s.send({
            jsonrpc: "2.0",
            method: "notifications/message",
            params: { level: "info", n, data: "x".repeat(32) },
          });
          if (wait) await within(wait);
          // the memory pair has no back-pressure: a sender that never yields buffers the lot itself
          else if (n % 1000 === 999) await ticks(1);
        }
        await until(() => count === N, 20_000, `${N} notifications handled`);
        const after = process.memoryUsage();
        assert.equal(last, N - 1);
        assert.deepEqual(s.unread(), []);
        assert.ok(
          after.heapUsed - before.heapUsed < 60 * 2 ** 20,
          `heap grew by ${((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1)} MB`,
        );
        await s.peer.close();
      });
    });
  });
}

describe("Peer: messages sent while serving a request name that request", () => {
  /** A transport that records the `related` argument of every send, and answers nothing. */
  function recording() {
    const sent: { method?: string | undefined; id?: unknown; related: unknown }[] = [];
    let sink: Parameters<Transport["start"]>[0] | undefined;
    const transport: Transport = {
      start: (s) => (sink = s),
      send: (text, _message, related) => {
        const m = JSON.parse(text) as { method?: string; id?: unknown };
        sent.push({ method: m.method, id: m.id, related });
      },
      close: async () => sink?.closed(),
    };
    return { transport, sent, deliver: (m: object) => sink!.message(JSON.stringify(m)) };
  }

  test("progress, notifications and requests made by a handler carry its request id; its answer and unrelated messages do not", async () => {
    const { transport, sent, deliver } = recording();
    const peer = new Peer(transport, { revision: "2025-11-25", role: "server" });
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    peer.handle("tools/call", async (_params, context) => {
      await context.progress(1, 2);
      await context.notify("notifications/message", { level: "info", data: "x" });
      void context.request("sampling/createMessage", { messages: [], maxTokens: 1 }).catch(() => undefined);
      done();
      return { content: [] };
    });
    deliver({
      jsonrpc: "2.0",
      id: "call-7",
      method: "tools/call",
      params: { name: "t", _meta: { progressToken: "p" } },
    });
    await within(finished);
    await peer.notify("notifications/message", { level: "info", data: "unrelated" });
    await until(() => sent.some((s) => s.id === "call-7" && s.method === undefined));
    const seen = new Map(
      sent.map((s) => [
        s.method === "notifications/message" ? `message ${String(s.related)}` : (s.method ?? `answer ${String(s.id)}`),
        s.related,
      ]),
    );
    assert.deepEqual(Object.fromEntries(seen), {
      "notifications/progress": "call-7",
      "message call-7": "call-7",
      "sampling/createMessage": "call-7",
      "message undefined": undefined,
      "answer call-7": undefined,
    });
    await peer.close();
  });

  test("a request made while serving is answered through the requester, and abandoned when the request it serves is cancelled", async () => {
    const { client, server } = connectPeers(CHANNELS[0]!);
    client.handle("sampling/createMessage", () => ({ role: "assistant", content: { type: "text", text: "4" } }));
    server.handle("ask", async (_params, context) => {
      const answer = await context.request<{ content: { text: string } }>("sampling/createMessage", {
        messages: [],
        maxTokens: 1,
      });
      return { said: answer.content.text };
    });
    assert.deepEqual(await within(client.request("ask")), { said: "4" });

    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let inner: Promise<unknown> | undefined;
    client.handle("slow/question", () => new Promise(() => undefined));
    server.handle("ask-slowly", (_params, context) => {
      inner = context.request("slow/question");
      started();
      return inner;
    });
    const controller = new AbortController();
    const outer = client.request("ask-slowly", undefined, { signal: controller.signal });
    await within(running);
    controller.abort();
    await rejection(outer);
    const innerOutcome = await within(
      inner!.then(
        () => "resolved",
        (e: unknown) => e,
      ),
    );
    assert.ok(innerOutcome instanceof AbortedError, `the inner request is abandoned, got ${String(innerOutcome)}`);
    await client.close();
  });
});

describe("Peer: request handlers shared between peers", () => {
  test("peers made with one table serve from it; `handle` on one of them changes its own copy, never the table or the others", async () => {
    const shared = new Map([["who", () => ({ from: "shared" })]]);
    const pairs = [0, 1].map(() => connectPeers(CHANNELS[0]!, { server: { handlers: shared } }));
    pairs[0]!.server.handle("who", () => ({ from: "own" }));
    pairs[0]!.server.handle("extra", () => ({}));
    assert.deepEqual(await within(pairs[0]!.client.request("who"), "the promise", 5000), { from: "own" });
    assert.deepEqual(await within(pairs[1]!.client.request("who"), "the promise", 5000), { from: "shared" });
    assert.equal(((await rejection(pairs[1]!.client.request("extra"))) as ResponseError).code, -32601);
    assert.deepEqual([...shared.keys()], ["who"]);
    for (const p of pairs) await p.client.close();
  });
});

describe("Peer: an HTTP transport's own means, and a plain one's", () => {
  /** A transport of the core members only, or, with `cancel`, an HTTP one that cancels by its own means. */
  function channel(cancel?: (id: unknown) => boolean) {
    const sent: { method?: string; params?: Record<string, unknown> }[] = [];
    const core: Transport = {
      start: () => undefined,
      send: (text) => void sent.push(JSON.parse(text) as { method?: string }),
      close: async () => undefined,
    };
    const transport: Transport | HttpTransport = cancel ? { ...core, kind: "http", cancel } : core;
    return { transport, sent };
  }

  test("a request given up on is cancelled by the HTTP transport when it can, else with notifications/cancelled", async (t) => {
    const tick = mockClock(t);
    const asked: unknown[] = [];
    const http = channel((id) => (asked.push(id), true));
    const plain = channel();
    for (const { transport } of [http, plain]) {
      const peer = new Peer(transport, { revision: "2025-11-25", role: "client" });
      const pending = rejection(peer.request("slow", {}, { timeout: 1000 }));
      tick(1000);
      assert.ok((await pending) instanceof TimeoutError);
    }
    assert.deepEqual(asked, [1]);
    assert.deepEqual(
      http.sent.map((m) => m.method),
      ["slow"],
    );
    assert.deepEqual(
      plain.sent.map((m) => m.method),
      ["slow", "notifications/cancelled"],
    );
  });
});
