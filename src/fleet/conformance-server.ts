/**
 * The tools, resources and prompts the official conformance suite's server scenarios call by
 * name (@modelcontextprotocol/conformance, src/scenarios/server/), for `mcp-wire serve
 * --conformance`. Their names, contents and behaviour are the suite's; the suite's own fixture
 * (examples/servers/typescript/everything-server.ts) was the reference for anything a scenario
 * leaves open.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { JsonObject } from "../codec/message.js";
import { ResponseError } from "../peer/errors.js";
import { INVALID_PARAMS } from "../rules/error-codes.js";
import { isObject, type CallToolResult, type InputRequiredResult } from "../mcp/meta.js";
import { REFERENCE_SERVER_OPTIONS, defineReferenceTools } from "../mcp/reference-server.js";
import { McpServer, type ServeContext, type ServerOptions } from "../mcp/server.js";

/** A 1×1 red PNG and a minimal WAV: the suite checks only that data and mimeType are there. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const NO_ARGS: JsonObject = { type: "object", properties: {} };

function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

/** The reference tools plus every fixture, fixtures first (a scenario calls the first tool with no arguments). */
export function createConformanceServer(options: Partial<ServerOptions> = {}): McpServer {
  const server = new McpServer({ ...REFERENCE_SERVER_OPTIONS, logging: true, ...options });
  defineConformanceFixtures(server);
  defineReferenceTools(server);
  return server;
}

export function defineConformanceFixtures(server: McpServer): void {
  defineContentTools(server);
  defineLegacyRequestTools(server);
  defineModernTools(server);
  defineTaskTools(server);
  defineResources(server);
  definePrompts(server);
  server.method("completion/complete", (params) => {
    const argument = isObject(params.argument) ? params.argument : {};
    const prefix = typeof argument.value === "string" ? argument.value : "";
    const values = ["paris", "park", "party"].filter((v) => v.startsWith(prefix));
    return { completion: { values, total: values.length, hasMore: false } };
  });
}

