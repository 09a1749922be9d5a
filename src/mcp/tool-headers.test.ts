/**
 * `x-mcp-header` (2026-07-28 Streamable HTTP, "Custom Headers from Tool Parameters"): which
 * annotations are valid, the header values, and, on real loopback HTTP, what McpClient sends:
 * invalid tools left out of `listTools` in the modern era, `Mcp-Method`/`Mcp-Name`/
 * `MCP-Protocol-Version`/`Mcp-Param-*` on modern requests, `Mcp-Session-Id` and
 * `MCP-Protocol-Version` (2025-06-18 on) on legacy ones and never `Mcp-Method`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { guardEventLoop, within } from "../testkit/peer.js";
import type { Revision } from "../rules/revisions.js";
import { header, mcpHeaders, type TestServer } from "../testkit/http.js";
import type { McpClient } from "./client.js";
import { connectHttp } from "./connect-http.js";
import { legacyServer, modernServer } from "../testkit/http-test-servers.js";
import type { Tool } from "./meta.js";
import { headerParams, paramHeaders } from "./tool-headers.js";

guardEventLoop();

const tool = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Tool => ({
  name,
  inputSchema: { type: "object", properties, ...extra } as Tool["inputSchema"],
});

/** Valid: top level and nested through `properties` only, each allowed type. */
const VALID: Tool = tool("execute_sql", {
  region: { type: "string", "x-mcp-header": "Region" },
  query: { type: "string" },
  target: {
    type: "object",
    properties: {
      tenant: { type: "string", "x-mcp-header": "Tenant" },
      shard: { type: "object", properties: { index: { type: "integer", "x-mcp-header": "Shard-Index" } } },
    },
  },
  dry: { type: "boolean", "x-mcp-header": "Dry_Run" },
});

