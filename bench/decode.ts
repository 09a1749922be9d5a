/**
 * Decode throughput: mcp-wire's `decode` against `JSON.parse` alone (the ceiling for any codec
 * written in JavaScript) and against the official SDKs' envelope validation, on the very same
 * strings, for the newest revision and for the newest legacy one.
 */
import { JSONRPCMessageSchema as SdkV1Message } from "@modelcontextprotocol/sdk/types.js";
import { JSONRPCMessageSchema as SdkV2Message } from "@modelcontextprotocol/core";
import { decode, LATEST_REVISION, type MessageKind, type Revision } from "../src/index.js";
import { LATEST_LEGACY_REVISION } from "../src/rules/revisions.js";
import { DEFAULT_MAX_DEPTH, depthBeforeParse, exceedsDepth } from "../src/codec/depth.js";
import { breakdown, buildCorpus, fingerprint, type Corpus } from "./corpus.js";
import {
  checkTargets,
  fmtBytes,
  fmtRate,
  formatMeasurement,
  formatTargets,
  loadLine,
  measure,
  ratio,
  result,
  table,
  type Benchmark,
  type Contender,
  type Profile,
  type Target,
  type TargetOutcome,
} from "./harness.js";

const JSON_PARSE = "JSON.parse";
const DECODE = "mcp-wire decode";
const SDK_V1 = "SDK v1 Schema.parse(JSON.parse)";
const SDK_V2 = "SDK v2 Schema.parse(JSON.parse)";

// decode runs JSON.parse and then checks the value, so JSON.parse bounds every decode ratio.
const TARGETS: readonly Target[] = [
  { of: DECODE, versus: JSON_PARSE, atLeast: 0.9, bound: JSON_PARSE },
  { of: DECODE, versus: SDK_V1, atLeast: 2, bound: JSON_PARSE },
  { of: DECODE, versus: SDK_V2, atLeast: 2, bound: JSON_PARSE },
];

/**
 * Where every contender's results go, so no result is dead code the JIT could drop. Printed after
 * each run; the counts double as a check that each contender saw what it should.
 */
interface Sink {
  objects: number;
  /** Messages decode called anything but invalid. */
  decoded: number;
  defects: number;
  /** Messages the depth-limit contender found too deep (none: the corpus is sound). */
  deep: number;
  v1Accepted: number;
  v1Rejected: number;
  v2Accepted: number;
  v2Rejected: number;
}

function newSink(): Sink {
  return {
    objects: 0,
    decoded: 0,
    defects: 0,
    deep: 0,
    v1Accepted: 0,
    v1Rejected: 0,
    v2Accepted: 0,
    v2Rejected: 0,
  };
}

/**
 * One loop per contender rather than one shared loop calling a function per message: a shared
 * call site would turn megamorphic and charge every contender for the dispatch.
 */
function contenders(texts: readonly string[], revision: Revision, sink: Sink): Contender[] {
  const options = { revision };
  return [
    {
      name: JSON_PARSE,
      pass: () => {
        let n = 0;
        for (let i = 0; i < texts.length; i++) {
          const v: unknown = JSON.parse(texts[i]!);
          if (typeof v === "object" && v !== null) n++;
        }
        sink.objects += n;
      },
    },
    {
      name: DECODE,
      // As cheap a use of the result as JSON.parse's `typeof` above. Counting each kind
      // (`kinds[d.kind]++`) was a megamorphic keyed store costing about 290 instructions a
      // message, which the bench charged to decode; acceptance() counts the kinds, once.
      pass: () => {
        let decoded = 0;
        let defects = 0;
        for (let i = 0; i < texts.length; i++) {
          const d = decode(texts[i]!, options);
          if (d.kind !== "invalid") decoded++;
          defects += d.defects.length;
        }
        sink.decoded += decoded;
        sink.defects += defects;
      },
    },
    {
      // What SDK v1's transports do with every incoming line. `.parse` throws on a bad message,
      // so it sits in try/catch: one rejected message must not end the run.
      name: SDK_V1,
      pass: () => {
        let ok = 0;
        let bad = 0;
        for (let i = 0; i < texts.length; i++) {
          try {
            SdkV1Message.parse(JSON.parse(texts[i]!));
            ok++;
          } catch {
            bad++;
          }
        }
        sink.v1Accepted += ok;
        sink.v1Rejected += bad;
      },
    },
    {
      name: SDK_V2,
      pass: () => {
        let ok = 0;
        let bad = 0;
        for (let i = 0; i < texts.length; i++) {
          try {
            SdkV2Message.parse(JSON.parse(texts[i]!));
            ok++;
          } catch {
            bad++;
          }
        }
        sink.v2Accepted += ok;
        sink.v2Rejected += bad;
      },
    },
  ];
}

