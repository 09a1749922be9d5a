#!/usr/bin/env node
/**
 * mcp-wire's client under the official conformance suite:
 *
 *   conformance client --command "node scripts/conformance-client.mjs" --scenario S --spec-version R
 *
 * The suite starts a mock server per scenario, appends its URL as the last argument and names
 * the scenario in MCP_CONFORMANCE_SCENARIO, the revision in MCP_CONFORMANCE_PROTOCOL_VERSION and,
 * for scenarios with data, a JSON MCP_CONFORMANCE_CONTEXT. Each scenario below does what its mock
 * expects of a client, through the library's public entries only (dist/src/index.js and
 * dist/src/entry/): what the suite scores is mcp-wire's client, not this script. Exit status 0 when the scenario ran to its end.
 */
import { isRevision } from "../dist/src/index.js";
import { connectHttp } from "../dist/src/entry/client.js";
import { VERSION } from "../dist/src/version.js";

/** Inside the suite's own 30 s per scenario, so a stall ends here with a message, not a kill. */
const DEADLINE_MS = 25_000;

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const requested = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2025-11-25";
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);

function parseContext(text) {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * What this client can answer when a server asks (MRTR inputs, or a legacy server's requests):
 * registering them is also what declares the elicitation, sampling and roots capabilities.
 */
const INPUT_HANDLERS = {
  "elicitation/create": (params) => acceptForm(params),
  "sampling/createMessage": () => ({
    role: "assistant",
    content: { type: "text", text: "A reply from no model at all." },
    model: "mcp-wire-conformance",
    stopReason: "endTurn",
  }),
  "roots/list": () => ({ roots: [] }),
};

/** The suite says which revision a scenario runs at: speak exactly that one, no detection. */
function connect(inputHandlers = INPUT_HANDLERS) {
  if (!isRevision(requested)) throw new Error(`mcp-wire does not know revision ${JSON.stringify(requested)}`);
  return connectHttp(url, {
    revision: requested,
    transport: "streamable-http",
    fresh: true,
    clientInfo: { name: "mcp-wire-conformance-client", version: VERSION },
    inputHandlers,
    timeout: 10_000,
    signal: AbortSignal.timeout(DEADLINE_MS),
  }).then((c) => c.client);
}

/** A value of each JSON Schema type, for calling a tool whose arguments only need to be valid. */
function sampleArguments(schema) {
  const args = {};
  const props = schema && typeof schema.properties === "object" ? schema.properties : {};
  for (const name of Array.isArray(schema?.required) ? schema.required : []) {
    const type = props[name]?.type;
    args[name] =
      type === "integer" || type === "number"
        ? 1
        : type === "boolean"
          ? true
          : type === "object"
            ? {}
            : type === "array"
              ? []
              : "conformance";
  }
  return args;
}

/** An accepting elicitation answer that fills every field the form asks for. */
function acceptForm(params) {
  const schema = params?.requestedSchema;
  const content = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop?.default !== undefined) content[name] = prop.default;
    else if (prop?.type === "boolean") content[name] = true;
    else if (prop?.type === "integer" || prop?.type === "number") content[name] = 1;
    else if (Array.isArray(prop?.enum) && prop.enum.length > 0) content[name] = prop.enum[0];
    else content[name] = "conformance";
  }
  return { action: "accept", content };
}

function expectComplete(name, result) {
  if (result.resultType !== undefined && result.resultType !== "complete")
    throw new Error(`${name}: resultType ${JSON.stringify(result.resultType)}`);
  return result;
}

const scenarios = {
  /** The handshake (legacy) or a first request (modern), then a list. */
  async initialize() {
    const client = await connect();
    await client.listTools();
    await client.close();
  },

  async tools_call() {
    const client = await connect();
    const tools = await client.listTools();
    const tool = tools.find((t) => t.name === "add_numbers") ?? tools[0];
    if (tool) expectComplete(tool.name, await client.callTool(tool.name, { a: 2, b: 3 }));
    await client.close();
  },

  /** The call's SSE stream closes before its answer; the client resumes it with GET + Last-Event-ID. */
  async "sse-retry"() {
    const client = await connect();
    await client.listTools();
    const result = await client.callTool("test_reconnection");
    if (!Array.isArray(result.content)) throw new Error("test_reconnection: no content");
    await client.close();
  },

  /** The first request is refused with -32022; the client retries with a version the server lists. */
  async "request-metadata"() {
    const client = await connect();
    await client.listTools();
    await client.close();
  },

  /** Every method that carries Mcp-Method, and each that carries Mcp-Name. */
  async "http-standard-headers"() {
    const client = await connect();
    for (const tool of await client.listTools()) await client.callTool(tool.name, sampleArguments(tool.inputSchema));
    if (client.capabilities.resources) {
      const { resources = [] } = await client.request("resources/list");
      for (const r of resources) await client.request("resources/read", { uri: r.uri });
    }
    if (client.capabilities.prompts) {
      const { prompts = [] } = await client.request("prompts/list");
      for (const p of prompts) await client.request("prompts/get", { name: p.name });
    }
    await client.close();
  },

  /** The calls the context names, after tools/list taught the client their x-mcp-header parameters. */
  async "http-custom-headers"() {
    const calls = Array.isArray(context.toolCalls) ? context.toolCalls : [];
    if (calls.length === 0) throw new Error("MCP_CONFORMANCE_CONTEXT names no toolCalls");
    const client = await connect();
    await client.listTools();
    for (const call of calls) await client.callTool(call.name, call.arguments ?? {});
    await client.close();
  },

  /** Every tool the client kept; those with broken x-mcp-header annotations must not be among them. */
  async "http-invalid-tool-headers"() {
    const client = await connect();
    const tools = await client.listTools();
    if (client.rejectedTools.length > 0) console.error(`rejected:\n  ${client.rejectedTools.join("\n  ")}`);
    for (const tool of tools) await client.callTool(tool.name, sampleArguments(tool.inputSchema));
    await client.close();
  },

  /**
   * Multi Round-Trip Requests: the library answers `input_required` through the handler and
   * retries with requestState echoed. The unrelated call goes out while the echo-state request
   * is between rounds, so isolation is tested with a request truly in parallel.
   */
  async "sep-2322-client-request-state"() {
    let client;
    let unrelated;
    client = await connect({
      ...INPUT_HANDLERS,
      "elicitation/create": (params, input) => {
        if (input.request?.params.name === "test_mrtr_echo_state" && !unrelated)
          unrelated = client.callTool("test_mrtr_unrelated");
        return acceptForm(params);
      },
    });
    const names = new Set((await client.listTools()).map((t) => t.name));
    for (const name of ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"]) {
      if (names.has(name)) expectComplete(name, await client.callTool(name));
    }
    if (unrelated) expectComplete("test_mrtr_unrelated", await unrelated);
    await client.close();
  },
};

async function main() {
  const run = scenarios[scenario];
  if (!url || !/^https?:/.test(url) || !run) {
    console.error(
      `usage: MCP_CONFORMANCE_SCENARIO=<scenario> node scripts/conformance-client.mjs <server-url>\nscenarios: ${Object.keys(scenarios).join(", ")}`,
    );
    return 2;
  }
  await run();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`${scenario}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
