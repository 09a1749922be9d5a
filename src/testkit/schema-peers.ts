/**
 * Real peers' sound traffic stays silent: mcp-wire's client, with schema validation on, speaks
 * every revision each independent server accepts (server-everything and server-memory on SDK v1,
 * the SDK v2 server, tmcp, mcp-lite, FastMCP, and mcp-wire's own server), lists and reads what
 * it offers and calls its tools; every message the server sent is also validated from the
 * recording, and no `schema_invalid` may appear. `npm test` runs two of the peers
 * (src/schema/interop.test.ts), `npm run interop` all of them (interop/schema-peers.test.ts). A
 * test helper: src/testkit/ is left out of the package.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import type { Defect } from "../codec/defects.js";
import type { JsonObject } from "../codec/message.js";
import { peer, type PeerRow, type RunningPeer } from "./interop-peers.js";
import { scratch, within } from "./interop-harness.js";
import { McpClient } from "../mcp/client.js";
import type { HttpTransport, Transport } from "../peer/transport.js";
import { REVISIONS, type Revision } from "../rules/revisions.js";
import { ChildServer } from "../transport/child.js";
import { StreamableHttpTransport } from "../transport/http/client.js";
import { validate } from "../schema/validate.js";

interface Recorded {
  peer: string;
  revision: Revision;
  from: "client" | "server";
  /** The method a response answers. */
  method?: string;
  message: unknown;
}

