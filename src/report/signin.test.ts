/**
 * The report's sign-in section from a real census of the sign-in fixtures: how many ask for
 * sign-in, how many are ready, need a client registered by hand, or are broken and why, in the
 * text, in `--json`, and in the HTML with its chart and each target's chain.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { runCensus } from "../census/census.js";
import { MemoryStore } from "../testkit/memory-store.js";
import type { Aggregates } from "../census/store.js";
import { startFleet } from "../fleet/fleet.js";
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
  assert.deepEqual(words, [
    "Of 8 servers that ask for sign-in, 7 use OAuth and one asks for a key instead (no challenge and no metadata anywhere).",
    "Of the 7 that use OAuth, 2 are ready, 1 needs a client registered by hand and 4 are broken: 2 publish no resource metadata, 1 refuses with a JSON-RPC error or another status instead of 401, 1 has an issuer that differs from the authorization server it lists.",
    "One of them a strict client cannot sign in to still works with the TypeScript SDK, which tolerates what the specification does not.",
  ]);
  assert.ok(
    summary(agg).some((s) => s === words[0]),
    "the report's story tells it",
  );
});

test("a server refused with -32001 and no sign-in metadata is one server, told once, in the story and in the section", async () => {
  const fleet = await startFleet();
  try {
    const store = new MemoryStore().asStore();
    const targets = [{ target: fleet.url("invalid-api-key"), kind: "http" as const, name: "invalid-api-key" }];
    const runId = await store.startRun("fleet", targets, {});
    await runCensus(store, runId, targets, { timeout: 5000, concurrency: 1, perHost: 1 });
    const one = await store.aggregate();
    assert.deepEqual(one.signin.verdicts, [{ verdict: "not_oauth", count: 1 }]);
    const story = summary(one);
    assert.ok(
      story.some((s) => /^One rejected the opening request with JSON-RPC error -32001\b/.test(s)),
      story.join(" "),
    );
    const signin = signinSentences(one);
    assert.deepEqual(signin, [
      "The one server that asks for sign-in wants a key rather than OAuth (no challenge and no metadata anywhere).",
    ]);
    assert.ok(!story.join(" ").includes("more"), `no second server implied: ${story.join(" ")}`);
    const section = renderHtml(one);
    assert.match(section, /<h2 id="signin">Sign-in<\/h2><p>The one server that asks for sign-in /);
    assert.doesNotMatch(section, /<p>One more/);
  } finally {
    await fleet.close();
  }
});

test("asked again and again, a server is counted once in the sign-in sentences", async () => {
  const store = new MemoryStore().asStore();
  const target = server.url("signin-api-key");
  const targets = [{ target, kind: "http" as const, name: "signin-api-key" }];
  for (let i = 0; i < 3; i++) {
    const runId = await store.startRun("again", targets, {});
    await runCensus(store, runId, targets, { timeout: 5000, concurrency: 1, perHost: 1 });
  }
  const three = await store.aggregate();
  assert.equal(three.attempts, 3);
  assert.equal(three.signin.asked, 1);
  assert.deepEqual(signinSentences(three), [
    "The one server that asks for sign-in wants a key rather than OAuth (no challenge and no metadata anywhere).",
  ]);
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
  // drawn like the other charts: their canvas, their label class, no type size of its own
  const signinSvg = /<figure id="chart-signin">.*?(<svg[^>]*>).*?<\/svg>/s.exec(html)!;
  const revisionsSvg = /<figure id="chart-revisions">.*?(<svg[^>]*>)/s.exec(html)!;
  const viewWidth = (tag: string) => /viewBox="0 0 (\d+) /.exec(tag)?.[1];
  assert.equal(viewWidth(signinSvg[1]!), viewWidth(revisionsSvg[1]!));
  assert.doesNotMatch(signinSvg[0], /font-size|width="\d+" height="\d+" *>/);
  assert.doesNotMatch(signinSvg[1]!, / width=/);
  assert.match(signinSvg[0], /<text class="tick"[^>]*>broken: resource_metadata_not_found<\/text>/);
  assert.match(html, /broken: resource_metadata_not_found/);
  assert.equal((html.match(/<details class="signin-chain">/g) ?? []).length, 8);
  assert.match(html, /issuer_mismatch<\/b> \(mcp server\)/);
});
