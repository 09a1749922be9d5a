/**
 * The official SDK v1 `Client` as an app uses it, for `mcp-wire gauntlet -- node sdk-v1.js`:
 * Streamable HTTP (HTTP+SSE when that is refused, as the SDK's docs show), the library's
 * `listTools()`, each gauntlet_ tool called once, then close. `--stdio` takes the mcp.json path.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const client = new Client({ name: "sdk-v1-driver", version: "1.0.0" });
if (argv[0] === "--stdio") {
  const config = JSON.parse(readFileSync(argv[1]!, "utf8"));
  const server = Object.values(config.mcpServers)[0] as { command: string; args: string[] };
  await client.connect(new StdioClientTransport(server));
} else if (argv[0] === "--sse") {
  await client.connect(new SSEClientTransport(new URL(argv[argv.length - 1]!)));
} else {
  const url = new URL(argv[argv.length - 1]!);
  try {
    await client.connect(new StreamableHTTPClientTransport(url));
  } catch {
    await client.connect(new SSEClientTransport(url));
  }
}
try {
  const { tools } = await client.listTools();
  for (const tool of tools.filter((t) => t.name.startsWith("gauntlet_")))
    await client.callTool({ name: tool.name, arguments: {} }).catch(() => undefined);
} finally {
  await client.close();
}
