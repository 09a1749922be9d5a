/**
 * A dual-era client whose probe gives up at once, for the gauntlet's tests: mcp-wire/client with
 * a 1 ms probe timeout, so `initialize` goes out beside `server/discover` before the server has
 * started, as a client on a busy machine does. It lists, calls each tool once, and closes.
 * `--stdio <config>` names the server, as for the model client.
 */
import { readFileSync } from "node:fs";
import { ChildServer, McpClient } from "../../entry/client.js";

const config = JSON.parse(readFileSync(process.argv[3]!, "utf8")) as {
  mcpServers: Record<string, { command: string; args?: string[] }>;
};
const server = Object.values(config.mcpServers)[0]!;
const child = new ChildServer(server.command, server.args ?? []);
const client = await McpClient.connect(() => child.transport, {
  clientInfo: { name: "eager-probe", version: "1.0.0" },
  probeTimeout: 1,
});
try {
  for (const tool of await client.listTools()) await client.callTool(tool.name, {}).catch(() => undefined);
} finally {
  await client.close().catch(() => undefined);
  await child.shutdown(2000);
}
