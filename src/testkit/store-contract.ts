/**
 * What every census Store engine must do alike, as one suite each engine's test file runs on
 * its own stores: round trips, the one-attempt-per-target key, and every aggregate the report
 * reads, with the same numbers from the same attempts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Defect } from "../codec/defects.js";
import type { JsonObject } from "../codec/message.js";
import {
  TARGET_PAGE,
  collect,
  type AttemptRecord,
  type Store,
  type SurfaceRecord,
  type TargetRecord,
  type TargetSummary,
} from "../census/store.js";
import { surfaceRecord, withDigests } from "../census/surface.js";

export const A = "https://a.example/mcp";
export const B = "https://b.example/mcp";
export const C = "https://c.example/mcp";
export const TARGETS: TargetRecord[] = [
  { target: A, kind: "http", name: "example/a", untrusted: true },
  { target: B, kind: "sse", name: null },
  { target: C, kind: "http", name: null, invalid: "template" },
];

const legacyCode: Defect = {
  code: "error_code_legacy",
  severity: "warning",
  path: "/error/code",
  message: "legacy range",
} as Defect;
export const extra: Defect = {
  code: "unexpected_member",
  severity: "warning",
  path: "/result/x",
  message: "x",
} as Defect;

export function attempt(runId: number, target: string, at: string, over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    runId,
    target,
    at,
    class: "ok",
    detail: "modern",
    era: "modern",
    revision: "2026-07-28",
    transport: "streamable-http",
    httpStatus: 200,
    contentType: "application/json",
    rpcCode: null,
    rpcMessage: null,
    rpcRange: null,
    tools: 3,
    serverName: "s",
    serverVersion: "1.0.0",
    defects: [],
    elapsedMs: 40,
    repro: null,
    advice: "fine",
    auth: null,
    surface: null,
    ...over,
  };
}

/** A surface as the census records it: each tool's canonical definition and its digest. */
export function surfaceOf(
  tools: Record<string, unknown>[],
  names: Partial<Pick<SurfaceRecord, "resources" | "resourceTemplates" | "prompts">> = {},
): SurfaceRecord {
  return withDigests(
    surfaceRecord({ tools: tools as JsonObject[], resources: null, resourceTemplates: null, prompts: null, ...names }),
  );
}

const refusal = (runId: number, target: string, at: string, message: string) =>
  attempt(runId, target, at, {
    class: "auth_required",
    detail: "rpc_error_instead_of_401",
    era: null,
    revision: null,
    rpcCode: -32001,
    rpcMessage: message,
    rpcRange: "legacy",
    tools: null,
    serverName: null,
    serverVersion: null,
    defects: [legacyCode, legacyCode],
    elapsedMs: 700,
    repro: "curl -sS …",
    advice: "send a 401",
    auth: {
      rules: "2025-11-25",
      verdict: "not_oauth",
      brokenAt: null,
      steps: [{ step: "challenge", status: 200, ok: false }],
    },
  });

/** Two runs over A, B, C: what every aggregate test reads. */
export async function fill(store: Store): Promise<Store> {
  const r1 = await store.startRun("targets.txt", TARGETS, { timeout: 2000 });
  await store.recordAttempt(attempt(r1, A, "2026-07-20T10:00:00.000Z", { defects: [extra] }));
  await store.recordAttempt(refusal(r1, B, "2026-07-20T10:00:01.000Z", "Invalid API key"));
  await store.recordAttempt(
    attempt(r1, C, "2026-07-20T10:00:02.000Z", {
      class: "invalid_target",
      detail: "template",
      era: null,
      revision: null,
      httpStatus: null,
      tools: 0,
      elapsedMs: 0,
    }),
  );
  await store.finishRun(r1);
  const r2 = await store.startRun("targets.txt", TARGETS, { timeout: 2000 });
  await store.recordAttempt(
    attempt(r2, A, "2026-08-05T09:00:00.000Z", {
      class: "web_page",
      detail: "text/html",
      era: null,
      revision: null,
      httpStatus: 200,
      contentType: "text/html",
      tools: null,
      elapsedMs: 3000,
    }),
  );
  await store.recordAttempt(refusal(r2, B, "2026-08-05T09:00:01.000Z", "Missing token"));
  await store.recordAttempt(
    attempt(r2, C, "2026-08-05T09:00:02.000Z", {
      revision: "2025-06-18",
      era: "legacy",
      detail: "legacy",
      elapsedMs: 120,
    }),
  );
  return store;
}

