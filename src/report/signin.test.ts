/**
 * The report's sign-in section from a real census of the sign-in fixtures: how many ask for
 * sign-in, how many are ready, need a client registered by hand, or are broken and why, in the
 * text, in `--json`, and in the HTML with its chart and each target's chain.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { runCensus } from "../census/census.js";
import { MemoryStore } from "../census/memory-store.js";
import type { Aggregates } from "../census/store.js";
import { startSigninServer, type SigninServer } from "../fleet/signin.js";
import { SIGNIN_CASES } from "../fleet/signin-cases.js";
import { renderHtml } from "./html.js";
import { reportObject } from "./json.js";
import { signinSentences } from "./signin.js";
import { summary } from "./story.js";

const NAMES = [
  "signin-dcr",
  "signin-cimd",
  "signin-no-registration",
  "signin-metadata-wrong-path",
  "signin-challenge-no-metadata",
  "signin-issuer-slash",
  "signin-rpc-32001",
  "signin-api-key",
];

let server: SigninServer;
let agg: Aggregates;

before(async () => {
  server = await startSigninServer(SIGNIN_CASES.filter((c) => NAMES.includes(c.name)));
  const store = new MemoryStore().asStore();
  const targets = NAMES.map((n) => ({ target: server.url(n), kind: "http" as const, name: n }));
  const runId = await store.startRun("signin fixtures", targets, {});
  await runCensus(store, runId, targets, { timeout: 5000, concurrency: 8, perHost: 8 });
  agg = await store.aggregate();
});
after(() => server?.close());

test("the sentence: how many ask, are ready, need a client by hand, are broken and why", () => {
  assert.deepEqual(agg.signin.verdicts, [
    { verdict: "broken", count: 4 },
    { verdict: "ready", count: 2 },
    { verdict: "manual_registration", count: 1 },
    { verdict: "not_oauth", count: 1 },
  ]);
  const words = signinSentences(agg);
  assert.equal(
    words[0],
    "Of 7 servers that ask for sign-in with OAuth, 2 are ready, 1 needs a client registered by hand and 4 are broken: 2 publish no resource metadata, 1 refuses with a JSON-RPC error or another status instead of 401, 1 has an issuer that differs from the authorization server it lists.",
  );
  assert.equal(words[1], "One of them a strict client cannot sign in to still works with the TypeScript SDK, which tolerates what the specification does not.");
  assert.match(words.at(-1)!, /asks? for a key rather than OAuth/);
  assert.ok(summary(agg).some((s) => s === words[0]), "the report's story tells it");
});

test("--json carries the numbers and each target's chain", () => {
  const json = JSON.parse(JSON.stringify(reportObject(agg, { runs: null, since: null, target: null }))) as {
    signin: { asked: number; ready: number; broken: number; brokenBy: { code: string; count: number }[] };
    targets: { target: string; latest: { auth?: { verdict: string; steps: unknown[] } } }[];
  };
  assert.equal(json.signin.asked, 8);
  assert.equal(json.signin.ready, 2);
  assert.deepEqual(json.signin.brokenBy[0], { code: "resource_metadata_not_found", count: 2 });
  const dcr = json.targets.find((t) => t.target === server.url("signin-dcr"));
  assert.equal(dcr?.latest.auth?.verdict, "ready");
  assert.ok((dcr?.latest.auth?.steps.length ?? 0) >= 3);
});

test("the HTML has the chart and each chain", () => {
  const html = renderHtml(agg);
  assert.match(html, /<figure id="chart-signin">/);
  assert.match(html, /broken: resource_metadata_not_found/);
  assert.equal((html.match(/<details class="signin-chain">/g) ?? []).length, 8);
  assert.match(html, /issuer_mismatch<\/b> \(mcp server\)/);
});
