/**
 * A client that gives up on a long call, for the gauntlet's tests: mcp-wire/client with a 1.5 s
 * timeout on its tool calls and no progress asked for, so a slow tool's call times out and is
 * cancelled the way the revision says (2026-07-28 over HTTP: its stream is closed; before:
 * notifications/cancelled). Only the calls are impatient: an opening or a listing that a busy
 * machine slows past 1.5 s must not leave the scenario without the call it is about.
 * The URL is its last argument.
 */
import { connectHttp } from "../../entry/client.js";

const { client } = await connectHttp(process.argv[process.argv.length - 1]!, {
  clientInfo: { name: "impatient", version: "1.0.0" },
  fresh: true,
});
try {
  for (const tool of await client.listTools())
    await client.callTool(tool.name, {}, { progress: false, timeout: 1500 }).catch(() => undefined);
} finally {
  await client.close().catch(() => undefined);
}
