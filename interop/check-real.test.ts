/**
 * `npm run interop`: `check` and `probe` against the official servers installed as
 * devDependencies, as their users run them. The heavier half of what src/check/*.test.ts shows on
 * one fast representative each.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import Ajv04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import { CHECK_RULES } from "../src/check/rules.js";
import { sarifLog } from "../src/check/sarif.js";
import { checkHttp, checkStdio } from "../src/check/check.js";
import { probeHttp, probeStdio } from "../src/probe/probe.js";
import { NODE, fixture, scratch, within } from "../src/testkit/interop-harness.js";
import { peer } from "../src/testkit/interop-peers.js";
import { mcpWire } from "../src/testkit/cli-child.js";

/** `mcp-wire check --json … -r 2025-11-25` of the SDK v1 fixture server over stdio, with `more` flags. */
const args = (more: string[]) => [
  "check",
  "--json",
  ...more,
  "-r",
  "2025-11-25",
  "--stdio",
  "--",
  NODE,
  fixture("replay-server.mjs"),
];

describe("discover_missing stays silent on real servers that do not speak 2026-07-28", () => {
  test("probe -r 2026-07-28 against the official SDK v1 server: unsupported_version, no defect", async () => {
    const p = await within(
      probeStdio(NODE, [fixture("replay-server.mjs")], { revision: "2026-07-28" }),
      "probe",
      30_000,
    );
    assert.deepEqual([p.class, p.detail], ["rpc_error", "unsupported_version"]);
    assert.deepEqual(p.defects, []);
  });

  for (const name of ["server-everything stdio", "server-everything streamableHttp"]) {
    test(`${name}: check and probe -r 2026-07-28 find no discover_missing`, async () => {
      const dir = scratch();
      const running = await peer(name).start(dir.dir);
      try {
        const e = running.endpoint;
        const options = { revisions: ["2026-07-28" as const] };
        const r = await within(
          e.kind === "stdio" ? checkStdio(e.command, e.args, options) : checkHttp(e.url, options),
          "check",
          60_000,
        );
        assert.notEqual(r.revisions["2026-07-28"], "ok");
        // over stdio the SDK refuses discover with -32601 and is asked again without it; over HTTP
        // its transport refuses a request without a session (400, no id): no method was refused
        assert.equal(
          r.ran.some((x) => x.id === "discover_missing"),
          e.kind === "stdio",
        );
        assert.deepEqual(r.findings, []);
        const p = await within(
          e.kind === "stdio"
            ? probeStdio(e.command, e.args, { revision: "2026-07-28" })
            : probeHttp(e.url, { revision: "2026-07-28" }),
          "probe",
          30_000,
        );
        assert.equal(p.class, "rpc_error");
        assert.ok(!p.defects.some((d) => d.code === "discover_missing"), JSON.stringify(p.defects));
      } finally {
        await running.stop();
        dir.cleanup();
      }
    });
  }
});

describe("a baseline against the official SDK v1 server, as its author keeps one", () => {
  test("taken with --update-baseline; an unrelated change to a tool, still green; nothing stale", async () => {
    const dir = scratch();
    try {
      const baseline = join(dir.dir, "baseline.json");
      const taken = mcpWire(args(["--update-baseline", baseline]));
      assert.equal(await taken.exit(60_000), 0, taken.stderr());
      const entries = (JSON.parse(readFileSync(baseline, "utf8")) as { findings: unknown[] }).findings;
      assert.ok(entries.length > 0, "the SDK's own finding (bad params answered -32603) is in the baseline");
      // echo's input schema gains a property: nothing the baseline accepted is about it
      const changed = mcpWire(args(["--baseline", baseline]), { REPLAY_CHANGE: "schema" });
      assert.equal(await changed.exit(60_000), 0, changed.stderr());
      const r = JSON.parse(changed.stdout()) as { stale: unknown[]; findings: { accepted?: boolean }[] };
      assert.deepEqual(r.stale, []);
      assert.ok(
        r.findings.every((f) => f.accepted === true),
        changed.stdout(),
      );
    } finally {
      dir.cleanup();
    }
  });
});

