/**
 * The AI SDK's MCP client (`@ai-sdk/mcp`) as its docs show it, for
 * `mcp-wire gauntlet -- node ai-sdk.js`: `createMCPClient`, the tool set from `tools()`, each
 * gauntlet_ tool executed once, then close.
 */
import { readFileSync } from "node:fs";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";

const argv = process.argv.slice(2);
let transport;
if (argv[0] === "--stdio") {
  const config = JSON.parse(readFileSync(argv[1]!, "utf8"));
  const server = Object.values(config.mcpServers)[0] as { command: string; args: string[] };
  transport = new Experimental_StdioMCPTransport(server);
} else {
  transport = { type: "http" as const, url: argv[argv.length - 1]! };
}
const client = await createMCPClient({ transport });
try {
  const tools = await client.tools();
  for (const [name, tool] of Object.entries(tools)) {
    if (!name.startsWith("gauntlet_")) continue;
    await Promise.resolve(tool.execute?.({}, { toolCallId: name, messages: [] })).catch(() => undefined);
  }
} finally {
  await client.close();
}
