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
 */
import {
  CallToolResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
} from "@modelcontextprotocol/core";
import { Linter, validate, type Revision } from "../src/index.js";
import { buildCorpus, fingerprint } from "./corpus.js";
import { checkTargets, formatMeasurement, formatTargets, measure, type Benchmark, type Profile, type TargetOutcome } from "./harness.js";

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
  const add = (method: string, result: Record<string, unknown>) => list.push({ method, message: { jsonrpc: "2.0", id: id++, result } });
  corpus.texts.forEach((text, i) => {
    const shape = corpus.shapes[i]!;
    const parsed = JSON.parse(text) as { result: Record<string, unknown> };
    if (shape.startsWith("result tools/list")) {
      add("tools/list", parsed.result);
      const tools = parsed.result.tools as { name: string; description?: string; inputSchema: { properties?: Record<string, { description?: string }>; required?: string[] } }[];
      add("resources/list", {
        resources: tools.map((t) => ({ uri: `file:///srv/acme/${t.name}.md`, name: t.name, ...(t.description ? { description: t.description } : {}), mimeType: "text/markdown" })),
      });
      add("resources/templates/list", {
        resourceTemplates: tools.slice(0, 20).map((t) => ({ uriTemplate: `acme://${t.name}/{id}`, name: t.name, mimeType: "application/json" })),
      });
      add("prompts/list", {
        prompts: tools.map((t) => ({
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          arguments: Object.entries(t.inputSchema.properties ?? {}).map(([name, p]) => ({ name, ...(p.description ? { description: p.description } : {}), required: (t.inputSchema.required ?? []).includes(name) })),
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
  const line = (from: "client" | "server", value: unknown) => lines.push({ from, bytes: Buffer.from(JSON.stringify(value)) });
  line("client", { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  line("server", { jsonrpc: "2.0", id: 0, result: { protocolVersion: REVISION, capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: "acme-mcp", version: "4.2.0" } } });
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
  for (const l of lines) defects += linter.line({ bytes: l.bytes, crlf: false, overflow: false, size: l.bytes.length }, l.from).defects.length;
  return defects;
}

async function run(profile: Profile): Promise<TargetOutcome[]> {
  const { list, fingerprint: fp } = answers();
  const bytes = list.reduce((n, a) => n + JSON.stringify(a.message).length, 0);
  const byMethod = new Map<string, number>();
  for (const a of list) byMethod.set(a.method, (byMethod.get(a.method) ?? 0) + 1);
  console.log(`corpus ${fp} (${REVISION}): ${list.length} results, ${(bytes / 1e6).toFixed(2)} MB: ${[...byMethod].map(([m, n]) => `${n} ${m}`).join(", ")}`);

  // both must accept every message, or the comparison means nothing
  for (const a of list) {
    const ours = validate(a.message, { revision: REVISION, method: a.method });
    if (ours.length > 0) throw new Error(`mcp-wire rejects a corpus ${a.method} result: ${ours[0]!.message}`);
    if (!ZOD_SCHEMAS[a.method]!.safeParse(a.message.result).success) throw new Error(`the SDK's zod schema rejects a corpus ${a.method} result`);
  }
  const a = await measure(
    "validating results of every list method and tools/call",
    { items: list.length, bytes, itemLabel: "msg" },
    [
      {
        name: OURS,
        pass: () => {
          for (const x of list) if (validate(x.message, { revision: REVISION, method: x.method }).length > 0) throw new Error("rejected");
        },
      },
      {
        name: ZOD,
        pass: () => {
          for (const x of list) if (!ZOD_SCHEMAS[x.method]!.safeParse(x.message.result).success) throw new Error("rejected");
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
    if (found > 0) throw new Error(`the tapped conversation has ${found} defect(s) with validation ${schema ? "on" : "off"}`);
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
  console.log(`\n${formatTargets(outcomes)}`);
  return outcomes;
}

export const schemaBenchmark: Benchmark = { name: "schema", title: "schema validation against the SDK's zod schemas, and its cost inside tap", run };
