/**
 * Schema validation (docs/schema.md), two measurements.
 *
 * (a) `validate()` against the official SDK v2's zod result schemas (`@modelcontextprotocol/core`,
 * e.g. ListToolsResultSchema), on the same parsed messages: the corpus's tools/list and
 * tools/call results (bench/corpus.ts, revision 2025-11-25), and results of the other list
 * methods (resources, resource templates, prompts) made from the same tools. Both are handed the
 * parsed message; mcp-wire validates the whole message (result definition, then the JSON-RPC
 * envelope), zod only the result. Every message is checked to pass both before any timing.
 *
 * (b) What validation adds to `tap`: the tap judges each message it passes with a Linter (decode,
 * the conversation, and with validation on the schema), so a pass is one conversation of real
 * list results and tool calls, each answering a request of the same id, judged as
 * `tap --revision 2025-11-25` judges it, with validation on and off. The pipes are left out, so
 * the ratio is the least favourable one: the tap's I/O would be the same either way.
 *
 * (c) The same through real processes: `mcp-wire tap --revision 2025-11-25 [--no-schema] -- node
 * fixtures/replay-server.mjs`, which answers each request with the corpus result it names, and a
 * direct pipe to that server; a pass sends every request at once and waits for every answer. The
 * tap's cost per message is its time over the direct pipe's, round by round; validation must not
 * more than double it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CallToolResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
} from "@modelcontextprotocol/core";
import { validate, type Revision } from "../src/index.js";
import { Linter } from "../src/lint/lint.js";
import { buildCorpus, fingerprint } from "./corpus.js";
import {
  checkTargets,
  fmtRatio,
  formatMeasurement,
  formatTargets,
  measure,
  quantile,
  within,
  type Benchmark,
  type Measurement,
  type Profile,
  type TargetOutcome,
} from "./harness.js";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const REPLAY_SERVER = fileURLToPath(new URL("../../bench/fixtures/replay-server.mjs", import.meta.url));
const DIRECT = "direct pipe";
const PIPE_ON = "through tap, validation on";
const PIPE_OFF = "through tap, validation off";

const REVISION: Revision = "2025-11-25";
const OURS = "mcp-wire validate";
const ZOD = "SDK v2 zod schemas";
const TAP_ON = "tap, validation on";
const TAP_OFF = "tap, validation off";

interface Answer {
  method: string;
  message: { jsonrpc: "2.0"; id: number; result: Record<string, unknown> };
}

const ZOD_SCHEMAS: Readonly<Record<string, { safeParse(v: unknown): { success: boolean } }>> = {
  "tools/list": ListToolsResultSchema,
  "tools/call": CallToolResultSchema,
  "resources/list": ListResourcesResultSchema,
  "resources/templates/list": ListResourceTemplatesResultSchema,
  "prompts/list": ListPromptsResultSchema,
};

/** The corpus's list results and tool results, and the other list methods' results made from its tools. */
function answers(): { list: Answer[]; fingerprint: string } {
  const corpus = buildCorpus(REVISION);
  const list: Answer[] = [];
  let id = 1;
  const add = (method: string, result: Record<string, unknown>) =>
    list.push({ method, message: { jsonrpc: "2.0", id: id++, result } });
  corpus.texts.forEach((text, i) => {
    const shape = corpus.shapes[i]!;
    const parsed = JSON.parse(text) as { result: Record<string, unknown> };
    if (shape.startsWith("result tools/list")) {
      add("tools/list", parsed.result);
      const tools = parsed.result.tools as {
        name: string;
        description?: string;
        inputSchema: { properties?: Record<string, { description?: string }>; required?: string[] };
      }[];
      add("resources/list", {
        resources: tools.map((t) => ({
          uri: `file:///srv/acme/${t.name}.md`,
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          mimeType: "text/markdown",
        })),
      });
      add("resources/templates/list", {
        resourceTemplates: tools
          .slice(0, 20)
          .map((t) => ({ uriTemplate: `acme://${t.name}/{id}`, name: t.name, mimeType: "application/json" })),
      });
      add("prompts/list", {
        prompts: tools.map((t) => ({
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          arguments: Object.entries(t.inputSchema.properties ?? {}).map(([name, p]) => ({
            name,
            ...(p.description ? { description: p.description } : {}),
            required: (t.inputSchema.required ?? []).includes(name),
          })),
        })),
      });
    } else if (shape === "result tools/call") {
      add("tools/call", parsed.result);
    }
  });
  return { list, fingerprint: fingerprint(corpus) };
}

