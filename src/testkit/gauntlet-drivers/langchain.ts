/**
 * LangChain's MCP adapters (`@langchain/mcp-adapters`) as their docs show them, for
 * `mcp-wire gauntlet -- node langchain.js`: a `MultiServerMCPClient`, `getTools()`, each
 * gauntlet_ tool invoked once, then close.
 */
import { readFileSync } from "node:fs";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const argv = process.argv.slice(2);
const server =
  argv[0] === "--stdio"
    ? {
        transport: "stdio" as const,
        ...(Object.values(JSON.parse(readFileSync(argv[1]!, "utf8")).mcpServers)[0] as {
          command: string;
          args: string[];
        }),
      }
    : { transport: "http" as const, url: argv[argv.length - 1]! };
const client = new MultiServerMCPClient({ mcpServers: { gauntlet: server } });
try {
  const tools = await client.getTools();
  for (const tool of tools.filter((t) => t.name.includes("gauntlet_"))) await tool.invoke({}).catch(() => undefined);
} finally {
  await client.close();
}
