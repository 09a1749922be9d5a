import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFECTS } from "../codec/defects.js";
import { TASKS_EXTENSION } from "../rules/extensions.js";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { readFileSync } from "node:fs";
import { newAjv } from "./engine.js";
import { extensionSchema, officialSchema, patchErrata, revisionSchema } from "./load.js";
import { validate } from "./validate.js";

const LEGACY: Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const tool = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } };
const modernList = { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: [tool] };

describe("validate: the vendored schemas", () => {
  for (const revision of REVISIONS) {
    test(`${revision}: the method maps come from the schema's own method consts`, () => {
      const schema = revisionSchema(revision);
      assert.equal(schema.methodDefinitions.get("tools/call"), "CallToolRequest");
      assert.equal(schema.resultDefinitions.get("tools/list"), "ListToolsResult");
      assert.equal(schema.methodDefinitions.get("notifications/progress"), "ProgressNotification");
      assert.equal(schema.dialect, revision >= "2025-11-25" ? "2020-12" : "draft-07");
      // a union of a side's messages is never a method's definition
      for (const name of schema.methodDefinitions.values()) assert.doesNotMatch(name, /^(Client|Server)(Request|Notification)$/);
    });
  }

  // validators compile them without checking them again, so every one is held to its meta-schema here
  test("every vendored schema, patched, is valid under its dialect's meta-schema", () => {
    const extension = JSON.parse(readFileSync(new URL("../../../schema/ext-tasks/schema.json", import.meta.url), "utf8")) as Record<string, unknown>;
    const documents = [
      ...REVISIONS.map((r) => ({ name: r, document: officialSchema(r), dialect: revisionSchema(r).dialect })),
      { name: "ext-tasks", document: extension, dialect: extensionSchema(TASKS_EXTENSION)!.dialect },
    ];
    for (const { name, document, dialect } of documents) {
      const ajv = newAjv(dialect);
      assert.equal(ajv.validateSchema(patchErrata(document)), true, `${name}: ${ajv.errorsText(ajv.errors)}`);
    }
    const broken = structuredClone(officialSchema("2025-11-25")) as { $defs: Record<string, unknown> };
    broken.$defs.Tool = { type: 42 };
    const ajv = newAjv("2020-12");
    assert.equal(ajv.validateSchema(broken), false);
  });

  test("the NumberSchema errata are patched to number wherever a schema says integer", () => {
    const doc = officialSchema("2025-11-25");
    const broken = structuredClone(doc) as { $defs: { NumberSchema: { properties: Record<string, { type: string }> } } };
    for (const key of ["minimum", "maximum", "default"]) broken.$defs.NumberSchema.properties[key]!.type = "integer";
    const patched = patchErrata(broken) as typeof broken;
    for (const key of ["minimum", "maximum", "default"]) assert.equal(patched.$defs.NumberSchema.properties[key]!.type, "number");
    // the input is left as it was
    assert.equal(broken.$defs.NumberSchema.properties.minimum!.type, "integer");
  });

  test("an elicitation asking for a fractional number bound is sound (the errata, applied)", () => {
    const message = {
      jsonrpc: "2.0",
      id: 3,
      method: "elicitation/create",
      params: { message: "How warm?", requestedSchema: { type: "object", properties: { t: { type: "number", minimum: 0.5, maximum: 40.5, default: 21.5 } } } },
    };
    assert.deepEqual(validate(message, { revision: "2025-11-25" }), []);
    assert.deepEqual(validate(message, { revision: "2025-06-18" }), []);
  });

  test("base64 data (format byte) is accepted as a string, as the conformance suite reads it", () => {
    const message = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "image", data: "not base64 at all!", mimeType: "image/png" }] } };
    assert.deepEqual(validate(message, { revision: "2025-11-25", method: "tools/call" }), []);
    const bad = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "image", data: 42, mimeType: "image/png" }] } };
    assert.equal(validate(bad, { revision: "2025-11-25", method: "tools/call" })[0]?.path, "/result/content/0/data");
  });
});