/** The lines of one tapped conversation: the opening, then each answer after its request. */
function conversation(list: readonly Answer[]): { from: "client" | "server"; bytes: Buffer }[] {
  const lines: { from: "client" | "server"; bytes: Buffer }[] = [];
  const line = (from: "client" | "server", value: unknown) =>
    lines.push({ from, bytes: Buffer.from(JSON.stringify(value)) });
  line("client", {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  line("server", {
    jsonrpc: "2.0",
    id: 0,
    result: {
      protocolVersion: REVISION,
      capabilities: { tools: {}, resources: {}, prompts: {} },
      serverInfo: { name: "acme-mcp", version: "4.2.0" },
    },
  });
  line("client", { jsonrpc: "2.0", method: "notifications/initialized" });
  for (const a of list) {
    const params = a.method === "tools/call" ? { name: "search", arguments: { q: "x" } } : {};
    line("client", { jsonrpc: "2.0", id: a.message.id, method: a.method, params });
    line("server", a.message);
  }
  return lines;
}

function tapPass(lines: readonly { from: "client" | "server"; bytes: Buffer }[], schema: boolean): number {
  // a fresh tap per pass: ids may not repeat within one session
  const linter = new Linter({ revision: REVISION, schema });
  let defects = 0;
  for (const l of lines)
    defects += linter.line({ bytes: l.bytes, crlf: false, overflow: false, size: l.bytes.length }, l.from).defects
      .length;
  return defects;
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const { list, fingerprint: fp } = answers();
  const bytes = list.reduce((n, a) => n + JSON.stringify(a.message).length, 0);
  const byMethod = new Map<string, number>();
  for (const a of list) byMethod.set(a.method, (byMethod.get(a.method) ?? 0) + 1);
  console.log(
    `corpus ${fp} (${REVISION}): ${list.length} results, ${(bytes / 1e6).toFixed(2)} MB: ${[...byMethod].map(([m, n]) => `${n} ${m}`).join(", ")}`,
  );

  // both must accept every message, or the comparison means nothing
  for (const a of list) {
    const ours = validate(a.message, { revision: REVISION, method: a.method });
    if (ours.length > 0) throw new Error(`mcp-wire rejects a corpus ${a.method} result: ${ours[0]!.message}`);
    if (!ZOD_SCHEMAS[a.method]!.safeParse(a.message.result).success)
      throw new Error(`the SDK's zod schema rejects a corpus ${a.method} result`);
  }
  const a = await measure(
    "validating results of every list method and tools/call",
    { items: list.length, bytes, itemLabel: "msg" },
    [
      {
        name: OURS,
        pass: () => {
          for (const x of list)
            if (validate(x.message, { revision: REVISION, method: x.method }).length > 0) throw new Error("rejected");
        },
      },
      {
        name: ZOD,
        pass: () => {
          for (const x of list)
            if (!ZOD_SCHEMAS[x.method]!.safeParse(x.message.result).success) throw new Error("rejected");
        },
      },
    ],
    profile,
  );
  console.log(`\n${formatMeasurement(a, ZOD)}`);
  const outcomes = checkTargets("schema", a, [{ of: OURS, versus: ZOD, atLeast: 2 }]);

  const lines = conversation(list);
  for (const schema of [true, false]) {
    const found = tapPass(lines, schema);
    if (found > 0)
      throw new Error(`the tapped conversation has ${found} defect(s) with validation ${schema ? "on" : "off"}`);
  }
  const b = await measure(
    "tap judging a conversation of list results and tool calls, per message",
    { items: lines.length, bytes: lines.reduce((n, l) => n + l.bytes.length, 0), itemLabel: "msg" },
    [
      { name: TAP_ON, pass: () => void tapPass(lines, true) },
      { name: TAP_OFF, pass: () => void tapPass(lines, false) },
    ],
    profile,
  );
  console.log(`\n${formatMeasurement(b, TAP_OFF)}`);
  // at most twice the cost per message: at least half the rate
  outcomes.push(...checkTargets("schema", b, [{ of: TAP_ON, versus: TAP_OFF, atLeast: 0.5 }]));
  outcomes.push(await throughProcesses(list, profile));
  console.log(`\n${formatTargets(outcomes)}`);
  return outcomes;
}

/** A child on the other end of a pipe: writes requests, counts answer lines. */
class Pipe {
  readonly child: ChildProcessWithoutNullStreams;
  private lines = 0;
  private waiting: { target: number; resolve: () => void } | undefined;
  private nextId = 1;
  private err = "";

  constructor(
    readonly name: string,
    args: readonly string[],
  ) {
    this.child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.lines++;
      if (this.waiting && this.lines >= this.waiting.target) {
        const w = this.waiting;
        this.waiting = undefined;
        w.resolve();
      }
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (t: string) => (this.err = (this.err + t).slice(-20_000)));
    this.child.stdin.on("error", () => undefined);
  }

  get stderr(): string {
    return this.err;
  }

  /** Every request of `list` at once (ids never repeat), resolved when every answer has come. */
  pass(list: readonly Answer[]): Promise<void> {
    let text = "";
    list.forEach((a, i) => {
      const params = a.method === "tools/call" ? `{"name":"search","arguments":{"n":${i}}}` : `{"cursor":"${i}"}`;
      text += `{"jsonrpc":"2.0","id":${this.nextId++},"method":"${a.method}","params":${params}}\n`;
    });
    const done = new Promise<void>((resolve) => (this.waiting = { target: this.lines + list.length, resolve }));
    this.child.stdin.write(text);
    return done;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("close", resolve));
    this.child.stdin.end();
    await within(exited, `${this.name}: exit`).catch(() => this.child.kill("SIGKILL"));
  }
}

