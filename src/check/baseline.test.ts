/**
 * `check --baseline`: the earlier `--json` output (or an edited part of it) read for each
 * finding's id, subject, method and subject path (and, from older files, revision and path);
 * accepted findings pass, entries that no longer occur fail, so a baseline only shrinks; a file
 * that is not one is a single clear error.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BASELINE_MAX_BYTES, BaselineError, applyBaseline, parseBaseline, readBaseline } from "./baseline.js";
import { runFails } from "./fail-on.js";
import { sampleReport } from "../testkit/check-fixtures.js";
import type { CheckReport } from "./types.js";

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-wire-baseline-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** What `check --json` prints for a report. */
const json = (r: CheckReport) =>
  JSON.stringify({
    target: r.target,
    revisions: r.revisions,
    findings: r.findings,
    counts: r.counts,
    checked: r.checked,
    elapsedMs: r.elapsedMs,
  });

describe("baseline", () => {
  test("an earlier --json output accepts exactly its findings", () => {
    const report = sampleReport();
    const keys = parseBaseline(json(report), "baseline.json");
    assert.equal(keys.length, 4);
    assert.deepEqual(keys[3], {
      id: "stdio_exit_slow",
      revision: null,
      method: null,
      path: null,
      subject: "server",
      subjectPath: null,
    });
    const applied = applyBaseline(report, keys);
    assert.ok(applied.findings.every((f) => f.accepted === true));
    assert.deepEqual(applied.stale, []);
    assert.deepEqual(applied.counts, report.counts, "accepted findings are still counted");
    assert.equal(runFails(applied, "warning"), false);
    assert.equal(runFails(report, "error"), true);
  });

  test("an edited subset works: other members gone, fields left out read as null", () => {
    const text = JSON.stringify({
      findings: [
        { id: "tool_name_format", revision: "2025-11-25", method: "tools/list", path: "/result/tools/1/name" },
        { id: "stdio_exit_slow" },
      ],
    });
    const applied = applyBaseline(sampleReport(), parseBaseline(text, "b.json"));
    assert.deepEqual(
      applied.findings.filter((f) => f.accepted).map((f) => f.id),
      ["tool_name_format", "stdio_exit_slow"],
    );
    assert.equal(runFails(applied, "error"), true, "the errors it does not name still fail");
    assert.equal(runFails(applied, "never"), false);
    // the bare array, as a person might cut it out
    assert.equal(parseBaseline(JSON.stringify([{ id: "x", revision: null }]), "b.json").length, 1);
  });

  test("a baseline only shrinks: a fixed finding's entry fails as stale until it is removed; a new finding fails", () => {
    const first = sampleReport();
    const baseline = parseBaseline(json(first), "baseline.json");
    // the server's authors fix the tool at index 3
    const fixed = sampleReport({
      findings: first.findings.filter((f) => f.path !== "/result/tools/3/inputSchema/type"),
    });
    const stale = applyBaseline(fixed, baseline);
    assert.deepEqual(stale.stale, [
      {
        id: "tool_input_schema_object",
        revision: "2026-07-28",
        revisions: ["2026-07-28"],
        method: "tools/list",
        path: "/result/tools/3/inputSchema/type",
        subject: "tool:evil",
        subjectPath: "/inputSchema/type",
      },
    ]);
    assert.equal(runFails(stale, "never"), true, "stale fails whatever --fail-on says");
    // the entry removed: the smaller baseline passes
    const smaller = parseBaseline(json({ ...fixed, findings: fixed.findings }), "baseline.json");
    assert.equal(smaller.length, 3);
    assert.equal(runFails(applyBaseline(fixed, smaller), "warning"), false);
    // a finding the baseline never had fails
    const worse = sampleReport({
      findings: [
        ...fixed.findings,
        { ...fixed.findings[0]!, path: "/result/tools/7/inputSchema/type", subject: "tool:new" },
      ],
    });
    const applied = applyBaseline(worse, smaller);
    assert.equal(applied.findings.filter((f) => !f.accepted).length, 1);
    assert.equal(runFails(applied, "error"), true);
  });

  test("an entry whose check did not run this time is neither accepted nor stale: nobody can tell it is gone", () => {
    const first = sampleReport();
    const baseline = parseBaseline(json(first), "baseline.json");
    // checked for one revision only (-r 2025-06-18): the entries of other revisions were not looked for
    const one = sampleReport({
      findings: [],
      ran: first.ran.filter((r) => r.revision === "2025-06-18"),
    });
    const applied = applyBaseline(one, baseline);
    assert.deepEqual(applied.stale, []);
    assert.equal(runFails(applied, "warning"), false);
    // a target not reached at all: nothing ran, nothing is stale
    assert.deepEqual(applyBaseline(sampleReport({ findings: [], ran: [] }), baseline).stale, []);
  });

  test("a tool added before the accepted one leaves the run green: entries match by subject, not by index", () => {
    const first = sampleReport();
    const baseline = parseBaseline(json(first), "baseline.json");
    // a new tool ahead of all others: every index moves by one, the subjects do not
    const moved = sampleReport({
      findings: first.findings.map((f) =>
        f.path ? { ...f, path: f.path.replace(/\/tools\/(\d+)/, (_, i: string) => `/tools/${Number(i) + 1}`) } : f,
      ),
    });
    const applied = applyBaseline(moved, baseline);
    assert.deepEqual(applied.stale, []);
    assert.ok(applied.findings.every((f) => f.accepted));
    assert.equal(runFails(applied, "warning"), false);
  });

  test("a baseline written before findings had subjects (one entry per revision, by path) still matches", () => {
    const report = sampleReport();
    // what the older check --json printed: the merged finding once per revision, without subject
    const old = report.findings.flatMap((f) =>
      (f.revisions.length > 0 ? f.revisions : [null]).map((revision) => ({
        id: f.id,
        revision,
        method: f.method,
        path: f.path,
      })),
    );
    assert.equal(old.length, 5);
    const applied = applyBaseline(report, parseBaseline(JSON.stringify({ findings: old }), "old.json"));
    assert.ok(applied.findings.every((f) => f.accepted));
    assert.deepEqual(applied.stale, []);
    // one of them fixed: its old entries go stale, named as they were written
    const fixed = sampleReport({ findings: report.findings.filter((f) => f.id !== "tool_name_format") });
    const stale = applyBaseline(fixed, parseBaseline(JSON.stringify({ findings: old }), "old.json")).stale;
    assert.deepEqual(stale, [
      { id: "tool_name_format", revision: "2025-11-25", method: "tools/list", path: "/result/tools/1/name" },
    ]);
  });

  test("a malformed file is one clear error naming it", () => {
    const cases: [string, RegExp][] = [
      [
        "{not json",
        /^--baseline b\.json: not JSON \(.+\); it must be the --json output of an earlier mcp-wire check \(or part of it\)$/,
      ],
      ["{}", /^--baseline b\.json: no "findings" array;/],
      ['{"findings": {}}', /no "findings" array/],
      ['{"findings": [1]}', /findings\[0\] is not an object/],
      ['{"findings": [{"revision": null}]}', /findings\[0\] has no "id"/],
      [
        '{"findings": [{"id": "x", "revision": "2025-13-01"}]}',
        /findings\[0\]\.revision is "2025-13-01", not one of 2024-11-05, .* or null/,
      ],
      ['{"findings": [{"id": "x", "path": 3}]}', /findings\[0\]\.path is not a string or null/],
      ["", /not JSON/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseBaseline(text, "b.json"),
        (e: unknown) =>
          e instanceof BaselineError &&
          e.code === "ERR_MCP_WIRE_BASELINE" &&
          message.test(e.message) &&
          !e.message.includes("\n"),
        text,
      );
    }
  });

  test("reading: a missing file, a folder and a huge file are clear errors; a real one is read", async () => {
    const good = join(dir, "baseline.json");
    writeFileSync(good, `\uFEFF${json(sampleReport())}`);
    assert.equal((await readBaseline(good)).length, 4);
    await assert.rejects(
      readBaseline(join(dir, "missing.json")),
      /^BaselineError: --baseline .*missing\.json: cannot read it \(no such file\)$/,
    );
    await assert.rejects(readBaseline(dir), BaselineError);
    const huge = join(dir, "huge.json");
    writeFileSync(huge, "");
    truncateSync(huge, BASELINE_MAX_BYTES + 10);
    await assert.rejects(readBaseline(huge), /larger than 16 MiB/);
  });
});