/**
 * Before timing anything: does every contender accept every message? A contender that rejects
 * part of the corpus would do less work on it and look faster than it is.
 */
function acceptance(c: Corpus): { lines: string[]; fair: boolean } {
  let decodeOk = 0;
  let defects = 0;
  let v1 = 0;
  let v2 = 0;
  const kinds = new Map<MessageKind, number>();
  let misread = 0;
  const firstFailure: string[] = [];
  c.texts.forEach((t, i) => {
    const d = decode(t, { revision: c.revision });
    if (d.kind !== "invalid") decodeOk++;
    kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
    // every shape label starts with the kind of message it is
    if (!c.shapes[i]!.startsWith(d.kind)) {
      misread++;
      if (firstFailure.length < 3) firstFailure.push(`decode, ${c.shapes[i]}: read as ${d.kind}`);
    }
    defects += d.defects.length;
    if (d.defects.length > 0 && firstFailure.length < 3)
      firstFailure.push(`decode, ${c.shapes[i]}: ${d.defects.map((x) => x.code).join(", ")}`);
    const value: unknown = JSON.parse(t);
    const r1 = SdkV1Message.safeParse(value);
    if (r1.success) v1++;
    else if (firstFailure.length < 3) firstFailure.push(`SDK v1, ${c.shapes[i]}: ${r1.error.message.slice(0, 200)}`);
    const r2 = SdkV2Message.safeParse(value);
    if (r2.success) v2++;
    else if (firstFailure.length < 3) firstFailure.push(`SDK v2, ${c.shapes[i]}: ${r2.error.message.slice(0, 200)}`);
  });
  const n = c.texts.length;
  const byKind = [...kinds].map(([k, count]) => `${k} ${count}`).join(", ");
  const lines = [
    `accepted: decode ${decodeOk}/${n} (${defects} defects; ${byKind}), SDK v1 ${v1}/${n}, SDK v2 ${v2}/${n}`,
    ...firstFailure.map((f) => `  first problem: ${f}`),
  ];
  return { lines, fair: decodeOk === n && defects === 0 && misread === 0 && v1 === n && v2 === n };
}

function describeCorpus(c: Corpus): string {
  const rows = breakdown(c).map((b) => [
    b.shape,
    String(b.count),
    fmtBytes(b.bytes),
    `${((b.bytes / c.bytes) * 100).toFixed(1)}%`,
    fmtBytes(Math.round(b.bytes / b.count)),
  ]);
  return table(["shape", "messages", "bytes", "of bytes", "mean size"], rows, [false, true, true, true, true]);
}

function describeSink(s: Sink): string {
  return `sink, over every pass above: JSON.parse objects ${s.objects}; decode decoded ${s.decoded}; decode defects ${s.defects}; too deep for the depth limit alone ${s.deep}; SDK v1 ${s.v1Accepted} accepted / ${s.v1Rejected} rejected; SDK v2 ${s.v2Accepted} accepted / ${s.v2Rejected} rejected`;
}