describe("validate: defects", () => {
  test("schema_invalid is in the one severity table, an error", () => {
    assert.equal(DEFECTS.schema_invalid.severity, "error");
  });

  for (const revision of LEGACY) {
    test(`${revision}: a tool without inputSchema.type is named precisely`, () => {
      const message = { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "a", inputSchema: {} }] } };
      const defects = validate(message, { revision, method: "tools/list" });
      assert.equal(defects.length, 1);
      assert.deepEqual(
        { ...defects[0] },
        {
          code: "schema_invalid",
          severity: "error",
          path: "/result/tools/0/inputSchema",
          definition: "ListToolsResult",
          keyword: "required",
          message: "/result/tools/0/inputSchema: must have required property 'type' (ListToolsResult)",
        },
      );
      assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, result: { tools: [tool] } }, { revision, method: "tools/list" }), []);
    });
  }

  test("2026-07-28: a sender MUST send resultType, ttlMs and cacheScope on a list result", () => {
    const opts = { revision: "2026-07-28", method: "tools/list" } as const;
    assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, result: modernList }, opts), []);
    const { resultType: _r, ...noType } = modernList;
    assert.deepEqual(
      validate({ jsonrpc: "2.0", id: 1, result: noType }, opts).map((d) => [d.path, d.keyword, d.definition]),
      [["/result", "required", "ListToolsResult"]],
    );
    const { ttlMs: _t, cacheScope: _c, ...noCache } = modernList;
    assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, result: noCache }, opts).map((d) => d.message).sort(), [
      "/result: must have required property 'cacheScope' (ListToolsResult)",
      "/result: must have required property 'ttlMs' (ListToolsResult)",
    ]);
    // without the method, only the envelope is judged, and it too requires resultType
    assert.equal(validate({ jsonrpc: "2.0", id: 1, result: {} }, { revision: "2026-07-28" })[0]?.definition, "JSONRPCResultResponse");
    // and says that it judged no more than that
    assert.deepEqual(
      validate({ jsonrpc: "2.0", id: 1, result: {} }, { revision: "2025-11-25" }).map((d) => [d.code, d.severity, d.path]),
      [["schema_envelope_only", "info", "/result"]],
    );
  });

  test("2026-07-28: an input_required result validates as InputRequiredResult, not as the method's result", () => {
    const message = { jsonrpc: "2.0", id: 1, result: { resultType: "input_required", inputRequests: {} } };
    const defects = validate(message, { revision: "2026-07-28", method: "tools/call" });
    assert.ok(defects.every((d) => d.definition === "InputRequiredResult"), JSON.stringify(defects));
  });

  test("2025-11-25: the answer to a task-augmented request is a CreateTaskResult, whatever the method", () => {
    const task = { taskId: "t1", status: "working", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: 60000 };
    assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, result: { task } }, { revision: "2025-11-25", method: "tools/call" }), []);
    const { taskId: _t, ...noId } = task;
    assert.deepEqual(
      validate({ jsonrpc: "2.0", id: 1, result: { task: noId } }, { revision: "2025-11-25", method: "tools/call" }).map((d) => [d.path, d.definition]),
      [["/result/task", "CreateTaskResult"]],
    );
  });

  test("a union's branches that were never meant are not reported", () => {
    const message = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text" }] } };
    assert.deepEqual(
      validate(message, { revision: "2025-06-18", method: "tools/call" }).map((d) => d.message),
      ["/result/content/0: must have required property 'text' (CallToolResult)"],
    );
  });

  test("requests and notifications are judged by the definition of their method, the direction inferred", () => {
    const defects = validate({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }, { revision: "2025-11-25" });
    assert.deepEqual(defects.map((d) => [d.path, d.definition, d.keyword]), [["/params", "CallToolRequest", "required"]]);
    const progress = validate({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: "half" } }, { revision: "2025-03-26" });
    assert.ok(progress.some((d) => d.definition === "ProgressNotification" && d.path === "/params/progress"), JSON.stringify(progress));
    // an unknown method is held to the JSON-RPC request shape only
    assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, method: "x/y", params: { a: 1 } }, { revision: "2025-11-25" }), []);
  });

  test("an error response validates against the error definition; 2026-07-28 codes with their own definition use it", () => {
    for (const revision of REVISIONS) {
      assert.deepEqual(validate({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } }, { revision }), [], revision);
      const bad = validate({ jsonrpc: "2.0", id: 1, error: { code: -32601 } }, { revision });
      assert.equal(bad[0]?.path, "/error", revision);
      assert.match(bad[0]?.definition ?? "", /^JSONRPCError(Response)?$/);
    }
    const unsupported = validate({ jsonrpc: "2.0", id: 1, error: { code: -32022, message: "unsupported" } }, { revision: "2026-07-28" });
    assert.equal(unsupported[0]?.definition, "UnsupportedProtocolVersionError");
    assert.equal(unsupported[0]?.path, "/error");
  });

  test("what is not a message is judged against JSONRPCMessage", () => {
    for (const value of [42, null, { jsonrpc: "2.0" }]) {
      const defects = validate(value, { revision: "2025-11-25" });
      assert.ok(defects.length > 0 && defects.every((d) => d.definition === "JSONRPCMessage"), JSON.stringify(value));
    }
  });

  test("a batch's elements are judged one by one, each path pointing into the array", () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: {} },
    ];
    assert.deepEqual(validate(batch, { revision: "2025-03-26" }).map((d) => d.path), ["/1/params"]);
  });

  test("a large message (over 64 KiB as JSON) reports its first error only: collecting every error of thousands of broken items is never attempted", () => {
    const tools = Array.from({ length: 20_000 }, () => ({ name: 1 }));
    const defects = validate({ jsonrpc: "2.0", id: 1, result: { tools } }, { revision: "2025-11-25", method: "tools/list" });
    assert.equal(defects.length, 1);
    assert.equal(defects[0]!.path, "/result/tools/0");
  });

  test("many errors are capped, the last defect counting the rest", () => {
    const tools = Array.from({ length: 30 }, (_, i) => ({ name: i }));
    const defects = validate({ jsonrpc: "2.0", id: 1, result: { tools } }, { revision: "2025-06-18", method: "tools/list" });
    assert.equal(defects.length, 8);
    assert.match(defects[7]!.message, /and \d+ more schema error\(s\)$/);
  });
});