describe("a baseline against the official SDK v1 server, through a fix and an unrelated addition", () => {
  const run = async (more: string[], change: string) => {
    const child = mcpWire(args(more), { REPLAY_CHANGE: change });
    const status = await child.exit(60_000);
    return { status, out: child.stdout(), err: child.stderr() };
  };

  test("a tool added ahead of the others: still green; a finding fixed: stale, named; --update-baseline: green", async () => {
    const dir = scratch();
    try {
      const baseline = join(dir.dir, "baseline.json");
      const taken = await run(["--update-baseline", baseline], "hidden");
      assert.equal(taken.status, 0, taken.err);
      const ids = (JSON.parse(readFileSync(baseline, "utf8")) as { findings: { id: string }[] }).findings.map(
        (f) => f.id,
      );
      assert.ok(ids.includes("description_hidden_text"), ids.join());

      // the hidden character still there, a tool listed ahead of echo: every index shifts, nothing new
      const shifted = await run(["--baseline", baseline], "hidden-added");
      assert.equal(shifted.status, 0, shifted.err);
      const s = JSON.parse(shifted.out) as { stale: unknown[]; findings: { accepted?: boolean }[] };
      assert.deepEqual(s.stale, []);
      assert.ok(s.findings.length > 0 && s.findings.every((f) => f.accepted === true), shifted.out);

      // the author removes the character: the accepted entry is stale, the run fails and says how to rewrite
      const fixed = await run(["--baseline", baseline], "");
      assert.equal(fixed.status, 1, fixed.err);
      const f = JSON.parse(fixed.out) as { stale: { id: string }[] };
      assert.deepEqual(
        f.stale.map((x) => x.id),
        ["description_hidden_text"],
      );
      assert.match(fixed.out + fixed.err, /--update-baseline/);

      const rewritten = await run(["--update-baseline", baseline], "");
      assert.equal(rewritten.status, 0, rewritten.err);
      const green = await run(["--baseline", baseline], "");
      assert.equal(green.status, 0, green.err);
      assert.deepEqual((JSON.parse(green.out) as { stale: unknown[] }).stale, []);
    } finally {
      dir.cleanup();
    }
  });
});

describe("SARIF of a real server that speaks five revisions", () => {
  test("the official SDK v2 server: valid against the vendored SARIF 2.1.0 schema, one result per problem", async () => {
    const dir = scratch();
    const running = await peer("SDK v2 server stdio (dual)").start(dir.dir);
    try {
      const e = running.endpoint;
      if (e.kind !== "stdio") throw new Error("a stdio row");
      const report = await within(checkStdio(e.command, e.args), "check", 90_000);
      assert.equal(Object.values(report.revisions).filter((o) => o === "ok").length, 5);
      const spread = report.findings.filter((f) => f.revisions.length > 1);
      assert.ok(spread.length > 0, "a problem seen in several revisions (the SDK's -32603 for a bad cursor)");
      const log = sarifLog(report, CHECK_RULES, { location: "package.json" }) as unknown as {
        runs: { results: { ruleId: string; partialFingerprints: Record<string, string> }[] }[];
      };
      const schema = JSON.parse(readFileSync(fixture("sarif/sarif-schema-2.1.0.json"), "utf8"));
      const ajv = new Ajv04Module.default({ allErrors: true, strict: false });
      addFormatsModule.default(ajv);
      const validate = ajv.compile(schema as object);
      assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 3)));
      const results = log.runs[0]!.results;
      assert.equal(results.length, report.findings.length, "one result per finding, not one per revision");
      const prints = results.map((r) => JSON.stringify(r.partialFingerprints));
      assert.equal(new Set(prints).size, prints.length, "each problem its own fingerprint");
      for (const f of spread) assert.equal(results.filter((r) => r.ruleId === f.id).length, 1, f.id);
    } finally {
      await running.stop();
      dir.cleanup();
    }
  });
});