function defineContentTools(server: McpServer): void {
  const tool = (name: string, description: string, result: () => CallToolResult) =>
    server.tools.define({ name, description, inputSchema: NO_ARGS }, result);
  tool("test_simple_text", "Tests simple text content response", () =>
    text("This is a simple text response for testing."),
  );
  tool("test_image_content", "Tests image content response", () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  tool("test_audio_content", "Tests audio content response", () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  tool("test_embedded_resource", "Tests embedded resource content response", () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }));
  tool("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  // a tool execution error is a result, not a JSON-RPC error: the model gets to read it
  tool("test_error_handling", "Tests error response handling", () => ({
    ...text("This tool intentionally returns an error for testing"),
    isError: true,
  }));

  server.tools.define(
    {
      name: "test_tool_with_logging",
      description: "Tests tool that emits log messages during execution",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      await context.log("info", "Tool execution started");
      await sleep(50);
      await context.log("info", "Tool processing data");
      await sleep(50);
      await context.log("info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  );

  server.tools.define(
    {
      name: "test_tool_with_progress",
      description: "Tests tool that reports progress notifications",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      for (const step of [0, 50, 100]) {
        if (step > 0) await sleep(50, undefined, { signal: context.signal }).catch(() => undefined);
        if (context.signal.aborted) return { ...text("cancelled"), isError: true };
        await context.progress(step, 100, `Completed step ${step} of 100`);
      }
      return text("progress reported: 0, 50, 100 of 100");
    },
  );

  // Mcp-Param-Region mirrors `region` on 2026-07-28 HTTP calls (x-mcp-header)
  server.tools.define(
    {
      name: "test_header_param",
      description: "Echoes its region argument, which 2026-07-28 HTTP clients also send as the Mcp-Param-Region header",
      inputSchema: {
        type: "object",
        properties: { region: { type: "string", description: "A region name", "x-mcp-header": "Region" } },
        required: ["region"],
      },
    },
    (args) => text(`region: ${String(args.region)}`),
  );

  server.tools.define(
    {
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } },
          },
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      },
    },
    (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}

/** Tools that ask the client something mid-call: legacy sessions only (2026-07-28 uses MRTR). */
function defineLegacyRequestTools(server: McpServer): void {
  const legacy = { eras: ["legacy"] as const };
  const ask = async (
    context: ServeContext,
    method: string,
    params: JsonObject,
    describe: (r: JsonObject) => string,
  ): Promise<CallToolResult> => {
    try {
      return text(describe(await context.request<JsonObject>(method, params)));
    } catch (e) {
      return text(`${method} not supported or failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const elicited = (r: JsonObject) => `action=${String(r.action)}, content=${JSON.stringify(r.content ?? {})}`;

  server.tools.define(
    {
      name: "test_sampling",
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: {
        type: "object",
        properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
        required: ["prompt"],
      },
    },
    (args, context) =>
      ask(
        context,
        "sampling/createMessage",
        { messages: [{ role: "user", content: { type: "text", text: String(args.prompt ?? "") } }], maxTokens: 100 },
        (r) => {
          const content = isObject(r.content) ? r.content : {};
          return `LLM response: ${typeof content.text === "string" ? content.text : "No response"}`;
        },
      ),
    legacy,
  );

  server.tools.define(
    {
      name: "test_elicitation",
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "The message to show the user" } },
        required: ["message"],
      },
    },
    (args, context) =>
      ask(
        context,
        "elicitation/create",
        {
          message: String(args.message ?? ""),
          requestedSchema: {
            type: "object",
            properties: { response: { type: "string", description: "User's response" } },
            required: ["response"],
          },
        },
        (r) => `User response: ${elicited(r)}`,
      ),
    legacy,
  );

  server.tools.define(
    {
      name: "test_elicitation_sep1034_defaults",
      description: "Tests elicitation with default values per SEP-1034",
      inputSchema: NO_ARGS,
    },
    (_args, context) =>
      ask(
        context,
        "elicitation/create",
        {
          message: "Please review and update the form fields with defaults",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", description: "User name", default: "John Doe" },
              age: { type: "integer", description: "User age", default: 30 },
              score: { type: "number", description: "User score", default: 95.5 },
              status: {
                type: "string",
                description: "User status",
                enum: ["active", "inactive", "pending"],
                default: "active",
              },
              verified: { type: "boolean", description: "Verification status", default: true },
            },
            required: [],
          },
        },
        (r) => `Elicitation completed: ${elicited(r)}`,
      ),
    legacy,
  );

  server.tools.define(
    {
      name: "test_elicitation_sep1330_enums",
      description: "Tests elicitation with enum schema improvements per SEP-1330",
      inputSchema: NO_ARGS,
    },
    (_args, context) =>
      ask(
        context,
        "elicitation/create",
        {
          message: "Please select options from the enum fields",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: {
                type: "string",
                description: "Select one option",
                enum: ["option1", "option2", "option3"],
              },
              titledSingle: {
                type: "string",
                description: "Select one option with titles",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                description: "Select one option (legacy)",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                description: "Select multiple options",
                minItems: 1,
                maxItems: 3,
                items: { type: "string", enum: ["option1", "option2", "option3"] },
              },
              titledMulti: {
                type: "array",
                description: "Select multiple options with titles",
                minItems: 1,
                maxItems: 3,
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
            required: [],
          },
        },
        (r) => `Elicitation completed: ${elicited(r)}`,
      ),
    legacy,
  );
}

/**
 * requestState the client must echo unchanged: signed, so a tampered one is refused. The key
 * lives as long as the process; a state is only good for the retries of one request anyway.
 */
const STATE_KEY = randomBytes(32);

function seal(state: JsonObject): string {
  const data = Buffer.from(JSON.stringify(state)).toString("base64url");
  return `${data}.${createHmac("sha256", STATE_KEY).update(data).digest("base64url")}`;
}

function unseal(sealed: string | undefined): JsonObject | undefined {
  if (sealed === undefined) return undefined;
  const [data, mac, extra] = sealed.split(".");
  if (data === undefined || mac === undefined || extra !== undefined) return undefined;
  const expected = createHmac("sha256", STATE_KEY).update(data).digest();
  const given = Buffer.from(mac, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const state: unknown = JSON.parse(Buffer.from(data, "base64url").toString("utf8"));
    return isObject(state) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** A requestState that fails its integrity check is refused, never re-asked (SEP-2322). */
function openState(context: ServeContext): JsonObject | undefined {
  if (context.requestState === undefined) return undefined;
  const state = unseal(context.requestState);
  if (!state) throw new ResponseError(INVALID_PARAMS, "requestState failed its integrity check");
  return state;
}

/** The client's answer to input request `key`, if it gave one that is an object. */
function inputOf(context: ServeContext, key: string): JsonObject | undefined {
  const answer = context.inputResponses?.[key];
  return isObject(answer) ? answer : undefined;
}

function elicitationContent(answer: JsonObject | undefined, field: string): string {
  const content = isObject(answer?.content) ? answer.content : {};
  return typeof content[field] === "string" ? content[field] : "unknown";
}

function elicitation(message: string, field: string, type = "string"): { method: string; params: JsonObject } {
  return {
    method: "elicitation/create",
    params: { message, requestedSchema: { type: "object", properties: { [field]: { type } }, required: [field] } },
  };
}

function sampling(prompt: string, maxTokens: number): { method: string; params: JsonObject } {
  return {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens },
  };
}

const ROOTS = { method: "roots/list", params: {} };

function inputRequired(inputRequests: InputRequiredResult["inputRequests"], state?: JsonObject): InputRequiredResult {
  const result: InputRequiredResult = { resultType: "input_required", inputRequests };
  if (state) result.requestState = seal({ ...state, nonce: randomUUID() });
  return result;
}

/** 2026-07-28 only: Multi Round-Trip Requests, capability checks, per-request logging. */
function defineModernTools(server: McpServer): void {
  const modern = { eras: ["modern"] as const };
  const tool = (
    name: string,
    description: string,
    handler: (context: ServeContext) => CallToolResult | InputRequiredResult,
    options: { requires?: JsonObject } = {},
  ) =>
    server.tools.define({ name, description, inputSchema: NO_ARGS }, (_args, context) => handler(context), {
      ...modern,
      ...options,
    });

  tool(
    "test_missing_capability",
    "Needs the client's sampling capability; without it the call gets -32021",
    () => text("Success"),
    { requires: { sampling: {} } },
  );

  tool(
    "test_input_required_result_elicitation",
    "MRTR: asks for the user's name by elicitation, then greets",
    (context) => {
      const answer = inputOf(context, "user_name");
      if (answer) return text(`Hello, ${elicitationContent(answer, "name")}!`);
      return inputRequired({ user_name: elicitation("What is your name?", "name") });
    },
  );

  tool(
    "test_input_required_result_sampling",
    "MRTR: asks the client's model a question, then reports its answer",
    (context) => {
      const answer = inputOf(context, "sample_request");
      if (answer) {
        const content = isObject(answer.content) ? answer.content : {};
        return text(`Sampling result: ${typeof content.text === "string" ? content.text : "no response"}`);
      }
      return inputRequired({ sample_request: sampling("What is the capital of France?", 100) });
    },
  );

  tool("test_input_required_result_list_roots", "MRTR: asks for the client's roots, then counts them", (context) => {
    const answer = inputOf(context, "roots_request");
    if (answer) return text(`Found ${Array.isArray(answer.roots) ? answer.roots.length : 0} root(s)`);
    return inputRequired({ roots_request: ROOTS });
  });

  tool(
    "test_input_required_result_request_state",
    "MRTR: asks for a confirmation and carries requestState",
    (context) => {
      const state = openState(context);
      const answer = inputOf(context, "confirm");
      if (state?.kind === "request-state" && answer) return text("state-ok: requestState validated");
      return inputRequired({ confirm: elicitation("Please confirm", "ok", "boolean") }, { kind: "request-state" });
    },
  );

  tool(
    "test_input_required_result_multiple_inputs",
    "MRTR: asks for a name, a greeting and the roots at once",
    (context) => {
      const state = openState(context);
      const name = inputOf(context, "user_name");
      const greeting = inputOf(context, "greeting");
      const roots = inputOf(context, "client_roots");
      if (state?.kind === "multiple-inputs" && name && greeting && roots) {
        const content = isObject(greeting.content) ? greeting.content : {};
        const said = typeof content.text === "string" ? content.text : "Hello there!";
        return text(
          `Name: ${elicitationContent(name, "name")}; Greeting: ${said}; Roots: ${Array.isArray(roots.roots) ? roots.roots.length : 0}`,
        );
      }
      return inputRequired(
        {
          user_name: elicitation("What is your name?", "name"),
          greeting: sampling("Generate a greeting", 50),
          client_roots: ROOTS,
        },
        { kind: "multiple-inputs" },
      );
    },
  );

  tool(
    "test_input_required_result_multi_round",
    "MRTR: two rounds of questions, the state growing between them",
    (context) => {
      const state = openState(context);
      const step1 = inputOf(context, "step1");
      const step2 = inputOf(context, "step2");
      if (state?.round === 1 && step1) {
        return inputRequired(
          { step2: elicitation("Step 2: What is your favorite color?", "color") },
          { round: 2, name: elicitationContent(step1, "name") },
        );
      }
      if (state?.round === 2 && step2) {
        return text(
          `Multi-round complete for ${typeof state.name === "string" ? state.name : "friend"} who likes ${elicitationContent(step2, "color")}`,
        );
      }
      return inputRequired({ step1: elicitation("Step 1: What is your name?", "name") }, { round: 1 });
    },
  );

  tool("test_input_required_result_tampered_state", "MRTR: refuses a requestState that was altered", (context) => {
    const state = openState(context);
    if (state?.kind === "tamper-test" && inputOf(context, "confirm")) return text("integrity-ok: state verified");
    return inputRequired({ confirm: elicitation("Please confirm", "ok", "boolean") }, { kind: "tamper-test" });
  });

  tool(
    "test_input_required_result_capabilities",
    "MRTR: asks only for what the client declared it can do",
    (context) => {
      const given = context.inputResponses ? Object.keys(context.inputResponses) : [];
      if (given.length > 0) return text(`capabilities-ok: received ${given.join(",")}`);
      const requests: NonNullable<InputRequiredResult["inputRequests"]> = {};
      if (context.clientCapabilities.elicitation !== undefined)
        requests.elicit_input = elicitation("Elicitation input", "value");
      if (context.clientCapabilities.sampling !== undefined) requests.sample_input = sampling("Sample request", 50);
      if (Object.keys(requests).length === 0) return text("No supported capabilities declared");
      return inputRequired(requests, { kind: "capabilities-test" });
    },
  );

  tool(
    "test_streaming_elicitation",
    "Answers on its response stream without sending the client any request",
    (context) => {
      void context.progress(50, 100, "halfway");
      return text("Streaming complete");
    },
  );

  tool("test_logging_tool", "Logs a line only if the request asked for log messages (_meta logLevel)", (context) => {
    void context.log("info", "Diagnostic trace logging activated");
    return text("Logging evaluated");
  });
}

/**
 * The tasks extension's fixtures (the suite's tasks-* scenarios): a tool that answers at once,
 * tools that run as tasks when the client negotiated them, and tools that ask for input
 * before (MRTR) or while (tasks/update) they run.
 */
function defineTaskTools(server: McpServer): void {
  const optional = { taskSupport: "optional" as const };
  const required = { taskSupport: "required" as const };
  const confirm = (message: string) => elicitation(message, "confirm", "boolean");
  server.tools.define(
    {
      name: "greet",
      description: "Greets by name, at once",
      inputSchema: { type: "object", properties: { name: { type: "string" } } },
    },
    (args) => text(`Hello, ${typeof args.name === "string" ? args.name : "World"}!`),
  );
  server.tools.define(
    {
      name: "slow_compute",
      description: "Sleeps `seconds` seconds, then answers; a task where the client negotiated tasks",
      inputSchema: {
        type: "object",
        properties: { seconds: { type: "number", minimum: 0, maximum: 600 }, label: { type: "string" } },
      },
    },
    (args, context) =>
      context.task(async (task) => {
        const seconds = typeof args.seconds === "number" ? Math.min(Math.max(args.seconds, 0), 600) : 1;
        await sleep(seconds * 1000, undefined, { signal: task.signal });
        return text(`computed ${typeof args.label === "string" ? args.label : "result"} after ${seconds} s`);
      }),
    optional,
  );
  server.tools.define(
    { name: "failing_job", description: "A task whose tool reports an error", inputSchema: NO_ARGS },
    (_args, context) =>
      context.task(async (task) => {
        await sleep(200, undefined, { signal: task.signal });
        return { ...text("the job failed"), isError: true };
      }),
    required,
  );
  server.tools.define(
    { name: "protocol_error_job", description: "A task that fails with a JSON-RPC error", inputSchema: NO_ARGS },
    (_args, context) =>
      context.task(async () => {
        throw new ResponseError(-32603, "the job broke");
      }),
    optional,
  );
  server.tools.define(
    {
      name: "confirm_delete",
      description: "A task that asks for a confirmation before it (pretends to) delete a file",
      inputSchema: { type: "object", properties: { filename: { type: "string" } } },
    },
    (args, context) =>
      context.task(async (task) => {
        const { confirm: answer } = await task.input({ confirm: confirm(`Delete ${String(args.filename)}?`) });
        return text(answer?.action === "accept" ? `deleted ${String(args.filename)}` : "kept");
      }),
    optional,
  );
  server.tools.define(
    { name: "multi_input", description: "A task that asks two questions at once", inputSchema: NO_ARGS },
    (_args, context) =>
      context.task(async (task) => {
        const answers = await task.input({
          name: elicitation("What is your name?", "name"),
          confirm: confirm("Proceed?"),
        });
        return text(`answered: ${Object.keys(answers).join(", ")}`);
      }),
    optional,
  );
  server.tools.define(
    { name: "test_tool_with_task", description: "Asks a name (MRTR), then runs as a task", inputSchema: NO_ARGS },
    async (_args, context) => {
      const answer = await context.ask("user_name", elicitation("What is your name?", "name"));
      const name = elicitationContent(answer, "name");
      return context.task(async () => text(`Hello, ${name}!`));
    },
    required,
  );
}

const RESOURCES = [
  {
    uri: "test://static-text",
    name: "static-text",
    title: "Static Text Resource",
    description: "A static text resource for testing",
    mimeType: "text/plain",
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    title: "Static Binary Resource",
    description: "A static binary resource (image) for testing",
    mimeType: "image/png",
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    title: "Watched Resource",
    description: "A resource clients may subscribe to",
    mimeType: "text/plain",
  },
];

const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

function defineResources(server: McpServer): void {
  server.method("resources/list", () => ({ resources: RESOURCES }));
  server.method("resources/templates/list", () => ({
    resourceTemplates: [
      {
        uriTemplate: "test://template/{id}/data",
        name: "template",
        title: "Resource Template",
        description: "A resource template with parameter substitution",
        mimeType: "application/json",
      },
    ],
  }));
  server.method("resources/read", (params, context) => {
    const uri = params.uri;
    if (uri === "test://static-text")
      return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
    if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
    if (uri === "test://watched-resource")
      return { contents: [{ uri, mimeType: "text/plain", text: "Watched resource content" }] };
    const match = typeof uri === "string" ? TEMPLATE.exec(uri) : null;
    if (match) {
      const id = decodeURIComponent(match[1]!);
      return {
        contents: [
          {
            uri,
            mimeType: "application/json",
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          },
        ],
      };
    }
    // 2026-07-28 retired -32002 for an unknown resource; earlier revisions defined it
    throw new ResponseError(context.era === "modern" ? INVALID_PARAMS : -32002, "Resource not found", { uri });
  });
  // the core serves resources/subscribe and subscriptions/listen over its registry: one entry puts them on
  server.resources.define(RESOURCES[2]!, (uri) => ({
    contents: [{ uri, mimeType: "text/plain", text: "Watched resource content" }],
  }));
}

const PROMPTS = [
  { name: "test_simple_prompt", title: "Simple Test Prompt", description: "A simple prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    title: "Prompt With Arguments",
    description: "A prompt with required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    title: "Prompt With Embedded Resource",
    description: "A prompt that includes an embedded resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", title: "Prompt With Image", description: "A prompt that includes image content" },
];

const MRTR_PROMPT = {
  name: "test_input_required_result_prompt",
  description: "MRTR: a prompt that asks the user for context first",
};

function definePrompts(server: McpServer): void {
  server.method("prompts/list", (_params, context) => ({
    prompts: context.era === "modern" ? [...PROMPTS, MRTR_PROMPT] : PROMPTS,
  }));
  server.method("prompts/get", (params, context) => {
    const args = isObject(params.arguments) ? params.arguments : {};
    const user = (content: JsonObject) => ({ role: "user", content });
    switch (params.name) {
      case "test_simple_prompt":
        return { messages: [user({ type: "text", text: "This is a simple prompt for testing." })] };
      case "test_prompt_with_arguments":
        return {
          messages: [
            user({
              type: "text",
              text: `Prompt with arguments: arg1='${String(args.arg1)}', arg2='${String(args.arg2)}'`,
            }),
          ],
        };
      case "test_prompt_with_embedded_resource":
        return {
          messages: [
            user({
              type: "resource",
              resource: {
                uri: String(args.resourceUri ?? "test://embedded"),
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            }),
            user({ type: "text", text: "Please process the embedded resource above." }),
          ],
        };
      case "test_prompt_with_image":
        return {
          messages: [
            user({ type: "image", data: PNG, mimeType: "image/png" }),
            user({ type: "text", text: "Please analyze the image above." }),
          ],
        };
      case MRTR_PROMPT.name: {
        if (context.era !== "modern") break;
        const answer = inputOf(context, "user_context");
        if (answer)
          return {
            messages: [user({ type: "text", text: `Prompt with context: ${elicitationContent(answer, "context")}` })],
          };
        return inputRequired({ user_context: elicitation("What context should the prompt use?", "context") });
      }
    }
    throw new ResponseError(INVALID_PARAMS, `Unknown prompt: ${JSON.stringify(params.name)}`);
  });
}