const STEP = 15_000;
const LEGACY: readonly Revision[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/**
 * The peers, each with the revisions it speaks when mcp-wire's client asks for exactly one (a
 * revision missing here would be one it refused): stated, so a session that fails for another
 * reason fails the test instead of passing as "not spoken".
 */
const PEERS: Readonly<Record<string, readonly Revision[]>> = {
  "server-everything stdio": LEGACY,
  "server-memory stdio": LEGACY,
  "SDK v2 server stdio (dual)": REVISIONS,
  "SDK v2 server http (dual)": REVISIONS,
  // tmcp 1.20 answers initialize for 2025-11-25 with 2025-06-18, yet serves 2026-07-28 requests
  "tmcp stdio": ["2024-11-05", "2025-03-26", "2025-06-18", "2026-07-28"],
  "mcp-lite stateless": ["2025-03-26", "2025-06-18"],
  "fastmcp stdio": LEGACY,
  "mcp-wire serve --stdio": REVISIONS,
};
/**
 * server-everything's tools that return each kind of content (text, image, resources, structured).
 * Never `get-env`: it answers with this process's environment, which must not reach a recording.
 */
const EVERYTHING_CALLS: [string, JsonObject][] = [
  ["echo", { message: "héllo" }],
  ["get-sum", { a: 1.5, b: 2 }],
  ["get-tiny-image", {}],
  ["get-annotated-message", { messageType: "success", includeImage: true }],
  ["get-resource-links", { count: 2 }],
  ["get-resource-reference", { resourceType: "Text", resourceId: 1 }],
  ["get-structured-content", { location: "New York" }],
];

/**
 * What real peers send that their revision's schema does not allow, exactly as validate() words
 * it (revision, method, message). These are the peers' own faults, kept visible here and listed
 * in docs/schema.md; a line goes once the peer is fixed (the test then fails until it does).
 */
const KNOWN_VIOLATIONS: Readonly<Record<string, readonly string[]>> = {
  // get-resource-links answers with `resource_link` content blocks whatever revision was
  // negotiated; ResourceLink joined CallToolResult's content only in 2025-06-18 (schema.json:
  // 2024-11-05 and 2025-03-26 CallToolResult.content.items are TextContent, ImageContent,
  // (AudioContent,) EmbeddedResource)
  "server-everything stdio": [
    '2024-11-05 tools/call: /result/content/1: type "resource_link" is none of the types this union takes (TextContent, ImageContent, EmbeddedResource) (CallToolResult)',
    '2024-11-05 tools/call: /result/content/2: type "resource_link" is none of the types this union takes (TextContent, ImageContent, EmbeddedResource) (CallToolResult)',
    '2025-03-26 tools/call: /result/content/1: type "resource_link" is none of the types this union takes (TextContent, ImageContent, AudioContent, EmbeddedResource) (CallToolResult)',
    '2025-03-26 tools/call: /result/content/2: type "resource_link" is none of the types this union takes (TextContent, ImageContent, AudioContent, EmbeddedResource) (CallToolResult)',
  ],
};

/**
 * Deliberately broken copies of recorded messages, each saying what was broken, so the corpus
 * holds failures of every kind a schema catches: a required member gone, a wrong type, an
 * unknown union member, a broken envelope, an error without its message. One of each per peer
 * and revision, taken from the first message it fits.
 */
function brokenVariants(records: readonly Recorded[]): (Recorded & { broken: string })[] {
  const out: (Recorded & { broken: string })[] = [];
  const seen = new Set<string>();
  const once = (r: Recorded, kind: string, change: (m: Record<string, any>) => boolean): void => {
    const key = `${r.peer} ${r.revision} ${kind}`;
    if (seen.has(key)) return;
    const copy = structuredClone(r.message) as Record<string, any>;
    if (!change(copy)) return;
    seen.add(key);
    out.push({ ...r, message: copy, broken: kind });
  };
  for (const r of records) {
    const m = r.message as Record<string, any>;
    if (r.from === "server" && m.result !== undefined) {
      if (r.method === "tools/list") {
        once(r, "tools/list without tools", (c) => delete c.result.tools);
        once(r, "a tool name that is a number", (c) =>
          c.result.tools[0] ? ((c.result.tools[0].name = 42), true) : false,
        );
        once(r, "a tool without inputSchema", (c) =>
          c.result.tools[0] ? delete c.result.tools[0].inputSchema : false,
        );
      }
      if (r.method === "tools/call") {
        once(r, "a content block of an unknown type", (c) =>
          Array.isArray(c.result.content) && c.result.content[0]
            ? ((c.result.content[0].type = "hologram"), true)
            : false,
        );
        once(r, "a text block without text", (c) =>
          c.result.content?.[0]?.type === "text" ? delete c.result.content[0].text : false,
        );
        once(r, "isError a string", (c) => ((c.result.isError = "false"), true));
      }
      if (r.method === "initialize") once(r, "initialize without serverInfo", (c) => delete c.result.serverInfo);
      if (r.method === "resources/read") once(r, "contents not an array", (c) => ((c.result.contents = {}), true));
      if (r.revision === "2026-07-28") {
        once(r, "a modern result without resultType", (c) => delete c.result.resultType);
        once(r, "a modern result with cacheScope shared", (c) =>
          c.result.cacheScope !== undefined ? ((c.result.cacheScope = "shared"), true) : false,
        );
      }
      once(r, "jsonrpc 1.0 on a result", (c) => ((c.jsonrpc = "1.0"), true));
    }
    if (r.from === "server" && m.error !== undefined) {
      once(r, "an error without message", (c) => delete c.error.message);
      once(r, "an error code that is a string", (c) => ((c.error.code = String(c.error.code)), true));
    }
    if (r.from === "client" && m.method === "tools/call")
      once(r, "tools/call without a name", (c) => delete c.params.name);
    if (r.from === "client" && m.method === "resources/read")
      once(r, "resources/read with a numeric uri", (c) => ((c.params.uri = 7), true));
  }
  return out;
}

/** `transport`, with every message both ways recorded, each answer with the method it answers. */
function recording(transport: Transport, into: Recorded[], peerName: string, revision: () => Revision): Transport {
  const asked = new Map<unknown, string>();
  const parse = (data: string | Uint8Array): unknown => {
    try {
      return JSON.parse(typeof data === "string" ? data : Buffer.from(data).toString("utf8"));
    } catch {
      return undefined;
    }
  };
  const note = (from: "client" | "server", message: unknown): void => {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (typeof m !== "object" || m === null) continue;
      const o = m as Record<string, unknown>;
      const record: Recorded = { peer: peerName, revision: revision(), from, message: m };
      if (typeof o.method === "string" && o.id !== undefined) asked.set(`${from}:${JSON.stringify(o.id)}`, o.method);
      else if (o.method === undefined) {
        const method = asked.get(`${from === "client" ? "server" : "client"}:${JSON.stringify(o.id)}`);
        if (method !== undefined) record.method = method;
      }
      into.push(record);
    }
  };
  const wrapped: Transport = {
    start: (sink) =>
      transport.start({
        ...sink,
        message: (data, read) => {
          note("server", parse(data));
          sink.message(data, read);
        },
        defect: (d, answer) => sink.defect(d, answer),
        closed: (e) => sink.closed(e),
      }),
    send: (text, message, related) => {
      note("client", parse(text));
      return transport.send(text, message, related);
    },
    close: () => transport.close(),
  };
  // the HTTP extension's hooks (kind, cancel, …) pass through, so the client still sees an HTTP transport
  for (const key of ["kind", "cancel", "paramHeaders", "negotiated", "openServerStream", "maxMessageBytes"] as const) {
    const value = (transport as Partial<HttpTransport>)[key];
    if (value !== undefined)
      Object.defineProperty(wrapped, key, {
        value: typeof value === "function" ? value.bind(transport) : value,
        enumerable: true,
        writable: true,
      });
  }
  return wrapped;
}

