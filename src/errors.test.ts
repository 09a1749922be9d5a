/**
 * One registry of the errors mcp-wire throws: every class is exported, carries its own code, and
 * the table (LIBRARY_ERRORS) and docs/errors.md say the same.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as api from "./index.js";
import * as client from "./entry/client.js";
import * as testing from "./entry/testing.js";
import { ROOT } from "./testkit/typecheck.js";

const { LIBRARY_ERRORS } = api;

/** One instance of each class, made as the library makes it. */
const SAMPLES: readonly Error[] = [
  new api.EncodeError([]),
  new api.TimeoutError("ping", 1000),
  new api.ClosedError(),
  new api.SpawnError("no-such-command", Object.assign(new Error("spawn no-such-command ENOENT"), { code: "ENOENT" })),
  new api.AbortedError("ping"),
  new api.OverloadedError(1),
  new api.InvalidResponseError("ping", []),
  new api.MessageTooLargeError("ping", 2, 1),
  new api.NegotiationError("no revision in common"),
  new api.RevisionNotSpokenError("2025-11-25", ["2025-06-18"], "it chose 2025-06-18"),
  new api.HttpError({ failure: "status", step: "initialize", url: "http://127.0.0.1/mcp", status: 502 }, "HTTP 502"),
  new api.InputRequiredError("unhandled", "tools/call", {}, "no handler"),
  new api.UnknownRevisionError("2099-01-01"),
  new client.MethodNotInRevisionError("ping", "2026-07-28"),
  new client.TasksNotNegotiatedError("tasks/get", "server", "the server did not declare tasks"),
  new client.TaskCancelledError("786512e2", "The task was cancelled by request."),
  new client.PaginationError("repeated_cursor", "tools/list", 2, "cursor repeated"),
  new client.ServerExitedError("node server.js", 1, null, "Error: OPENAI_API_KEY is not set"),
  new client.OpeningTimeoutError(30_000, [{ method: "server/discover", ms: 0 }], 0, undefined, undefined),
  new api.NotACaptureError("it is an SQLite database"),
  new testing.RecordingError("truncated", "x.ndjson", "cut off", 3),
  new testing.RecordingWriteError(
    "no_folder",
    "missing/x.ndjson",
    Object.assign(new Error("ENOENT"), { code: "ENOENT" }),
  ),
];

/** Errors only the client throws, exported by mcp-wire/client rather than the root. */
const CLIENT_ONLY = new Set([
  "MethodNotInRevisionError",
  "TasksNotNegotiatedError",
  "TaskCancelledError",
  "PaginationError",
  "ServerExitedError",
  "OpeningTimeoutError",
]);
/** Errors only recordings' players throw (`mockServer`), exported by mcp-wire/testing. */
const TESTING_ONLY = new Set(["RecordingError", "RecordingWriteError"]);

/** Classes that never leave the library's own code: each is caught and turned into one above. */
const INTERNAL = new Set([
  "TooDeepError",
  "JsonSyntaxError",
  "StoreRefused",
  "TargetsError",
  "PrivateAddressError",
  "BaselineError",
  "OutputRefused",
  "SessionRefused",
  "StoreUnreachable",
  // a handler's ask on 2026-07-28 unwinding to the core, which answers input_required: never reaches a caller
  "InputNeeded",
]);
/** The two families' bases: `ResponseError` carries the other side's JSON-RPC code, `ConnectionError` is never thrown as itself. */
const FAMILIES = new Set(["ResponseError", "ConnectionError"]);

test("each class the library throws has its own code, the one the table gives it, and is exported", () => {
  const table = Object.entries(LIBRARY_ERRORS);
  assert.equal(SAMPLES.length, table.length, "one sample per table entry");
  for (const e of SAMPLES) {
    const code = (e as { code?: unknown }).code as keyof typeof LIBRARY_ERRORS;
    assert.ok(code in LIBRARY_ERRORS, `${e.name}: ${String(code)} is in the table`);
    assert.equal(LIBRARY_ERRORS[code].class, e.constructor.name, `${String(code)} is ${e.constructor.name}'s`);
    assert.equal(e.name, e.constructor.name);
    // the root keeps the core's; the client's own are the client entry's
    const entry = CLIENT_ONLY.has(e.constructor.name) ? client : TESTING_ONLY.has(e.constructor.name) ? testing : api;
    assert.equal(
      (entry as Record<string, unknown>)[e.constructor.name],
      e.constructor,
      `${e.constructor.name} is exported`,
    );
  }
  assert.equal(
    new Set(SAMPLES.map((e) => (e as { code?: unknown }).code)).size,
    SAMPLES.length,
    "no two classes share a code",
  );
  for (const [code] of table) assert.match(code, /^ERR_MCP_WIRE_[A-Z_]+$/, "every code is mcp-wire's own");
  for (const code of Object.values(api.ConnectionErrorCode))
    assert.ok(code in LIBRARY_ERRORS, `${code} is in the table`);
});

test("every error class in the source is in the table, a family's base, or internal", () => {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/class (\w+) extends (\w*Error)\b/g)) found.push(m[1]!);
      }
    }
  };
  walk(join(ROOT, "src"));
  const registered = new Set(Object.values(LIBRARY_ERRORS).map((e) => e.class as string));
  assert.deepEqual(
    found.filter((c) => !registered.has(c) && !FAMILIES.has(c) && !INTERNAL.has(c)),
    [],
  );
});

test("docs/errors.md holds the table, row for row", () => {
  const doc = readFileSync(join(ROOT, "docs", "errors.md"), "utf8");
  for (const [code, e] of Object.entries(LIBRARY_ERRORS)) {
    assert.ok(doc.includes(`| \`${code}\` | \`${e.class}\` | ${e.when} |`), `docs/errors.md has the row of ${code}`);
  }
  const rows = doc.split("\n").filter((l) => l.startsWith("| `ERR_"));
  assert.equal(rows.length, Object.keys(LIBRARY_ERRORS).length, "and no other");
});