/**
 * The suite, run against stores `open` makes: each call a new, empty database. `reopen` opens
 * the database of the store it is given again, as a later process would.
 */
export function storeContract(
  engine: string,
  open: () => Promise<Store>,
  reopen: (store: Store) => Promise<Store>,
): void {
  describe(`${engine} store: the Store contract`, () => {
    test("runs, their targets, attempts, pending targets and the unfinished run round-trip", async () => {
      const store = await open();
      const run = await store.startRun("registry.json", TARGETS, { concurrency: 4 });
      assert.deepEqual(await store.pendingTargets(run), TARGETS);
      const a = attempt(run, A, "2026-07-20T10:00:00.000Z", {
        defects: [extra],
        elapsedMs: 12.6,
        auth: { verdict: "ready", steps: [{ step: "challenge", ok: true }] },
      });
      await store.recordAttempt(a);
      const again = await reopen(store);
      await store.close();
      assert.deepEqual(await again.pendingTargets(run), TARGETS.slice(1));
      assert.deepEqual(await collect(again.attempts()), [{ ...a, elapsedMs: 13 }]);
      const unfinished = await again.unfinishedRun();
      assert.equal(unfinished?.id, run);
      assert.deepEqual(unfinished?.settings, { concurrency: 4 });
      assert.equal(unfinished?.targets, 3);
      assert.equal(unfinished?.source, "registry.json");
      await again.finishRun(run);
      assert.equal(await again.unfinishedRun(), undefined);
      assert.ok((await again.runs())[0]?.finishedAt);
      await again.close();
    });

    test("a second attempt of one target in one run is refused, and leaves nothing behind", async () => {
      const store = await open();
      const run = await store.startRun("t", TARGETS, {});
      await store.recordAttempt(attempt(run, A, "2026-07-20T10:00:00.000Z"));
      await assert.rejects(
        store.recordAttempt(attempt(run, A, "2026-07-20T10:00:05.000Z", { defects: [extra] })),
        /UNIQUE|unique|duplicate/,
      );
      assert.equal((await collect(store.attempts())).length, 1);
      assert.deepEqual((await store.aggregate()).defects, []);
      await store.close();
    });

    test("a re-run appends: the same targets get a new run and keep their history", async () => {
      const store = await fill(await open());
      assert.deepEqual(
        (await store.runs()).map((r) => r.id),
        [1, 2],
      );
      assert.deepEqual(
        (await collect(store.attempts({ target: B }))).map((a) => [a.rpcMessage, a.auth?.verdict]),
        [
          ["Invalid API key", "not_oauth"],
          ["Missing token", "not_oauth"],
        ],
      );
      await store.close();
    });

    test("aggregate() counts classes, runs, revisions, errors, statuses, latency, defects and per-target history", async () => {
      const store = await fill(await open());
      const agg = await store.aggregate();
      assert.equal(agg.attempts, 6);
      assert.equal(agg.targets, 3);
      assert.equal(agg.firstAt, "2026-07-20T10:00:00.000Z");
      assert.equal(agg.lastAt, "2026-08-05T09:00:02.000Z");
      assert.deepEqual(
        agg.runs.map((r) => [r.id, r.attempts, r.finishedAt !== null]),
        [
          [1, 3, true],
          [2, 3, false],
        ],
      );
      assert.deepEqual(agg.classes, [
        { class: "auth_required", detail: "rpc_error_instead_of_401", count: 2 },
        { class: "invalid_target", detail: "template", count: 1 },
        { class: "ok", detail: "legacy", count: 1 },
        { class: "ok", detail: "modern", count: 1 },
        { class: "web_page", detail: "text/html", count: 1 },
      ]);
      assert.deepEqual(agg.classesPerRun, [
        { runId: 1, class: "auth_required", count: 1 },
        { runId: 1, class: "invalid_target", count: 1 },
        { runId: 1, class: "ok", count: 1 },
        { runId: 2, class: "auth_required", count: 1 },
        { runId: 2, class: "ok", count: 1 },
        { runId: 2, class: "web_page", count: 1 },
      ]);
      assert.deepEqual(agg.revisions, [
        { era: "legacy", revision: "2025-06-18", count: 1 },
        { era: "modern", revision: "2026-07-28", count: 1 },
      ]);
      assert.deepEqual(agg.rpcErrors, [
        {
          code: -32001,
          range: "legacy",
          class: "auth_required",
          detail: "rpc_error_instead_of_401",
          count: 2,
          messages: ["Invalid API key", "Missing token"],
        },
      ]);
      assert.deepEqual(agg.httpStatuses, [{ status: 200, count: 3 }]);
      assert.deepEqual(
        agg.latency.filter((b) => b.count > 0),
        [
          { upToMs: 50, count: 2 },
          { upToMs: 250, count: 1 },
          { upToMs: 1000, count: 2 },
          { upToMs: 5000, count: 1 },
        ],
      );
      // a defect seen twice in one attempt counts once for it
      assert.deepEqual(agg.defects, [
        { code: "error_code_legacy", count: 2 },
        { code: "unexpected_member", count: 1 },
      ]);
      assert.deepEqual(
        agg.perTarget.map((t) => t.target),
        [A, B, C],
      );
      assert.deepEqual(agg.perTarget[0], {
        target: A,
        name: "example/a",
        attempts: 2,
        firstAt: "2026-07-20T10:00:00.000Z",
        lastAt: "2026-08-05T09:00:00.000Z",
        classes: { ok: 1, web_page: 1 },
        latest: {
          class: "web_page",
          detail: "text/html",
          era: null,
          revision: null,
          at: "2026-08-05T09:00:00.000Z",
          advice: "fine",
          tools: null,
          elapsedMs: 3000,
          auth: null,
          defects: [],
          httpStatus: 200,
          rpcCode: null,
          serverName: "s",
          serverVersion: "1.0.0",
        },
      });
      // B refused twice: one server that asks for sign-in, counted once
      assert.deepEqual(agg.signin, {
        asked: 1,
        verdicts: [{ verdict: "not_oauth", count: 1 }],
        broken: [],
        lenientOk: 0,
      });
      assert.equal((agg.perTarget[1]!.latest.auth as { verdict?: string } | null)?.verdict, "not_oauth");
      await store.close();
    });

    test("aggregate() counts sign-in verdicts, and broken chains by their first error", async () => {
      const store = await open();
      const run = await store.startRun("targets.txt", TARGETS, {});
      const walk = (verdict: string, lenient: string, codes: [string, string][]) => ({
        rules: "2025-11-25",
        verdict,
        clients: { strict: verdict === "ready" ? "ok" : "fails", lenient },
        defects: codes.map(([code, severity]) => ({
          code,
          severity,
          message: "…",
          step: "resource_metadata",
          side: "mcp_server",
        })),
      });
      const chains = [
        walk("ready", "ok", [["cors_preflight_rejected", "warning"]]),
        walk("broken", "fails", [
          ["challenge_without_resource_metadata", "warning"],
          ["resource_metadata_not_found", "error"],
          ["metadata_without_cors", "warning"],
        ]),
        walk("broken", "ok", [
          ["issuer_mismatch", "error"],
          ["pkce_s256_missing", "error"],
        ]),
        walk("broken", "fails", [["resource_metadata_not_found", "error"]]),
        walk("manual_registration", "fails", [["no_registration", "warning"]]),
      ];
      let second = 0;
      for (const [i, auth] of chains.entries()) {
        await store.recordAttempt(
          attempt(run, `https://s${i}.example/mcp`, `2026-08-05T09:00:0${second++}.000Z`, {
            class: "auth_required",
            detail: "http_401",
            auth,
          }),
        );
      }
      const agg = await store.aggregate();
      assert.deepEqual(agg.signin, {
        asked: 5,
        verdicts: [
          { verdict: "broken", count: 3 },
          { verdict: "manual_registration", count: 1 },
          { verdict: "ready", count: 1 },
        ],
        broken: [
          { code: "resource_metadata_not_found", count: 2 },
          { code: "issuer_mismatch", count: 1 },
        ],
        lenientOk: 1,
      });
      // a server asked again counts once, by its latest walk: s3 has been mended since
      const run2 = await store.startRun("targets.txt", TARGETS, {});
      await store.recordAttempt(
        attempt(run2, "https://s3.example/mcp", "2026-08-06T09:00:00.000Z", {
          class: "auth_required",
          detail: "http_401",
          auth: walk("ready", "ok", []),
        }),
      );
      assert.deepEqual((await store.aggregate()).signin, {
        asked: 5,
        verdicts: [
          { verdict: "broken", count: 2 },
          { verdict: "ready", count: 2 },
          { verdict: "manual_registration", count: 1 },
        ],
        broken: [
          { code: "issuer_mismatch", count: 1 },
          { code: "resource_metadata_not_found", count: 1 },
        ],
        lenientOk: 1,
      });
      await store.close();
    });

    test("perTarget() reads every target's summary, page by page, as aggregate() gives them; aggregate() can leave them out", async () => {
      const store = await fill(await open());
      const sorted = (rows: TargetSummary[]) => [...rows].sort((a, b) => a.target.localeCompare(b.target));
      for (const query of [{}, { runIds: [2] }, { since: "2026-08-01" }, { target: B }]) {
        const whole = await store.aggregate(query);
        assert.deepEqual(sorted(await collect(store.perTarget(query))), whole.perTarget, JSON.stringify(query));
        const lean = await store.aggregate(query, { perTarget: false });
        assert.deepEqual(lean.perTarget, []);
        assert.deepEqual({ ...lean, perTarget: whole.perTarget }, whole, "everything else is the same");
      }
      // more targets than a page: each once
      const many = Array.from({ length: TARGET_PAGE * 2 + 5 }, (_, i) => ({
        target: `https://m${String(i).padStart(5, "0")}.example/mcp`,
        kind: "http" as const,
        name: null,
      }));
      const run = await store.startRun("many", many, {});
      // recorded as a census does, many in flight at once (one by one, each is a commit of its own)
      for (let from = 0; from < many.length; from += 200)
        await Promise.all(
          many
            .slice(from, from + 200)
            .map((t, j) =>
              store.recordAttempt(
                attempt(run, t.target, new Date(Date.parse("2026-09-01T00:00:00Z") + (from + j) * 1000).toISOString()),
              ),
            ),
        );
      const seen = await collect(store.perTarget({ runIds: [run] }));
      assert.equal(seen.length, many.length);
      assert.equal(new Set(seen.map((t) => t.target)).size, many.length);
      assert.equal((await store.aggregate({ runIds: [run] }, { perTarget: false })).targets, many.length);
      await store.close();
    });

    test("surfaces round-trip: tools by name and digest, each definition stored once, name lists null when not declared", async () => {
      const store = await open();
      const run = await store.startRun("t", TARGETS, {});
      const echo = {
        name: "echo",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        description: "Echoes",
      };
      // the same definition in another key order is the same text, so the same digest
      const echoAgain = {
        description: "Echoes",
        inputSchema: { properties: { text: { type: "string" } }, type: "object" },
        name: "echo",
      };
      const first = surfaceOf([echo, { name: "add", inputSchema: { type: "object" } }], {
        prompts: ["greet"],
        resources: [],
        resourceTemplates: ["file:///{path}"],
      });
      const second = surfaceOf([echoAgain]);
      assert.equal(first.tools[0]!.digest, second.tools[0]!.digest);
      await store.recordAttempt(attempt(run, A, "2026-07-20T10:00:00.000Z", { surface: first }));
      await store.recordAttempt(attempt(run, B, "2026-07-20T10:00:01.000Z", { surface: second }));
      const again = await reopen(store);
      await store.close();
      const [a, b] = await collect(again.attempts());
      assert.deepEqual(a!.surface, { ...first, tools: first.tools.map((t) => ({ name: t.name, digest: t.digest })) });
      assert.deepEqual(b!.surface, {
        tools: [{ name: "echo", digest: first.tools[0]!.digest }],
        resources: null,
        resourceTemplates: null,
        prompts: null,
      });
      const defs = await again.toolDefinitions([first.tools[0]!.digest, first.tools[1]!.digest, "no-such-digest"]);
      assert.equal(defs.size, 2);
      assert.equal(
        defs.get(first.tools[0]!.digest),
        '{"description":"Echoes","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"echo"}',
      );
      await again.close();
    });

    test("history() gives each attempt's class, revision, time, latency, identity and surface, as attempts() does, in the same order", async () => {
      const store = await fill(await open());
      const run = await store.startRun("t", TARGETS, {});
      await store.recordAttempt(
        attempt(run, A, "2026-08-06T00:00:00.000Z", {
          surface: surfaceOf([{ name: "echo", inputSchema: { type: "object" } }], { prompts: ["p"] }),
        }),
      );
      const pick = (a: AttemptRecord) => ({
        runId: a.runId,
        target: a.target,
        at: a.at,
        class: a.class,
        detail: a.detail,
        revision: a.revision,
        elapsedMs: a.elapsedMs,
        serverName: a.serverName,
        serverVersion: a.serverVersion,
        surface: a.surface ?? null,
      });
      assert.deepEqual(await collect(store.history()), (await collect(store.attempts())).map(pick));
      assert.deepEqual(
        await collect(store.history({ target: B, since: "2026-08-01" })),
        (await collect(store.attempts({ target: B, since: "2026-08-01" }))).map(pick),
      );
      await store.close();
    });

    test("prune() deletes attempts before a date and the definitions only they listed; runs, targets and later attempts stay", async () => {
      const store = await fill(await open());
      const run = await store.startRun("t", TARGETS, {});
      const old = surfaceOf([{ name: "gone", inputSchema: { type: "object" } }]);
      const kept = surfaceOf([{ name: "kept", inputSchema: { type: "object" } }]);
      await store.recordAttempt(attempt(run, A, "2026-07-21T00:00:00.000Z", { surface: old }));
      await store.recordAttempt(attempt(run, B, "2026-08-06T00:00:00.000Z", { surface: kept }));
      assert.equal(await store.prune("2026-08-01T00:00:00.000Z"), 4);
      const left = await collect(store.attempts());
      assert.deepEqual(
        left.map((a) => a.at),
        [
          "2026-08-05T09:00:00.000Z",
          "2026-08-05T09:00:01.000Z",
          "2026-08-05T09:00:02.000Z",
          "2026-08-06T00:00:00.000Z",
        ],
      );
      const defs = await store.toolDefinitions([old.tools[0]!.digest, kept.tools[0]!.digest]);
      assert.deepEqual([...defs.keys()], [kept.tools[0]!.digest]);
      assert.equal((await store.runs()).length, 3);
      assert.deepEqual((await store.aggregate()).defects, [{ code: "error_code_legacy", count: 1 }]);
      assert.equal(await store.prune("2026-08-01T00:00:00.000Z"), 0);
      await assert.rejects(store.prune("yesterday"), /not a date/);
      await store.close();
    });

    test("aggregate() gives each target's latest defects", async () => {
      const store = await fill(await open());
      const perTarget = (await store.aggregate()).perTarget;
      assert.deepEqual(
        perTarget.map((t) => [t.target, t.latest.defects.map((d) => d.code)]),
        [
          [A, []],
          [B, ["error_code_legacy", "error_code_legacy"]],
          [C, []],
        ],
      );
      await store.close();
    });

    test("aggregate() filters by run, time and target", async () => {
      const store = await fill(await open());
      const run2 = await store.aggregate({ runIds: [2] });
      assert.equal(run2.attempts, 3);
      assert.deepEqual(
        run2.runs.map((r) => r.id),
        [2],
      );
      assert.deepEqual(run2.rpcErrors[0]?.messages, ["Missing token"]);
      assert.deepEqual(run2.defects, [{ code: "error_code_legacy", count: 1 }]);
      const since = await store.aggregate({ since: "2026-08-01" });
      assert.equal(since.attempts, 3);
      assert.equal(since.firstAt, "2026-08-05T09:00:00.000Z");
      const b = await store.aggregate({ target: B });
      assert.equal(b.attempts, 2);
      assert.equal(b.perTarget.length, 1);
      assert.equal(b.perTarget[0]?.latest.class, "auth_required");
      const none = await store.aggregate({ runIds: [] });
      assert.equal(none.attempts, 0);
      assert.equal(none.firstAt, null);
      assert.deepEqual(none.perTarget, []);
      await assert.rejects(store.aggregate({ since: "last tuesday" }), /not a date/);
      await store.close();
    });
  });
}