/** One session at `revision`: undefined when the server does not speak it. */
async function session(
  row: PeerRow,
  running: RunningPeer,
  revision: Revision,
): Promise<{ records: Recorded[]; reported: Defect[] } | undefined> {
  const records: Recorded[] = [];
  const reported: Defect[] = [];
  const children: ChildServer[] = [];
  const endpoint = running.endpoint;
  let current: Revision = revision;
  const connector = (): Transport => {
    if (endpoint.kind === "stdio") {
      const child = new ChildServer(
        endpoint.command,
        endpoint.args,
        endpoint.env ? { env: { ...process.env, ...endpoint.env } as Record<string, string> } : {},
      );
      children.push(child);
      return recording(child.transport, records, row.name, () => current);
    }
    return recording(new StreamableHttpTransport(endpoint.url, {}), records, row.name, () => current);
  };
  let client: McpClient;
  try {
    client = await within(
      McpClient.connect(connector, { revision, schema: true, timeout: STEP, onDefect: (r) => reported.push(r.defect) }),
      `${row.name} at ${revision}`,
      STEP,
    );
  } catch {
    for (const c of children) await c.shutdown().catch(() => undefined);
    return undefined;
  }
  current = client.revision;
  try {
    const caps = (client.capabilities ?? {}) as Record<string, unknown>;
    const tools = await within(client.listTools(), `${row.name}: tools/list`, STEP);
    const calls: [string, JsonObject][] = row.name.startsWith("server-everything")
      ? EVERYTHING_CALLS
      : [[row.call.tool, row.call.args as JsonObject]];
    for (const [name, args] of calls) {
      if (tools.some((t) => t.name === name))
        await within(client.callTool(name, args), `${row.name}: ${name}`, STEP).catch(() => undefined);
    }
    // an unknown tool: the error (or isError result) a server sends is validated too
    await within(client.callTool("no-such-tool-anywhere", {}), `${row.name}: unknown tool`, STEP).catch(
      () => undefined,
    );
    if (caps.resources !== undefined) {
      const listed = await within(client.request("resources/list", {}), `${row.name}: resources/list`, STEP).catch(
        () => undefined,
      );
      await within(client.request("resources/templates/list", {}), `${row.name}: templates`, STEP).catch(
        () => undefined,
      );
      const first = (listed?.resources as { uri?: string }[] | undefined)?.[0]?.uri;
      if (first !== undefined)
        await within(client.request("resources/read", { uri: first }), `${row.name}: resources/read`, STEP).catch(
          () => undefined,
        );
    }
    if (caps.prompts !== undefined) {
      const listed = await within(client.request("prompts/list", {}), `${row.name}: prompts/list`, STEP).catch(
        () => undefined,
      );
      const simple = (listed?.prompts as { name: string; arguments?: { required?: boolean }[] }[] | undefined)?.find(
        (p) => !(p.arguments ?? []).some((a) => a.required),
      );
      if (simple)
        await within(client.request("prompts/get", { name: simple.name }), `${row.name}: prompts/get`, STEP).catch(
          () => undefined,
        );
    }
    if (client.era === "legacy")
      await within(client.request("ping", {}), `${row.name}: ping`, STEP).catch(() => undefined);
    // a method nobody defines: the -32601 error is validated against the error definition
    await within(client.request("no/such-method", {}), `${row.name}: unknown method`, STEP).catch(() => undefined);
  } finally {
    await client.close().catch(() => undefined);
    for (const c of children) await c.shutdown().catch(() => undefined);
  }
  return { records, reported };
}