/**
 * The corpus cut by message size. Per-message costs (the envelope checks, the result object)
 * weigh most on small messages, per-byte costs (parsing, walking the tree) on large ones; the
 * ratios per class say which of the two a gap to a target comes from. Diagnostic only: the
 * targets are about the mix.
 */
const SIZE_CLASSES: readonly { label: string; min: number; max: number }[] = [
  { label: "small, < 1 kB", min: 0, max: 1024 },
  { label: "medium, 1–10 kB", min: 1024, max: 10240 },
  { label: "large, ≥ 10 kB", min: 10240, max: Infinity },
];

async function runSizeClasses(corpus: Corpus, profile: Profile, sink: Sink): Promise<void> {
  // Shorter than the main run: these numbers explain the main ratios, they are not targets.
  // The code is already hot from the main run, so a short warm-up does.
  const p: Profile = {
    ...profile,
    rounds: Math.max(2, Math.floor(profile.rounds / 2)),
    roundMs: profile.roundMs / 2,
    warmupMs: profile.warmupMs / 4,
  };
  console.log(`\nby message size (diagnostic; ${p.rounds} rounds of ${p.roundMs} ms), ratio to JSON.parse:\n`);
  const rows: string[][] = [];
  for (const sc of SIZE_CLASSES) {
    const texts: string[] = [];
    let bytes = 0;
    for (const t of corpus.texts) {
      const b = Buffer.byteLength(t, "utf8");
      if (b >= sc.min && b < sc.max) {
        texts.push(t);
        bytes += b;
      }
    }
    if (texts.length === 0) continue;
    const m = await measure(
      `decode ${corpus.revision} ${sc.label}`,
      { items: texts.length, bytes, itemLabel: "msg" },
      contenders(texts, corpus.revision, sink),
      p,
    );
    const cell = (name: string) =>
      name === JSON_PARSE
        ? fmtRate(result(m, name).median * texts.length)
        : ratio(m, name, JSON_PARSE).median.toFixed(2) + "×";
    rows.push([
      sc.label,
      String(texts.length),
      `${((bytes / corpus.bytes) * 100).toFixed(0)}%`,
      cell(JSON_PARSE),
      cell(DECODE),
      cell(SDK_V1),
      cell(SDK_V2),
      ratio(m, DECODE, SDK_V1).median.toFixed(2) + "×",
    ]);
  }
  console.log(
    table(
      ["messages", "count", "of bytes", "JSON.parse msg/s", "decode", "SDK v1", "SDK v2", "decode / SDK v1"],
      rows,
      [false, true, true, true, true, true, true, true],
    ),
  );
}

const DEPTH_LIMIT = "JSON.parse + depth limit";

/** A share with its sign: a noisy round can put a contender ahead of JSON.parse. */
function percent(x: number): string {
  return `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`;
}

/**
 * Decode's cost over JSON.parse, cut in two: the depth limit (the work behind `too_deep`:
 * bounding the text before it is parsed and walking the parsed message's one nesting member, as
 * decode does for a clean message) and everything else (the envelope's rules, the result).
 * Decode cannot beat JSON.parse plus its depth limit, so that ratio is the ceiling it works
 * under; the rest of the gap is the envelope's. Diagnostic only.
 */