/** The tap's time per pass over the direct pipe's, validation on over off, round by round. */
function addedCost(m: Measurement): { median: number; p25: number; p75: number } {
  const rates = (name: string) => m.results.find((r) => r.name === name)!.rates;
  const direct = rates(DIRECT);
  const on = rates(PIPE_ON);
  const off = rates(PIPE_OFF);
  // off's added time over on's: at least 0.5 when validation at most doubles the tap's cost
  const per = direct.map((d, r) => (1 / off[r]! - 1 / d) / (1 / on[r]! - 1 / d));
  return { median: quantile(per, 0.5), p25: quantile(per, 0.25), p75: quantile(per, 0.75) };
}

async function throughProcesses(list: readonly Answer[], profile: Profile): Promise<TargetOutcome> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-wire-bench-schema-"));
  const answersFile = join(dir, "answers.ndjson");
  writeFileSync(answersFile, list.map((a) => JSON.stringify(a.message.result)).join("\n") + "\n");
  const server = [REPLAY_SERVER, answersFile];
  const pipes = [
    new Pipe(DIRECT, server),
    new Pipe(PIPE_ON, [CLI, "tap", "--revision", REVISION, "--", process.execPath, ...server]),
    new Pipe(PIPE_OFF, [CLI, "tap", "--revision", REVISION, "--no-schema", "--", process.execPath, ...server]),
  ];
  try {
    for (const p of pipes) await within(p.pass(list), `${p.name}: the first pass`);
    const messages = list.length * 2;
    const m = await measure(
      "the same through processes: client → (tap →) replay server, every request at once",
      { items: messages, bytes: 0, itemLabel: "msg" },
      pipes.map((p) => ({ name: p.name, pass: () => p.pass(list) })),
      profile,
    );
    console.log(`\n${formatMeasurement(m, DIRECT)}`);
    const r = addedCost(m);
    console.log(
      `tap's added time per message, validation off over on: ${fmtRatio(r)} (at least 0.5: validation at most doubles it)`,
    );
    return {
      of: "tap's cost per message, validation off",
      versus: "validation on",
      atLeast: 0.5,
      benchmark: "schema",
      measurement: m.title,
      ratio: r,
      met: r.median >= 0.5,
    };
  } finally {
    await Promise.all(pipes.map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
    for (const p of pipes.slice(1)) {
      const summary = p.stderr
        .split("\n")
        .filter((l) => l.startsWith("tap: "))
        .join("\n");
      if (!/^tap: no defects$/m.test(summary))
        throw new Error(`schema bench: ${p.name}: the tap reported defects, or no summary:\n${p.stderr.slice(-2000)}`);
    }
  }
}

export const schemaBenchmark: Benchmark = {
  name: "schema",
  title: "schema validation against the SDK's zod schemas, and its cost inside tap",
  run,
};