/**
 * The suite, over the peers named (every one of PEERS by default). With
 * MCP_WIRE_RECORD_SCHEMA_CORPUS=FILE, what they sent is written there once the file's tests end.
 */
export function schemaPeerSuite(names: readonly string[] = Object.keys(PEERS)): void {
  const corpus: Recorded[] = [];
  const out = process.env.MCP_WIRE_RECORD_SCHEMA_CORPUS;
  after(() => {
    if (out) writeFileSync(out, [...corpus, ...brokenVariants(corpus)].map((r) => JSON.stringify(r)).join("\n") + "\n");
  });
  for (const name of names) peerSuite(name, PEERS[name]!, corpus);
}

function peerSuite(name: string, speaks: readonly Revision[], corpus: Recorded[]): void {
  const row = peer(name);
  describe(`schema: ${name}`, () => {
    const space = scratch();
    let running: RunningPeer | undefined;
    after(async () => {
      await running?.stop();
      space.cleanup();
    });

    test("every revision it speaks: no schema_invalid but its known violations, reported by the client and found in the recording alike", async (t) => {
      running = await within(row.start(space.dir), `starting ${name}`, STEP);
      const spoken: Revision[] = [];
      const found: string[] = [];
      const reported: string[] = [];
      for (const revision of REVISIONS) {
        const s = await session(row, running, revision);
        if (!s) continue;
        spoken.push(revision);
        corpus.push(...s.records);
        const fromServer = s.records.filter((r) => r.from === "server");
        assert.ok(fromServer.length >= 3, `${name} ${revision}: ${fromServer.length} messages from the server`);
        for (const r of fromServer) {
          for (const d of validate(r.message, { revision, ...(r.method ? { method: r.method } : {}) }))
            found.push(`${revision} ${r.method ?? "?"}: ${d.message}`);
        }
        reported.push(...s.reported.filter((d) => d.code === "schema_invalid").map((d) => d.message));
        // what mcp-wire's client sent is held to the same schema
        const sent = s.records
          .filter((r) => r.from === "client")
          .flatMap((r) => validate(r.message, { revision }).map((d) => d.message));
        assert.deepEqual(sent, [], `${name} ${revision}: mcp-wire's own requests`);
      }
      t.diagnostic(`${name} speaks ${spoken.join(", ")}`);
      assert.deepEqual(spoken, speaks, `${name}: the revisions it speaks`);
      const known = KNOWN_VIOLATIONS[name] ?? [];
      assert.deepEqual([...new Set(found)].sort(), [...known].sort(), `${name}: what the recording breaks`);
      // the client's own validation (McpClient with schema on) names the same defects
      assert.deepEqual(
        [...new Set(reported)].sort(),
        [...new Set(known.map((k) => k.replace(/^\S+ \S+: /, "")))].sort(),
        `${name}: what the client reported`,
      );
    });
  });
}