/** Each breaks one rule; the reason a client must give is in the name. */
const INVALID: Tool[] = [
  tool("empty_name", { a: { type: "string", "x-mcp-header": "" } }),
  tool("space_in_name", { a: { type: "string", "x-mcp-header": "Bad Header" } }),
  tool("colon_in_name", { a: { type: "string", "x-mcp-header": "Bad:Header" } }),
  tool("crlf_in_name", { a: { type: "string", "x-mcp-header": "A\r\nInjected: 1" } }),
  tool("non_ascii_name", { a: { type: "string", "x-mcp-header": "Régión" } }),
  tool("name_not_a_string", { a: { type: "string", "x-mcp-header": 7 } }),
  tool("type_number", { a: { type: "number", "x-mcp-header": "Amount" } }),
  tool("type_object", { a: { type: "object", "x-mcp-header": "Obj" } }),
  tool("type_missing", { a: { "x-mcp-header": "Untyped" } }),
  tool("under_items", { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
  tool("under_anyOf", { a: { anyOf: [{ type: "string", "x-mcp-header": "Choice" }, { type: "integer" }] } }),
  tool("under_allOf_at_root", {}, { allOf: [{ properties: { a: { type: "string", "x-mcp-header": "Deep" } } }] }),
  tool(
    "ref_reachable_only",
    { a: { $ref: "#/$defs/region" } },
    { $defs: { region: { type: "string", "x-mcp-header": "Region" } } },
  ),
  tool("duplicate_case_insensitive", {
    a: { type: "string", "x-mcp-header": "Region" },
    b: { type: "string", "x-mcp-header": "region" },
  }),
];

const NAMES_OF_INVALID = INVALID.map((t) => t.name);

describe("headerParams: which x-mcp-header annotations are valid", () => {
  test("top level and nested through properties, string/integer/boolean: each with its property path", () => {
    const found = headerParams(VALID);
    assert.ok("params" in found, JSON.stringify(found));
    assert.deepEqual(found.params, [
      { name: "Region", path: ["region"] },
      { name: "Tenant", path: ["target", "tenant"] },
      { name: "Shard-Index", path: ["target", "shard", "index"] },
      { name: "Dry_Run", path: ["dry"] },
    ]);
  });

  test("a parameter or definition named x-mcp-header, or the word in example data, is no annotation", () => {
    const named = tool("named", {
      "x-mcp-header": { type: "string" },
      region: { type: "string", "x-mcp-header": "Region" },
    });
    assert.deepEqual(headerParams(named), { params: [{ name: "Region", path: ["region"] }] });
    const defs = tool(
      "defs",
      { a: { $ref: "#/$defs/x-mcp-header" } },
      { $defs: { "x-mcp-header": { type: "string" } } },
    );
    assert.deepEqual(headerParams(defs), { params: [] });
    const data = tool("data", {
      filter: { type: "object", default: { "x-mcp-header": "x" }, examples: [{ "x-mcp-header": "y" }] },
    });
    assert.deepEqual(headerParams(data), { params: [] });
  });

  test("a tool without annotations, or without a schema worth the name, has none", () => {
    assert.deepEqual(headerParams(tool("plain", { a: { type: "string" } })), { params: [] });
    assert.deepEqual(headerParams({ name: "bare", inputSchema: { type: "object" } }), { params: [] });
  });

  for (const t of INVALID) {
    test(`invalid: ${t.name}`, () => {
      const found = headerParams(t);
      assert.ok("error" in found, `${t.name} accepted: ${JSON.stringify(found)}`);
      assert.match(found.error, new RegExp(`tool "${t.name}"`), "the reason names the tool");
    });
  }
});

describe("paramHeaders: the header values of one call", () => {
  const found = headerParams(VALID);
  const params = "params" in found ? found.params : [];

  test("string as is, integer in decimal, boolean lowercase, names lowercased", () => {
    assert.deepEqual(
      paramHeaders({ region: "us-west1", target: { tenant: "acme", shard: { index: -7 } }, dry: true }, params),
      {
        "mcp-param-region": "us-west1",
        "mcp-param-tenant": "acme",
        "mcp-param-shard-index": "-7",
        "mcp-param-dry_run": "true",
      },
    );
    assert.deepEqual(paramHeaders({ dry: false, target: { shard: { index: 42 } } }, params), {
      "mcp-param-dry_run": "false",
      "mcp-param-shard-index": "42",
    });
  });

  test("null and absent values send no header, nor does a missing parent object", () => {
    assert.deepEqual(paramHeaders({ region: null, dry: null, target: null }, params), {});
    assert.deepEqual(paramHeaders({}, params), {});
    assert.deepEqual(paramHeaders(undefined, params), {});
    assert.deepEqual(paramHeaders({ target: "not an object" }, params), {});
  });

  test("values a plain header cannot carry travel in the Base64 sentinel", () => {
    assert.deepEqual(paramHeaders({ region: "Hello, 世界", target: { tenant: " padded " } }, params), {
      "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "mcp-param-tenant": "=?base64?IHBhZGRlZCA=?=",
    });
  });

  test("an integer outside the safe range, or not an integer, sends no header", () => {
    assert.deepEqual(paramHeaders({ target: { shard: { index: 2 ** 53 } } }, params), {});
    assert.deepEqual(paramHeaders({ target: { shard: { index: 1.5 } } }, params), {});
  });
});

const TIMEOUT = 5000;
const NON_ASCII_TOOL: Tool = tool("météo", { city: { type: "string" } });

describe("McpClient over HTTP, modern era: tool headers on the wire", () => {
  let server: TestServer;
  let client: McpClient;
  before(async () => {
    server = await modernServer({ tools: [VALID, NON_ASCII_TOOL, ...INVALID] });
    client = (await within(connectHttp(server.url(), { timeout: TIMEOUT, fresh: true }), "connectHttp", TIMEOUT))
      .client;
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  test("listTools keeps the valid tools and leaves out every invalid one, saying why in rejectedTools", async () => {
    assert.equal(client.era, "modern");
    const tools = await within(client.listTools(), "tools/list", TIMEOUT);
    assert.deepEqual(
      tools.map((t) => t.name),
      [VALID.name, NON_ASCII_TOOL.name],
    );
    assert.equal(client.rejectedTools.length, INVALID.length, client.rejectedTools.join("\n"));
    for (const name of NAMES_OF_INVALID) {
      assert.ok(
        client.rejectedTools.some((reason) => reason.includes(`"${name}"`)),
        `${name} in ${JSON.stringify(client.rejectedTools)}`,
      );
    }
  });

  test("the opening and the listing carry MCP-Protocol-Version and Mcp-Method, no session, no Mcp-Name", () => {
    const discover = server.calls("server/discover")[0]!;
    assert.deepEqual(mcpHeaders(discover), { "mcp-method": "server/discover", "mcp-protocol-version": "2026-07-28" });
    const list = server.calls("tools/list")[0]!;
    assert.deepEqual(mcpHeaders(list), { "mcp-method": "tools/list", "mcp-protocol-version": "2026-07-28" });
    assert.equal(server.calls("initialize").length, 0);
  });

  test("tools/call: Mcp-Name, and every Mcp-Param-* with a value, encoded where it must be", async () => {
    await within(
      client.callTool(VALID.name, {
        region: "us-west1",
        query: "SELECT 1",
        target: { tenant: "Hello, 世界", shard: { index: 42 } },
        dry: false,
      }),
      "tools/call",
      TIMEOUT,
    );
    const call = server.calls("tools/call").at(-1)!;
    assert.deepEqual(mcpHeaders(call), {
      "mcp-method": "tools/call",
      "mcp-name": "execute_sql",
      "mcp-param-dry_run": "false",
      "mcp-param-region": "us-west1",
      "mcp-param-shard-index": "42",
      "mcp-param-tenant": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "mcp-protocol-version": "2026-07-28",
    });
  });

  test("tools/call with null and absent values: those headers are left out", async () => {
    await within(client.callTool(VALID.name, { region: null, query: "SELECT 1" }), "tools/call", TIMEOUT);
    const call = server.calls("tools/call").at(-1)!;
    assert.deepEqual(mcpHeaders(call), {
      "mcp-method": "tools/call",
      "mcp-name": "execute_sql",
      "mcp-protocol-version": "2026-07-28",
    });
  });

  test("a non-ASCII tool name travels in Mcp-Name as the Base64 sentinel", async () => {
    await within(client.callTool(NON_ASCII_TOOL.name, { city: "Zürich" }), "tools/call", TIMEOUT);
    const call = server.calls("tools/call").at(-1)!;
    assert.equal(header(call, "mcp-name"), `=?base64?${Buffer.from("météo").toString("base64")}?=`);
    assert.equal(header(call, "mcp-method"), "tools/call");
    assert.equal(header(call, "mcp-protocol-version"), "2026-07-28");
  });
});

describe("McpClient over HTTP, legacy era: session headers, no modern ones", () => {
  const opened: { server: TestServer; client: McpClient }[] = [];
  after(async () => {
    for (const { server, client } of opened) {
      await client.close().catch(() => undefined);
      await server.close();
    }
  });

  async function open(revision: Revision | undefined) {
    const server = await legacyServer({ tools: [VALID, NON_ASCII_TOOL, ...INVALID] });
    const { client } = await within(
      connectHttp(server.url(), { timeout: TIMEOUT, fresh: true, ...(revision ? { revision } : {}) }),
      "connectHttp",
      TIMEOUT,
    );
    opened.push({ server, client });
    return { server, client };
  }

  test("detected (2025-11-25): Mcp-Session-Id and MCP-Protocol-Version after initialize; x-mcp-header not enforced", async () => {
    const { server, client } = await open(undefined);
    assert.equal(client.era, "legacy");
    assert.equal(client.revision, "2025-11-25");
    const tools = await within(client.listTools(), "tools/list", TIMEOUT);
    assert.equal(tools.length, 2 + INVALID.length, "a legacy server's tools are all listed");
    assert.deepEqual(client.rejectedTools, []);
    await within(
      client.callTool(VALID.name, { region: "us-west1", target: { tenant: "acme" } }),
      "tools/call",
      TIMEOUT,
    );
    await within(client.callTool(NON_ASCII_TOOL.name, { city: "Zürich" }), "tools/call", TIMEOUT);

    const initialize = server.calls("initialize")[0]!;
    assert.deepEqual(mcpHeaders(initialize), {}, "initialize carries no MCP header");
    const session = header(server.calls("notifications/initialized")[0]!, "mcp-session-id");
    assert.ok(session, "a session id after initialize");
    for (const method of ["notifications/initialized", "tools/list", "tools/call"]) {
      for (const r of server.calls(method)) {
        assert.deepEqual(mcpHeaders(r), { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session }, method);
      }
    }
  });

  test("forced to 2025-06-18: the same headers, that version", async () => {
    const { server, client } = await open("2025-06-18");
    await within(client.callTool(VALID.name, { region: "us-west1" }), "tools/call", TIMEOUT);
    const call = server.calls("tools/call")[0]!;
    assert.deepEqual(mcpHeaders(call), {
      "mcp-protocol-version": "2025-06-18",
      "mcp-session-id": header(call, "mcp-session-id")!,
    });
    assert.ok(header(call, "mcp-session-id"));
    assert.equal(server.calls("server/discover").length, 0, "a forced legacy revision sends no probe");
  });

  test("forced to 2025-03-26: Mcp-Session-Id only (MCP-Protocol-Version came with 2025-06-18)", async () => {
    const { server, client } = await open("2025-03-26");
    await within(client.callTool(VALID.name, { region: "us-west1" }), "tools/call", TIMEOUT);
    for (const r of [...server.calls("notifications/initialized"), ...server.calls("tools/call")]) {
      assert.deepEqual(Object.keys(mcpHeaders(r)), ["mcp-session-id"]);
    }
  });

  test("the failed probe before initialize is the only modern-looking request", async () => {
    const { server } = opened[0]!;
    const withMethod = server.requests.filter((r) => header(r, "mcp-method") !== undefined);
    assert.deepEqual(
      withMethod.map((r) => r.json?.method),
      ["server/discover"],
    );
  });
});
