/**
 * `mcp-remote` as a bridge in front of the gauntlet, as a stdio-only host uses it: the official
 * SDK v1 `Client` over stdio starts `mcp-remote <url>`, which speaks HTTP to the gauntlet. What
 * the gauntlet scores is what mcp-remote sends. Its auth cache goes to a temporary folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const url = process.argv[process.argv.length - 1]!;
const proxy = join(createRequire(import.meta.url).resolve("mcp-remote/package.json"), "..", "dist", "proxy.js");
const home = mkdtempSync(join(tmpdir(), "gauntlet-mcp-remote-"));
const client = new Client({ name: "mcp-remote-bridge-driver", version: "1.0.0" });
try {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [proxy, url, "--allow-http"],
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: home },
      stderr: "ignore",
    }),
  );
  const { tools } = await client.listTools();
  for (const tool of tools.filter((t) => t.name.startsWith("gauntlet_")))
    await client.callTool({ name: tool.name, arguments: {} }).catch(() => undefined);
  await client.close();
} finally {
  rmSync(home, { recursive: true, force: true });
}