async function runDepthShare(corpus: Corpus, profile: Profile, sink: Sink): Promise<void> {
  const p: Profile = {
    ...profile,
    rounds: Math.max(2, Math.floor(profile.rounds / 2)),
    warmupMs: profile.warmupMs / 2,
  };
  const texts = corpus.texts;
  const max = DEFAULT_MAX_DEPTH;
  const all = contenders(texts, corpus.revision, sink);
  const parse = all.find((c) => c.name === JSON_PARSE)!;
  const decodeContender = all.find((c) => c.name === DECODE)!;
  const depthLimit: Contender = {
    name: DEPTH_LIMIT,
    pass: () => {
      let deep = 0;
      for (let i = 0; i < texts.length; i++) {
        const t = texts[i]!;
        const bound = depthBeforeParse(t, max);
        const v = JSON.parse(t) as Record<string, unknown>;
        if (bound === undefined) {
          // every message of the corpus is clean, so decode walks this member alone
          const inner = v.result ?? v.params ?? v.error;
          if (typeof inner === "object" && inner !== null && exceedsDepth(inner, max - 1)) deep++;
        } else if (bound) deep++;
      }
      sink.deep += deep;
    },
  };
  const m = await measure(
    `decode ${corpus.revision} depth share`,
    { items: texts.length, bytes: corpus.bytes, itemLabel: "msg" },
    [parse, depthLimit, decodeContender],
    p,
  );
  const limit = ratio(m, DEPTH_LIMIT, JSON_PARSE).median;
  const whole = ratio(m, DECODE, JSON_PARSE).median;
  // costs per pass relative to JSON.parse's: 1/ratio - 1
  const limitCost = 1 / limit - 1;
  const wholeCost = 1 / whole - 1;
  console.log(`\nwhere decode's time goes (diagnostic; ${p.rounds} rounds of ${p.roundMs} ms), ratio to JSON.parse:\n`);
  console.log(
    table(
      ["contender", "ratio", "its time over JSON.parse's"],
      [
        [DEPTH_LIMIT, `${limit.toFixed(3)}×`, percent(limitCost)],
        [DECODE, `${whole.toFixed(3)}×`, percent(wholeCost)],
      ],
      [false, true, true],
    ),
  );
  // decode does the limit's work and more, so the limit measured dearer than decode is noise
  console.log(
    limitCost < wholeCost
      ? `of decode's time over JSON.parse's, the depth limit is ${Math.round((100 * limitCost) / wholeCost)}%: with it, decode cannot exceed ${limit.toFixed(3)}× here`
      : "the depth limit alone measured no cheaper than decode: these rounds were too noisy to split decode's cost",
  );
}

async function runRevision(revision: Revision, profile: Profile): Promise<TargetOutcome[]> {
  const corpus = buildCorpus(revision);
  console.log(`\n## decode, revision ${revision}\n`);
  console.log(
    `corpus: ${corpus.texts.length} messages, ${fmtBytes(corpus.bytes)} (${corpus.bytes} bytes UTF-8), generated from a seed, fingerprint ${fingerprint(corpus)}`,
  );
  if (!profile.quick) console.log("\n" + describeCorpus(corpus) + "\n");
  const check = acceptance(corpus);
  for (const l of check.lines) console.log(l);
  if (!check.fair)
    console.log("WARNING: not every contender accepts every message, so the comparison below is not like for like");

  const sink = newSink();
  const m = await measure(
    `decode ${revision}`,
    { items: corpus.texts.length, bytes: corpus.bytes, itemLabel: "msg" },
    contenders(corpus.texts, revision, sink),
    profile,
  );
  console.log(
    `\n${profile.rounds} interleaved rounds of ${profile.roundMs} ms per contender, ${loadLine()}; medians:\n`,
  );
  console.log(formatMeasurement(m, JSON_PARSE));
  const outcomes = checkTargets("decode", m, TARGETS);
  console.log("\n" + formatTargets(outcomes));
  console.log("ceiling: JSON.parse / the same contender; decode calls JSON.parse, so no decode ratio can exceed it");
  await runSizeClasses(corpus, profile, sink);
  await runDepthShare(corpus, profile, sink);
  console.log("\n" + describeSink(sink));
  return outcomes;
}

export const decodeBenchmark: Benchmark = {
  name: "decode",
  title: "decode throughput on a mixed MCP corpus",
  run: async (profile) => {
    const outcomes: TargetOutcome[] = [];
    for (const revision of [LATEST_REVISION, LATEST_LEGACY_REVISION])
      outcomes.push(...(await runRevision(revision, profile)));
    return outcomes;
  },
};
