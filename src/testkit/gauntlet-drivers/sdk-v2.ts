/**
 * The official SDK v2 `Client` (`@modelcontextprotocol/client`) as an app uses it, for
 * `mcp-wire gauntlet -- node sdk-v2.js [--negotiate]`: its default mode, or with `--negotiate`
 * its version-negotiating mode (`versionNegotiation: { mode: "auto" }`: server/discover first).
 * The library's `listTools()`, each gauntlet_ tool called once, then close.
 */
import { readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const argv = process.argv.slice(2);
const negotiate = argv.includes("--negotiate");
const client = new Client(
  { name: "sdk-v2-driver", version: "1.0.0" },
  negotiate ? { versionNegotiation: { mode: "auto" } } : undefined,
);
if (argv[0] === "--stdio") {
  const config = JSON.parse(readFileSync(argv[1]!, "utf8"));
  const server = Object.values(config.mcpServers)[0] as { command: string; args: string[] };
  await client.connect(new StdioClientTransport(server));
} else {
  await client.connect(new StreamableHTTPClientTransport(new URL(argv[argv.length - 1]!)));
}
try {
  const { tools } = await client.listTools();
  for (const tool of tools.filter((t) => t.name.startsWith("gauntlet_")))
    await client.callTool({ name: tool.name, arguments: {} }).catch(() => undefined);
} finally {
  await client.close();
}
