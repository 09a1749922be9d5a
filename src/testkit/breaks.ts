/**
 * The evidence behind every `breaks` list of the rule catalogue: real clients (the official SDK
 * v1 and v2 clients, the AI SDK's, and over HTTP mcp-remote, the stdio bridge many hosts put in
 * front of a remote server) against the zoo with exactly one fault, and against the healthy zoo. A client is named in `breaks` when, and only when, it fails against the fault and
 * works without it; a rule not exercised here names no client at all. A test helper: the
 * default suite runs one rule's evidence (src/check/breaks.test.ts), `npm run interop` the rest
 * (interop/breaks.test.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startZoo, type RunningZoo, type ZooFault } from "./zoo-server.js";
import { connectClient, type Endpoint, type InteropClient } from "./interop-clients.js";
import { ruleOf, type CheckRuleId } from "../check/rules.js";
import type { ClientName } from "../check/types.js";

const ZOO = fileURLToPath(new URL("./zoo-server.js", import.meta.url));
const CLIENTS = ["sdk-v1", "sdk-v2", "ai-sdk", "mcp-remote"] as const satisfies readonly ClientName[];
const MCP_REMOTE = fileURLToPath(new URL("../../../node_modules/mcp-remote/dist/proxy.js", import.meta.url));

type Use = (c: InteropClient) => Promise<unknown>;
const list: Use = (c) => c.listTools();
/** As a host uses a tool: listed first (clients check a result against the schema listed), then called. */
const call =
  (name: string, args: Record<string, unknown>): Use =>
  async (c) => {
    await c.listTools();
    const r = await c.callTool(name, args);
    if (r.isError) throw new Error(`the call failed: ${r.text}`);
  };

export interface Evidence {
  rule: CheckRuleId;
  fault: ZooFault;
  transport: "http" | "stdio";
  use: Use;
}

export const EVIDENCE: readonly Evidence[] = [
  { rule: "http_content_type", fault: "text-plain", transport: "http", use: list },
  { rule: "tool_input_schema_not_object", fault: "input-schema-not-object", transport: "http", use: list },
  { rule: "tool_result_no_content", fault: "no-content", transport: "http", use: call("echo", { text: "hi" }) },
  {
    rule: "tool_structured_content_invalid",
    fault: "structured-invalid",
    transport: "http",
    use: call("add", { a: 1, b: 2 }),
  },
  // every client reads past a log line on stdout (reporting it at most): it breaks none of them
  { rule: "stdout_not_jsonrpc", fault: "log-line", transport: "stdio", use: list },
];

/**
 * mcp-remote is a bridge: a host speaks stdio to it and it speaks HTTP to the server. mcp-wire's
 * own client sits on its stdio side, since it judges nothing a server sends a bridge could pass
 * on (a stricter host would fail for its own reasons, which are not mcp-remote's).
 */
function viaRemote(endpoint: Endpoint, configDir: string): Endpoint {
  if (endpoint.kind !== "http") throw new Error("mcp-remote bridges to an HTTP server");
  return {
    kind: "stdio",
    command: process.execPath,
    args: [MCP_REMOTE, endpoint.url, "--transport", "http-only", "--silent"],
    env: { MCP_REMOTE_CONFIG_DIR: configDir },
  };
}

async function works(name: ClientName, endpoint: Endpoint, use: Use, configDir: string): Promise<boolean> {
  let client: InteropClient | undefined;
  try {
    client =
      name === "mcp-remote"
        ? await connectClient("mcp-wire", viaRemote(endpoint, configDir))
        : await connectClient(name as "sdk-v1", endpoint);
    await use(client);
    return true;
  } catch {
    return false;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** The evidence of the rules `which` picks, each a test: the catalogue names exactly the clients shown failing. */
export function breaksSuite(which: (e: Evidence) => boolean): void {
  describe("breaks: which real clients each fault breaks", () => {
    let zoo: RunningZoo;
    // mcp-remote's token store: never the user's ~/.mcp-auth
    const configDir = mkdtempSync(join(tmpdir(), "mcp-wire-remote-"));
    before(async () => {
      zoo = await startZoo();
    });
    after(async () => {
      await zoo.close();
      rmSync(configDir, { recursive: true, force: true });
    });
    const endpoint = (fault: ZooFault, transport: "http" | "stdio"): Endpoint =>
      transport === "http"
        ? { kind: "http", url: zoo.url(fault) }
        : { kind: "stdio", command: process.execPath, args: [ZOO, fault] };

    for (const e of EVIDENCE.filter(which)) {
      test(`${e.rule}: the catalogue names exactly the clients that fail against ${e.fault}`, async () => {
        const broken: ClientName[] = [];
        for (const name of CLIENTS) {
          if (name === "mcp-remote" && e.transport !== "http") continue;
          assert.ok(
            await works(name, endpoint("healthy", e.transport), e.use, configDir),
            `${name} works against the healthy zoo`,
          );
          if (!(await works(name, endpoint(e.fault, e.transport), e.use, configDir))) broken.push(name);
        }
        assert.deepEqual([...(ruleOf(e.rule).breaks ?? [])].sort(), broken.sort());
      });
    }
  });
}
